"""Real processes at once: many writers and a reader on a brand-new database, and writers
killed with SIGKILL in the middle of a big transaction. Bounded: each test has a timeout.

Helpers here (``consistency_report``, ``run_together``, ``kill_mid_write``) are meant to be
reused: a ``gc`` process joins the concurrency test by adding one entry to ``BACKGROUND``, and
``zeromem import`` / ``forget --all`` join the crash test by adding one entry to CRASH_TARGETS.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore

WORKER = Path(__file__).with_name("stress_worker.py")
WRITERS, PER_WRITER = 8, 100
# A hang fails the test instead of blocking the suite. A bound for a machine at any load, not a
# time budget: at load 20-30 with two test workers, 60 s was missed by healthy runs.
TIMEOUT = 600.0

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX processes and signals")

# Processes that loop alongside the writers until they finish: (name, zeromem arguments).
BACKGROUND: list[tuple[str, list[str]]] = [
    ("reader", ["search", "memory token", "--limit", "5", "--format", "ids"]),
    ("lister", ["list", "--limit", "3", "--format", "ids"]),
    ("gc", ["gc", "--quiet"]),
]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _spawn(*args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def consistency_report(db: Path) -> dict[str, object]:
    """What a healthy database looks like, read with a plain sqlite3 connection:
    integrity_check ok, and the FTS index holds exactly one entry per memory row."""
    conn = sqlite3.connect(db)
    try:
        return {
            "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
            "memories": conn.execute("SELECT count(*) FROM memories").fetchone()[0],
            "live": conn.execute(
                "SELECT count(*) FROM memories WHERE deleted_at IS NULL"
            ).fetchone()[0],
            # A contentless FTS5 table keeps one docsize row per indexed document.
            "indexed": conn.execute("SELECT count(*) FROM memories_fts_docsize").fetchone()[0],
            "unindexed": conn.execute(
                "SELECT count(*) FROM memories m WHERE NOT EXISTS "
                "(SELECT 1 FROM memories_fts_docsize d WHERE d.id = m.id)"
            ).fetchone()[0],
        }
    finally:
        conn.close()


def assert_consistent(db: Path) -> dict[str, object]:
    report = consistency_report(db)
    assert report["integrity"] == "ok", report
    assert report["indexed"] == report["memories"] and report["unindexed"] == 0, report
    return report


def run_together(db: Path, workers: list[list[str]], background: list[list[str]]) -> list[str]:
    """Start everything behind one barrier; stop the background loops when the workers end.
    Returns the stderr of every process that failed (empty when all succeeded)."""
    control = Path(f"{db.parent}.ctl")  # see stress_worker.control_dir
    control.mkdir()
    procs = [_spawn(*args) for args in workers]
    loops = [_spawn(*args) for args in background]
    try:
        deadline = time.monotonic() + TIMEOUT
        ready = lambda: len(list(control.glob("ready.*")))  # noqa: E731
        while ready() < len(procs) + len(loops):
            assert time.monotonic() < deadline, "workers never became ready"
            assert all(p.poll() is None for p in procs + loops), [p.communicate() for p in procs]
            time.sleep(0.01)
        (control / "go").touch()
        failures: list[str] = []
        for proc in procs:
            _, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            if proc.returncode != 0:
                failures.append(err)
        (control / "stop").touch()
        for proc in loops:
            _, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            if proc.returncode != 0 or "runs 0" in err:
                failures.append(err)
        return failures
    finally:
        # A timeout or a failed assertion must not leave the loops running for the rest of the
        # session (they did, for up to 35 minutes, adding to the load of every later test).
        (control / "stop").touch()
        for proc in procs + loops:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


@pytest.mark.slow
def test_eight_writers_and_readers_on_a_brand_new_database(tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "memories.db"  # neither the folder nor the file exist yet
    writers = [["cli-add", str(db), str(n), str(PER_WRITER)] for n in range(WRITERS)]
    background = [["cli-loop", str(db), "--", *args] for _, args in BACKGROUND]
    failures = run_together(db, writers, background)
    assert failures == []
    report = assert_consistent(db)
    assert report["memories"] == WRITERS * PER_WRITER
    with MemoryStore(db) as store:
        for worker in range(WRITERS):
            for number in range(PER_WRITER):
                token = f"w{worker}n{number}z"
                assert [h.content for h in store.search(token)] == [
                    f"worker {worker} memory {number} token {token}"
                ]
    if hasattr(os, "getuid"):
        assert db.parent.stat().st_mode & 0o777 == 0o700
        for suffix in ("", "-wal", "-shm"):
            path = Path(f"{db}{suffix}")
            if path.exists():
                assert path.stat().st_mode & 0o777 == 0o600, suffix


# -- crashes -----------------------------------------------------------------------------------


@dataclass
class CrashTarget:
    """A write to kill midway. ``argv`` builds the worker (or CLI) arguments for a db;
    ``prepare`` seeds the db; ``before``/``after`` are the only acceptable live counts."""

    name: str
    argv: Callable[[Path], list[str]]
    prepare: Callable[[Path], None]
    before: int
    after: int
    block: bool = True  # the worker waits after printing "mid" (kill lands mid-transaction)


def _seed(count: int, import_lines: int = 0) -> Callable[[Path], None]:
    """Seed ``count`` memories; with ``import_lines``, also write a JSONL file to import."""

    def prepare(db: Path) -> None:
        with MemoryStore(db) as store, store.transaction():
            for number in range(count):
                # allow_duplicate skips the near-duplicate search: seeding is not under test
                store.add(f"seeded memory {number} token s{number}z", allow_duplicate=True)
        if import_lines:
            lines = (
                json.dumps({"content": f"imported memory {n} token i{n}z", "tags": ["bulk"]})
                for n in range(import_lines)
            )
            _import_file(db).write_text("\n".join(lines) + "\n", encoding="utf-8")

    return prepare


def _import_file(db: Path) -> Path:
    return db.with_name("bulk-import.jsonl")


CRASH_TARGETS = [
    CrashTarget(
        "library bulk add, one transaction",
        lambda db: ["bulk-add", str(db), "20000", "--block"],
        _seed(10),
        before=10,
        after=20010,
    ),
    CrashTarget(
        "library multi-id forget, one transaction",
        lambda db: ["bulk-forget", str(db), "--block"],
        _seed(2000),
        before=2000,
        after=0,
    ),
    CrashTarget(
        "zeromem import, killed at an arbitrary point",
        lambda db: ["cli-mid", str(db), "--", "import", str(_import_file(db))],
        _seed(10, import_lines=30000),
        before=10,
        after=30010,
        block=False,
    ),
    CrashTarget(
        "zeromem forget --all, killed at an arbitrary point",
        lambda db: ["cli-mid", str(db), "--", "forget", "--all", "--yes"],
        _seed(5000),
        before=5000,
        after=0,
        block=False,
    ),
    CrashTarget(
        "library bulk add, killed at an arbitrary point",
        lambda db: ["bulk-add", str(db), "20000"],
        _seed(10),
        before=10,
        after=20010,
        block=False,
    ),
]


def kill_mid_write(target: CrashTarget, db: Path) -> int:
    """Run the target, SIGKILL it once it reports ``mid`` (or, without blocking, once the
    WAL has grown: the transaction is writing pages); return its exit status."""
    proc = _spawn(*target.argv(db), stdin=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line == "mid\n", (line, proc.stderr.read() if proc.stderr else "")
    if not target.block:
        wal = Path(f"{db}-wal")
        deadline = time.monotonic() + TIMEOUT
        while proc.poll() is None and time.monotonic() < deadline:
            if wal.exists() and wal.stat().st_size > 256 * 1024:
                break
            time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=TIMEOUT)
    return proc.returncode


@pytest.mark.slow
@pytest.mark.parametrize("target", CRASH_TARGETS, ids=lambda t: t.name)
def test_sigkill_mid_transaction_is_all_or_nothing(tmp_path: Path, target: CrashTarget) -> None:
    db = tmp_path / "memories.db"
    target.prepare(db)
    status = kill_mid_write(target, db)
    report = assert_consistent(db)
    if target.block:
        assert status == -signal.SIGKILL
        assert report["live"] == target.before  # killed before COMMIT: nothing happened
    else:
        assert report["live"] in (target.before, target.after), report
    with MemoryStore(db) as store:  # and the store opens and works normally afterwards
        assert store.count() == report["live"]
        if report["live"]:
            hits = store.search("memory", limit=1)
            assert hits and hits[0].deleted_at is None
        store.add("after the crash token aftercrash")
        assert [h.content for h in store.search("aftercrash")] == [
            "after the crash token aftercrash"
        ]
    assert_consistent(db)
