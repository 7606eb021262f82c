"""Two sessions of one person in each harness, scripted as the harness would run its hooks:
what session 1 establishes, session 2 is given at its start and with its first prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hooks.conftest import context_of, hook_env, memory_lines, payload, run_hook

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

    # Session 2: its start brings the user's facts and preferences...
    two = {"session_id": "session-two", "transcript_path": str(tmp_path / "two")}
    body = payload(harness, "session-start", **two)
    given = memory_lines(
        context_of(run_hook(harness, "session-start", body, db=db, env=env), START_NAMES[harness])
    )
    assert 2 <= len(given) < 8
    # ...and the first prompt what bears on it, none of it given twice.
    body = payload(harness, "user-prompt", prompt=FIRST_PROMPT, **two)
    prompt = memory_lines(
        context_of(run_hook(harness, "user-prompt", body, db=db, env=env), PROMPT_NAMES[harness])
    )
    assert prompt and not set(prompt) & set(given)
    everything = " ".join(given + prompt)
    assert "I prefer pytest over unittest" in everything
    assert "the staging database is db-2.internal" in everything
    assert any("pytest" in line or "staging" in line for line in prompt)
    # Never the assistant's words, nor the private span.
    assert "start from the tests" not in everything and "Bob" not in everything
