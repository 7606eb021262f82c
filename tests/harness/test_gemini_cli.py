"""Gemini CLI itself (from npm, pinned by .ci/run) in headless ``-p`` mode against a local mock
of the Gemini API (``GOOGLE_GEMINI_BASE_URL``, its documented override for API-key auth, which
allows plain HTTP only to localhost; a dummy key, no network), with the hooks ``zeromem setup
gemini --project`` wrote: the session start's memories reach the model request, the
AfterAgent / SessionEnd hooks capture from Gemini CLI's own chat file, and the next session's
BeforeAgent hook brings that back."""

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

GEMINI = os.environ.get("ZEROMEM_GEMINI_CLI") or shutil.which("gemini")
pytestmark = [
    pytest.mark.harness,
    pytest.mark.slow,
    pytest.mark.skipif(GEMINI is None, reason="Gemini CLI not installed (.ci/run installs it)"),
]
# A model named, as a user may: without one, Gemini CLI's router first asks the model to rate
# the prompt in JSON, which the mock does not answer, and retries with back-off for two
# minutes a session before it falls back to its default model.
MODEL = "gemini-2.5-flash"


def test_gemini_cli_remembers_across_sessions(tmp_path: Path) -> None:
    env = harness_env(
        tmp_path,
        GEMINI_API_KEY="dummy-key-for-a-local-mock",
        GEMINI_CLI_TRUST_WORKSPACE="true",  # headless runs must trust the folder explicitly
        GEMINI_CLI_NO_RELAUNCH="1",
    )
    # API-key auth, as `gemini` asks a new user to pick it (the mock stands in for the API).
    settings = Path(env["HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    repo = repository(tmp_path)
    setup(repo, env, "gemini", "--project")

    def session(prompt: str, env: dict[str, str]) -> str:
        assert GEMINI is not None
        with MockModel() as model:
            done = subprocess.run(
                [GEMINI, "--model", MODEL, "-p", prompt],
                cwd=repo,
                env={**env, "GOOGLE_GEMINI_BASE_URL": model.url},
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stderr
            assert any("GenerateContent" in path for path, _ in model.requests)
            return model.sent()

    remembers_across_sessions(session, env)
