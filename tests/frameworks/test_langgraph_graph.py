"""Real LangGraph graphs on ``ZeromemStore`` across runs, each run a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from zeromem_cli import MemoryStore

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.frameworks.langgraph_app", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.slow
def test_a_graph_recalls_in_its_second_run_what_the_first_stored(tmp_path: Path) -> None:
    db = str(tmp_path / "graph.db")
    first = run("notes", db, "alice", "remember I am training for the Berlin marathon", "Noted!")
    assert first == {"recalled": [], "answer": "Noted!"}
    second = run("notes", db, "alice", "Which marathon am I training for?", "Berlin.")
    assert second == {"recalled": ["I am training for the Berlin marathon"], "answer": "Berlin."}
    # Another user's namespace recalls nothing of alice's.
    assert run("notes", db, "bob", "Which marathon am I training for?")["recalled"] == []
    # The CLI's store finds what the graph wrote: one database for every face.
    with MemoryStore(db) as store:
        [hit] = store.search("marathon")
    assert (hit.agent, hit.session) == ("langgraph", "memories.alice")


@pytest.mark.slow
def test_langmem_memory_tools_over_the_store(tmp_path: Path) -> None:
    db = str(tmp_path / "langmem.db")
    create = 'TOOL manage_memory {"content": "User prefers window seats on long flights"}'
    first = run("langmem", db, "u1", "I always pick a window seat", create, "Saved.")
    assert first["answer"] == "Saved."
    assert first["tools"][0].startswith("created memory ")
    search = 'TOOL search_memory {"query": "window seat flights"}'
    second = run("langmem", db, "u1", "Where do I like to sit?", search, "By the window.")
    assert "User prefers window seats on long flights" in second["tools"][0]
    other = run("langmem", db, "u2", "Where do I like to sit?", search, "No idea.")
    assert "window" not in other["tools"][0]
