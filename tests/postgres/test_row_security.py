"""A team store keeps users apart in the database itself: each member connects as its own
role, and row-level security decides what it sees, checked here with raw SQL as each role
(bypassing zeromem), and through zeromem. The owner set the store up with
``zeromem admin init-postgres URL --member ROLE``."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Run
from zeromem_cli import MemoryStore
from zeromem_cli.errors import NotFoundError, StoreError

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")
from tests.postgres.conftest import Team, _roles  # noqa: E402


def test_each_member_writes_as_itself_and_sees_only_its_own_rows(team: Team) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["alice"])) as alice:
        mine = alice.add("alice prefers green tea")
        assert mine.user == r["alice"]  # the user scope comes from the connection
    with MemoryStore(team.url(r["bob"])) as bob:
        bobs = bob.add("bob prefers black coffee", key="drink")
        assert [m.id for m in bob.search("prefers")] == [bobs.id]  # not alice's
        with pytest.raises(NotFoundError):
            bob.get(mine.id)
    with MemoryStore(team.url(r["owner"]), user=r["bob"]) as owner_view:
        assert [m.id for m in owner_view.list()] == [bobs.id]  # the owner sees every scope


def test_raw_sql_as_alice_cannot_read_change_or_delete_bobs_rows(team: Team) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["bob"])) as bob:
        secret = bob.add("bob's salary is 5000")
        bob.update(secret.id, content="bob's salary is 6000")  # a history row too
    with team.raw(r["alice"]) as alice:
        assert alice.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
        assert alice.execute("SELECT count(*) FROM memory_history").fetchone()[0] == 0
        changed = alice.execute(
            "UPDATE memories SET content = 'hacked' WHERE id = %s", (secret.id,)
        ).rowcount
        deleted = alice.execute("DELETE FROM memories WHERE id = %s", (secret.id,)).rowcount
        assert (changed, deleted) == (0, 0)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # not as another user
            alice.execute(
                'INSERT INTO memories (uid, content, content_hash, "user", created_at, '
                "updated_at) VALUES ('\\x00'::bytea, 'x', 1, %s, 'now', 'now')",
                (r["bob"],),
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # nor hand a row over
            alice.execute('UPDATE memories SET "user" = %s', (r["bob"],))
            alice.execute("INSERT INTO memories (uid, content, content_hash, \"user\", "
                          "created_at, updated_at) VALUES ('\\x01'::bytea, 'x', 1, %s, "
                          "'now', 'now') RETURNING id", (r["alice"],))  # fmt: skip
            alice.execute('UPDATE memories SET "user" = %s', (r["bob"],))
    with team.raw(r["bob"]) as bob_sql:
        row = bob_sql.execute("SELECT content FROM memories WHERE id = %s", (secret.id,))
        assert row.fetchone()[0] == "bob's salary is 6000"
        assert bob_sql.execute("SELECT count(*) FROM memory_history").fetchone()[0] == 1


def test_projects_and_sessions_under_row_security(team: Team) -> None:
    """The scope model on a team store: a member's later session recalls its earlier one in
    the same project, never another project's; another member sees none of it, through
    zeromem or raw SQL (the policies key on the role, the scope clause on user and project)."""
    r = _roles(team)
    with MemoryStore(team.url(r["alice"]), project="atlas", session="monday") as monday:
        plan = monday.add("atlas ships the billing migration on the 14th")
    with MemoryStore(team.url(r["alice"]), project="zephyr") as zephyr:
        zephyr.add("zephyr is paused until spring")
    with MemoryStore(team.url(r["alice"]), project="atlas", session="tuesday") as tuesday:
        assert [m.id for m in tuesday.search("when does billing ship")] == [plan.id]
        assert tuesday.search("zephyr paused") == []
        assert tuesday.resolve(plan.uid[:8]) == plan.id
    with MemoryStore(team.url(r["alice"]), project="atlas", session="x", isolate=True) as alone:
        assert alone.search("billing migration") == []
    with MemoryStore(team.url(r["bob"]), project="atlas") as bob:
        assert bob.search("billing migration") == []
    with MemoryStore(team.url(r["bob"]), user=r["alice"], project="atlas") as bob_as_alice:
        assert bob_as_alice.search("billing migration") == []  # the role decides, not --user
    with team.raw(r["bob"]) as bob_sql:
        assert bob_sql.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    with team.raw(r["alice"]) as alice_sql:
        rows = alice_sql.execute('SELECT "user", project FROM memories ORDER BY id').fetchall()
        assert rows == [(r["alice"], "atlas"), (r["alice"], "zephyr")]


def test_a_team_scope_is_readable_by_its_members_only(team: Team) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["owner"]), user=r["backend"]) as owner:
        note = owner.add("the backend deploys on Tuesdays")
    with MemoryStore(team.url(r["owner"])) as owner:
        everyone = owner.add("the office closes at 6pm")  # no user: shared with all
    with MemoryStore(team.url(r["alice"]), user=r["backend"]) as alice:
        assert [m.id for m in alice.search("backend deploys")] == [note.id]
        with pytest.raises(StoreError):  # readable, not writable
            alice.add("alice writes into the team scope")
    with team.raw(r["alice"]) as alice_sql:
        assert alice_sql.execute("UPDATE memories SET content = 'x'").rowcount == 0
    with MemoryStore(team.url(r["bob"]), user=r["backend"]) as bob:
        assert bob.search("backend deploys") == []
    with MemoryStore(team.url(r["bob"])) as bob_own:
        shared = bob_own.scoped(user=None)  # the store-wide scope, named explicitly
        assert [m.id for m in shared.search("office closes")] == [everyone.id]
        assert [m.id for m in shared.pack("office").memories] == [everyone.id]
        # the scope model: inherit adds the user's own project-less memories, never another
        # user's (the unscoped ones included), on a team store as on a file
        assert bob_own.pack("office", inherit=True).memories == []


def test_a_member_naming_another_user_gets_one_line_not_their_rows(team: Team, cli: Run) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["bob"])) as bob:
        bob.add("bob's plan for Friday")
    result = cli("search", "plan", "--db", team.url(r["alice"]), "--user", r["bob"], db=False)
    assert result.exit_code == 0 and result.stdout == ""
    result = cli("add", "a forged memory", "--db", team.url(r["alice"]), "--user", r["bob"],
                 db=False)  # fmt: skip
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    assert "permission denied" in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_member_runs_gc_on_its_own_rows_and_vacuum_is_the_owners(team: Team, cli: Run) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["bob"])) as bob:
        bob.add("bob's old note")
    alice_url = team.url(r["alice"])
    assert cli("add", "alice's note", "--db", alice_url, db=False).exit_code == 0
    gc = cli("gc", "--db", alice_url, db=False)
    assert gc.exit_code == 0, gc.stderr
    vacuum = cli("gc", "--vacuum", "--db", alice_url, db=False)
    assert vacuum.exit_code == 1 and "owner" in vacuum.stderr
    assert cli("gc", "--vacuum", "--db", team.url(r["owner"]), db=False).exit_code == 0
    with MemoryStore(team.url(r["bob"])) as bob:
        assert [m.content for m in bob.list()] == ["bob's old note"]


def test_init_says_when_members_cannot_use_the_search_index(team: Team, cli: Run) -> None:
    # PostgreSQL does not mark the text-search match leakproof, so row-level security keeps a
    # member's searches off the index: init says so, with the statement a superuser may run.
    owner = team.url(_roles(team)["owner"])
    with team.raw(_roles(team)["owner"]) as conn:
        leakproof = conn.execute(
            "SELECT proleakproof FROM pg_proc "
            "WHERE oid = 'ts_match_vq(tsvector, tsquery)'::regprocedure"
        ).fetchone()[0]
    result = cli("admin", "init-postgres", owner, db=False)
    assert result.exit_code == 0, result.stderr
    noted = "ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF" in result.stderr
    assert noted == (not leakproof)
    shown = cli("admin", "init-postgres", owner, "--json", db=False)
    assert json.loads(shown.stdout)["members_use_the_index"] == leakproof


# -- history and the operations log (#33): as strict as the memories --------------------------

_FORGE_HISTORY = (
    "INSERT INTO memory_history (memory_id, content, category, tags, importance, pinned, meta, "
    "valid_from, valid_to, change) VALUES (%s, 'forged', 'general', '[]', 5, 0, '{}', "
    "'2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z', 'update')"
)


def test_a_member_cannot_forge_or_delete_the_history_of_shared_rows(team: Team, cli: Run) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["owner"])) as owner:
        everyone = owner.add("the office opens at 9")
        owner.update(everyone.id, content="the office opens at 8")
    with MemoryStore(team.url(r["owner"]), user=r["backend"]) as owner_team:
        team_note = owner_team.add("backend deploys on Tuesdays")
        owner_team.update(team_note.id, content="backend deploys on Wednesdays")
    for shared in (everyone.id, team_note.id):
        with team.raw(r["alice"]) as alice:
            # she reads the shared rows' history, as she reads the rows...
            assert (
                alice.execute(
                    "SELECT count(*) FROM memory_history WHERE memory_id = %s", (shared,)
                ).fetchone()[0]
                == 1
            )
            # ...and cannot change, delete or add to it
            assert (
                alice.execute(
                    "UPDATE memory_history SET content = 'forged' WHERE memory_id = %s", (shared,)
                ).rowcount
                == 0
            )
            assert (
                alice.execute("DELETE FROM memory_history WHERE memory_id = %s", (shared,)).rowcount
                == 0
            )
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                alice.execute(_FORGE_HISTORY, (shared,))
    with MemoryStore(team.url(r["alice"])) as alice_store:  # her own history she writes
        mine = alice_store.add("alice's desk is by the window")
        alice_store.update(mine.id, content="alice's desk is by the door")
    with team.raw(r["alice"]) as alice:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # nor move hers onto theirs
            alice.execute(
                "UPDATE memory_history SET memory_id = %s WHERE memory_id = %s",
                (everyone.id, mine.id),
            )
        assert (
            alice.execute(
                "UPDATE memory_history SET content = content WHERE memory_id = %s", (mine.id,)
            ).rowcount
            == 1
        )
    shown = cli("history", str(everyone.id), "--json", "--db", team.url(r["owner"]), db=False)
    assert shown.exit_code == 0, shown.stderr
    contents = [v["content"] for v in json.loads(shown.stdout)]
    assert "forged" not in contents and "the office opens at 9" in contents


def test_a_member_reads_and_trims_only_its_own_operations(team: Team, cli: Run) -> None:
    r = _roles(team)
    bob_url, alice_url = team.url(r["bob"]), team.url(r["alice"])
    assert cli("add", "bob's note on the quarterly plan", "--db", bob_url, db=False).exit_code == 0
    assert cli("search", "quarterly plan", "--db", bob_url, db=False).exit_code == 0
    assert cli("search", "anything at all", "--db", alice_url, db=False).exit_code == 0
    with team.raw(r["alice"]) as alice_sql:
        users = {row[0] for row in alice_sql.execute('SELECT "user" FROM operations_log')}
        assert users == {r["alice"]}
        alice_sql.execute("DELETE FROM operations_log")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            alice_sql.execute(
                "INSERT INTO operations_log (at, op, \"user\") VALUES ('now', 'add', %s)",
                (r["bob"],),
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            alice_sql.execute('UPDATE operations_log SET "user" = %s', (r["bob"],))
            alice_sql.execute("INSERT INTO operations_log (at, op) VALUES ('now', 'add')")
            alice_sql.execute('UPDATE operations_log SET "user" = %s', (r["bob"],))
    with team.raw(r["bob"]) as bob_sql:
        ops = {row[0] for row in bob_sql.execute("SELECT op FROM operations_log")}
        assert {"add", "search"} <= ops
    with MemoryStore(team.url(r["bob"])) as bob:  # what stats counts: bob's own operations
        assert {"add", "search"} <= set(bob.operations())


def test_what_postgres_itself_tells_a_member_about_other_rows(team: Team) -> None:
    """docs/team-store-security.md: counts and sizes leak, contents and statistics do not."""
    r = _roles(team)
    with MemoryStore(team.url(r["bob"])) as bob:
        for n in range(20):
            bob.add(f"bob's private note number {n} about the zanzibar merger")
    with team.raw(r["owner"]) as owner_sql:
        owner_sql.execute("ANALYZE memories")
    with team.raw(r["alice"]) as alice:
        assert alice.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
        # the planner's statistics of values are hidden under row security...
        assert (
            alice.execute("SELECT count(*) FROM pg_stats WHERE tablename = 'memories'").fetchone()[
                0
            ]
            == 0
        )
        # ...but table-wide counts are not: the catalogue's estimate, EXPLAIN's, the
        # BM25 totals and the id sequence all say how much the others stored
        assert (
            alice.execute(
                "SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass"
            ).fetchone()[0]
            == 20
        )
        assert alice.execute("SELECT sum(rows) FROM fts_totals").fetchone()[0] == 20
        plan = alice.execute("EXPLAIN SELECT * FROM memories").fetchone()[0]
        assert "rows=" in plan
        assert (
            alice.execute(
                "SELECT pg_sequence_last_value(pg_get_serial_sequence('memories', 'id')::regclass)"
            ).fetchone()[0]
            == 20
        )
        # no word of another member's text reaches her, through search or the index
        assert (
            alice.execute(
                "SELECT count(*) FROM memories WHERE fts @@ 'zanzibar'::tsquery"
            ).fetchone()[0]
            == 0
        )
