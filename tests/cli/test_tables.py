"""Tables a person reads (issue 15, part B): at 40 columns the content is still shown (other
columns shrink or go first), times are local with the zone in the header while plain and JSON
keep UTC, long content is cut with a marker in the table only, and `--since 2026-12-01` is a
local date. CliRunner with --format table; COLUMNS sets rich's width, TZ the zone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Run, as_json

LONG = "Weekly report goes out Fridays 17:00 and must include the staging numbers from db-2"


@pytest.fixture
def shanghai(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _words_shown(output: str) -> set[str]:
    return {word for line in output.splitlines() for word in line.replace("│", " ").split()}


@pytest.mark.parametrize("command", [["list"], ["search", "weekly report"], ["trash"]])
def test_at_40_columns_the_content_is_shown(
    cli: Run, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    cli("add", LONG, "-c", "preference", "-t", "report", "-t", "weekly-numbers")
    if command == ["trash"]:
        cli("forget", "1", "--yes")
    monkeypatch.setenv("COLUMNS", "40")
    result = cli(*command, "--format", "table")
    assert result.exit_code == 0, result.stderr
    assert all(len(line) <= 40 for line in result.stdout.splitlines())
    assert set(LONG.split()) <= _words_shown(result.stdout)  # every word of the content


def test_history_at_40_columns_shows_the_content(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    cli("add", "first text of the memory")
    cli("update", "1", LONG)
    monkeypatch.setenv("COLUMNS", "40")
    result = cli("history", "1", "--format", "table")
    assert set(LONG.split()) <= _words_shown(result.stdout)
    assert {"first", "text", "memory"} <= _words_shown(result.stdout)
    assert "change" in result.stdout.splitlines()[0]  # narrow columns are kept when they fit


def test_wide_tables_keep_every_column(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    cli("add", "tea is green", "-t", "drinks")
    monkeypatch.setenv("COLUMNS", "120")
    header = cli("list", "--format", "table").stdout.splitlines()[0]
    for name in ("id", "category", "content", "tags", "updated"):
        assert name in header


def test_tables_show_local_time_and_say_the_zone(
    cli: Run, monkeypatch: pytest.MonkeyPatch, shanghai: None
) -> None:
    cli("add", "tea is green")
    record = as_json(cli("show", "1", "--json"))
    stored = record["updated_at"]  # UTC ISO: ...Z
    assert stored.endswith("Z")
    monkeypatch.setenv("COLUMNS", "120")
    table = cli("list", "--format", "table").stdout
    from datetime import datetime, timedelta

    utc = datetime.strptime(stored, "%Y-%m-%dT%H:%M:%SZ")
    local = (utc + timedelta(hours=8)).strftime("%Y-%m-%d %H:%M")
    assert "updated (CST)" in table.splitlines()[0]
    assert local in table
    plain = cli("list", "--format", "plain").stdout
    assert plain.startswith("1\tgeneral\ttea is green")
    history = cli("history", "1", "--format", "plain").stdout
    assert stored in history  # plain keeps UTC ISO


def test_long_content_is_cut_in_tables_with_a_marker(
    cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "\n".join(f"line {number} of a long memory" for number in range(200))
    cli("add", "-", input=text)
    monkeypatch.setenv("COLUMNS", "100")
    table = cli("list", "--format", "table").stdout
    assert "line 7 of a long memory" in table and "line 8 of" not in table
    assert f"[+{len(text) - len(chr(10).join(text.split(chr(10))[:8]))} chars]" in table
    assert len(table.splitlines()) < 20
    plain = cli("list", "--format", "plain").stdout
    assert "line 199 of a long memory" in plain  # plain stays whole
    assert as_json(cli("show", "1", "--json"))["content"] == text


def test_many_tags_are_cut_in_tables(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    tags = [arg for number in range(20) for arg in ("-t", f"tag{number}")]
    cli("add", "tagged memory", *tags)
    monkeypatch.setenv("COLUMNS", "200")
    table = cli("list", "--format", "table").stdout
    assert "tag7" in table and "tag8" not in table and "[+12]" in table


def test_since_a_date_is_a_local_date(cli: Run, db_path: Path, shanghai: None) -> None:
    """2026-12-01 in Shanghai begins at 2026-11-30T16:00:00Z."""
    import sqlite3

    cli("add", "before local midnight")
    cli("add", "after local midnight")
    conn = sqlite3.connect(db_path)  # the creation times, set below the API

    conn.execute("UPDATE memories SET created_at = '2026-11-30T15:59:00Z' WHERE id = 1")
    conn.execute("UPDATE memories SET created_at = '2026-11-30T16:01:00Z' WHERE id = 2")
    conn.commit()
    conn.close()
    found = cli("search", "midnight", "--since", "2026-12-01", "--format", "ids").stdout.split()
    assert found == ["2"]
    before = cli("search", "midnight", "--until", "2026-12-01", "--format", "ids").stdout.split()
    assert before == ["1"]
    utc = cli("search", "midnight", "--since", "2026-12-01T00:00:00Z", "--format", "ids")
    assert utc.stdout.split() == []


def test_show_gives_times_in_the_local_zone_and_json_keeps_utc(
    cli: Run, db_path: Path, shanghai: None
) -> None:
    import sqlite3

    cli("add", "the staging database is db-2.internal")
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE memories SET created_at = '2026-11-30T16:01:02Z' WHERE id = 1")
    conn.commit()
    conn.close()
    pairs = [line.split(None, 1) for line in cli("show", "1").stdout.splitlines()]
    lines = {pair[0]: pair[1] for pair in pairs if len(pair) == 2}
    assert lines["created_at"] == "2026-12-01 00:01:02 CST"  # Shanghai is UTC+8
    assert as_json(cli("show", "1", "--json"))["created_at"] == "2026-11-30T16:01:02Z"
