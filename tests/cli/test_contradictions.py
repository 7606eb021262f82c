"""Confusing inputs get one plain line (#33 item 13): non-finite scores, an empty query,
contradictory flags, a declined prompt, a keyring that is not there."""

from __future__ import annotations

import pytest

from tests.conftest import Run, as_json


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_min_score_must_be_finite(cli: Run, value: str) -> None:
    cli("add", "a memory")
    result = cli("search", "memory", "--min-score", value)
    assert result.exit_code == 2 and "finite" in result.stderr


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_refused(cli: Run, query: str) -> None:
    cli("add", "a memory")
    result = cli("search", "--", query)
    assert result.exit_code == 2 and "query is empty" in result.stderr


def test_pin_and_unpin_together_are_refused(cli: Run) -> None:
    cli("add", "a memory")
    result = cli("update", "1", "--pin", "--unpin")
    assert result.exit_code == 2 and "not both" in result.stderr
    assert as_json(cli("update", "1", "--pin", "--json"))["pinned"] is True
    assert as_json(cli("update", "1", "--unpin", "--json"))["pinned"] is False


def test_a_damaged_search_index_says_what_to_do(cli: Run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    db = tmp_path / "damaged.db"
    assert cli("add", "otters hold hands", "--db", str(db), db=False).exit_code == 0
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE memories_fts_config")
    conn.commit()
    conn.close()
    result = cli("search", "otters", "--db", str(db), db=False)
    assert result.exit_code == 1 and "search index" in result.stderr
    assert "zeromem export" in result.stderr and len(result.stderr.splitlines()) == 1
    backup = tmp_path / "backup.jsonl"
    assert cli("export", "-o", str(backup), "--db", str(db), db=False).exit_code == 0
    fresh = tmp_path / "fresh.db"
    assert cli("import", str(backup), "--db", str(fresh), db=False).exit_code == 0
    found = as_json(cli("search", "otters", "--json", "--db", str(fresh), db=False))
    assert [m["content"] for m in found] == ["otters hold hands"]


def test_declining_forget_says_nothing_changed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A real terminal (script(1)) answers the prompt "n"."""
    import shutil
    import subprocess
    import sys

    if shutil.which("script") is None:
        pytest.skip("needs script(1) for a terminal")
    db = tmp_path / "m.db"
    zeromem = f"{sys.executable} -m zeromem_cli"
    subprocess.run([*zeromem.split(), "add", "a memory", "--db", str(db)], check=True)
    done = subprocess.run(
        ["script", "-qec", f"{zeromem} forget 1 --db {db}", "/dev/null"],
        input="n\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "declined: nothing changed" in done.stdout  # the terminal's output
    listed = subprocess.run(
        [*zeromem.split(), "list", "--db", str(db)], capture_output=True, text=True
    )
    assert "a memory" in listed.stdout
