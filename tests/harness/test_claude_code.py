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
from pathlib import Path

import pytest

from tests.harness.mock_model import MockModel
from tests.harness.workspace import harness_env, remembers_across_sessions, repository
from tests.harness.workspace import zeromem_setup as setup

CLAUDE = os.environ.get("ZEROMEM_CLAUDE_CODE") or shutil.which("claude")
pytestmark = [
    pytest.mark.harness,
    pytest.mark.slow,
    pytest.mark.skipif(CLAUDE is None, reason="Claude Code not installed (.ci/run installs it)"),
]


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
    env = harness_env(
        tmp_path,
        ANTHROPIC_API_KEY="sk-ant-api03-dummy-key-for-a-local-mock",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    settings = Path(env["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enabledMcpjsonServers": ["zeromem"]}))
    repo = repository(tmp_path)
    setup(repo, env, "claude-code", "--project")
    return repo, env


def test_claude_code_remembers_across_sessions(workspace: tuple[Path, dict[str, str]]) -> None:
    repo, env = workspace

    def session(prompt: str, env: dict[str, str]) -> str:
        with MockModel() as model:
            done = _claude("-p", prompt, cwd=repo, env={**env, "ANTHROPIC_BASE_URL": model.url})
            assert done.returncode == 0, done.stderr
            return model.sent()

    remembers_across_sessions(session, env)


def test_claude_mcp_list_reports_zeromem_connected(
    workspace: tuple[Path, dict[str, str]],
) -> None:
    repo, env = workspace
    listed = _claude("mcp", "list", cwd=repo, env=env)
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith("zeromem:"))
    assert "Connected" in line, listed.stdout
