"""``zeromem mcp`` through a real client: ``python -m benchmarks.mcp_latency``.

Tables printed:

1. Tool-call round trip, p50 / p95 over ``--queries`` calls (default 200 for memory_search, half
   that for memory_context), measured around the SDK's ``ClientSession.call_tool`` over stdio
   to a ``python -m zeromem_cli mcp`` process, on the synthetic stores of 10k and 100k
   memories, and the server process's CPU time per call (from /proc: the steadier figure on
   a shared machine); the client's own check of each result's ``structuredContent`` against
   the tool's ``outputSchema`` (``ClientSession.validate_tool_result``, part of every
   ``call_tool``), timed again on the results received; beside it the same search / pack in
   process through the library (the plain baseline: what the MCP face adds is the
   difference). A third row searches for a word no memory holds: the per-call floor of the
   SDK, the transport and the tool layer. Target: p50 < 15 ms at 100k. A last tier runs the
   same reads on ~52k real chat turns (``benchmarks.chat_store``: LongMemEval_S and LoCoMo,
   searched with their own questions), when ../shared/datasets holds them (``--no-chats``:
   skipped): longer texts and full-sentence questions than the synthetic stores.
2. Server start-up to the first answer: spawn to the ``initialize`` result and to the first
   ``memory_search`` result, median of ``--runs`` (default 5), and the server's CPU time to
   that answer, beside the cost of importing the MCP SDK alone (``python -c "import
   mcp.server.mcpserver"``: what any server built on it pays first; the stdio server does not
   import it, ``--http`` does) and ``import sqlite3``.

Stores come from ``benchmarks.synthetic`` (cached under benchmarks/.cache/), copied first: the
server writes access counts and its operations log. ``--quick``: the 10k tier only.

The server runs from this checkout by default, started in the system's temporary folder,
outside any git repository (inside one it would serve that repository's project, which holds
none of the synthetic memories). ``--python PATH`` runs it with another interpreter instead:
the zeromem installed there serves (e.g. a virtualenv holding a regular, non-editable ``pip
install '.[mcp]'``), as users run it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import chat_store, synthetic
from benchmarks.speed import fmt_ms, fresh_copy, machine, percentile, tier_label
from zeromem_cli import MemoryStore

TIERS = (10_000, 100_000)
P50_TARGET_MS = 15.0
REPO = Path(__file__).resolve().parents[1]
# The interpreter that runs the server (``--python``) and where it starts: the system's
# temporary folder, outside any git repository, so the server serves the store's memories and
# not a project of the checkout (``--project auto`` reads the working directory).
SERVER = {"python": sys.executable, "cwd": tempfile.gettempdir(), "pythonpath": str(REPO)}


def _server(db: Path, home: Path) -> Any:
    from mcp import StdioServerParameters

    env = {"ZEROMEM_HOME": str(home)}
    if SERVER["pythonpath"]:
        env["PYTHONPATH"] = SERVER["pythonpath"]  # this checkout, wherever the server starts
    return StdioServerParameters(
        command=SERVER["python"],
        args=["-m", "zeromem_cli", "mcp", "--db", str(db)],
        env=env,
        cwd=SERVER["cwd"],
    )


def _server_cpu() -> float | None:
    """CPU seconds used so far by this process's ``zeromem_cli mcp`` children (Linux /proc),
    the steadier figure on a shared machine; None where /proc cannot tell."""
    total, found = 0.0, False
    try:
        tasks = Path(f"/proc/{os.getpid()}/task").iterdir()
        children = {c for t in tasks for c in (t / "children").read_text().split()}
        for pid in children:
            if "zeromem_cli" not in Path(f"/proc/{pid}/cmdline").read_text():
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            found = True
    except (OSError, ValueError, IndexError):
        return None
    return total if found else None


# A word no synthetic memory holds: a search that finds nothing is the per-call floor (the SDK,
# the transport, the tool layer and an empty FTS5 lookup).
NO_MATCH = "xylophonequartzwig"
READS = ("memory_search", "memory_context", "memory_search, no match")


def _calls(queries: Sequence[str]) -> list[tuple[str, str, Sequence[str]]]:
    """(row label, tool, queries) of each measured read."""
    return [
        ("memory_search", "memory_search", queries),
        ("memory_context", "memory_context", queries[::2]),
        ("memory_search, no match", "memory_search", [NO_MATCH] * len(queries)),
    ]


async def _round_trips(db: Path, home: Path, queries: Sequence[str]) -> dict[str, Any]:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    timings: dict[str, Any] = {label: [] for label in READS}
    timings.update(cpu={}, check={})
    with (home / "server-stderr.log").open("w") as errlog:
        async with stdio_client(_server(db, home), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for query in queries[:10]:  # warm the page cache and the code paths
                    await session.call_tool("memory_search", {"query": query})
                    await session.call_tool("memory_context", {"query": query})
                for label, tool, chosen in _calls(queries):
                    results = []
                    before = _server_cpu()
                    for query in chosen:
                        started = time.perf_counter()
                        result = await session.call_tool(tool, {"query": query})
                        timings[label].append(time.perf_counter() - started)
                        if result.is_error:
                            raise RuntimeError(f"{tool} failed: {result.content}")
                        results.append(result)
                    after = _server_cpu()
                    if before is not None and after is not None:
                        timings["cpu"][label] = (after - before) / len(timings[label])
                    if label.endswith("no match") and any(
                        (r.structured_content or {}).get("count") for r in results
                    ):
                        raise RuntimeError(f"{NO_MATCH!r} matched a memory")
                    timings["check"][label] = await _client_check(session, tool, results)
    return timings


async def _client_check(session: Any, tool: str, results: Sequence[Any]) -> float:
    """Median CPU seconds of the client's outputSchema check of one result."""
    spent = []
    for result in results:
        started = time.process_time()
        await session.validate_tool_result(tool, result)
        spent.append(time.process_time() - started)
    return statistics.median(spent)


def _in_process(db: Path, queries: Sequence[str]) -> dict[str, Any]:
    """The same reads through the library: the baseline the MCP face is compared with."""
    timings: dict[str, Any] = {label: [] for label in READS}
    timings["cpu"] = {}
    with MemoryStore(db) as store:
        for query in queries[:10]:
            store.search(query)
            store.pack(query, budget=2000, format="xml", touch=False)

        def read(tool: str, query: str) -> object:
            if tool == "memory_context":
                return store.pack(query, budget=2000, format="xml")
            return store.search(query)

        for label, tool, chosen in _calls(queries):
            cpu = time.process_time()
            for query in chosen:
                started = time.perf_counter()
                read(tool, query)
                timings[label].append(time.perf_counter() - started)
            timings["cpu"][label] = (time.process_time() - cpu) / len(chosen)
    return timings


def latency(count: int, queries: int, workdir: Path) -> dict[str, Any]:
    """The synthetic store of ``count`` memories, searched with its generated queries."""
    source = synthetic.cached_database(count)
    words = synthetic.queries(queries, seed=7)
    return _latency(source, words, workdir, tier_label(count), count == 100_000)


def chat_latency(queries: int, workdir: Path) -> dict[str, Any] | None:
    """The store of real chat turns (``benchmarks.chat_store``), searched with the datasets'
    own questions; None without the datasets."""
    source = chat_store.cached_database()
    if source is None:
        return None
    with MemoryStore(source, read_only=True) as store:
        count = store.count()
    label = f"{tier_label(round(count, -3))} chat turns"
    return _latency(source, chat_store.questions(queries), workdir, label, False)


def _latency(
    source: Path, words: Sequence[str], workdir: Path, label: str, targeted: bool
) -> dict[str, Any]:
    import anyio

    db = fresh_copy(source, workdir)
    home = workdir / f"home-{source.stem}"
    home.mkdir(exist_ok=True)
    through = anyio.run(_round_trips, db, home, words)
    plain = _in_process(db, words)
    return {"label": label, "targeted": targeted, "mcp": through, "library": plain}


async def _first_answers(db: Path, home: Path) -> tuple[float, float, float | None]:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    started = time.perf_counter()
    with (home / "server-stderr.log").open("a") as errlog:
        async with stdio_client(_server(db, home), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                initialized = time.perf_counter() - started
                await session.call_tool("memory_search", {"query": "weekly report"})
                answered = time.perf_counter() - started
                cpu = _server_cpu()  # the server's CPU to its first answer: steadier under load
    return initialized, answered, cpu


def _wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def start_up(count: int, runs: int, workdir: Path) -> dict[str, float]:
    import anyio

    db = fresh_copy(synthetic.cached_database(count), workdir)
    home = workdir / "home-start"
    home.mkdir(exist_ok=True)
    initialize, first, cpu = [], [], []
    sdk, sqlite = [], []
    for _ in range(runs):
        a, b, c = anyio.run(_first_answers, db, home)
        initialize.append(a)
        first.append(b)
        if c is not None:
            cpu.append(c)
        sdk.append(_wall([SERVER["python"], "-c", "import mcp.server.mcpserver"]))
        sqlite.append(_wall([SERVER["python"], "-c", "import sqlite3"]))
    return {
        "initialize": statistics.median(initialize),
        "first_search": statistics.median(first),
        "first_search_cpu": statistics.median(cpu) if cpu else float("nan"),
        "sdk_import": statistics.median(sdk),
        "sqlite_import": statistics.median(sqlite),
    }


def print_latency(rows: list[dict[str, Any]]) -> None:
    print("Tool-call round trip through the MCP client (stdio), ms")
    print()
    print(
        "| tool | memories | calls | p50 | p95 | server CPU per call | client schema check "
        "| library in process p50 / p95, CPU | target |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        for tool in READS:
            library = "pack" if tool == "memory_context" else "search"
            values, plain = row["mcp"][tool], row["library"][tool]
            measured = row["targeted"] and not tool.endswith("no match")
            target = f"p50 < {P50_TARGET_MS:.0f}" if measured else ""
            cpu = row["mcp"]["cpu"].get(tool)
            print(
                f"| {tool} | {row['label']} | {len(values)} "
                f"| {fmt_ms(percentile(values, 0.5))} | {fmt_ms(percentile(values, 0.95))} "
                f"| {fmt_ms(cpu) if cpu is not None else 'n/a'} "
                f"| {row['mcp']['check'][tool] * 1000:.2f} "
                f"| {library} {fmt_ms(percentile(plain, 0.5))} / "
                f"{fmt_ms(percentile(plain, 0.95))}, {fmt_ms(row['library']['cpu'][tool])} "
                f"| {target} |"
            )


def print_start_up(figures: dict[str, float], count: int, runs: int) -> None:
    print(f"Server start-up to the first answer ({tier_label(count)} store), median of {runs}")
    print()
    print(
        f"(load average {os.getloadavg()[0]:.1f}; target: first answer <= 1.0 s on a quiet machine)"
    )
    print()
    print("| step | wall ms | reference |")
    print("|---|---|---|")
    print(f"| spawn -> initialize result | {fmt_ms(figures['initialize'])} | |")
    print(
        f"| spawn -> first memory_search result | {fmt_ms(figures['first_search'])} "
        f"| server CPU {fmt_ms(figures['first_search_cpu'])} |"
    )
    print(
        f"| floor: python -c 'import mcp.server.mcpserver' | {fmt_ms(figures['sdk_import'])} "
        "| the SDK alone (what a server built on it pays first; stdio does not import it) |"
    )
    print(f"| floor: python -c 'import sqlite3' | {fmt_ms(figures['sqlite_import'])} | |")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.mcp_latency",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="The 10k tier only.")
    parser.add_argument("--tiers", default=None, help="Comma-separated sizes (10000,100000).")
    parser.add_argument("--queries", type=int, default=200, help="memory_search calls (200).")
    parser.add_argument(
        "--no-chats", action="store_true", help="Skip the store of real chat turns."
    )
    parser.add_argument("--runs", type=int, default=5, help="Start-up runs (5).")
    parser.add_argument(
        "--python",
        default=None,
        help="Interpreter whose installed zeromem serves (default: this one, this checkout).",
    )
    args = parser.parse_args(argv)
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("benchmarks.mcp_latency needs the MCP SDK: pip install 'zeromem[mcp]'")
        return {}
    tiers = (
        [int(t) for t in args.tiers.split(",")]
        if args.tiers
        else [TIERS[0]]
        if args.quick
        else list(TIERS)
    )
    results: dict[str, Any] = {}
    default = dict(SERVER)
    if args.python:
        SERVER.update(python=args.python, pythonpath="")  # the install there, not this checkout
    try:
        with tempfile.TemporaryDirectory(prefix="zeromem-mcp-bench-") as tmp:
            _run(args, tiers, Path(tmp), results)
    finally:
        SERVER.update(default)
    sys.stdout.flush()
    return results


def _run(args: argparse.Namespace, tiers: list[int], tmp: Path, results: dict[str, Any]) -> None:
    os.environ.pop("ZEROMEM_DB", None)
    print(f"Machine: {machine()}")
    print(f"Server: {SERVER['python']} -m zeromem_cli mcp (in {SERVER['cwd']})")
    for count in tiers:
        synthetic.cached_database(count)
    results["latency"] = [latency(count, args.queries, tmp) for count in tiers]
    chats = None if args.quick or args.no_chats else chat_latency(args.queries, tmp)
    if chats is not None:
        results["latency"].append(chats)
    print_latency(results["latency"])
    print()
    results["start_up"] = start_up(tiers[-1], args.runs, tmp)
    print_start_up(results["start_up"], tiers[-1], args.runs)


if __name__ == "__main__":
    main()
    raise SystemExit(0)
