"""A killed `zeromem ingest` loses nothing it committed and half of nothing (#33 item 8): its
batches are transactions, so a SIGKILL mid-run leaves whole batches only (every memory of a
committed batch, none of the open one), and running the same ingest again writes the rest
without duplicating what landed. A real process, killed for real, on a real file."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.ingest.apply import INGEST_BATCH
from zeromem_cli.models import Filters

pytestmark = pytest.mark.slow

LINES = 20_000  # long enough to be killed in the middle on a fast machine


def _line(n: int) -> str:
    if n % 4 == 0:  # a fact with a key: "service<n>_port"
        return f"my service{n} port is {1000 + n}"
    return f"remember that the job {n} runs on host node{n}"


def _live(db: Path) -> int:
    """Memories committed so far, read beside the writer (0 before its schema exists)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return 0
    try:
        return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def _ingest(db: Path, chat: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zeromem_cli", "ingest", str(chat), "--json", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ZEROMEM_SEARCH_SEMANTIC": "off"},
    )


def test_a_killed_ingest_keeps_whole_batches_and_a_rerun_adds_the_rest(tmp_path: Path) -> None:
    db, chat = tmp_path / "m.db", tmp_path / "chat.txt"
    chat.write_text("\n".join(_line(n) for n in range(LINES)) + "\n", encoding="utf-8")
    run = _ingest(db, chat)
    deadline = time.monotonic() + 300
    while _live(db) < INGEST_BATCH and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    run.send_signal(signal.SIGKILL)
    run.communicate()
    assert run.returncode == -signal.SIGKILL, "ingest finished before it could be killed"

    with MemoryStore(db) as store:
        assert store.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        landed = store.list(limit=None)
        count = len(landed)
        assert 0 < count < LINES
        assert count % INGEST_BATCH == 0, count  # whole batches, nothing of the open one
        # Ingest writes in input order: what landed is exactly the first ``count`` lines.
        expected = {_line(n).removeprefix("remember that ") for n in range(count)}
        assert {m.content for m in landed} == expected
        assert {m.key for m in landed if m.key} == {f"service{n}_port" for n in range(0, count, 4)}

    rerun = _ingest(db, chat)
    out, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err
    summary = json.loads(out)["summary"]
    assert (summary["added"], summary["duplicate"]) == (LINES - count, count)
    with MemoryStore(db) as store:
        assert store.count() == LINES
        contents = [m.content for m in store.list(limit=None)]
        assert len(set(contents)) == LINES  # nothing written twice
        for n in (0, count - 4, count, LINES - 4):  # keys on both sides of the kill
            held = store.list(filters=Filters(key=f"service{n}_port"))
            assert [m.content for m in held] == [_line(n)]
