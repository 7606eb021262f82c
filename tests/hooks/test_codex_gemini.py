"""Codex CLI and Gemini CLI run the same five moments under their own names (Gemini CLI:
BeforeAgent, PreCompress, AfterAgent) with their own transcripts: a Codex rollout log (JSONL),
a Gemini CLI chat file (one JSON document)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hooks.conftest import (
    FIXTURES,
    context_of,
    copy_transcript,
    memory_lines,
    payload,
    run_hook,
)
from zeromem_cli import MemoryStore

INJECTING = {
    ("codex", "session-start"): "SessionStart",
    ("codex", "user-prompt"): "UserPromptSubmit",
    ("gemini", "session-start"): "SessionStart",
    ("gemini", "user-prompt"): "BeforeAgent",
}


def contents(db: Path) -> list[str]:
    with MemoryStore(db) as store:
        return sorted(m.content for m in store.list(limit=None))


@pytest.mark.parametrize("harness, event", sorted(INJECTING))
def test_injecting_events_answer_in_the_harness_shape(
    harness: str, event: str, seeded: Path
) -> None:
    body = payload(harness, event)
    if event == "user-prompt":
        body["prompt"] = "what does the ledger team ship, and which database is staging?"
    context = context_of(run_hook(harness, event, body, db=seeded), INJECTING[harness, event])
    assert memory_lines(context) and "<zeromem-memory>" in context


@pytest.mark.parametrize("event", ["pre-compact", "stop", "session-end"])
def test_codex_capture_events_answer_nothing(event: str, tmp_path: Path, db_path: Path) -> None:
    transcript = copy_transcript("codex", tmp_path)
    result = run_hook("codex", event, payload("codex", event, transcript), db=db_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_codex_rollout_gives_what_the_person_typed_once(tmp_path: Path, db_path: Path) -> None:
    transcript = copy_transcript("codex", tmp_path)
    run_hook("codex", "stop", payload("codex", "stop", transcript), db=db_path)
    assert contents(db_path) == [
        "I prefer small commits with descriptive messages",
        "My name is Ada Lovelace",
        "the release branch is called release/2027",
    ]
    stored = " ".join(contents(db_path))
    # Not AGENTS.md ("black"), a tool's output ("rebasing"), the agent, nor the private budget.
    for absent in ("black", "rebasing", "run the tests", "40k"):
        assert absent not in stored
    with MemoryStore(db_path) as store:
        assert {m.meta["source"] for m in store.list(limit=None)} == {"codex"}


def test_codex_log_is_read_incrementally(tmp_path: Path, db_path: Path) -> None:
    lines = (FIXTURES / "codex" / "rollout.jsonl").read_text().splitlines(keepends=True)
    transcript = tmp_path / "rollout.jsonl"
    transcript.write_text("".join(lines[:10]))
    body = payload("codex", "stop", transcript)
    run_hook("codex", "stop", body, db=db_path)
    assert len(contents(db_path)) == 2
    with transcript.open("a") as handle:
        handle.write("".join(lines[10:]))
    run_hook("codex", "session-end", payload("codex", "session-end", transcript), db=db_path)
    assert len(contents(db_path)) == 3


def test_an_older_codex_log_without_events_uses_its_response_items(
    tmp_path: Path, db_path: Path
) -> None:
    records = [json.loads(line) for line in (FIXTURES / "codex" / "rollout.jsonl").open()]
    transcript = tmp_path / "old-rollout.jsonl"
    transcript.write_text(
        "".join(json.dumps(r) + "\n" for r in records if r["type"] != "event_msg")
    )
    run_hook("codex", "stop", payload("codex", "stop", transcript), db=db_path)
    assert len(contents(db_path)) == 3 and "black" not in " ".join(contents(db_path))


@pytest.mark.parametrize("event", ["pre-compact", "stop", "session-end"])
def test_gemini_capture_events_answer_empty_json(event: str, tmp_path: Path, db_path: Path) -> None:
    transcript = copy_transcript("gemini", tmp_path)
    result = run_hook("gemini", event, payload("gemini", event, transcript), db=db_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"{}", b"")


def test_gemini_chat_file_is_read_by_messages(tmp_path: Path, db_path: Path) -> None:
    transcript = copy_transcript("gemini", tmp_path)
    run_hook("gemini", "pre-compact", payload("gemini", "pre-compact", transcript), db=db_path)
    assert contents(db_path) == [
        "I prefer dark themes in every tool",
        "My favorite editor is Helix",
        "the deploy window is Tuesdays 14:00 UTC",
    ]
    # The chat grows (the CLI rewrites the whole file): only the new message is read.
    chat = json.loads(transcript.read_text())
    with MemoryStore(db_path) as store:
        [helix] = [m for m in store.list(limit=None) if "Helix" in m.content]
        store.forget(helix.id)
    chat["messages"].append(
        {
            "id": "m5",
            "timestamp": "2026-11-30T12:06:00.000Z",
            "type": "user",
            "content": "I prefer metric units.",
        }
    )
    transcript.write_text(json.dumps(chat, indent=2))
    run_hook("gemini", "stop", payload("gemini", "stop", transcript), db=db_path)
    assert "I prefer metric units" in contents(db_path)
    assert "My favorite editor is Helix" not in contents(db_path)  # not read again
    assert "salary" not in " ".join(contents(db_path))


def test_gemini_after_agent_without_a_transcript_uses_the_prompt(db_path: Path) -> None:
    body = payload("gemini", "stop")
    del body["transcript_path"]
    body["prompt"] = "Remember that the demo is on Monday. <private>I am nervous.</private>"
    result = run_hook("gemini", "stop", body, db=db_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"{}", b"")
    assert contents(db_path) == ["the demo is on Monday"]


def test_an_injection_recorded_in_the_users_turn_is_not_stored_again(
    tmp_path: Path, seeded: Path
) -> None:
    # Gemini CLI appends BeforeAgent's context to the prompt: the chat file then holds it.
    answer = run_hook(
        "gemini",
        "user-prompt",
        payload("gemini", "user-prompt", prompt="staging database?"),
        db=seeded,
    )
    injected = json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
    chat = {
        "sessionId": "g2",
        "messages": [
            {
                "id": "u1",
                "type": "user",
                "content": "staging database?\n" + injected + "\nMy laptop is a ThinkPad.",
            }
        ],
    }
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps(chat))
    before = contents(seeded)
    run_hook("gemini", "stop", payload("gemini", "stop", transcript, session_id="g2"), db=seeded)
    after = contents(seeded)
    assert [c for c in after if c not in before] == ["My laptop is a ThinkPad"]
