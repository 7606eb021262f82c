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
import sys
from pathlib import Path

import pytest

from tests.harness.mock_model import MockModel
from zeromem_cli import MemoryStore

GEMINI = os.environ.get("ZEROMEM_GEMINI_CLI") or shutil.which("gemini")
pytestmark = [
    pytest.mark.harness,
    pytest.mark.skipif(GEMINI is None, reason="Gemini CLI not installed (.ci/run installs it)"),
]
PROJECT = "github.com/Acme/Billing"


def _gemini(prompt: str, *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert GEMINI is not None
    return subprocess.run(
        [GEMINI, "-p", prompt], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_gemini_cli_remembers_across_sessions(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    # API-key auth, as `gemini` asks a new user to pick it (the mock stands in for the API).
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
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
        "GEMINI_API_KEY": "dummy-key-for-a-local-mock",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",  # headless runs must trust the folder explicitly
        "GEMINI_CLI_NO_RELAUNCH": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "setup", "gemini", "--project"]
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
        one = _gemini(
            "Remember that the staging database is db-2.internal.",
            cwd=repo,
            env={**env, "GOOGLE_GEMINI_BASE_URL": model.url},
        )
        assert one.returncode == 0, one.stderr
        assert any("GenerateContent" in path for path, _ in model.requests)
        sent = model.sent()
    assert "What the user told earlier sessions" in sent and "before lunch" in sent

    with MemoryStore(db, project=PROJECT) as store:
        captured = [m.content for m in store.list(limit=50)]
    assert any("staging database is db-2.internal" in c for c in captured), captured

    quiet = {**env, "ZEROMEM_HOOKS_SESSION_START_BUDGET": "0"}
    with MockModel() as model:
        two = _gemini(
            "Write the migration tests for the staging database",
            cwd=repo,
            env={**quiet, "GOOGLE_GEMINI_BASE_URL": model.url},
        )
        assert two.returncode == 0, two.stderr
        sent = model.sent()
    assert "From earlier sessions, may bear on this prompt" in sent
    assert "db-2.internal" in sent
    assert "What the user told earlier sessions" not in sent
