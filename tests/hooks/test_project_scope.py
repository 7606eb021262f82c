"""Hooks in coding projects: each harness session works in the project of its ``cwd`` (``auto``:
the git repository's remote, else its common git dir, so worktrees share), reads its project's
memories and its user's own, and never another project's; captures are written with the
harness session as their origin."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hooks.conftest import context_of, hook_env, payload, run_hook
from zeromem_cli import MemoryStore
from zeromem_cli.projects import project_of

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _repository(path: Path, remote: str | None = None) -> Path:
    path.mkdir(parents=True)
    _git("init", "-q", cwd=path)
    if remote is not None:
        _git("remote", "add", "origin", remote, cwd=path)
    return path


@pytest.fixture
def repos(tmp_path: Path) -> dict[str, Path]:
    ledger = _repository(tmp_path / "ledger", "git@github.com:Acme/Ledger.git")
    site = _repository(tmp_path / "site")  # no remote: named by its git dir
    _git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "0",
        cwd=site,
    )
    _git("worktree", "add", "-q", str(tmp_path / "site-wt"), cwd=site)
    return {"ledger": ledger, "site": site, "site-wt": tmp_path / "site-wt", "none": tmp_path}


def test_projects_are_derived_and_worktrees_share_one(repos: dict[str, Path]) -> None:
    assert project_of(repos["ledger"]) == "github.com/Acme/Ledger"
    assert project_of(repos["ledger"] / "deep") == "github.com/Acme/Ledger"
    site = project_of(repos["site"])
    assert site == str((repos["site"] / ".git").resolve())
    assert project_of(repos["site-wt"]) == site
    assert project_of(repos["none"]) is None


def _seed(db: Path, repos: dict[str, Path]) -> None:
    with MemoryStore(db, user="ada") as ada:
        ada.add("Ada writes docstrings in Google style", pinned=True)
    with MemoryStore(db, user="ada", project="github.com/Acme/Ledger") as ledger:
        ledger.add("The ledger tests need PostgreSQL 16", importance=8)
    with MemoryStore(db, user="ada", project=project_of(repos["site"])) as site:
        site.add("The site deploys to Netlify on every tag", importance=8)
    with MemoryStore(db, user="bob", project="github.com/Acme/Ledger") as bob:
        bob.add("Bob's ledger scratch notes", importance=10)


@pytest.mark.parametrize("where", ["ledger", "site", "site-wt", "none"])
def test_session_start_injects_the_project_and_the_user_never_another(
    where: str, repos: dict[str, Path], db_path: Path
) -> None:
    _seed(db_path, repos)
    body = payload("claude-code", "session-start", cwd=str(repos[where]))
    context = context_of(
        run_hook("claude-code", "session-start", body, db=db_path, args=("--user", "ada")),
        "SessionStart",
    )
    assert "Google style" in context  # the user's own, in every project
    assert ("PostgreSQL 16" in context) == (where == "ledger")
    assert ("Netlify" in context) == (where in ("site", "site-wt"))  # a worktree shares
    assert "Bob" not in context


def test_a_named_project_or_none_overrides_auto(repos: dict[str, Path], db_path: Path) -> None:
    _seed(db_path, repos)
    body = payload("claude-code", "user-prompt", cwd=str(repos["site"]), prompt="ledger tests")
    named = ("--user", "ada", "--project", "github.com/Acme/Ledger")
    context = context_of(
        run_hook("claude-code", "user-prompt", body, db=db_path, args=named), "UserPromptSubmit"
    )
    assert "PostgreSQL 16" in context
    off = run_hook(
        "claude-code", "user-prompt", body, db=db_path, args=("--user", "ada", "--project", "none")
    )
    assert b"PostgreSQL" not in off.stdout


def test_captures_go_to_the_project_with_the_harness_session_as_origin(
    repos: dict[str, Path], db_path: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    line = {"type": "user", "message": {"role": "user", "content": "My shell is fish."}}
    transcript.write_text(json.dumps(line) + "\n")
    body = payload("claude-code", "session-end", transcript, cwd=str(repos["ledger"]))
    result = run_hook(
        "claude-code", "session-end", body, db=db_path, args=("--user", "ada"), env=hook_env()
    )
    assert (result.returncode, result.stderr) == (0, b"")
    with MemoryStore(db_path, user="ada", project="github.com/Acme/Ledger") as ledger:
        [memory] = ledger.list()
    assert memory.content == "My shell is fish"
    assert memory.session == body["session_id"]
    with MemoryStore(db_path, user="ada") as outside:
        assert outside.list() == []
