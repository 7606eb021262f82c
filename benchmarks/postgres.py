"""SQLite and PostgreSQL side by side: ``python -m benchmarks.postgres``.

Starts a throwaway PostgreSQL server (``tests.pgcluster``: initdb in a temporary folder, a Unix
socket; as ``nobody`` when run as root), or uses ``--url`` (an empty database or schema the
benchmark may fill), and prints:

1. Quality on LoCoMo (../shared/datasets/locomo10.json), the same turns in both backends:
   search Recall@10 (categories 1-4) and pack evidence recall at 1000 tokens. Target: the
   PostgreSQL figures within 0.02 of SQLite's.
2. Speed on a synthetic store (``--memories``, default 100k; random words, seed 7): import
   and add throughput, in-process search and pack p50/p95 over a local socket, and the search
   throughput of 16 client processes at once. Targets (issue 21, at 1M memories): search p50
   <= 30 ms, pack p50 <= 80 ms on PostgreSQL.

``--quick`` runs a small slice (the test suite's smoke run).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from benchmarks.datasets import REPO, load_locomo
from benchmarks.pack_recall import index_conversation
from benchmarks.retrieval import KS, locomo_recall
from zeromem_cli import MemoryStore

sys.path.insert(0, str(REPO))
from tests import pgcluster  # noqa: E402

TOLERANCE = 0.02
SEARCH_P50_MS, PACK_P50_MS = 30.0, 80.0
_WORDS = (
    "report deploy server weekly friday meeting budget invoice client staging database "
    "backup review design release customer ticket alert latency cache token memory agent "
    "python sqlite index query migration schema user project roadmap bug fix test ci docs "
    "alice bob carol dave tea coffee lunch office remote travel berlin paris tokyo invoice"
).split()


class Server:
    """Fresh stores on one PostgreSQL server: a new schema each."""

    def __init__(self, url: str | None) -> None:
        self.cluster = None if url else pgcluster.start({"max_connections": "200"})
        if url is None and self.cluster is None:
            raise SystemExit(f"cannot start PostgreSQL: {pgcluster.Cluster.why_not}")
        self.base = url
        self.count = 0

    def fresh(self) -> str:
        if self.cluster is not None:
            return self.cluster.fresh_store()
        import psycopg

        self.count += 1
        schema = f"zeromem_bench_{self.count}"
        assert self.base is not None
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            conn.execute(f"CREATE SCHEMA {schema}")
        joiner = "&" if "?" in self.base else "?"
        return f"{self.base}{joiner}options=-csearch_path%3D{schema}"

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()


# -- quality --------------------------------------------------------------------------------


def quality(server: Server, quick: bool, folder: Path) -> dict[str, dict[str, float]]:
    convs = load_locomo()
    if convs is None:
        print("LoCoMo not found (../shared/datasets/locomo10.json): quality skipped")
        return {}
    convs = convs[:1] if quick else convs
    questions = 40 if quick else None
    places: dict[str, Callable[[int], Any]] = {
        "sqlite": lambda n: folder / f"q{n}.db",
        "postgresql": lambda n: server.fresh(),
    }
    out: dict[str, dict[str, float]] = {}
    for backend, place in places.items():
        stores = []
        for number, conv in enumerate(convs):
            store = MemoryStore(place(number))
            with store.transaction():
                for turn in conv.turns:
                    store.write(
                        turn.memory_text,
                        created_at=turn.when,
                        meta={"dia_id": turn.dia_id},
                        allow_duplicate=True,
                    )
            stores.append(store)
        per_category = locomo_recall(convs, stores, questions)
        rows = [r for c in (1, 2, 3, 4) for r in per_category.get(c, [])]
        for store in stores:
            store.close()
        pack_scores = []
        for number, conv in enumerate(convs):
            store, dia = index_conversation(conv, place(100 + number))
            for q in conv.questions[: 40 if quick else None]:
                if q.category == 5 or not q.evidence:
                    continue
                result = store.pack(q.question, budget=1000, touch=False)
                got = {dia[m.id] for m in result.memories}
                pack_scores.append(len(got & set(q.evidence)) / len(set(q.evidence)))
            store.close()
        out[backend] = {
            "recall@10": statistics.fmean(r[10] for r in rows),
            "recall@5": statistics.fmean(r[5] for r in rows),
            "pack@1000": statistics.fmean(pack_scores),
        }
    assert KS  # the retrieval benchmark's cut-offs include 5 and 10
    print(f"\nLoCoMo quality, categories 1-4 ({len(convs)} conversations)")
    print(
        f"{'metric':<12}{'sqlite':>9}{'postgresql':>12}{'diff':>8}   target |diff| <= {TOLERANCE}"
    )
    for metric in ("recall@5", "recall@10", "pack@1000"):
        a, b = out["sqlite"][metric], out["postgresql"][metric]
        mark = "ok" if abs(a - b) <= TOLERANCE else "MISSED"
        print(f"{metric:<12}{a:>9.3f}{b:>12.3f}{b - a:>+8.3f}   {mark}")
    return out


# -- speed ----------------------------------------------------------------------------------

START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _records(count: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    out = []
    for number in range(count):
        words = rng.choices(_WORDS, k=rng.randint(6, 18))
        when = (START + timedelta(minutes=7 * number)).strftime("%Y-%m-%dT%H:%M:%SZ")
        out.append(
            {"content": " ".join(words) + f" #{number}", "created_at": when, "category": "note"}
        )
    return out


def _queries(count: int) -> list[str]:
    rng = random.Random(11)
    return [" ".join(rng.choices(_WORDS, k=rng.randint(2, 4))) for _ in range(count)]


def _percentiles(times: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return (
        1000 * ordered[len(ordered) // 2],
        1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
    )


def _client(location: str, queries: list[str], seconds: float, out: Any) -> None:
    with MemoryStore(location) as store:
        done = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            store.search(queries[done % len(queries)])
            done += 1
    out.put(done)


def speed(server: Server, count: int, quick: bool, folder: Path) -> dict[str, dict[str, float]]:
    from zeromem_cli.transfer.imports import import_text

    records = _records(count)
    lines = [json.dumps(r) for r in records]
    queries = _queries(50 if quick else 300)
    out: dict[str, dict[str, float]] = {}
    for backend, location in (("sqlite", str(folder / "speed.db")), ("postgresql", server.fresh())):
        figures: dict[str, float] = {}
        with MemoryStore(location) as store:
            began = time.perf_counter()
            import_text(store, "\n".join(lines), "jsonl")
            figures["import/s"] = count / (time.perf_counter() - began)
            adds = 100 if quick else 1000
            began = time.perf_counter()
            for number in range(adds):
                store.add(f"an added note {number} about the weekly report", allow_duplicate=True)
            figures["add/s"] = adds / (time.perf_counter() - began)
            for query in queries[:10]:
                store.search(query)  # warm caches
            times = []
            for query in queries:
                began = time.perf_counter()
                store.search(query)
                times.append(time.perf_counter() - began)
            figures["search p50"], figures["search p95"] = _percentiles(times)
            times = []
            for query in queries[: len(queries) // 3]:
                began = time.perf_counter()
                store.pack(query, budget=1000, touch=False)
                times.append(time.perf_counter() - began)
            figures["pack p50"], figures["pack p95"] = _percentiles(times)
        clients, seconds = 16, (2.0 if quick else 10.0)
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        workers = [
            context.Process(target=_client, args=(location, queries, seconds, results))
            for _ in range(clients)
        ]
        for worker in workers:
            worker.start()
        total = sum(results.get(timeout=seconds + 120) for _ in workers)
        for worker in workers:
            worker.join()
        figures["16 clients search/s"] = total / seconds
        out[backend] = figures
    print(f"\nSpeed, {count:,} synthetic memories, in-process, PostgreSQL over a local socket")
    print(f"{'figure':<22}{'sqlite':>10}{'postgresql':>12}   target (postgresql, 1M)")
    targets = {"search p50": f"<= {SEARCH_P50_MS:.0f} ms", "pack p50": f"<= {PACK_P50_MS:.0f} ms"}
    for name in out["sqlite"]:
        unit = " ms" if "p50" in name or "p95" in name else ""
        print(
            f"{name + unit:<22}{out['sqlite'][name]:>10.1f}{out['postgresql'][name]:>12.1f}"
            f"   {targets.get(name, '')}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.postgres", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="A small slice of everything.")
    parser.add_argument("--url", help="An existing PostgreSQL database to fill (schemas).")
    parser.add_argument("--memories", type=int, default=100_000, help="Synthetic store size.")
    parser.add_argument("--no-speed", action="store_true", help="Quality only.")
    parser.add_argument("--no-quality", action="store_true", help="Speed only.")
    args = parser.parse_args(argv)
    server = Server(args.url)
    results: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="zeromem-bench-pg-") as tmp:
            if not args.no_quality:
                results["quality"] = quality(server, args.quick, Path(tmp))
            if not args.no_speed:
                count = 2_000 if args.quick else args.memories
                results["speed"] = speed(server, count, args.quick, Path(tmp))
    finally:
        server.stop()
    return results


if __name__ == "__main__":
    main()
