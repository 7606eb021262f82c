"""What the real-harness tests share: a repository as git leaves it on disk, an environment of
the harness's own (HOME, ZEROMEM_HOME, no key but a dummy), zeromem's hooks written by
``zeromem setup``, and the two-session round trip every harness must pass."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.hooks.conftest import HOOK_LIMIT_MS
from zeromem_cli import MemoryStore

PROJECT = "github.com/Acme/Billing"

# A session of a harness: (prompt, environment) -> every request body the model was sent.
Session = Callable[[str, dict[str, str]], str]


def repository(tmp_path: Path) -> Path:
    """A checkout of Acme/Billing (the faces read ``.git/config``, never run git)."""
    repo = tmp_path / "billing"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:Acme/Billing.git\n'
    )
    return repo


def harness_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment every run gets: nothing of the developer's own but PATH."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "ZEROMEM_HOME": str(tmp_path / "zeromem"),
        "ZEROMEM_HOOKS_TIMEOUT_MS": HOOK_LIMIT_MS,  # a loaded machine must not drop a hook
        **extra,
    }


def zeromem_setup(repo: Path, env: dict[str, str], *args: str) -> None:
    """``zeromem setup ARGS`` in ``repo``, its hooks running this interpreter's zeromem."""
    done = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "setup", *args]
        + ["--command", f"{sys.executable} -m zeromem_cli"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def remembers_across_sessions(session: Session, env: dict[str, str]) -> None:
    """A pinned memory reaches the first session's model request; that session's hooks
    capture what the user said from the harness's own log; the next session's first prompt
    is given it back (and no start block, its budget being 0)."""
    db = Path(env["ZEROMEM_HOME"]) / "memories.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    with MemoryStore(db, project=PROJECT) as store:
        store.add("Ada reviews pull requests before lunch", pinned=True)

    sent = session("Remember that the staging database is db-2.internal.", env)
    assert "What the user told earlier sessions" in sent and "before lunch" in sent

    with MemoryStore(db, project=PROJECT) as store:
        captured = [m.content for m in store.list(limit=50)]
    assert any("staging database is db-2.internal" in c for c in captured), captured

    quiet = {**env, "ZEROMEM_HOOKS_SESSION_START_BUDGET": "0"}
    sent = session("Write the migration tests for the staging database", quiet)
    assert "From earlier sessions, may bear on this prompt" in sent
    assert "db-2.internal" in sent
    assert "What the user told earlier sessions" not in sent
