"""Instructions of one cold ``search`` and ``pack`` per install, beside the Typer floor.

Wall-clock start-up on this shared machine swings with its load; the instruction count of one
cold process does not, so it is what #30's start-up target is checked with: each command runs
once under valgrind's callgrind (total Ir, ``PYTHONHASHSEED=0``) in a one-memory store (no tags,
no meta) the install itself wrote, beside the Typer floor app (``benchmarks.speed.TYPER_FLOOR``)
run by the same install's interpreter. Give regular (not editable) installs without extras,
so semantic recall is off::

    python -m benchmarks.startup_compare --callgrind before=/tmp/zm-before/bin/zeromem \\
        after=/tmp/zm-after/bin/zeromem

``--keep DIR`` leaves each ``callgrind.out`` there for ``callgrind_annotate``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from benchmarks.speed import TYPER_FLOOR

# Cold search within 1.10x of the floor's instructions; pack no worse than before (#30).
SEARCH_TARGET = 1.10
MEMORY = "deploy the release from the main branch on Friday"
COMMANDS = {
    "zeromem search": ["search", "deploy"],
    "zeromem pack": ["pack", "deploy", "--no-touch"],
}
FLOOR = "Typer floor app"


def instructions(command: list[str], env: dict[str, str], out: Path, cwd: Path) -> int:
    """Total Ir of one run of ``command`` under callgrind (it must succeed)."""
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        check=True,
        capture_output=True,
        env=env,
        cwd=cwd,
    )
    for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"no instruction total in {out}")


def measure(installs: dict[str, Path], keep: Path | None = None) -> dict[str, dict[str, int]]:
    """Instructions per row (the floor, then each command) per install label."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install -y valgrind)")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ZEROMEM_", "PYTHON"))}
    counts: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)  # outside any git repository: no project remote is read
        floor_script = work / "typer_floor.py"
        floor_script.write_text(TYPER_FLOOR, encoding="utf-8")
        outs = keep or work
        outs.mkdir(parents=True, exist_ok=True)
        for label, script in installs.items():
            folder = work / label
            folder.mkdir()
            env = {**base, "PYTHONHASHSEED": "0", "ZEROMEM_HOME": str(folder / "home")}
            db = folder / "memories.db"
            subprocess.run(
                [str(script), "add", MEMORY, "--db", str(db)],
                check=True,
                capture_output=True,
                env=env,
                cwd=folder,
            )
            python = script.with_name("python")
            row = {
                FLOOR: instructions(
                    [str(python), str(floor_script), "--name", "x"],
                    env,
                    outs / f"callgrind.out.{label}.floor",
                    folder,
                )
            }
            for name, args in COMMANDS.items():
                out = outs / f"callgrind.out.{label}.{args[0]}"
                row[name] = instructions([str(script), *args, "--db", str(db)], env, out, folder)
            counts[label] = row
    return counts


def table(counts: dict[str, dict[str, int]]) -> str:
    """M instructions per command per install, and each install's ratio to its own floor."""
    labels = list(counts)
    width = {label: max(14, len(label) + 10) for label in labels}
    head = f"{'command':<18}" + "".join(f"{label + ' M':>{width[label]}}" for label in labels)
    head += "".join(f"{'x floor ' + label:>{width[label] + 4}}" for label in labels)
    head += f"{'target':>10}"
    lines = [
        "Cold start-up, instructions of one process (callgrind total Ir, PYTHONHASHSEED=0)",
        head,
        "-" * len(head),
    ]
    for name in (FLOOR, *COMMANDS):
        line = f"{name:<18}"
        line += "".join(f"{counts[lb][name] / 1e6:>{width[lb]}.1f}" for lb in labels)
        line += "".join(
            f"{counts[lb][name] / counts[lb][FLOOR]:>{width[lb] + 4}.3f}" for lb in labels
        )
        target = {FLOOR: "", "zeromem search": f"<={SEARCH_TARGET:.2f}"}.get(name, "no worse")
        lines.append(line + f"{target:>10}")
    return "\n".join(lines)
