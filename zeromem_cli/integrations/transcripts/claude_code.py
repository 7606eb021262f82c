"""Claude Code transcripts: ``~/.claude/projects/<project>/<session>.jsonl``, one record a line.

A record with ``type`` ``user`` or ``assistant`` holds an API message in ``message``: content is
a string or a list of blocks, of which only ``text`` blocks are what someone wrote (``tool_use``,
``tool_result``, ``image`` and ``thinking`` are not). Tool results arrive as ``user`` records
too, so a user record counts only for its text blocks. Records Claude Code writes itself are
skipped: ``isMeta`` (caveats), ``isSidechain`` (a subagent's conversation: its "user" is
Claude), ``isCompactSummary`` (the summary that continues a compacted session), and the text of
slash commands and their local output (``<command-name>``, ``<local-command-stdout>``...).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

KIND = "lines"

_GENERATED = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<system-reminder>",
    "<user-prompt-submit-hook>",
    "Caveat: The messages below were generated",
    "[Request interrupted",
    "This session is being continued from a previous conversation",
)
_SKIP_FLAGS = ("isMeta", "isSidechain", "isCompactSummary", "isVisibleInTranscriptOnly")


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def message_of(record: Any) -> tuple[str, str] | None:
    """(role, text) of one transcript record, or None when nobody wrote text in it."""
    if not isinstance(record, dict) or record.get("type") not in ("user", "assistant"):
        return None
    if any(record.get(flag) for flag in _SKIP_FLAGS):
        return None
    if record["type"] == "user" and record.get("userType", "external") != "external":
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    kept = [t for t in _texts(message.get("content")) if not t.lstrip().startswith(_GENERATED)]
    text = "\n".join(kept)
    return ("user" if record["type"] == "user" else "assistant", text) if text.strip() else None


def messages(
    records: Iterable[Any], flags: dict[str, Any]
) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    found = [m for m in (message_of(record) for record in records) if m is not None]
    return found, flags


def origin(records: Iterable[Any]) -> tuple[str | None, str | None]:
    """(session id, working directory) of the session: every message record carries both."""
    for record in records:
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            cwd = record.get("cwd")
            return record["sessionId"] or None, cwd if isinstance(cwd, str) and cwd else None
    return None, None
