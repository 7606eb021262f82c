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
import os
import random
import shutil
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
from zeromem_cli.text.normalize import INDEX_VERSION

sys.path.insert(0, str(REPO))
from tests import pgcluster  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"
# Bump when ``_records`` changes: cached stores are named after it (and the index version).
GENERATOR = 1
TOLERANCE = 0.02
SEARCH_P50_MS, PACK_P50_MS = 30.0, 80.0
_WORDS = (
    "report deploy server weekly friday meeting budget invoice client staging database "
    "backup review design release customer ticket alert latency cache token memory agent "
    "python sqlite index query migration schema user project roadmap bug fix test ci docs "
    "alice bob carol dave tea coffee lunch office remote travel berlin paris tokyo invoice"
).split()


class Server:
    """Stores on one PostgreSQL server, a schema each: fresh ones, or named ones kept between
    runs (``store``). Without ``url``, a throwaway server, or with ``cache`` one kept there."""

    def __init__(self, url: str | None, cache: Path | None = None) -> None:
        folder = cache / "postgres" if cache is not None and url is None else None
        settings = {"max_connections": "200", "shared_buffers": "512MB"}
        self.cluster = None if url else pgcluster.start(settings, folder=folder)
        if url is None and self.cluster is None:
            raise SystemExit(f"cannot start PostgreSQL: {pgcluster.Cluster.why_not}")
        self.base = url if url is not None else self.cluster.url()  # type: ignore[union-attr]
        self.count = 0
        self.fresh_names: list[str] = []

    def fresh(self) -> str:
        """A new empty store, dropped again by ``stop``."""
        self.count += 1
        name = f"zeromem_bench_{os.getpid()}_{self.count}"
        self.fresh_names.append(name)
        return self.store(name, keep=False)

    def store(self, name: str, keep: bool) -> str:
        """The URL of the schema ``name``: emptied first unless ``keep``."""
        import psycopg

        schema = name.replace("-", "_")
        with psycopg.connect(self.base, autocommit=True) as conn:
            if not keep:
                conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        joiner = "&" if "?" in self.base else "?"
        return f"{self.base}{joiner}options=-csearch_path%3D{schema}"

    def stop(self) -> None:
        """Drop this run's fresh stores (the named ones stay: the cache), stop the server."""
        import psycopg

        with psycopg.connect(self.base, autocommit=True) as conn:
            for name in self.fresh_names:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
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


def _load() -> float:
    return os.getloadavg()[0]


class _Clock:
    """CPU seconds a store's work costs: this process's, plus, on PostgreSQL, those of the
    server process serving its connection (read from /proc: a local server). Less sensitive
    than wall time to the other work on a shared machine."""

    def __init__(self, store: MemoryStore) -> None:
        self.stat: Path | None = None
        if not isinstance(store.path, Path):
            pid = store.connection.execute("SELECT pg_backend_pid() AS pid").fetchone()["pid"]
            stat = Path(f"/proc/{pid}/stat")
            self.stat = stat if stat.exists() else None

    def __call__(self) -> float:
        seconds = time.process_time()
        if self.stat is not None:
            fields = self.stat.read_text().rsplit(")", 1)[1].split()
            seconds += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return seconds


def _timed(
    stores: dict[str, MemoryStore], queries: Sequence[str], run: Callable[[MemoryStore, str], Any]
) -> dict[str, tuple[float, float, float]]:
    """(p50 ms, p95 ms, CPU ms per query) of ``run`` for each store, the stores taking turns
    query by query, so a burst of load on the machine falls on both alike."""
    clocks = {name: _Clock(store) for name, store in stores.items()}
    times: dict[str, list[float]] = {name: [] for name in stores}
    cpu = dict.fromkeys(stores, 0.0)
    for query in queries:
        for name, store in stores.items():
            began, spent = time.perf_counter(), clocks[name]()
            run(store, query)
            times[name].append(time.perf_counter() - began)
            cpu[name] += clocks[name]() - spent
    return {name: (*_percentiles(times[name]), 1000 * cpu[name] / len(queries)) for name in stores}


def _built(location: Path | str, records: list[dict[str, Any]], marker: Path) -> float:
    """Import ``records`` into the store at ``location`` (timed: memories/s), unless ``marker``
    says an earlier run built it; the import rate is kept in the marker."""
    from zeromem_cli.transfer.imports import import_text

    if marker.exists():
        built = json.loads(marker.read_text())
        print(
            f"({marker.stem}: reused, built at {built['import/s']:.0f}/s, load {built['load']:.1f})"
        )
        return float(built["import/s"])
    load = _load()
    with MemoryStore(location) as store:
        began = time.perf_counter()
        import_text(store, "\n".join(json.dumps(r) for r in records), "jsonl")
        rate = len(records) / (time.perf_counter() - began)
    marker.write_text(json.dumps({"import/s": rate, "load": load}))
    return rate


def speed(
    server: Server, count: int, quick: bool, folder: Path, cache: Path | None
) -> dict[str, dict[str, float]]:
    """Search, pack, add, import and 16-client figures for ``count`` memories in each backend.
    With ``cache`` (a folder), the stores are built once and reused: the SQLite file is copied
    into ``folder`` for the run, and the memories added on PostgreSQL are purged after."""
    records = _records(count)
    queries = _queries(50 if quick else 300)
    name = f"speed-{count}-g{GENERATOR}-i{INDEX_VERSION}"
    marks = {
        "sqlite": (cache or folder) / f"{name}.db.json",
        "postgresql": (cache or folder) / f"{name}.pg.json",
    }
    kept = cache is not None and marks["postgresql"].exists()
    places: dict[str, Path | str] = {
        "sqlite": folder / "speed.db",
        "postgresql": server.store(name, keep=True) if kept else server.fresh(),
    }
    if cache is not None and not kept:  # built this run, under the name the next run reuses
        places["postgresql"] = server.store(name, keep=False)
    out: dict[str, dict[str, float]] = {b: {} for b in places}
    loads: dict[str, float] = {}
    if cache is not None:
        cached = cache / f"{name}.db"
        if not marks["sqlite"].exists():
            cached.unlink(missing_ok=True)
            _built(cached, records, marks["sqlite"])
        shutil.copyfile(cached, places["sqlite"])
    loads["import/s"] = _load()  # a reused store's import was measured when it was built
    for backend, location in places.items():
        out[backend]["import/s"] = _built(location, records, marks[backend])
    stores = {backend: MemoryStore(location) for backend, location in places.items()}
    try:
        for store in stores.values():
            for query in queries[:10]:
                store.search(query)  # warm caches
        loads["search"] = _load()
        for backend, (p50, p95, cpu) in _timed(stores, queries, _search).items():
            out[backend].update({"search p50": p50, "search p95": p95, "search CPU": cpu})
        loads["pack"] = _load()
        for backend, (p50, p95, cpu) in _timed(stores, queries[: len(queries) // 3], _pack).items():
            out[backend].update({"pack p50": p50, "pack p95": p95, "pack CPU": cpu})
        adds = 100 if quick else 1000
        loads["add/s"] = _load()
        for backend, store in stores.items():
            began = time.perf_counter()
            added = [
                store.add(f"an added note {n} about the weekly report", allow_duplicate=True).id
                for n in range(adds)
            ]
            out[backend]["add/s"] = adds / (time.perf_counter() - began)
            if backend == "postgresql":
                store.purge(added)  # the cached store stays as built
    finally:
        for store in stores.values():
            store.close()
    clients, seconds = 16, (2.0 if quick else 10.0)
    context = multiprocessing.get_context("spawn")
    loads["16 clients search/s"] = _load()
    for backend, location in places.items():
        results = context.Queue()
        workers = [
            context.Process(target=_client, args=(str(location), queries, seconds, results))
            for _ in range(clients)
        ]
        for worker in workers:
            worker.start()
        total = sum(results.get(timeout=seconds + 300) for _ in workers)
        for worker in workers:
            worker.join()
        out[backend]["16 clients search/s"] = total / seconds
    _print_speed(count, out, loads)
    return out


def _search(store: MemoryStore, query: str) -> Any:
    return store.search(query)


def _pack(store: MemoryStore, query: str) -> Any:
    return store.pack(query, budget=1000, touch=False)


def _print_speed(count: int, out: dict[str, dict[str, float]], loads: dict[str, float]) -> None:
    print(f"\nSpeed, {count:,} synthetic memories, in-process, PostgreSQL over a local socket")
    print(f"{'figure':<22}{'sqlite':>10}{'postgresql':>12}{'load':>7}   target (postgresql, 1M)")
    targets = {"search p50": f"<= {SEARCH_P50_MS:.0f} ms", "pack p50": f"<= {PACK_P50_MS:.0f} ms"}
    for name in out["sqlite"]:
        unit = " ms" if " p5" in name or " p9" in name else ""
        unit = " ms/query" if name.endswith("CPU") else unit
        load = loads.get(name) or loads.get(name.split()[0], 0.0)
        print(
            f"{name + unit:<22}{out['sqlite'][name]:>10.1f}{out['postgresql'][name]:>12.1f}"
            f"{load:>7.1f}   {targets.get(name, '')}"
        )
    print(
        "(load: the 1-minute load average as each figure began, the import's when its store was "
        "built; CPU: this process's and, on PostgreSQL, its server process's, per query; "
        "timings interleave the two backends)"
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.postgres", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="A small slice of everything.")
    parser.add_argument("--url", help="An existing PostgreSQL database to fill (schemas).")
    parser.add_argument(
        "--memories", type=int, nargs="+", default=[100_000], help="Synthetic store sizes."
    )
    parser.add_argument("--no-speed", action="store_true", help="Quality only.")
    parser.add_argument("--no-quality", action="store_true", help="Speed only.")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help=f"Build the speed stores afresh (default: built once, kept in {CACHE}).",
    )
    args = parser.parse_args(argv)
    cache = None if args.quick or args.no_cache else CACHE
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    server = Server(args.url, cache)
    results: dict[str, Any] = {"speed": {}}
    try:
        with tempfile.TemporaryDirectory(prefix="zeromem-bench-pg-") as tmp:
            if not args.no_quality:
                results["quality"] = quality(server, args.quick, Path(tmp))
            if not args.no_speed:
                for count in [2_000] if args.quick else args.memories:
                    began = time.perf_counter()
                    results["speed"][count] = speed(server, count, args.quick, Path(tmp), cache)
                    print(f"({count:,} memories: {time.perf_counter() - began:.0f} s in all)")
    finally:
        server.stop()
    return results


if __name__ == "__main__":
    main()
