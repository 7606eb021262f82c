"""gc in real processes: two gc runs at once, and gc while another process writes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore

EXPIRED, OLD_TRASH = 1200, 600  # more than one gc batch each


def _seed(db_path: Path) -> None:
    """Memories that expired an hour ago and trash that is 40 days old (real time is now)."""
    now = datetime.now(timezone.utc)
    with MemoryStore(db_path, clock=lambda: now - timedelta(days=40)) as old:
        old.connection.execute("PRAGMA synchronous=OFF")  # set-up speed only
        trashed = [old.add(f"old trash {n}", allow_duplicate=True).id for n in range(OLD_TRASH)]
        old.forget(*trashed)
    with MemoryStore(db_path, clock=lambda: now - timedelta(hours=2)) as recent:
        recent.connection.execute("PRAGMA synchronous=OFF")
        for number in range(EXPIRED):
            recent.add(f"expired note {number}", ttl="1h", allow_duplicate=True)


def _gc(db_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zeromem_cli", "gc", "--json", "--db", str(db_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> dict[str, int]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def _check_integrity(db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")


def test_two_gc_runs_at_once_neither_corrupt_nor_double_count(db_path: Path) -> None:
    _seed(db_path)
    first, second = _gc(db_path), _gc(db_path)
    reports = [_finish(first), _finish(second)]
    assert sum(r["expired"] for r in reports) == EXPIRED
    assert sum(r["purged"] for r in reports) == OLD_TRASH
    _check_integrity(db_path)
    with sqlite3.connect(db_path) as conn:
        states = dict(
            conn.execute(
                "SELECT coalesce(deleted_reason, 'live'), count(*) FROM memories GROUP BY 1"
            ).fetchall()
        )
    assert states == {"expired": EXPIRED}


WRITER = textwrap.dedent(
    """
    import sys
    from zeromem_cli import MemoryStore
    with MemoryStore(sys.argv[1]) as store:
        for number in range(int(sys.argv[2])):
            store.add(f"written during gc {number}", allow_duplicate=True)
    print("done")
    """
)


def test_gc_under_a_concurrent_writer_loses_nothing(db_path: Path) -> None:
    _seed(db_path)
    writes = 200
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db_path), str(writes)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reports = [_finish(_gc(db_path)) for _ in range(3)]
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0 and out.strip() == "done", err
    reports.append(_finish(_gc(db_path)))
    assert sum(r["expired"] for r in reports) == EXPIRED
    assert sum(r["purged"] for r in reports) == OLD_TRASH
    _check_integrity(db_path)
    with MemoryStore(db_path) as store:
        live = store.list(limit=None)
        assert sorted(m.content for m in live) == sorted(
            f"written during gc {n}" for n in range(writes)
        )
        assert len(store.search("written during gc", limit=1000)) == writes
