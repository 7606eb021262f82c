"""Durations on every face (#33): units are case-sensitive, `M` alone is refused with what to
write, months and years are calendar steps, and ISO-8601 durations are read. The CLI options,
the config value, the environment and an MCP argument all go through ``zeromem_cli.times``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore
from zeromem_cli.times import to_iso

NOW = datetime.now(timezone.utc)


def _old_and_new(db_path: Path) -> None:
    """One memory an hour old, one eight months old."""
    with MemoryStore(db_path, clock=lambda: NOW - timedelta(days=240)) as store:
        store.add("the eight month old note about otters")
    with MemoryStore(db_path, clock=lambda: NOW - timedelta(hours=1)) as store:
        store.add("the fresh note about otters")


@pytest.mark.parametrize(
    "argv",
    [
        ("add", "a note", "--ttl", "6M"),
        ("config", "set", "add.default_ttl", "3M"),
        ("forget", "--before", "6M", "--purge", "--yes"),
        ("search", "otters", "--since", "1M"),
        ("search", "otters", "--until", "2M"),
    ],
)
def test_a_capital_m_is_refused_on_every_option(
    cli: Run, db_path: Path, argv: tuple[str, ...]
) -> None:
    _old_and_new(db_path)
    result = cli(*argv, db=argv[0] != "config")
    assert result.exit_code != 0
    assert "ambiguous unit 'M'" in result.stderr and "mo for months" in result.stderr
    assert "Traceback" not in result.output
    with MemoryStore(db_path) as store:  # nothing purged, nothing added
        assert len(store.list()) == 2


def test_forget_before_six_months_purges_only_the_old(cli: Run, db_path: Path) -> None:
    _old_and_new(db_path)
    for spelling in ("6mo", "P6M", "6 months"):
        assert cli("forget", "--before", spelling, "--dry-run").exit_code == 0, spelling
    assert cli("forget", "--before", "P6M", "--purge", "--yes").exit_code == 0
    remaining = as_json(cli("list", "--json"))
    assert [m["content"] for m in remaining] == ["the fresh note about otters"]


def test_search_since_months_and_years(cli: Run, db_path: Path) -> None:
    _old_and_new(db_path)
    assert len(as_json(cli("search", "otters", "--since", "1mo", "--json"))) == 1
    assert len(as_json(cli("search", "otters", "--since", "1y", "--json"))) == 2
    assert len(as_json(cli("search", "otters", "--since", "90min", "--json"))) == 1


def test_the_ttl_month_is_a_calendar_month(cli: Run, db_path: Path) -> None:
    added = as_json(cli("add", "renew the otter permit", "--ttl", "6mo", "--json"))
    expires = datetime.fromisoformat(added["expires_at"].replace("Z", "+00:00"))
    assert timedelta(days=180) <= expires - NOW <= timedelta(days=185)


def test_config_default_ttl_takes_the_same_grammar(cli: Run, db_path: Path) -> None:
    assert cli("config", "set", "add.default_ttl", "P1Y", db=False).exit_code == 0
    added = as_json(cli("add", "yearly otter census", "--json"))
    assert added["expires_at"] >= to_iso(NOW + timedelta(days=364))
    bad = cli("config", "set", "add.default_ttl", "90D", db=False)
    assert bad.exit_code != 0 and "write 90d" in bad.stderr


def test_an_environment_default_ttl_in_m_is_refused(
    cli: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_ADD_DEFAULT_TTL", "3M")
    result = cli("add", "an otter fact")
    assert result.exit_code != 0 and "ambiguous unit 'M'" in result.stderr


def test_an_mcp_argument_takes_the_same_grammar(db_path: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from tests.mcp.helpers import McpClient

    _old_and_new(db_path)
    with McpClient(db_path, home=tmp_path / "home") as client:
        assert "ambiguous unit 'M'" in client.error("memory_search", query="otters", since="6M")
        assert "ambiguous unit 'M'" in client.error("memory_save", text="otter", ttl="6M")
        assert client.ok("memory_search", query="otters", since="P1M")["count"] == 1
