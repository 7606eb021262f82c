"""Claude Code itself (from npm, pinned by .ci/run) in ``-p`` mode against a local mock of the
Messages API (``ANTHROPIC_BASE_URL``, a dummy key, no network), with the hooks and MCP entry
``zeromem setup claude-code --project`` wrote: the session start's memories reach the model
request, the Stop/SessionEnd hooks capture from Claude Code's own transcript, the next
session's prompt hook brings that back, and ``claude mcp list`` reports zeromem connected."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.mock_model import MockModel
from zeromem_cli import MemoryStore

CLAUDE = os.environ.get("ZEROMEM_CLAUDE_CODE") or shutil.which("claude")
pytestmark = [
    pytest.mark.harness,
    pytest.mark.skipif(CLAUDE is None, reason="Claude Code not installed (.ci/run installs it)"),
]
PROJECT = "github.com/Acme/Billing"


def _claude(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert CLAUDE is not None
    return subprocess.run(
        [CLAUDE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A repository set up by `zeromem setup claude-code --project`, a HOME of its own whose
    Claude Code settings approve the project's MCP server (as a user answering the prompt
    would), and the environment every run gets."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"enabledMcpjsonServers": ["zeromem"]})
    )
    repo = tmp_path / "billing"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:Acme/Billing.git\n'
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ZEROMEM_HOME": str(tmp_path / "zeromem"),
        "ANTHROPIC_API_KEY": "sk-ant-api03-dummy-key-for-a-local-mock",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    command = f"{sys.executable} -m zeromem_cli"
    done = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "setup", "claude-code", "--project"]
        + ["--command", command],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return repo, env


def test_claude_code_remembers_across_sessions(
    workspace: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, env = workspace
    db = tmp_path / "zeromem" / "memories.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    with MemoryStore(db, project=PROJECT) as store:
        store.add("Ada reviews pull requests before lunch", pinned=True)

    with MockModel() as model:
        one = _claude(
            "-p",
            "Remember that the staging database is db-2.internal.",
            cwd=repo,
            env={**env, "ANTHROPIC_BASE_URL": model.url},
        )
        assert one.returncode == 0, one.stderr
        sent = model.sent()
    # SessionStart's block reached the model request.
    assert "What the user told earlier sessions" in sent and "before lunch" in sent

    # Stop / SessionEnd captured from Claude Code's own transcript, in the repository's project.
    with MemoryStore(db, project=PROJECT) as store:
        captured = [m.content for m in store.list(limit=50)]
    assert any("staging database is db-2.internal" in c for c in captured), captured

    # The next session: its first prompt is given what bears on it (no start block this time).
    quiet = {**env, "ZEROMEM_HOOKS_SESSION_START_BUDGET": "0"}
    with MockModel() as model:
        two = _claude(
            "-p",
            "Write the migration tests for the staging database",
            cwd=repo,
            env={**quiet, "ANTHROPIC_BASE_URL": model.url},
        )
        assert two.returncode == 0, two.stderr
        sent = model.sent()
    assert "From earlier sessions, may bear on this prompt" in sent
    assert "db-2.internal" in sent
    assert "What the user told earlier sessions" not in sent


def test_claude_mcp_list_reports_zeromem_connected(
    workspace: tuple[Path, dict[str, str]],
) -> None:
    repo, env = workspace
    listed = _claude("mcp", "list", cwd=repo, env=env)
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith("zeromem:"))
    assert "Connected" in line, listed.stdout
