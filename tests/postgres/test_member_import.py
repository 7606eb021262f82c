"""A member moves a personal store into a team store: row-level security hides the other
members' rows (and their ids), so the database hands out the new memories' ids; the owner's
import keeps the ids an export gave (``test_cli.py``: the exact round trip)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")

from tests.conftest import Run  # noqa: E402
from tests.postgres.conftest import Team, _roles  # noqa: E402


def _contents(cli: Run, url: str) -> list[str]:
    listed = cli("list", "--db", url, "--format", "plain", db=False)
    assert listed.exit_code == 0, listed.stderr
    return sorted(line.rsplit("\t", 1)[-1] for line in listed.stdout.splitlines())


def test_a_member_imports_a_personal_store_beside_the_others(
    cli: Run, team: Team, tmp_path: Path
) -> None:
    roles = _roles(team)
    bob, alice = team.url(roles["bob"]), team.url(roles["alice"])
    for text in ("bob one", "bob two", "bob three"):
        assert cli("add", text, "--db", bob, db=False).exit_code == 0
    personal = str(tmp_path / "alice.db")
    for text in ("alice one", "alice two"):  # ids 1 and 2, as bob's first two
        assert cli("add", text, "--db", personal, db=False).exit_code == 0
    exported = cli("export", "--db", personal, db=False)
    moved = cli("import", "-", "--db", alice, db=False, input=exported.stdout)
    assert moved.exit_code == 0, moved.stderr
    assert _contents(cli, alice) == ["alice one", "alice two"]
    again = cli("import", "-", "--db", alice, db=False, input=exported.stdout)
    assert again.exit_code == 0, again.stderr  # the same uids: nothing added twice
    assert _contents(cli, alice) == ["alice one", "alice two"]
    assert cli("add", "bob four", "--db", bob, db=False).exit_code == 0  # ids still free
    assert cli("add", "alice three", "--db", alice, db=False).exit_code == 0
    assert _contents(cli, bob) == ["bob four", "bob one", "bob three", "bob two"]
    with team.raw(roles["owner"]) as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM memories ORDER BY id")]
    assert len(ids) == len(set(ids)) == 7
