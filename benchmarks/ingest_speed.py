"""`ingest` throughput on plain-text conversations of growing size (#33: ~100 lines a second,
slower as the store grew; target >= 2,000 lines/s at 100k lines, linear).

    python -m benchmarks.ingest_speed [N ...]      (default: 10000 50000 100000)

Each size is a fresh text file of N user lines, a third of them facts with a key ("my X is
Y"), a third preferences or explicit requests, a third chatter that stores nothing; every
stored line is distinct. It is ingested into an empty database through the CLI, then
ingested again (everything a duplicate). The baseline beside it is `import` of the same
number of memories as JSONL (the plain bulk path, no rules). Rates are of CPU time (user +
system of the child), the fair figure on a shared, busy machine; wall time is shown too, with
the highest 1-minute load average seen during the row. Linear: the rate at 100k stays near
the rate at 10k. Ingest stores no vectors (`zeromem index` does), so the semantic extra being
installed or not changes nothing here.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 2000  # lines per second, at 100k lines
WORDS = (
    "apple river stone cloud maple copper violet harbor lantern meadow pepper quartz falcon "
    "orchard willow cinder basalt juniper saffron tundra"
).split()


def build(path: Path, count: int) -> None:
    lines = []
    for n in range(count):
        a, b = WORDS[n % len(WORDS)], WORDS[(n // len(WORDS)) % len(WORDS)]
        kind = n % 3
        if kind == 0:
            lines.append(f"my {a} {b} number {n} is {WORDS[(n * 7) % len(WORDS)]}")
        elif kind == 1:
            lines.append(f"I prefer {a} over {b} for batch {n}")
        else:
            lines.append(f"just chatting about {a} and {b} today {n}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def build_jsonl(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            out.write(json.dumps({"content": f"I prefer {WORDS[n % 20]} for batch {n}"}) + "\n")


def run(*args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one CLI run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "zeromem_cli", *args], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> list[tuple[int, float, float]]:
    """Print the table; return (lines, ingest lines/s of CPU, its rerun's) per size."""
    args = sys.argv[1:] if argv is None else argv
    sizes = [int(a) for a in args] or [10_000, 50_000, 100_000]
    rates = []
    head = (
        "lines", "ingest wall s", "ingest CPU s", "lines/s wall", "lines/s CPU",
        "again lines/s CPU", "baseline: import lines/s CPU", "target lines/s", "load avg",
    )  # fmt: skip
    print(" | ".join(head))
    for count in sizes:
        with tempfile.TemporaryDirectory() as folder:
            text, jsonl = Path(folder) / "chat.txt", Path(folder) / "in.jsonl"
            build(text, count)
            build_jsonl(jsonl, count)
            db = str(Path(folder) / "ingest.db")
            load = os.getloadavg()[0]
            wall, cpu = run("ingest", str(text), "--format", "text", "--quiet", "--db", db)
            _, again = run("ingest", str(text), "--format", "text", "--quiet", "--db", db)
            _, imported = run("import", str(jsonl), "--db", str(Path(folder) / "import.db"))
            load = max(load, os.getloadavg()[0])
            print(
                f"{count:,} | {wall:.1f} | {cpu:.1f} | {count / wall:,.0f} | {count / cpu:,.0f} | "
                f"{count / again:,.0f} | {count / imported:,.0f} | >= {TARGET:,} | {load:.1f}"
            )
            rates.append((count, count / cpu, count / again))
    return rates


if __name__ == "__main__":
    main()
