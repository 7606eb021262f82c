"""Each part of the hooks turns off on its own: ZEROMEM_HOOKS=off, hooks.enabled, the event's
hooks.<event> setting, a zero budget. Switched off, a hook prints nothing (not even a stderr
line) and stores nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hooks.conftest import EVENTS, copy_transcript, hook_env, payload, run_hook
from zeromem_cli import MemoryStore

SILENT = {"claude-code": b"", "codex": b"", "gemini": b"{}"}


def count(db: Path) -> int:
    with MemoryStore(db) as store:
        return store.count()


@pytest.mark.parametrize("value", ["off", "0", "false", "OFF"])
@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_zeromem_hooks_off_silences_every_event(
    harness: str, value: str, tmp_path: Path, seeded: Path
) -> None:
    transcript = copy_transcript(harness, tmp_path)
    env = hook_env(ZEROMEM_HOOKS=value)
    for event in EVENTS:
        result = run_hook(harness, event, payload(harness, event, transcript), db=seeded, env=env)
        assert (result.returncode, result.stdout, result.stderr) == (0, SILENT[harness], b"")
    assert count(seeded) == 4  # nothing ingested
    assert not (tmp_path / "zeromem-home" / "hooks").exists()


def test_hooks_enabled_false_in_the_config_file(
    tmp_path: Path, seeded: Path, isolated_home: Path
) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text("[hooks]\nenabled = false\n")
    transcript = copy_transcript("claude-code", tmp_path)
    for event in EVENTS:
        result = run_hook(
            "claude-code", event, payload("claude-code", event, transcript), db=seeded
        )
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert count(seeded) == 4


@pytest.mark.parametrize("event", EVENTS)
def test_one_event_off_leaves_the_others_on(event: str, tmp_path: Path, seeded: Path) -> None:
    transcript = copy_transcript("claude-code", tmp_path)
    setting = "ZEROMEM_HOOKS_" + event.upper().replace("-", "_")
    env = hook_env(**{setting: "false"})
    answers = {}
    for each in EVENTS:
        # One session per event: a prompt in the same session is not given what the session
        # start already gave (all four memories here).
        body = payload("claude-code", each, transcript, session_id=f"session-{each}")
        answers[each] = run_hook("claude-code", each, body, db=seeded, env=env)
        assert answers[each].returncode == 0 and answers[each].stderr == b""
    assert (answers[event].stdout == b"") is True
    for injector in ("session-start", "user-prompt"):
        if injector != event:
            assert answers[injector].stdout, injector
    captured = count(seeded) > 4
    assert captured  # some capture event other than the switched-off one ran
    if event in ("pre-compact", "stop", "session-end"):
        # The switched-off capture alone, on a fresh store, stores nothing.
        fresh = tmp_path / "fresh.db"
        run_hook("claude-code", event, payload("claude-code", event, transcript), db=fresh, env=env)
        assert not fresh.exists() or count(fresh) == 0


@pytest.mark.parametrize(
    "setting, event",
    [
        ("ZEROMEM_HOOKS_SESSION_START_BUDGET", "session-start"),
        ("ZEROMEM_HOOKS_PROMPT_BUDGET", "user-prompt"),
    ],
)
def test_a_zero_budget_injects_nothing(setting: str, event: str, seeded: Path) -> None:
    env = hook_env(**{setting: "0"})
    result = run_hook("claude-code", event, payload("claude-code", event), db=seeded, env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    other = "user-prompt" if event == "session-start" else "session-start"
    assert run_hook("claude-code", other, payload("claude-code", other), db=seeded, env=env).stdout


def test_a_config_file_budget_of_zero(seeded: Path, isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text("[hooks]\nsession_start_budget = 0\n")
    result = run_hook("gemini", "session-start", payload("gemini", "session-start"), db=seeded)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"{}", b"")
