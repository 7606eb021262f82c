"""The seed article's two Mem0 examples run with only the import line changed, each in a
process of its own: the second process recalls what the first stored."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SEED = Path(__file__).parent / "seed"
MEM0_IMPORT = "from mem0 import Memory"
ZEROMEM_IMPORT = "from zeromem_cli.mem0 import Memory"


def swapped(name: str, tmp_path: Path) -> Path:
    """The example with zeromem's import in place of Mem0's, and nothing else changed."""
    source = (SEED / name).read_text()
    assert source.count(MEM0_IMPORT) == 1
    script = tmp_path / name
    script.write_text(source.replace(MEM0_IMPORT, ZEROMEM_IMPORT))
    changed = [
        (a, b)
        for a, b in zip(source.splitlines(), script.read_text().splitlines(), strict=True)
        if a != b
    ]
    assert changed == [(MEM0_IMPORT, ZEROMEM_IMPORT)]
    return script


def run(script: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_basic_operations(tmp_path: Path) -> None:
    out = run(swapped("basic_operations.py", tmp_path))
    assert "now: Likes to play tennis on weekends" in out
    assert "left: ['I prefer morning workouts before work']" in out


def test_memory_agent_recalls_in_a_new_process(tmp_path: Path) -> None:
    script = swapped("memory_agent.py", tmp_path)
    assert run(script, "remember", "alice").strip() == "stored"
    recalled = run(script, "recall", "alice", "which", "programming", "language?")
    assert recalled.splitlines()[0] == "My favourite programming language is Rust"
    assert "I am allergic to peanuts" in run(script, "recall", "alice", "peanuts")


def test_another_user_recalls_nothing(tmp_path: Path) -> None:
    script = swapped("memory_agent.py", tmp_path)
    run(script, "remember", "alice")
    assert run(script, "recall", "bob", "programming", "language") == ""
    assert run(script, "recall", "bob", "peanuts") == ""
