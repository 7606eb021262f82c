"""Helpers for driving ``python -m zeromem_cli hook ...`` as the harnesses do: a payload on stdin,
the answer on stdout, in a subprocess with its own ZEROMEM_HOME and HOME."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from zeromem_cli import MemoryStore

FIXTURES = Path(__file__).parent / "fixtures"
TRANSCRIPTS = {
    "claude-code": "transcript.jsonl",
    "codex": "rollout.jsonl",
    "gemini": "session.json",
}
EVENTS = ("session-start", "user-prompt", "pre-compact", "stop", "session-end")


def payload(harness: str, event: str, transcript: Path | None = None, **changes: Any) -> dict:
    """The fixture payload of ``event``, pointing at ``transcript``."""
    data = json.loads((FIXTURES / harness / f"{event}.json").read_text(encoding="utf-8"))
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    elif "transcript_path" in data:
        data["transcript_path"] = "/nonexistent/transcript.jsonl"
    data.update(changes)
    return data


def copy_transcript(harness: str, folder: Path) -> Path:
    target = folder / f"{harness}-{TRANSCRIPTS[harness]}"
    shutil.copyfile(FIXTURES / harness / TRANSCRIPTS[harness], target)
    return target


# The hook's own time limit, at its maximum, unless a test sets one: only the tests of the
# limit (test_failures.py) are about it, and on a loaded machine a hook's wall time passes the
# default's wall grace (watchdog.WALL_GRACE) though its work is well within the limit.
HOOK_LIMIT_MS = "60000"


def hook_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEROMEM_HOOKS")}
    env["ZEROMEM_HOOKS_TIMEOUT_MS"] = HOOK_LIMIT_MS
    env.update(extra)
    return env


def run_hook(
    harness: str,
    event: str,
    body: dict | str | bytes,
    *,
    db: Path | None = None,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    data = (
        body
        if isinstance(body, bytes)
        else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
    )
    command = [sys.executable, "-m", "zeromem_cli", "hook", harness, event, *args]
    if db is not None:
        command += ["--db", str(db)]
    return subprocess.run(
        command, input=data, capture_output=True, env=env or hook_env(), timeout=timeout
    )


def context_of(result: subprocess.CompletedProcess[bytes], harness_event: str) -> str:
    """The injected text of a successful inject answer (checking its exact shape)."""
    assert result.returncode == 0, result.stderr
    assert result.stderr == b"", result.stderr
    answer = json.loads(result.stdout)
    assert list(answer) == ["hookSpecificOutput"]
    inner = answer["hookSpecificOutput"]
    assert list(inner) == ["hookEventName", "additionalContext"]
    assert inner["hookEventName"] == harness_event
    assert isinstance(inner["additionalContext"], str)
    return str(inner["additionalContext"])


def memory_lines(context: str) -> list[str]:
    return [line for line in context.splitlines() if line.startswith("- [")]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own (harness settings live under it)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture
def seeded(db_path: Path) -> Path:
    """A store with a pinned core memory and a few ordinary ones."""
    with MemoryStore(db_path) as store:
        store.add(
            "Ada's team ships the ledger service every Thursday", category="fact", pinned=True
        )
        store.add("Use pytest and PostgreSQL 16 for the ledger tests", category="preference")
        store.add("The staging database is db-2.internal", category="fact", importance=8)
        store.add("Weekly report goes out Fridays 17:00", category="preference")
    return db_path
