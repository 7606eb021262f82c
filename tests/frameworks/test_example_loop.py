"""examples/memory_loop.py, run as a user runs it (a script, a process per run), with the
offline ``echo`` model of ``llm-echo`` through the ``llm`` Python API: the model echoes the
system prompt it got, so the test sees what each turn recalled."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "memory_loop.py"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llm_echo") is None,
    reason="llm-echo is not installed (the test extra has it on Python 3.11+)",
)


def loop(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    llm_home = tmp_path / "llm-home"
    llm_home.mkdir(exist_ok=True)
    env = {**os.environ, "LLM_USER_PATH": str(llm_home), "LLM_LOAD_PLUGINS": "llm-echo"}
    return subprocess.run(
        [sys.executable, str(EXAMPLE), "--db", str(tmp_path / "loop.db"), "--model", "echo", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def systems(stdout: str) -> list[str]:
    """The system prompt of each turn, as the echo model printed it back."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while (start := stdout.find("{", at)) != -1:
        value, at = decoder.raw_decode(stdout, start)
        found.append(value["system"])
    return found


@pytest.mark.slow  # two processes that each load llm and its plugins
def test_a_later_run_recalls_what_an_earlier_one_kept(tmp_path: Path) -> None:
    first = loop(tmp_path, "Remember that I take my coffee black")
    assert first.returncode == 0, first.stderr
    assert "(nothing yet)" in systems(first.stdout)[0]
    assert "[remembered] I take my coffee black" in first.stderr
    second = loop(tmp_path, "How do I take my coffee?")
    assert second.returncode == 0, second.stderr
    assert "I take my coffee black" in systems(second.stdout)[0]
    assert second.stderr == ""  # a question is not stored
    with MemoryStore(tmp_path / "loop.db") as store:
        assert [m.content for m in store.list()] == ["I take my coffee black"]


def test_a_chat_on_stdin_keeps_updates_and_forgets(tmp_path: Path) -> None:
    turns = [
        "I live in Lisbon",
        "Where do I live?",
        "Actually I live in Porto now",
        "Forget that I live in Porto",
        "Where do I live?",
    ]
    chat = "\n".join(turns) + "\n"
    done = loop(tmp_path, stdin=chat)
    assert done.returncode == 0, done.stderr
    seen = systems(done.stdout)
    assert len(seen) == 5
    assert "I live in Lisbon" in seen[1]
    assert "Porto" in seen[3] and "Lisbon" not in seen[3]  # the key "location" was updated
    assert "Porto" not in seen[4] and "Lisbon" not in seen[4]
    assert "[forgot 1]" in done.stderr


def test_an_unknown_model_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--db", str(tmp_path / "x.db"), "--model", "no-such", "hi"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["memory_loop: 'Unknown model: no-such'"]
