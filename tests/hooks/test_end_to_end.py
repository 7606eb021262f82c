"""Two sessions of one person in each harness, scripted as the harness would run its hooks:
what session 1 establishes, session 2 is given at its start and with its first prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hooks.conftest import context_of, hook_env, memory_lines, payload, run_hook
from zeromem_cli import MemoryStore

SESSION_ONE = [
    ("user", "Hi! I'm setting up the billing service. My name is Ada."),
    ("assistant", "Nice to meet you, Ada. I prefer to start from the tests."),
    ("user", "From now on, always write docstrings in Google style."),
    ("user", "I prefer pytest over unittest. My timezone is CET."),
    ("user", "Remember that the staging database is db-2.internal."),
    ("user", "I like short commit messages. <private>My manager is Bob.</private>"),
    ("user", "Remember that invoices are generated on the first of each month."),
    ("user", "My favorite terminal is WezTerm."),
    ("user", "Remember that the billing queue is called billing-jobs."),
]
FIRST_PROMPT = "Write the pytest tests for the staging database migration"
START_NAMES = {"claude-code": "SessionStart", "codex": "SessionStart", "gemini": "SessionStart"}
PROMPT_NAMES = {
    "claude-code": "UserPromptSubmit",
    "codex": "UserPromptSubmit",
    "gemini": "BeforeAgent",
}


def claude_record(role: str, text: str, number: int) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return {
        "type": role,
        "uuid": f"u{number}",
        "sessionId": "one",
        "userType": "external",
        "message": {"role": role, "content": content},
    }


def codex_records(role: str, text: str) -> list[dict[str, Any]]:
    kind = "user_message" if role == "user" else "agent_message"
    part = "input_text" if role == "user" else "output_text"
    return [
        {
            "type": "response_item",
            "payload": {"type": "message", "role": role, "content": [{"type": part, "text": text}]},
        },
        {"type": "event_msg", "payload": {"type": kind, "message": text}},
    ]


def write_transcript(harness: str, path: Path, upto: int) -> None:
    turns = SESSION_ONE[:upto]
    if harness == "claude-code":
        lines = [claude_record(r, t, n) for n, (r, t) in enumerate(turns)]
    elif harness == "codex":
        lines = [rec for r, t in turns for rec in codex_records(r, t)]
    else:
        chat = {
            "sessionId": "one",
            "messages": [
                {"id": f"m{n}", "type": "user" if r == "user" else "gemini", "content": t}
                for n, (r, t) in enumerate(turns)
            ],
        }
        path.write_text(json.dumps(chat))
        return
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_what_session_one_establishes_reaches_session_two(harness: str, tmp_path: Path) -> None:
    db = tmp_path / "memories.db"
    # A start budget that holds only part of what session 1 established, so the first prompt
    # of session 2 has something left to bring: the memories that match it.
    env = hook_env(ZEROMEM_HOOKS_SESSION_START_BUDGET="130")
    transcript = tmp_path / f"session-one.{harness}"
    one = {"session_id": "session-one"}
    run_session_one(harness, db, env, transcript, one)

    # Session 2: its start brings the user's facts and preferences...
    two = {"session_id": "session-two", "transcript_path": str(tmp_path / "two")}
    given, prompt = run_session_two(harness, db, env, two)
    assert 2 <= len(given) < 8
    # ...and the first prompt what bears on it, none of it given twice.
    assert prompt and not set(prompt) & set(given)
    everything = " ".join(given + prompt)
    assert "I prefer pytest over unittest" in everything
    assert "the staging database is db-2.internal" in everything
    assert any("pytest" in line or "staging" in line for line in prompt)
    # Never the assistant's words, nor the private span.
    assert "start from the tests" not in everything and "Bob" not in everything


def run_session_one(
    harness: str, db: Path, env: dict[str, str], transcript: Path, one: dict[str, Any]
) -> None:
    """Session 1 as the harness runs it: a start, a stop every two turns, an end."""

    # Session 1: nothing to inject yet (no database), then every turn is captured.
    start = run_hook(
        harness,
        "session-start",
        payload(harness, "session-start", transcript, **one),
        db=db,
        env=env,
    )
    assert start.returncode == 0 and b"no database" in start.stderr
    for upto in range(2, len(SESSION_ONE) + 1, 2):
        write_transcript(harness, transcript, upto)
        stop = run_hook(
            harness, "stop", payload(harness, "stop", transcript, **one), db=db, env=env
        )
        assert stop.returncode == 0 and stop.stderr == b""
    write_transcript(harness, transcript, len(SESSION_ONE))
    end = run_hook(
        harness, "session-end", payload(harness, "session-end", transcript, **one), db=db, env=env
    )
    assert end.returncode == 0 and end.stderr == b""


def run_session_two(
    harness: str, db: Path, env: dict[str, str], two: dict[str, Any]
) -> tuple[list[str], list[str]]:
    """The memory lines session 2 is given at its start and with its first prompt."""
    body = payload(harness, "session-start", **two)
    given = memory_lines(
        context_of(run_hook(harness, "session-start", body, db=db, env=env), START_NAMES[harness])
    )
    body = payload(harness, "user-prompt", prompt=FIRST_PROMPT, **two)
    answer = run_hook(harness, "user-prompt", body, db=db, env=env)
    if answer.returncode == 0 and answer.stderr == b"" and answer.stdout in (b"", b"{}"):
        return given, []  # the harness's "nothing": all that bears on it was given at start
    return given, memory_lines(context_of(answer, PROMPT_NAMES[harness]))


def checkout(folder: Path, remote: str) -> Path:
    """A git checkout as git leaves it on disk (the hooks read these files, never run git)."""
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    (folder / "src").mkdir()
    return folder / "src"


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_session_two_in_another_project_is_given_none_of_session_one(
    harness: str, tmp_path: Path
) -> None:
    """Session 1 works in the billing repository: what it establishes lands in that project.
    A later session there is given it; a session in another repository of the same person is
    given its own project's memories and her project-less ones, never billing's."""
    db = tmp_path / "memories.db"
    env = hook_env(ZEROMEM_HOOKS_SESSION_START_BUDGET="130")
    billing = checkout(tmp_path / "billing", "git@github.com:Acme/Billing.git")
    site = checkout(tmp_path / "site", "https://github.com/Acme/Site")
    transcript = tmp_path / f"session-one.{harness}"
    run_session_one(harness, db, env, transcript, {"session_id": "one", "cwd": str(billing)})
    with MemoryStore(db) as own:  # the user's own, outside any project
        own.add("Ada reviews pull requests before lunch", category="preference", pinned=True)
    with MemoryStore(db, project="github.com/Acme/Site", session="earlier") as earlier:
        earlier.add("The staging database of the site is a SQLite file", category="fact")
    with MemoryStore(db, project="github.com/Acme/Billing") as project:
        captured = project.list(limit=100)
    assert captured and {m.session for m in captured} == {"one"}

    base = {"transcript_path": str(tmp_path / "two")}
    given, prompt = run_session_two(
        harness, db, env, {**base, "session_id": "two", "cwd": str(billing)}
    )
    here = " ".join(given + prompt)
    assert "db-2.internal" in here and "before lunch" in here
    assert "SQLite file" not in here

    given, prompt = run_session_two(
        harness, db, env, {**base, "session_id": "three", "cwd": str(site)}
    )
    there = " ".join(given + prompt)
    assert "SQLite file" in there and "before lunch" in there
    assert not any(m.content in there for m in captured)
