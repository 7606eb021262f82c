"""The harnesses zeromem plugs into: their event names and what they expect on stdout.

zeromem's own event names (``session-start``, ``user-prompt``, ``pre-compact``, ``stop``,
``session-end``) map to each harness's: Gemini CLI calls a prompt ``BeforeAgent``, the end of a
turn ``AfterAgent`` and compaction ``PreCompress``. Two events inject context (session start,
each prompt); the other three only capture. Sources, checked when this was written:
code.claude.com/docs/en/hooks, developers.openai.com/codex/hooks, geminicli.com/docs/hooks.
"""

from __future__ import annotations

from typing import NamedTuple

EVENTS = ("session-start", "user-prompt", "pre-compact", "stop", "session-end")
INJECT_EVENTS = frozenset({"session-start", "user-prompt"})
CAPTURE_EVENTS = frozenset({"pre-compact", "stop", "session-end"})


class Harness(NamedTuple):
    """One agent harness: its name on zeromem's command line and its own event names."""

    name: str  # claude-code, codex, gemini
    events: dict[str, str]  # zeromem event -> the harness's event name
    nothing: str  # stdout when nothing is injected ("" or "{}": Gemini wants JSON only)
    transcript: str  # the transcript reader (zeromem_cli.integrations.transcripts)

    def event_name(self, event: str) -> str:
        return self.events[event]


_CLAUDE_STYLE = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "pre-compact": "PreCompact",
    "stop": "Stop",
    "session-end": "SessionEnd",
}

HARNESSES: dict[str, Harness] = {
    "claude-code": Harness("claude-code", _CLAUDE_STYLE, "", "claude-code"),
    "codex": Harness("codex", _CLAUDE_STYLE, "", "codex"),
    "gemini": Harness(
        "gemini",
        {
            "session-start": "SessionStart",
            "user-prompt": "BeforeAgent",
            "pre-compact": "PreCompress",
            "stop": "AfterAgent",
            "session-end": "SessionEnd",
        },
        "{}",
        "gemini",
    ),
}

# Context a harness takes whole: Claude Code writes a longer hook output to a file and passes
# only a preview (its hooks reference: 10,000 characters), Codex spills past ~2,500 tokens.
MAX_CONTEXT_CHARS = 9_000
