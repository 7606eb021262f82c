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
from pathlib import Path

import pytest

from tests.harness.mock_model import MockModel
from tests.harness.workspace import harness_env, remembers_across_sessions, repository
from tests.harness.workspace import zeromem_setup as setup

CODEX = os.environ.get("ZEROMEM_CODEX_CLI") or shutil.which("codex")
pytestmark = [
    pytest.mark.harness,
    pytest.mark.slow,
    pytest.mark.skipif(CODEX is None, reason="Codex CLI not installed (.ci/run installs it)"),
]


def test_codex_remembers_across_sessions(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = harness_env(
        tmp_path, CODEX_HOME=str(home / ".codex"), MOCK_MODEL_KEY="dummy-key-for-a-local-mock"
    )
    (home / ".codex").mkdir(parents=True)
    repo = repository(tmp_path)
    setup(repo, env, "codex")

    def session(prompt: str, env: dict[str, str]) -> str:
        assert CODEX is not None
        with MockModel() as model:
            provider = (
                f'model_providers.mock={{name="mock",base_url="{model.url}/v1",'
                'wire_api="responses",env_key="MOCK_MODEL_KEY",supports_websockets=false,'
                "request_max_retries=0,stream_max_retries=0}"
            )
            command = [CODEX, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"]
            command += ["-c", 'model_provider="mock"', "-c", provider, "-m", "mock-model", prompt]
            done = subprocess.run(
                command, cwd=repo, env=env, capture_output=True, text=True, timeout=300
            )
            assert done.returncode == 0, done.stderr
            return model.sent()

    remembers_across_sessions(session, env)
