"""Import / export throughput on a 100k-line jsonl file built from LoCoMo dialogue turns.

    python -m benchmarks.transfer_speed [N]

Turns are cycled (with a counter appended so every memory is distinct) up to N lines
(default 100,000), imported into an empty database through the CLI entry point, exported back
and re-imported (idempotent: nothing written). Prints wall and CPU times and rates (CPU time is the
fair figure on a shared, busy machine).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.datasets import load_locomo


def build(path: Path, count: int) -> bool:
    conversations = load_locomo()
    if not conversations:
        return False
    turns = [(c.sample_id, t) for c in conversations for t in c.turns]
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            sample, turn = turns[number % len(turns)]
            record = {
                "content": f"{turn.memory_text} (#{number})",
                "category": "dialogue",
                "tags": [sample, turn.speaker],
                "created_at": turn.when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "meta": {"dia_id": turn.dia_id},
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return True


def run(*args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child): CPU time stays meaningful on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "zeromem_cli", *args], check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.jsonl"
        if not build(source, count):
            print("skipped: ../shared/datasets/locomo10.json not found")
            return
        db = str(Path(folder) / "bench.db")
        exported = str(Path(folder) / "out.jsonl")
        rows = [
            ("import (empty db)", run("import", str(source), "--db", db)),
            ("export jsonl", run("export", "--db", db, "-o", exported)),
            ("re-import (no-op)", run("import", exported, "--db", db)),
        ]
    header = ("step", "records", "wall s", "cpu s", "rec/s wall", "rec/s cpu")
    print("{:<20} {:>8} {:>7} {:>7} {:>11} {:>10}".format(*header))
    for name, (wall, cpu) in rows:
        print(
            f"{name:<20} {count:>8} {wall:>7.2f} {cpu:>7.2f} {count / wall:>11.0f} "
            f"{count / cpu:>10.0f}"
        )


if __name__ == "__main__":
    main()
