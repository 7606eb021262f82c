"""Many machines on one store: 16 writer processes x 200 adds with searches, upserters writing
the same keys at once, and a gc running throughout. Nothing is lost, nothing deadlocks, and a
key never has two live memories (the partial unique index; a racing insert becomes an update)."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from tests.postgres import workers
from zeromem_cli import MemoryStore
from zeromem_cli.models import Filters

pytestmark = pytest.mark.slow  # see docs/development.md

pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")

WRITERS, WRITES = 16, 200
UPSERTERS, ROUNDS, KEYS = 4, 100, 5


def test_sixteen_writers_upserters_and_gc_lose_nothing(pg_url: str) -> None:
    MemoryStore(pg_url).close()  # the schema exists before the crowd arrives
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    processes = [
        context.Process(target=workers.writer, args=(pg_url, n, WRITES, out))
        for n in range(WRITERS)
    ]
    processes += [
        context.Process(target=workers.upserter, args=(pg_url, n, ROUNDS, KEYS, out))
        for n in range(UPSERTERS)
    ]
    processes.append(context.Process(target=workers.collector, args=(pg_url, 5, out)))
    began = time.monotonic()
    for process in processes:
        process.start()
    reports = [out.get(timeout=600) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    assert all(p.exitcode == 0 for p in processes)
    failures = [(kind, n, f) for kind, n, found in reports for f in found]
    assert failures == []
    assert time.monotonic() - began < 600  # no deadlock stalled anyone
    with MemoryStore(pg_url, user="team") as store:
        live = store.list(limit=None)
        notes = [m.content for m in live if m.key is None and m.content.startswith("worker ")]
        assert len(notes) == len(set(notes)) == WRITERS * WRITES
        keyed = [m for m in live if m.key is not None]
        assert sorted(m.key for m in keyed) == [f"k{n}" for n in range(KEYS)]
        for memory in keyed:  # every write of the key is a version: none was lost
            assert len(store.history(memory.id)) == UPSERTERS * ROUNDS // KEYS
        everything = store.list(limit=None, filters=Filters(include_deleted=True))
        assert len(everything) >= len(live)
