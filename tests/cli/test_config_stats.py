"""config, path and stats through the CLI on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run, as_json


def test_config_set_get_unset_and_file(cli: Run, isolated_home: Path) -> None:
    assert cli("config", "get", "search.limit", db=False).stdout == "10\n"
    result = cli("config", "set", "search.limit", "3", db=False)
    assert result.exit_code == 0 and "set search.limit = 3" in result.stderr
    assert "limit = 3" in (isolated_home / "config.toml").read_text()
    assert as_json(cli("config", "get", "search.limit", "--json", db=False)) == 3
    assert cli("config", "set", "log.enabled", "off", db=False).exit_code == 0
    assert cli("config", "get", "log.enabled", db=False).stdout == "false\n"
    listed = {i["key"]: i for i in as_json(cli("config", "list", "--json", db=False))}
    assert listed["search.limit"]["value"] == 3 and listed["search.limit"]["source"] == "file"
    assert listed["pack.budget"]["source"] == "default"
    assert listed["pack.budget"]["env"] == "ZEROMEM_PACK_BUDGET"
    plain = cli("config", "list", db=False).stdout.splitlines()
    assert "search.limit\t3\tfile" in plain
    assert cli("config", "unset", "search.limit", db=False).exit_code == 0
    assert cli("config", "get", "search.limit", db=False).stdout == "10\n"
    assert cli("config", "path", db=False).stdout == f"{isolated_home / 'config.toml'}\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("set", "search.limt", "3"), "unknown config key 'search.limt'"),
        (("set", "search.limit", "many"), "expected an integer"),
        (("set", "search.limit", "0"), "below 1"),
        (("set", "pack.tokenizer", "gpt2"), "not one of approx, o200k, cl100k"),
        (("set", "add.default_ttl", "soon"), "not a duration"),
        (("get", "nope"), "unknown config key"),
    ],
)
def test_config_rejects_bad_keys_and_values(cli: Run, args: tuple[str, ...], message: str) -> None:
    result = cli("config", *args, db=False)
    assert result.exit_code == 2 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_precedence_flags_env_file_default(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    for number in range(15):
        cli("add", f"report number {number}")

    def hits(*extra: str) -> int:
        return len(as_json(cli("search", "report", "--json", *extra)))

    assert hits() == 10  # default
    cli("config", "set", "search.limit", "4", db=False)
    assert hits() == 4  # file
    monkeypatch.setenv("ZEROMEM_SEARCH_LIMIT", "6")
    assert hits() == 6  # environment over file
    listed = {e["key"]: e for e in as_json(cli("config", "list", "--json", db=False))}
    assert listed["search.limit"]["source"] == "env"
    assert hits("--limit", "2") == 2  # flag over everything
    # The same for a default used by add.
    cli("config", "set", "add.default_category", "note", db=False)
    assert as_json(cli("add", "a", "--json"))["category"] == "note"
    monkeypatch.setenv("ZEROMEM_ADD_DEFAULT_CATEGORY", "envcat")
    assert as_json(cli("add", "b", "--json"))["category"] == "envcat"
    assert as_json(cli("add", "c", "-c", "flag", "--json"))["category"] == "flag"


def test_bad_environment_value_is_a_clear_error(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZEROMEM_SEARCH_LIMIT", "lots")
    result = cli("search", "x")
    assert result.exit_code == 1
    assert "search.limit from ZEROMEM_SEARCH_LIMIT: expected an integer" in result.stderr


def test_path_prints_database_and_config(cli: Run, db_path: Path, isolated_home: Path) -> None:
    assert as_json(cli("path", "--json")) == {
        "database": str(db_path),
        "config": str(isolated_home / "config.toml"),
    }
    default = cli("path", db=False).stdout.splitlines()
    assert default[0] == f"database\t{isolated_home / 'memories.db'}"
    assert not (isolated_home / "memories.db").exists()  # path never opens the database


def test_stats_counts(cli: Run) -> None:
    cli("add", "Alpha fact", "-c", "fact", "-k", "a", "--pin")
    cli("add", "Beta fact", "-c", "fact")
    cli("add", "Gamma pref", "-c", "preference")
    expired = '{"content": "Delta gone", "expires_at": "2000-01-01T00:00:00Z"}\n'
    assert cli("import", "-", input=expired).exit_code == 0
    cli("add", "Epsilon trash")
    cli("forget", "5", "--yes")
    cli("add", "Alice only", "--user", "alice")
    cli("search", "fact")
    data = as_json(cli("stats", "--json"))
    assert data["memories"] == {"live": 3, "expired": 1, "trash": 1, "pinned": 1, "with_keys": 1}
    assert data["by_category"] == {"fact": 2, "preference": 1}
    assert data["by_scope"] == [
        {"user": None, "agent": None, "session": None, "project": None, "live": 3}
    ]
    assert data["database_bytes"] > 0 and data["tokens"]["stored"] > 0
    assert data["operations"]["add"] == 5 and data["operations"]["search"] == 1
    assert data["operations"]["import"] == 1 and data["operations"]["forget"] == 1
    assert data["tokens"]["pack_average"] is None
    everything = as_json(cli("stats", "--all-scopes", "--json"))
    assert everything["memories"]["live"] == 4 and len(everything["by_scope"]) == 2
    plain = cli("stats").stdout
    assert "live\t3" in plain and "category fact\t2" in plain


def test_stats_reports_pack_savings_from_the_log(cli: Run, db_path: Path) -> None:
    from zeromem_cli import MemoryStore, StoreSettings

    for number in range(20):
        cli("add", f"A fairly long memory about topic number {number} and its details")
    with MemoryStore(db_path, settings=StoreSettings(log=True)) as store:
        for tokens in (40, 60):
            with store.operation("pack") as entry:
                entry.results, entry.tokens = 5, tokens
    tokens = as_json(cli("stats", "--json"))["tokens"]
    assert tokens["pack_runs"] == 2 and tokens["pack_average"] == 50.0
    assert 0 < tokens["pack_saving"] < 1
    assert tokens["pack_saving"] == pytest.approx(1 - 50 / tokens["stored"], abs=1e-4)


def test_log_can_be_turned_off_and_holds_no_content(cli: Run, db_path: Path) -> None:
    import sqlite3

    cli("add", "secret plan alpha")
    cli("config", "set", "log.enabled", "false", db=False)
    cli("add", "secret plan beta")
    cli("search", "secret")
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute("SELECT * FROM operations_log").fetchall()
    assert [r[2] for r in rows] == ["add"]
    assert "secret" not in json.dumps(rows)


def test_docs_config_table_matches_the_schema() -> None:
    from zeromem_cli.config import settings_markdown

    page = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    text = page.read_text(encoding="utf-8")
    start = text.index("<!-- config-keys:start -->\n") + len("<!-- config-keys:start -->\n")
    end = text.index("<!-- config-keys:end -->")
    assert text[start:end] == settings_markdown(), (
        "docs/configuration.md's config table is stale: paste "
        "zeromem_cli.config.settings_markdown() in"
    )
