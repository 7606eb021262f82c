"""The foundation commands end to end through the CLI on a real database file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run, as_json, stored
from zeromem_cli.models import MEMORY_FIELDS


def test_add_prints_the_new_id_alone(cli: Run) -> None:
    first = cli("add", "Weekly report goes out Fridays 17:00", "--category", "preference")
    second = cli("add", "The staging server is db-2")
    assert (first.exit_code, first.stdout, first.stderr) == (0, "1\n", "")
    assert second.stdout == "2\n"


def test_add_json_has_every_field_with_the_export_names(cli: Run) -> None:
    record = as_json(
        cli(
            "add",
            "Prefers dark mode",
            "-c",
            "preference",
            "-t",
            "ui",
            "-t",
            "editor",
            "-k",
            "theme",
            "--importance",
            "8",
            "--pin",
            "--meta",
            "source=chat",
            "--meta",
            "confidence=0.9",
            "--json",
        )
    )
    # The record under the export's names, between what became of the text and what is like it.
    assert list(record) == ["action", *MEMORY_FIELDS, "similar"]
    assert (record["action"], record["similar"]) == ("added", [])
    assert record["content"] == "Prefers dark mode"
    assert record["category"] == "preference"
    assert record["tags"] == ["ui", "editor"]
    assert record["key"] == "theme"
    assert record["importance"] == 8
    assert record["pinned"] is True
    assert record["meta"] == {"source": "chat", "confidence": 0.9}
    assert record["user"] is None and record["agent"] is None and record["session"] is None
    assert record["created_at"].endswith("Z") and record["expires_at"] is None
    assert len(record["uid"]) == 36


def test_add_reads_stdin_with_dash(cli: Run) -> None:
    added = cli("add", "-", input="周报发送时间改为每周五下午五点\n")
    assert added.exit_code == 0
    shown = as_json(cli("show", added.stdout.strip(), "--json"))
    assert shown["content"] == "周报发送时间改为每周五下午五点"


def test_invalid_utf8_on_stdin_is_rejected_and_nothing_stored(cli: Run) -> None:
    result = cli("add", "-", input=b"caf\xe9 au lait")
    assert result.exit_code == 2
    assert "not valid UTF-8" in result.stderr and "Traceback" not in result.stderr
    assert stored(cli) == []


@pytest.mark.parametrize("content", ["", "   ", "\n\t\n"])
def test_empty_content_is_a_usage_error(cli: Run, content: str) -> None:
    result = cli("add", content)
    assert result.exit_code == 2
    assert result.stderr.startswith("zeromem: error: content is empty")
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["--importance", "11"],
        ["--importance", "-1"],
        ["--ttl", "soon"],
        ["--ttl", "7x"],
        ["--ttl", "2001-01-01"],
        ["--meta", "novalue"],
        ["--meta", "=x"],
    ],
)
def test_bad_option_values_are_usage_errors(cli: Run, args: list[str]) -> None:
    result = cli("add", "some memory", *args)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith("zeromem: error: ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert stored(cli) == []


@pytest.mark.parametrize(
    "ttl", ["30s", "15m", "24h", "7d", "2w", "2099-01-31", "2099-01-31T08:00:00Z"]
)
def test_ttl_forms_set_an_expiry(cli: Run, ttl: str) -> None:
    record = as_json(cli("add", f"expiring {ttl}", "--ttl", ttl, "--json"))
    assert record["expires_at"] is not None and record["expires_at"] > record["created_at"]


def test_show_unknown_id_is_exit_1(cli: Run) -> None:
    cli("add", "the only memory")
    result = cli("show", "42")
    assert result.exit_code == 1
    assert result.stderr == "zeromem: error: no memory #42 in this scope\n"


def test_show_rejects_a_non_numeric_id(cli: Run) -> None:
    result = cli("show", "abc")
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr


def test_list_is_newest_first_with_limit_and_filters(cli: Run) -> None:
    for n in range(5):
        cli("add", f"memory number {n}", "-c", "even" if n % 2 == 0 else "odd", "-t", f"t{n}")
    cli("add", "tagged twice", "-t", "a", "-t", "b")
    listed = as_json(cli("list", "--json"))
    assert [m["id"] for m in listed] == [6, 5, 4, 3, 2, 1]
    assert [m["id"] for m in as_json(cli("list", "--limit", "2", "--json"))] == [6, 5]
    assert [m["id"] for m in as_json(cli("list", "-c", "even", "--json"))] == [5, 3, 1]
    assert [m["id"] for m in as_json(cli("list", "-t", "t3", "--json"))] == [4]
    assert [m["id"] for m in as_json(cli("list", "-t", "a", "-t", "b", "--json"))] == [6]
    assert as_json(cli("list", "-t", "a", "-t", "t3", "--json")) == []


def test_plain_output_when_piped_is_tab_separated(cli: Run) -> None:
    cli("add", "line one\nline two", "-c", "note")
    result = cli("list")
    assert result.stdout == "1\tnote\tline one ⏎ line two\n"
    assert cli("list", "--format", "ids").stdout == "1\n"
    jsonl = cli("list", "--format", "jsonl").stdout.splitlines()
    assert json.loads(jsonl[0])["content"] == "line one\nline two"


def test_table_format_renders_memory_text_literally(cli: Run) -> None:
    cli("add", "[red]not markup[/red]")
    result = cli("list", "--format", "table")
    assert result.exit_code == 0
    assert "[red]not markup[/red]" in result.stdout


def test_update_keeps_history(cli: Run) -> None:
    cli("add", "Standup at 9:30", "-c", "schedule")
    updated = as_json(cli("update", "1", "Standup at 10:00", "--importance", "7", "--json"))
    assert updated["content"] == "Standup at 10:00" and updated["importance"] == 7
    versions = as_json(cli("history", "1", "--json"))
    assert [v["content"] for v in versions] == ["Standup at 9:30", "Standup at 10:00"]
    assert versions[0]["valid_to"] == versions[1]["valid_from"]
    assert versions[1]["valid_to"] is None and versions[1]["change"] == "current"


def test_update_options_without_text(cli: Run) -> None:
    cli("add", "Uses vim", "-t", "editor", "--meta", "source=chat")
    record = as_json(
        cli(
            "update",
            "1",
            "-c",
            "preference",
            "-t",
            "tools",
            "--pin",
            "--meta",
            "source=",
            "--meta",
            "verified=true",
            "--json",
        )
    )
    assert record["category"] == "preference" and record["tags"] == ["tools"]
    assert record["pinned"] is True and record["meta"] == {"verified": True}
    assert as_json(cli("update", "1", "--clear-tags", "--unpin", "--json"))["tags"] == []


def test_update_with_nothing_to_change_is_a_usage_error(cli: Run) -> None:
    cli("add", "x marks the spot")
    assert cli("update", "1").exit_code == 2


def test_update_unknown_id_is_exit_1(cli: Run) -> None:
    assert cli("update", "9", "text").exit_code == 1


def test_forget_refuses_without_yes_when_not_a_terminal(cli: Run) -> None:
    cli("add", "keep me")
    result = cli("forget", "1")
    assert result.exit_code == 2
    assert "--yes" in result.stderr
    assert as_json(cli("show", "1", "--json"))["deleted_at"] is None


def test_forget_hides_everywhere_and_restore_brings_back(cli: Run) -> None:
    cli("add", "secret plan alpha")
    cli("add", "another memory")
    forgotten = cli("forget", "1", "--yes")
    assert forgotten.exit_code == 0 and "forgot 1 memory" in forgotten.stderr
    assert cli("show", "1").exit_code == 1
    assert as_json(cli("search", "secret plan", "--json")) == []
    assert [m["id"] for m in as_json(cli("list", "--json"))] == [2]
    restored = cli("restore", "1")
    assert restored.exit_code == 0 and restored.stdout == "1\n"
    assert [m["id"] for m in as_json(cli("search", "secret plan", "--json"))] == [1]


def test_forget_with_an_unknown_id_forgets_nothing(cli: Run) -> None:
    cli("add", "one")
    assert cli("forget", "1", "7", "--yes").exit_code == 1
    assert as_json(cli("show", "1", "--json"))["id"] == 1


def test_restore_of_a_live_memory_is_an_error(cli: Run) -> None:
    cli("add", "alive")
    assert cli("restore", "1").exit_code == 1


def test_search_finds_and_reports_scores(cli: Run) -> None:
    cli("add", "Weekly report goes out Fridays 17:00", "-c", "preference")
    cli("add", "Lunch with Sam on Tuesday")
    hits = as_json(cli("search", "weekly report", "--json"))
    assert [h["id"] for h in hits] == [1]
    assert hits[0]["score"] > 0
    assert cli("search", "nothing like this").stdout == ""
    assert as_json(cli("search", "nothing like this", "--json")) == []


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "'",
        '"unbalanced',
        "AND",
        "OR NOT",
        "NEAR(",
        "NEAR(a b",
        "*",
        "-x",
        "col:val",
        "content:secret",
        "a^b",
        "'; DROP TABLE memories; --",
        "1=1 OR",
        "{content tags}: x",
        "(((",
        "🙂",
        "\x00",
        "report*",
        "+",
    ],
)
def test_hostile_search_strings_return_cleanly(cli: Run, query: str) -> None:
    cli("add", "Weekly report goes out Fridays 17:00")
    result = cli("search", "--json", "--", query)
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), list)
    assert as_json(cli("show", "1", "--json"))["content"] == "Weekly report goes out Fridays 17:00"


def test_malformed_fts_expression_is_a_usage_error(cli: Run) -> None:
    cli("add", "alpha beta")
    result = cli("search", "alpha AND (", "--fts")
    assert result.exit_code == 2
    assert result.stderr.startswith("zeromem: error: invalid FTS5 expression")
    assert [h["id"] for h in as_json(cli("search", "alpha AND beta", "--fts", "--json"))] == [1]


def test_scope_isolation_on_every_command(cli: Run) -> None:
    alice = cli("add", "Alice likes tea", "--user", "alice")
    cli("add", "Bob likes coffee", "--user", "bob")
    cli("add", "Agent scratch note", "--user", "alice", "--agent", "coder")
    assert alice.stdout == "1\n"
    # alice's agents are hers: her scope reads them (--isolate: only her own exact scope).
    assert [m["content"] for m in as_json(cli("list", "--user", "alice", "--json"))] == [
        "Agent scratch note",
        "Alice likes tea",
    ]
    isolated = as_json(cli("list", "--user", "alice", "--isolate", "--json"))
    assert [m["content"] for m in isolated] == ["Alice likes tea"]
    assert as_json(cli("search", "likes", "--user", "bob", "--json"))[0]["content"] == (
        "Bob likes coffee"
    )
    assert stored(cli) == []  # the unscoped view sees none of them
    assert cli("show", "1", "--user", "bob").exit_code == 1
    assert cli("update", "1", "hijack", "--user", "bob").exit_code == 1
    assert cli("forget", "1", "--yes", "--user", "bob").exit_code == 1
    assert cli("history", "1", "--user", "bob").exit_code == 1
    assert as_json(cli("show", "1", "--user", "alice", "--json"))["user"] == "alice"
    coder = ("--user", "alice", "--agent", "coder", "--isolate", "--json")
    assert [m["id"] for m in as_json(cli("list", *coder))] == [3]


def test_scope_from_environment(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZEROMEM_USER", "carol")
    cli("add", "Carol's memory")
    monkeypatch.delenv("ZEROMEM_USER")
    assert stored(cli) == []
    assert len(as_json(cli("list", "--user", "carol", "--json"))) == 1


def test_default_database_lives_under_zeromem_home(cli: Run, isolated_home: Path) -> None:
    result = cli("add", "where do I live?", db=False)
    assert result.exit_code == 0
    assert (isolated_home / "memories.db").is_file()


def test_zeromem_db_env_picks_the_file(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "elsewhere" / "mine.db"
    monkeypatch.setenv("ZEROMEM_DB", str(target))
    assert cli("add", "env db", db=False).exit_code == 0
    assert target.is_file()


def test_usage_errors_are_one_line_exit_2(cli: Run) -> None:
    result = cli("add", "x", "--no-such-option")
    assert result.exit_code == 2
    assert result.stderr.startswith("zeromem: error: No such option: --no-such-option")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "╭" not in result.stderr


def test_no_arguments_is_a_usage_error_with_the_help_on_stderr(cli: Run) -> None:
    """Click's convention for a group called without a command: usage on stderr, exit 2
    (a script that forgot its command must not read success); --help is still 0 on stdout."""
    result = cli(db=False)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Commands" in result.stderr and "Usage:" in result.stderr
    config = cli("config", db=False)
    assert config.exit_code == 2 and config.stdout == "" and "Usage:" in config.stderr
    asked = cli("--help", db=False)
    assert asked.exit_code == 0 and "Commands" in asked.stdout and asked.stderr == ""


def test_version(cli: Run) -> None:
    result = cli("--version", db=False)
    assert result.exit_code == 0 and result.stdout.startswith("zeromem ")


def test_python_dash_m_runs_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    added = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "add", "hello from -m", "--db", str(db)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert added.returncode == 0 and added.stdout == "1\n", added.stderr
    found = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "search", "hello", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert json.loads(found.stdout)[0]["content"] == "hello from -m"


def test_cli_import_does_not_load_rich_or_sqlite_utils() -> None:
    code = (
        "import sys, zeromem_cli.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'sqlite_utils')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
