"""Cold wall time of the hook a harness runs on every prompt: ``python -m benchmarks.hook_latency``.

``zeromem hook claude-code user-prompt`` (the UserPromptSubmit payload on stdin, a fresh harness
session each run, so nothing is excluded) on the 10k and 100k synthetic databases, median of
``--runs`` cold processes, beside plain ``zeromem search`` on the same databases and the
``python -c "import sqlite3"`` floor, all interleaved so load spikes hit every row alike.
Target: the prompt hook under 150 ms at 100k. ``session-start`` is shown too (no target: once
per session).

Measured on a regular install, as users have it: ``pip install .`` (not editable) into a
scratch virtual environment made for the run (``--venv DIR`` keeps and reuses one; ``--in-place``
uses this interpreter's install instead, for the smoke test). Private config and data folders,
so a user's config file cannot change the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import synthetic
from benchmarks.speed import fresh_copy, machine, tier_label

REPO = Path(__file__).resolve().parent.parent
TIERS = (10_000, 100_000)
TARGET_MS = 150.0


def scratch_install(folder: Path) -> Path:
    """A virtual environment with zeromem installed from this checkout, not editable."""
    python = folder / ("Scripts" if os.name == "nt" else "bin") / "python"
    if not python.exists():
        venv.EnvBuilder(with_pip=True).create(folder)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(REPO)],
        check=True,
    )
    return python.with_name("zeromem")


def timed(command: Sequence[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process (CPU: the steadier figure on a busy machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, input=stdin, capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0 or result.stderr:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.decode()[:300]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(zeromem: list[str], tiers: Sequence[int], runs: int, workdir: Path) -> dict[str, Any]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(workdir), "XDG_DATA_HOME": str(workdir)}
    for name in ("ZEROMEM_HOME", "ZEROMEM_DB", "ZEROMEM_HOOKS"):
        env.pop(name, None)
    dbs = {count: fresh_copy(synthetic.cached_database(count), workdir) for count in tiers}
    words = synthetic.queries(runs, seed=7)
    times: dict[tuple[str, int], list[tuple[float, float]]] = {}
    injected: dict[int, list[int]] = {count: [] for count in tiers}
    for run in range(runs):
        times.setdefault(("floor", 0), []).append(
            timed([sys.executable, "-c", "import sqlite3"], b"", env)
        )
        for count, db in dbs.items():
            session = f"bench-{run}-{time.time_ns()}"
            prompt = json.dumps(
                {"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": words[run]}
            ).encode()
            start = json.dumps({"session_id": session, "source": "startup"}).encode()
            hook = [*zeromem, "hook", "claude-code"]
            rows = {
                "prompt": ([*hook, "user-prompt", "--db", str(db)], prompt),
                "search": ([*zeromem, "search", words[run], "--db", str(db)], b""),
                "start": ([*hook, "session-start", "--db", str(db)], start),
            }
            for name, (command, stdin) in rows.items():
                times.setdefault((name, count), []).append(timed(command, stdin, env))
            # How much the prompt hook injected (another session, outside the timing).
            again = prompt.replace(session.encode(), b"size-" + session.encode())
            answer = subprocess.run(rows["prompt"][0], input=again, capture_output=True, env=env)
            if answer.stdout:
                context = json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
                injected[count].append(len(context))
            else:
                injected[count].append(0)
    medians = {key: statistics.median(w for w, _ in values) * 1000 for key, values in times.items()}
    cpu = {key: statistics.median(c for _, c in values) * 1000 for key, values in times.items()}
    return {"medians": medians, "cpu": cpu, "injected": injected}


ROWS = {
    "floor": 'python -c "import sqlite3" (floor)',
    "search": "zeromem search (plain baseline)",
    "prompt": "zeromem hook claude-code user-prompt",
    "start": "zeromem hook claude-code session-start",
}


def print_table(result: dict[str, Any], tiers: Sequence[int], runs: int, install: str) -> None:
    wall, cpu = result["medians"], result["cpu"]
    print(f"Cold process, median of {runs} runs, wall / CPU ms, {install}")
    print(f"(target: the prompt hook under {TARGET_MS:.0f} ms wall at 100k)")
    heads = [f"{tier_label(t)} wall / CPU ms" for t in tiers]
    print("| command | " + " | ".join(heads) + " | target |")
    print("|---|" + "---|" * len(heads) + "---|")
    for key, label in ROWS.items():
        keys = [("floor", 0) if key == "floor" else (key, t) for t in tiers]
        cells = [f"{wall[k]:.1f} / {cpu[k]:.1f}" for k in keys]
        target = f"< {TARGET_MS:.0f}" if key == "prompt" else ""
        print(f"| {label} | " + " | ".join(cells) + f" | {target} |")
    sizes = ", ".join(
        f"{tier_label(t)} {statistics.median(result['injected'][t]):.0f}" for t in tiers
    )
    print(f"(median characters the prompt hook injected, 300-token default budget: {sizes})")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.hook_latency",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=10, help="Cold runs per command (10).")
    parser.add_argument("--tiers", type=str, default=None, help="Sizes (default 10000,100000).")
    parser.add_argument("--venv", type=Path, default=None, help="Scratch venv to create or reuse.")
    parser.add_argument(
        "--in-place", action="store_true", help="Time this interpreter's zeromem (smoke test)."
    )
    args = parser.parse_args(argv)
    tiers = [int(t) for t in args.tiers.split(",")] if args.tiers else list(TIERS)
    print(f"Machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="zeromem-hook-bench-") as tmp:
        workdir = Path(tmp)
        if args.in_place:
            zeromem = [sys.executable, "-m", "zeromem_cli"]
            install = "this interpreter's install"
        else:
            folder = args.venv or workdir / "venv"
            started = time.perf_counter()
            script = scratch_install(folder)
            zeromem = [str(script)]
            install = "regular install (pip install . into a scratch venv)"
            print(f"(installed in {time.perf_counter() - started:.0f} s: {folder})")
            # pip compiled the package's bytecode: cold runs measure zeromem, not the compiler.
        for count in tiers:
            synthetic.cached_database(count)
        result = measure(zeromem, tiers, args.runs, workdir)
        print_table(result, tiers, args.runs, install)
        if args.venv is None and not args.in_place:
            shutil.rmtree(workdir / "venv", ignore_errors=True)
    sys.stdout.flush()
    return result


if __name__ == "__main__":
    main()
    raise SystemExit(0)
