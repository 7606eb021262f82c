"""Speed, scale and footprint, each figure next to its reference: ``python -m benchmarks.speed``.

Tables printed:

1. Start-up: cold process wall time (median of ``--runs``, default 10) of ``zeromem --help``,
   ``add``, ``search`` and ``pack`` on databases of 10k and 100k memories, next to two floors
   measured in the same run with the same interpreter: ``python -c "import sqlite3"`` and a
   minimal Typer app with one command. Each is given as a ratio to the Typer floor
   (target: search and pack <= 1.3x at 100k).
2. In-process latency (library API) p50/p95 of ``search`` and ``pack`` at 10k, 100k and 1M
   (target at 1M: search p50 < 5 ms, pack p50 < 20 ms).
3. Writes: ``MemoryStore.add`` memories/s on top of the 10k database (near-duplicate check
   included), and ``zeromem import`` of a JSONL file of 100k lines (target >= 20k/s), wall and CPU.
4. Footprint: database bytes per memory and the ratio to the raw content bytes (target <= 3x,
   FTS index included) per tier; peak RSS of a ``zeromem search`` process on the largest tier.
5. ``gc`` on the largest tier with 10% of the memories expired.
6. ``python -X importtime -c "import zeromem_cli.cli"``: total and the slowest modules.

Databases are the fixed-seed synthetic memories of ``benchmarks.synthetic`` (mixed English and
Chinese), cached under benchmarks/.cache/. ``--quick`` runs the 10k tier only (a smoke check);
``--tiers 1000000 --only latency,footprint`` runs some tables on some tiers.
CPU times are printed next to wall times: on a shared machine they are the steadier figure.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import synthetic
from zeromem_cli import MemoryStore
from zeromem_cli.lifecycle import GcPolicy

TIERS = (10_000, 100_000, 1_000_000)
COLD_TIERS = (10_000, 100_000)
START_UP_TARGET = 1.3
SEARCH_P50_TARGET_MS = 5.0
PACK_P50_TARGET_MS = 20.0
IMPORT_TARGET = 20_000
FOOTPRINT_TARGET = 3.0
SECTIONS = ("cold", "latency", "writes", "footprint", "gc", "importtime")

TYPER_FLOOR = """\
import typer

app = typer.Typer()


@app.command()
def hello(name: str = "world") -> None:
    print(f"hello {name}")


app()
"""


@dataclass
class Config:
    tiers: Sequence[int]
    cold_tiers: Sequence[int]
    runs: int = 10
    queries: int = 200
    adds: int = 1000
    import_lines: int = 100_000
    workdir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()))


# -- helpers ----------------------------------------------------------------------------------


def zeromem_command() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m zeromem_cli``."""
    script = Path(sys.executable).with_name("zeromem")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "zeromem_cli"]


def timed_run(command: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compile_package() -> None:
    """Write the package's bytecode caches first, as ``pip install`` does: without them (an
    editable install run with PYTHONDONTWRITEBYTECODE=1) every cold run would compile ~9k lines
    of source and measure the compiler, not zeromem."""
    import zeromem_cli

    compileall.compile_dir(Path(zeromem_cli.__file__).parent, quiet=1)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def fresh_copy(source: Path, folder: Path) -> Path:
    """A private copy of a cached database (benchmarks that write must not change the cache)."""
    target = folder / source.name
    for suffix in ("", "-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    shutil.copyfile(source, target)
    return target


def tier_label(count: int) -> str:
    """10k, 100k, 1M; other sizes as they are."""
    if count % 1_000_000 == 0:
        return f"{count // 1_000_000}M"
    if count % 1000 == 0:
        return f"{count // 1000}k"
    return str(count)


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


# -- 1. cold start ----------------------------------------------------------------------------


def cold_start(config: Config, env: dict[str, str]) -> dict[str, dict[str, float]]:
    """Median wall / CPU of each command, plus the two floors, in one interleaved run."""
    floor_script = config.workdir / "typer_floor.py"
    floor_script.write_text(TYPER_FLOOR, encoding="utf-8")
    zeromem = zeromem_command()
    commands: dict[str, list[str]] = {
        "python -c 'import sqlite3'": [sys.executable, "-c", "import sqlite3"],
        "typer app, one command": [sys.executable, str(floor_script), "--name", "x"],
        "zeromem --help": [*zeromem, "--help"],
    }
    dbs = {
        count: fresh_copy(synthetic.cached_database(count), config.workdir)
        for count in config.cold_tiers
    }
    words = synthetic.queries(config.runs, seed=99)
    per_run: dict[str, list[tuple[float, float]]] = {}
    for run in range(config.runs):
        batch = dict(commands)
        for count, db in dbs.items():
            label = tier_label(count)
            batch[f"zeromem add ({label})"] = [
                *zeromem,
                "add",
                f"benchmark note {run}: {words[run]} owned by Erin",
                "--db",
                str(db),
            ]
            batch[f"zeromem search ({label})"] = [*zeromem, "search", words[run], "--db", str(db)]
            batch[f"zeromem pack ({label})"] = [
                *zeromem,
                "pack",
                words[run],
                "--no-touch",
                "--db",
                str(db),
            ]
        for name, command in batch.items():  # interleaved: load spikes hit every row alike
            per_run.setdefault(name, []).append(timed_run(command, env))
    return {
        name: {
            "wall": statistics.median(w for w, _ in runs),
            "cpu": statistics.median(c for _, c in runs),
        }
        for name, runs in per_run.items()
    }


def print_cold(figures: dict[str, dict[str, float]], runs: int) -> None:
    floor = figures["typer app, one command"]["wall"]
    print(
        f"Cold process start-up, median of {runs} runs (ratio to the Typer floor; "
        f"target search/pack <= {START_UP_TARGET}x at 100k)"
    )
    print(f"{'command':<28}{'wall ms':>9}{'cpu ms':>9}{'x typer':>9}")
    print("-" * 55)
    for name, row in figures.items():
        print(
            f"{name:<28}{fmt_ms(row['wall']):>9}{fmt_ms(row['cpu']):>9}{row['wall'] / floor:>9.2f}"
        )


# -- 2. in-process latency --------------------------------------------------------------------


def latency(count: int, queries: int) -> dict[str, float]:
    """p50 / p95 (ms) of search and pack through the library API on the cached database."""
    path = synthetic.cached_database(count)
    texts = synthetic.queries(queries)
    out: dict[str, float] = {"memories": count}
    with MemoryStore(path) as store:
        for text in texts[:10]:  # warm the page cache
            store.search(text)
        for name, call in (
            ("search", lambda text: store.search(text, limit=10)),
            ("pack", lambda text: store.pack(text, budget=1000, touch=False)),
        ):
            timings = []
            for text in texts:
                began = time.perf_counter()
                call(text)
                timings.append((time.perf_counter() - began) * 1000)
            out[f"{name}_p50"] = statistics.median(timings)
            out[f"{name}_p95"] = percentile(timings, 0.95)
    # A search inside a repository whose project holds none of the store's memories yet, as a
    # hook or the MCP server run there makes: it must not pay for scoring the whole store.
    with MemoryStore(path, project="bench-repository", read_only=True) as project:
        timings = []
        for text in texts:
            began = time.perf_counter()
            project.search(text, limit=10)
            timings.append((time.perf_counter() - began) * 1000)
        out["project_p50"] = statistics.median(timings)
    return out


def print_latency(rows: list[dict[str, float]], queries: int) -> None:
    print(
        f"In-process latency, {queries} queries (targets at 1M: search p50 < "
        f"{SEARCH_P50_TARGET_MS:g} ms, pack p50 < {PACK_P50_TARGET_MS:g} ms)"
    )
    print(
        f"{'memories':>10}{'search p50':>12}{'p95':>8}{'pack p50':>10}{'p95':>8}"
        f"{'project search p50':>20}"
    )
    print("-" * 68)
    for row in rows:
        print(
            f"{int(row['memories']):>10}{row['search_p50']:>12.2f}{row['search_p95']:>8.2f}"
            f"{row['pack_p50']:>10.2f}{row['pack_p95']:>8.2f}{row['project_p50']:>20.2f}"
        )


# -- 3. writes --------------------------------------------------------------------------------


def add_rate(config: Config) -> dict[str, float]:
    """``MemoryStore.add`` (one transaction each, duplicate and near-duplicate checks on)
    on a copy of the 10k database, with synthetic memories it does not hold yet."""
    db = fresh_copy(synthetic.cached_database(config.tiers[0]), config.workdir)
    records = list(synthetic.memories(config.adds, seed=synthetic.SEED + 7))
    with MemoryStore(db) as store:
        began_cpu, began = time.process_time(), time.perf_counter()
        for record in records:
            store.add(
                str(record["content"]), category=str(record["category"]), tags=list(record["tags"])
            )  # type: ignore[call-overload]
        wall, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    return {"count": len(records), "wall": wall, "cpu": cpu}


def import_rate(config: Config, env: dict[str, str]) -> dict[str, float]:
    """``zeromem import`` of a JSONL file into an empty database, through the CLI."""
    source = config.workdir / "import.jsonl"
    with source.open("w", encoding="utf-8") as out:
        for record in synthetic.memories(config.import_lines, seed=synthetic.SEED + 3):
            record.pop("uid")
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    db = config.workdir / "import.db"
    wall, cpu = timed_run(
        [*zeromem_command(), "import", str(source), "--all-scopes", "--db", str(db)], env
    )
    return {"count": config.import_lines, "wall": wall, "cpu": cpu}


def print_writes(add: dict[str, float], imported: dict[str, float]) -> None:
    print(f"Writes (target: import >= {IMPORT_TARGET:,} memories/s)")
    print(f"{'operation':<34}{'count':>8}{'wall s':>8}{'cpu s':>8}{'/s wall':>9}{'/s cpu':>9}")
    print("-" * 76)
    for name, row in (
        ("MemoryStore.add (10k store)", add),
        ("zeromem import (jsonl, empty db)", imported),
    ):
        print(
            f"{name:<34}{int(row['count']):>8}{row['wall']:>8.2f}{row['cpu']:>8.2f}"
            f"{row['count'] / row['wall']:>9.0f}{row['count'] / row['cpu']:>9.0f}"
        )


# -- 4. footprint and memory --------------------------------------------------------------------


def footprint(count: int) -> dict[str, float]:
    path = synthetic.cached_database(count)
    size = path.stat().st_size
    raw = synthetic.raw_content_bytes(path)
    conn = sqlite3.connect(path)
    try:
        fts = conn.execute(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'memories_fts%'"
        ).fetchone()[0]
    except sqlite3.Error:  # SQLite built without dbstat
        fts = None
    finally:
        conn.close()
    return {"memories": count, "bytes": size, "raw": raw, "fts": fts or 0}


def peak_rss(count: int, env: dict[str, str]) -> float:
    """Peak resident memory (MB) of one ``zeromem search`` process on the ``count`` tier."""
    db = synthetic.cached_database(count)
    probe = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    query = synthetic.queries(1)[0]
    out = subprocess.run(
        [sys.executable, "-c", probe, *zeromem_command(), "search", query, "--db", str(db)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return int(out.strip()) / 1024  # ru_maxrss is in KiB on Linux


def print_footprint(rows: list[dict[str, float]], rss: tuple[int, float]) -> None:
    print(f"Footprint (target <= {FOOTPRINT_TARGET:g}x the raw content bytes, FTS included)")
    print(
        f"{'memories':>10}{'db MB':>9}{'bytes/mem':>11}{'content B/mem':>15}{'FTS MB':>8}"
        f"{'x raw':>7}"
    )
    print("-" * 60)
    for row in rows:
        count = row["memories"]
        print(
            f"{int(count):>10}{row['bytes'] / 1e6:>9.1f}{row['bytes'] / count:>11.0f}"
            f"{row['raw'] / count:>15.0f}{row['fts'] / 1e6:>8.1f}"
            f"{row['bytes'] / row['raw']:>7.2f}"
        )
    print(f"peak RSS of `zeromem search` at {rss[0]:,} memories: {rss[1]:.1f} MB")


# -- 5. gc -------------------------------------------------------------------------------------


def gc_time(count: int, config: Config) -> dict[str, float]:
    """``MemoryStore.gc`` on a copy of the tier with every tenth memory expired."""
    db = fresh_copy(synthetic.cached_database(count), config.workdir)
    with MemoryStore(db) as store:
        with store.transaction():
            conn = store.connection
            conn.execute(
                "UPDATE memories SET expires_at = '2025-01-01T00:00:00Z' WHERE id % 10 = 0"
            )
        began_cpu, began = time.process_time(), time.perf_counter()
        report = store.gc(GcPolicy())
        wall, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    db.unlink()
    return {"memories": count, "expired": report.expired, "wall": wall, "cpu": cpu}


def print_gc(row: dict[str, float]) -> None:
    print(
        f"gc on {int(row['memories']):,} memories, {int(row['expired']):,} expired: "
        f"{row['wall']:.2f} s wall, {row['cpu']:.2f} s CPU"
    )


# -- 6. import time ----------------------------------------------------------------------------


def _importtime(stderr: str) -> list[tuple[int, int, int, str]]:
    """``-X importtime`` lines as (self us, cumulative us, nesting depth, module)."""
    rows = []
    for line in stderr.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if found:
            rows.append((int(found[1]), int(found[2]), len(found[3]), found[4]))
    return rows


def import_time(env: dict[str, str], top: int = 12) -> dict[str, Any]:
    """Cumulative import time of zeromem_cli.cli and the modules costing most (self time)."""
    runs = []
    for _ in range(3):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import zeromem_cli.cli"],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stderr
        runs.append([(own, cumulative, name) for own, cumulative, _, name in _importtime(err)])
    best = min(runs, key=lambda rows: next(c for s, c, n in rows if n == "zeromem_cli.cli"))
    total = next(c for s, c, n in best if n == "zeromem_cli.cli")
    slowest = sorted(best, key=lambda r: -r[0])[:top]
    ours = sorted(n for _, _, n in best if n.startswith("zeromem_cli"))
    heavy = [
        n
        for n in (
            "rich",
            "sqlite_utils",
            "pydantic",
            "click",
            "tomllib",
            "uuid",
            "json",
            "typer",
            "secrets",
            "zeromem_cli.pack.select",
            "zeromem_cli.text.secrets",
        )
        if any(m == n for _, _, m in best)
    ]
    return {"total_ms": total / 1000, "slowest": slowest, "ours": ours, "loaded": heavy}


def search_import_time(env: dict[str, str], db: Path) -> dict[str, Any]:
    """What a real ``zeromem search`` process imports (``import zeromem_cli.cli`` alone loads
    no command and no core): total import time and our own modules' share, best of 3."""
    script = zeromem_command()
    command = (
        [sys.executable, "-X", "importtime", *script[1:]]
        if len(script) > 1
        else [sys.executable, "-X", "importtime", script[0]]
    )
    query = synthetic.queries(1)[0]
    best: dict[str, Any] = {}
    for _ in range(3):
        err = subprocess.run(
            [*command, "search", query, "--db", str(db)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stderr
        rows = _importtime(err)
        total = sum(cumulative for _, cumulative, depth, _ in rows if depth == 1) / 1000
        ours = sum(own for own, _, _, name in rows if name.startswith("zeromem_cli")) / 1000
        if not best or total < best["total_ms"]:
            best = {"total_ms": total, "ours_ms": ours, "modules": len(rows)}
    return best


def print_import_time(row: dict[str, Any]) -> None:
    print(
        f"python -X importtime -c 'import zeromem_cli.cli': {row['total_ms']:.1f} ms "
        "(best of 3); slowest modules, self time:"
    )
    for self_us, cumulative_us, name in row["slowest"]:
        print(f"  {self_us / 1000:>6.1f} ms  (cumulative {cumulative_us / 1000:>6.1f})  {name}")
    print(
        "  zeromem modules loaded: "
        + ", ".join(m.removeprefix("zeromem_cli.") for m in row["ours"])
    )
    print("  of note, loaded: " + (", ".join(row["loaded"]) or "-"))
    search = row.get("search")
    if search:
        print(
            f"a `zeromem search` process imports {search['modules']} modules in "
            f"{search['total_ms']:.1f} ms, {search['ours_ms']:.1f} ms of it zeromem's own "
            "(self time; best of 3)"
        )


# -- main ---------------------------------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    import typer

    return (
        f"{cpu}, {os.cpu_count()} cores, load {load:.2f}; Python {platform.python_version()},"
        f" SQLite {sqlite3.sqlite_version}, Typer {typer.__version__}, {platform.system()}"
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="The 10k tier only (smoke check).")
    parser.add_argument("--runs", type=int, default=10, help="Cold runs per command (10).")
    parser.add_argument(
        "--tiers",
        type=str,
        default=None,
        help="Comma-separated database sizes (default 10000,100000,1000000).",
    )
    parser.add_argument("--queries", type=int, default=200, help="Queries per latency tier.")
    parser.add_argument(
        "--import-lines",
        type=int,
        default=None,
        help="Lines of the import file (100000; quick: 10000).",
    )
    parser.add_argument("--adds", type=int, default=None, help="Library adds (1000; quick 200).")
    parser.add_argument(
        "--only",
        type=str,
        default=",".join(SECTIONS),
        help=f"Comma-separated tables to run (default all: {','.join(SECTIONS)}).",
    )
    args = parser.parse_args(argv)
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    if not only or not only <= set(SECTIONS):
        parser.error(f"--only takes some of {','.join(SECTIONS)}")
    tiers = (
        [int(t) for t in args.tiers.split(",")]
        if args.tiers
        else [TIERS[0]]
        if args.quick
        else list(TIERS)
    )
    cold_tiers = [t for t in tiers if t in COLD_TIERS] or tiers[:1]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="zeromem-speed-") as tmp:
        config = Config(
            tiers=tiers,
            cold_tiers=cold_tiers,
            runs=args.runs,
            queries=args.queries,
            adds=args.adds or (200 if args.quick else 1000),
            import_lines=args.import_lines or (10_000 if args.quick else 100_000),
            workdir=Path(tmp),
        )
        # Private config/data folders (a user's config file must not change the figures), found
        # the way a user's are (platformdirs), not through the ZEROMEM_HOME shortcut.
        env = {**os.environ, "XDG_CONFIG_HOME": tmp, "XDG_DATA_HOME": tmp}
        env.pop("ZEROMEM_HOME", None)
        env.pop("ZEROMEM_DB", None)
        print(f"Machine: {machine()}")
        started = time.perf_counter()
        for count in tiers:
            synthetic.cached_database(count)
        print(f"(synthetic databases ready in {time.perf_counter() - started:.1f} s)\n")

        if "cold" in only:
            compile_package()
            results["cold"] = cold_start(config, env)
            print_cold(results["cold"], config.runs)
            print()
        if "latency" in only:
            results["latency"] = [latency(count, config.queries) for count in tiers]
            print_latency(results["latency"], config.queries)
            print()
        if "writes" in only:
            results["add"] = add_rate(config)
            results["import"] = import_rate(config, env)
            print_writes(results["add"], results["import"])
            print()
        if "footprint" in only:
            results["footprint"] = [footprint(count) for count in tiers]
            results["rss"] = (tiers[-1], peak_rss(tiers[-1], env))
            print_footprint(results["footprint"], results["rss"])
            print()
        if "gc" in only:
            results["gc"] = gc_time(tiers[-1], config)
            print_gc(results["gc"])
            print()
        if "importtime" in only:
            results["import_time"] = import_time(env)
            results["import_time"]["search"] = search_import_time(
                env, synthetic.cached_database(tiers[0])
            )
            print_import_time(results["import_time"])
    sys.stdout.flush()
    return results


if __name__ == "__main__":
    main()
    raise SystemExit(0)
