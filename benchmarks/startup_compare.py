"""Cold start-up of two (or more) regular installs of zeromem, side by side in one run.

``python -m benchmarks.speed --only cold`` measures the install it runs from; a change that
claims "start-up no worse" needs the before and the after measured in the same run, on the
same machine load, from regular installs (an editable install's import hook adds its own
start-up time to every process). Give each install as LABEL=PATH-TO-ITS-zeromem-SCRIPT::

    python3 -m venv /tmp/zm-before && /tmp/zm-before/bin/pip install -q /path/to/old/checkout
    python3 -m venv /tmp/zm-after && /tmp/zm-after/bin/pip install -q .
    python -m benchmarks.startup_compare before=/tmp/zm-before/bin/zeromem \\
        after=/tmp/zm-after/bin/zeromem --runs 20

Every command of every install runs once per round, interleaved, so a load spike hits all
rows alike; the table gives the median wall and CPU time and the ratio to a minimal Typer app
run by the first install's interpreter (the floor ``benchmarks.speed`` uses). Databases are the
cached synthetic 10k and 100k stores (``benchmarks/synthetic.py``), one private copy per
install (``add`` writes).

``--callgrind`` counts instructions instead (load-proof; #30's start-up target): each install's
``search`` and ``pack`` once under valgrind in a one-memory store, beside the Typer floor run by
the same interpreter (``benchmarks/startup_instructions.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks import startup_instructions, synthetic
from benchmarks.speed import COLD_TIERS, TYPER_FLOOR, fmt_ms, fresh_copy, tier_label, timed_run


def _installs(specs: list[str]) -> dict[str, Path]:
    installs: dict[str, Path] = {}
    for spec in specs:
        label, sep, script = spec.partition("=")
        path = Path(script)
        if not sep or not label or not path.is_file():
            raise SystemExit(f"give LABEL=PATH to an installed zeromem script, not {spec!r}")
        installs[label] = path
    return installs


def _commands(
    label: str, script: Path, dbs: dict[int, Path], word: str, run: int
) -> dict[str, list[str]]:
    batch = {f"{label}: zeromem --help": [str(script), "--help"]}
    for count, db in dbs.items():
        tier = tier_label(count)
        note = f"benchmark note {run}: {word} owned by Erin"
        batch[f"{label}: add ({tier})"] = [str(script), "add", note, "--db", str(db)]
        batch[f"{label}: search ({tier})"] = [str(script), "search", word, "--db", str(db)]
        batch[f"{label}: pack ({tier})"] = [
            str(script),
            "pack",
            word,
            "--no-touch",
            "--db",
            str(db),
        ]
    return batch


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("install", nargs="+", help="LABEL=PATH to an installed zeromem script")
    parser.add_argument("--runs", type=int, default=10, help="Rounds (10).")
    parser.add_argument(
        "--tiers", default=",".join(str(t) for t in COLD_TIERS), help="Store sizes (10000,100000)."
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="Instruction counts under valgrind instead of timings (one run each).",
    )
    parser.add_argument(
        "--keep", type=Path, help="With --callgrind: leave the callgrind.out files here."
    )
    args = parser.parse_args(argv)
    installs = _installs(args.install)
    if args.callgrind:
        print(startup_instructions.table(startup_instructions.measure(installs, args.keep)))
        return
    tiers = [int(t) for t in args.tiers.split(",") if t.strip()]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZEROMEM_", "PYTHONPATH"))}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env["ZEROMEM_HOME"] = str(work / "home")
        first_python = next(iter(installs.values())).with_name("python")
        floor_script = work / "typer_floor.py"
        floor_script.write_text(TYPER_FLOOR, encoding="utf-8")
        cached = {count: synthetic.cached_database(count) for count in tiers}
        dbs: dict[str, dict[int, Path]] = {}
        for label in installs:
            folder = work / label
            folder.mkdir()
            dbs[label] = {count: fresh_copy(path, folder) for count, path in cached.items()}
        words = synthetic.queries(args.runs, seed=99)
        timings: dict[str, list[tuple[float, float]]] = {}
        for run in range(args.runs):
            batch = {
                "floor: python -c 'import sqlite3'": [str(first_python), "-c", "import sqlite3"],
                "floor: typer app, one command": [
                    str(first_python),
                    str(floor_script),
                    "--name",
                    "x",
                ],
            }
            for label, script in installs.items():
                batch.update(_commands(label, script, dbs[label], words[run], run))
            for name, command in batch.items():
                timings.setdefault(name, []).append(timed_run(command, env))
    floor = statistics.median(w for w, _ in timings["floor: typer app, one command"])
    print(f"Cold start-up, regular installs, median of {args.runs} interleaved rounds")
    print(f"{'command':<34}{'wall ms':>9}{'cpu ms':>9}{'x typer':>9}")
    print("-" * 61)
    order = sorted(
        timings, key=lambda name: (not name.startswith("floor"), name.split(": ")[1], name)
    )
    for name in order:
        wall = statistics.median(w for w, _ in timings[name])
        cpu = statistics.median(c for _, c in timings[name])
        print(f"{name:<34}{fmt_ms(wall):>9}{fmt_ms(cpu):>9}{wall / floor:>9.2f}")
    print("(target: the after rows no worse than the before rows)")


if __name__ == "__main__":
    main(sys.argv[1:])
