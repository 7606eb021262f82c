"""Codex CLI itself (from npm, pinned by .ci/run) in ``codex exec`` mode against a local mock
of the Responses API (a ``model_providers`` entry given with ``-c``, its documented way to
name a provider's ``base_url``; a dummy key, no network), with the hooks ``zeromem setup
codex`` wrote: the session start's memories reach the model request, the Stop hook captures
from Codex's own rollout log, and the next session's prompt hook brings that back.

Codex runs a hook only once its user has trusted it (``/hooks``); ``codex exec`` has no
review screen, so the test passes ``--dangerously-bypass-hook-trust`` in that user's place."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.mock_model import MockModel
from zeromem_cli import MemoryStore

CODEX = os.environ.get("ZEROMEM_CODEX_CLI") or shutil.which("codex")
pytestmark = [
    pytest.mark.harness,
    pytest.mark.skipif(CODEX is None, reason="Codex CLI not installed (.ci/run installs it)"),
]
PROJECT = "github.com/Acme/Billing"


def _codex(
    prompt: str, url: str, *, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    assert CODEX is not None
    provider = (
        f'model_providers.mock={{name="mock",base_url="{url}/v1",wire_api="responses",'
        'env_key="MOCK_MODEL_KEY",supports_websockets=false,request_max_retries=0,'
        "stream_max_retries=0}"
    )
    command = [CODEX, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"]
    command += ["-c", 'model_provider="mock"', "-c", provider, "-m", "mock-model", prompt]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_codex_remembers_across_sessions(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    repo = tmp_path / "billing"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:Acme/Billing.git\n'
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "ZEROMEM_HOME": str(tmp_path / "zeromem"),
        "MOCK_MODEL_KEY": "dummy-key-for-a-local-mock",
    }
    done = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "setup", "codex"]
        + ["--command", f"{sys.executable} -m zeromem_cli"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    db = tmp_path / "zeromem" / "memories.db"
    with MemoryStore(db, project=PROJECT) as store:
        store.add("Ada reviews pull requests before lunch", pinned=True)

    with MockModel() as model:
        one = _codex(
            "Remember that the staging database is db-2.internal.", model.url, cwd=repo, env=env
        )
        assert one.returncode == 0, one.stderr
        sent = model.sent()
    assert "What the user told earlier sessions" in sent and "before lunch" in sent

    with MemoryStore(db, project=PROJECT) as store:
        captured = [m.content for m in store.list(limit=50)]
    assert any("staging database is db-2.internal" in c for c in captured), captured

    quiet = {**env, "ZEROMEM_HOOKS_SESSION_START_BUDGET": "0"}
    with MockModel() as model:
        two = _codex(
            "Write the migration tests for the staging database", model.url, cwd=repo, env=quiet
        )
        assert two.returncode == 0, two.stderr
        sent = model.sent()
    assert "From earlier sessions, may bear on this prompt" in sent
    assert "db-2.internal" in sent
    assert "What the user told earlier sessions" not in sent
