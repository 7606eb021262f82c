"""Every face on a PostgreSQL store, through the real CLI: the URL survives --db and
ZEROMEM_DB, a missing driver or a bad server is one line (no password shown), raw --fts
(tsquery) queries, gc --vacuum, and export/import round trips SQLite <-> PostgreSQL exactly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import pgcluster
from tests.conftest import Run

pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")

EXPORT = ("export", "--all-scopes", "--with-history", "--include-deleted")


def _fill(cli: Run, db: str) -> None:
    for args in (
        ("add", "The weekly report goes out on Fridays", "--tag", "work", "--key", "report"),
        ("add", "The weekly report goes out on Mondays", "--key", "report"),  # a new version
        ("add", "周报每周五发送", "--user", "alice"),
        ("add", "Bob's deploy checklist lives in the wiki", "--agent", "bot", "--pin"),
        ("add", "a memory that will be forgotten", "--session", "s1"),
        ("add", "expires soon", "--ttl", "1d", "--category", "todo"),
    ):
        result = cli(*args, "--db", db, db=False)
        assert result.exit_code == 0, result.stderr
    assert cli("forget", "--query", "forgotten", "--session", "s1", "--yes", "--db", db,
               db=False).exit_code == 0  # fmt: skip


def test_export_import_round_trips_exactly_both_ways(cli: Run, pg_url: str, tmp_path: Path) -> None:
    source = str(tmp_path / "personal.db")
    _fill(cli, source)
    exported = cli(*EXPORT, "--db", source, db=False)
    assert exported.exit_code == 0 and exported.stdout.count("\n") == 5
    moved = cli("import", "-", "--all-scopes", "--db", pg_url, db=False, input=exported.stdout)
    assert moved.exit_code == 0, moved.stderr
    on_server = cli(*EXPORT, "--db", pg_url, db=False)
    assert on_server.stdout == exported.stdout  # uids, ids, times, history, trash: all kept
    back = str(tmp_path / "back.db")
    assert cli("import", "-", "--all-scopes", "--db", back, db=False,
               input=on_server.stdout).exit_code == 0  # fmt: skip
    assert cli(*EXPORT, "--db", back, db=False).stdout == exported.stdout
    added = cli("add", "written after the import", "--db", pg_url, db=False)
    assert added.exit_code == 0, added.stderr  # the id sequence moved past the imported ids


def test_the_url_survives_the_environment_and_every_read(
    cli: Run, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_DB", pg_url)
    assert cli("add", "Alice prefers green tea", "--user", "alice", db=False).exit_code == 0
    found = cli("search", "what does alice prefer to drink", "--user", "alice", "--json", db=False)
    assert found.exit_code == 0 and "green tea" in found.stdout
    packed = cli("pack", "tea", "--user", "alice", db=False)
    assert "green tea" in packed.stdout
    assert "green tea" not in cli("search", "tea", "--user", "bob", db=False).stdout
    path = cli("path", db=False)
    assert path.stdout.splitlines()[0] == f"database\t{pg_url}"


@pytest.mark.slow
def test_raw_fts_queries_take_tsquery_syntax_and_answer_as_fts5_on_sqlite(
    cli: Run, pg_url: str, tmp_path: Path
) -> None:
    """--fts takes FTS5's syntax on SQLite and PostgreSQL's tsquery syntax on a server store;
    the same question asked in each finds the same memories, in the same order."""
    sqlite = str(tmp_path / "m.db")
    texts = (
        "deploy the staging server",
        "deployment notes",
        "the weekly report",
        "周报发送",
        "Café menus were updated",
    )
    for db in (sqlite, pg_url):
        for text in texts:
            assert cli("add", text, "--db", db, db=False).exit_code == 0
    queries = (  # (FTS5, tsquery)
        ('"staging" OR report', "staging | report"),
        ("deploy*", "deploy:*"),
        ("(notes OR report) NOT weekly", "(notes | report) & !weekly"),
        ('"weekly report"', "weekly <-> report"),
        ("(notes OR server) AND deploy*", "(notes | server) & Deploy:*"),
        ("周报", "周报"),
        ("报*", "报:*"),
        ("weekly NEAR(report, 3)", "weekly & report"),
        ("the NEAR(weekly report, 1)", "the <2> report"),
        ("cafe AND menu", "CAFÉ & menus"),
    )
    for fts5, tsquery in queries:
        answers = [
            cli("search", "--fts", query, "--db", db, db=False)
            for query, db in ((fts5, sqlite), (tsquery, pg_url))
        ]
        assert answers[0].exit_code == answers[1].exit_code == 0, (tsquery, answers[1].stderr)
        ids = [[line.split("\t")[0] for line in a.stdout.splitlines()] for a in answers]
        assert ids[0] == ids[1] and ids[0], tsquery
    for bad in ("deploy &", "(deploy | notes", "deploy* OR notes", '"weekly report"', "content: x"):
        result = cli("search", "--fts", bad, "--db", pg_url, db=False)
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, bad
        assert "Traceback" not in result.stderr and "tsquery" in result.stderr, bad


def test_purge_and_gc_vacuum_leave_no_copy_in_the_table_files(
    cli: Run, cluster: pgcluster.Cluster
) -> None:
    cluster.psql("CREATE DATABASE purge_check")
    url = cluster.url("purge_check")
    secret_text = "the launch codeword is PELICAN-42-ORCHID"
    assert cli("add", secret_text, "--db", url, db=False).exit_code == 0
    assert cli("add", "an unrelated memory", "--db", url, db=False).exit_code == 0
    purged = cli("forget", "--query", "PELICAN", "--purge", "--yes", "--db", url, db=False)
    assert purged.exit_code == 0, purged.stderr
    vacuumed = cli("gc", "--vacuum", "--db", url, db=False)
    assert vacuumed.exit_code == 0 and "vacuumed" in vacuumed.stderr + vacuumed.stdout
    files = cluster.psql(
        "SELECT pg_relation_filepath(c.oid) FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r','t','i')",
        dbname="purge_check",
    ).split()
    assert files
    for relative in files:
        data = (cluster.data / relative).read_bytes()
        assert b"PELICAN" not in data and b"pelican" not in data, relative


def test_a_missing_driver_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "sys.modules['psycopg'] = None  # as if zeromem[postgres] were not installed\n"
        "sys.argv = ['zeromem', 'search', 'x', '--db', 'postgresql://u@/d?host=/nowhere']\n"
        "from zeromem_cli.entry import main\n"
        "main()\n"
    )
    env = {**os.environ, "ZEROMEM_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "zeromem: error: PostgreSQL stores need the driver: pip install 'zeromem[postgres]'"
    ]


def test_a_bad_server_or_password_is_one_line_without_the_password(
    cli: Run, cluster: pgcluster.Cluster
) -> None:
    url = f"postgresql://nobody_here:hunter2secret@/nodb?host={cluster.socket}"
    result = cli("search", "x", "--db", url, db=False)
    assert result.exit_code == 1
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert "hunter2secret" not in result.stderr and "***" in result.stderr
    folded = cli("search", "x", "--db", "postgresql:/u@/db", db=False)  # a URL that lost a /
    assert folded.exit_code == 1 and "not a valid URL" in folded.stderr


def test_the_library_reads_a_url_from_zeromem_db(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zeromem_cli import MemoryStore

    monkeypatch.setenv("ZEROMEM_DB", pg_url)
    with MemoryStore() as store:
        store.add("opened from the environment")
        assert store.location == pg_url
    assert "opened from the environment" in MemoryStore(pg_url).list()[0].content


def test_encryption_at_rest_is_refused_for_a_server_store_in_one_line(
    cli: Run, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for command in (("encrypt",), ("decrypt",), ("rekey", "--new-key-file", "k")):
        result = cli(*command, "--db", pg_url, db=False)
        assert result.exit_code != 0 and "Traceback" not in result.stderr
        assert "SQLite files" in result.stderr and len(result.stderr.splitlines()) == 1
    monkeypatch.setenv("ZEROMEM_KEY", "correct horse battery staple 42")
    result = cli("add", "never written unencrypted by mistake", "--db", pg_url, db=False)
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1
    assert "a key is configured" in result.stderr and "horse" not in result.stderr
    monkeypatch.delenv("ZEROMEM_KEY")
    assert cli("list", "--db", pg_url, db=False).stdout == ""


def test_a_large_import_leaves_the_planner_statistics_fresh(cli: Run, pg_url: str) -> None:
    """Searches read the most common lexemes from ANALYZE's statistics: an import that grows
    the store by a tenth or more runs it, rather than leaving the new rows unknown until
    autovacuum's next pass."""
    import json

    import psycopg

    lines = "\n".join(
        json.dumps({"content": f"weekly report number {n} for the staging server"})
        for n in range(2500)
    )
    assert cli("import", "-", "--db", pg_url, db=False, input=lines).exit_code == 0
    with psycopg.connect(pg_url, autocommit=True) as conn:
        elems = conn.execute(
            "SELECT most_common_elems::text FROM pg_stats WHERE tablename = 'memories' "
            "AND attname = 'fts' AND schemaname = current_schema()"
        ).fetchone()
    assert elems is not None and "report" in elems[0]
