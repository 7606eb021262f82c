"""The PostgreSQL schema migrates from every earlier version, keeping what is stored; two
processes opening a new store at once migrate it once; a role that may not create tables is
told who can, in one line."""

from __future__ import annotations

import threading

import pytest

from tests import pgcluster
from tests.postgres.conftest import Team, _roles
from zeromem_cli import MemoryStore, StoreSettings
from zeromem_cli.errors import StoreError

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")

from zeromem_cli.storage.postgres import db, index, migrations  # noqa: E402

REPORT = "the weekly report goes out on Fridays"


@pytest.mark.parametrize("version", range(1, migrations.LATEST_VERSION))
def test_every_earlier_version_migrates_and_keeps_its_memories(pg_url: str, version: int) -> None:
    conn = db.connect(pg_url)
    migrations.migrate(conn, upto=version)
    assert migrations.schema_version(conn) == version
    with conn.transaction():  # raw SQL: today's insert writes columns an old schema lacks
        conn.execute(
            "INSERT INTO memories (uid, content, content_hash, tags, created_at, updated_at, "
            "fts, fts_len) VALUES (%s, %s, 1, '[\"work\"]', %s, %s, %s::tsvector, %s)",
            (bytes(range(16)), REPORT, "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z",
             *index.vectors([{"content": REPORT, "tags": '["work"]', "category": "general",
                              "key": None}])[0]),
        )  # fmt: skip
    conn.close()
    with MemoryStore(pg_url) as store:
        assert migrations.schema_version(store.connection) == migrations.LATEST_VERSION
        assert [m.content for m in store.search("when does the weekly report go out")] == [
            "the weekly report goes out on Fridays"
        ]
        store.add("a second memory after the upgrade")
        totals = store.connection.execute(
            "SELECT (SELECT sum(rows) FROM fts_totals) AS n, (SELECT count(*) FROM memories) AS c"
        ).fetchone()
        assert totals["n"] == totals["c"] == 2


def test_migration_4_gives_existing_memories_no_project_and_keeps_their_owner(
    pg_url: str,
) -> None:
    conn = db.connect(pg_url)
    migrations.migrate(conn, upto=3)
    content = "alice keeps the on-call rota in the team calendar"
    fields = {"content": content, "tags": "[]", "category": "general", "key": "rota"}
    with conn.transaction():
        conn.execute(
            'INSERT INTO memories (uid, content, content_hash, key, "user", session, created_at, '
            "updated_at, fts, fts_len) VALUES (%s, %s, 1, 'rota', 'alice', 'old', %s, %s, "
            "%s::tsvector, %s)",
            (bytes(range(16)), content, "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z",
             *index.vectors([fields])[0]),
        )  # fmt: skip
    conn.close()
    with MemoryStore(pg_url, user="alice", session="new") as alice:
        [found] = alice.search("on-call rota")
        assert (found.user, found.session, found.project) == ("alice", "old", None)
        # the owner's key: a later session's write of it updates the old memory
        assert alice.add("rota in the project wiki", key="rota").id == found.id
    with MemoryStore(pg_url, user="alice", project="atlas") as in_project:
        assert in_project.search("on-call rota") == []
        other = in_project.add("atlas rota is in the runbook", key="rota")  # another owner
        assert other.id != found.id and other.project == "atlas"


def test_a_new_store_opened_by_many_at_once_migrates_once(pg_url: str) -> None:
    errors: list[BaseException] = []

    def open_and_add(number: int) -> None:
        try:
            with MemoryStore(pg_url) as store:
                store.add(f"opened by thread {number}")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=open_and_add, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with MemoryStore(pg_url) as store:
        assert store.count() == 8
        rows = store.connection.execute("SELECT version FROM zeromem_schema").fetchall()
        assert [r["version"] for r in rows] == [migrations.LATEST_VERSION]


def test_a_role_that_may_not_create_tables_is_told_who_can(cluster: pgcluster.Cluster) -> None:
    cluster.psql("CREATE ROLE visitor LOGIN")
    cluster.psql("CREATE DATABASE closed_store")
    cluster.psql("REVOKE CREATE ON SCHEMA public FROM PUBLIC", dbname="closed_store")
    with pytest.raises(StoreError) as raised:
        MemoryStore(cluster.url("closed_store", user="visitor"))
    assert "zeromem admin init-postgres" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_migration_8_reindexes_with_the_python_tokenizer_and_resumes_when_stopped(
    pg_url: str,
) -> None:
    from zeromem_cli.storage.postgres import fts

    conn = db.connect(pg_url)
    migrations.migrate(conn, upto=5)
    texts = [f"note {n}: the deploy scripts were running late" for n in range(7)]
    with conn.transaction():  # vectors unlike any the tokenizer writes: the rebuild shows
        for n, text in enumerate(texts):
            conn.execute(
                "INSERT INTO memories (uid, content, content_hash, created_at, updated_at, "
                "fts, fts_len) VALUES (%s, %s, %s, %s, %s, 'stale'::tsvector, 1)",
                (bytes([n] * 16), text, n, "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
            )
    migrations.migrate(conn)
    assert fts.reindex(conn, batch=3, batches=1) == 3  # stopped after one batch
    stale = conn.execute("SELECT count(*) AS n FROM memories WHERE fts @@ 'stale'").fetchone()
    assert stale["n"] == 4
    conn.close()
    with MemoryStore(pg_url) as store:  # the next open finishes it
        rows = store.connection.execute(
            "SELECT content, fts_len, (SELECT value FROM store_meta WHERE key = "
            "'reindex_below') AS mark FROM memories ORDER BY id"
        ).fetchall()
        assert [r["content"] for r in rows] == texts  # nothing stored changed
        assert {r["mark"] for r in rows} == {None}
        assert [r["fts_len"] for r in rows] == [9] * 7  # 8 words and the category
        assert len(store.search("deploy script run")) == 7


def test_a_member_searches_while_a_reindex_waits_for_the_owner(team: Team) -> None:
    """A member may not rewrite other members' rows: its open leaves a pending rebuild to the
    owner (and searches the vectors there are); the owner's next open finishes it."""
    roles = _roles(team)
    with MemoryStore(team.url(roles["alice"])) as alice:
        alice.add("the deploy scripts were running late")
    with team.raw(roles["owner"]) as conn:
        conn.execute(
            "INSERT INTO store_meta (key, value) VALUES ('reindex_below', '1000') "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        )
    with MemoryStore(team.url(roles["alice"])) as alice:
        assert [m.content for m in alice.search("deploy script")] == [
            "the deploy scripts were running late"
        ]
    mark = "SELECT value FROM store_meta WHERE key = 'reindex_below'"
    with team.raw(roles["owner"]) as conn:
        assert conn.execute(mark).fetchone() is not None
    with MemoryStore(team.url(roles["owner"])):
        pass
    with team.raw(roles["owner"]) as conn:
        assert conn.execute(mark).fetchone() is None


def test_migration_7_keeps_the_operations_log_and_attributes_new_entries(pg_url: str) -> None:
    """#33: the operations log gains its writer; what was logged before is kept (no user:
    the owner's to read), and history policies are replaced, not added beside the old."""
    conn = db.connect(pg_url)
    migrations.migrate(conn, upto=5)
    with conn.transaction():
        conn.execute("INSERT INTO operations_log (at, op) VALUES ('2025-01-01T00:00:00Z', 'add')")
    conn.close()
    with MemoryStore(pg_url, settings=StoreSettings(log=True)) as store:
        store.search("anything")  # the store logs its own search
        rows = store.connection.execute(
            'SELECT op, "user" = current_user AS mine FROM operations_log ORDER BY id'
        ).fetchall()
        assert [(row["op"], row["mine"]) for row in rows] == [("add", False), ("search", True)]
        policies = store.connection.execute(
            "SELECT policyname FROM pg_policies WHERE tablename = 'memory_history' "
            "AND schemaname = current_schema() ORDER BY 1"
        ).fetchall()
        assert [p["policyname"] for p in policies] == [
            "delete_own", "insert_own", "read_with_its_memory", "update_own"
        ]  # fmt: skip
