"""Codex CLI session logs: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``, one record a line.

Each line is ``{"timestamp", "type", "payload"}``. What the person typed is an ``event_msg``
whose payload type is ``user_message`` (``payload.message``); the assistant's reply is
``agent_message``. Codex 0.171 logs them instead as ``item_completed`` events whose ``item`` is
a ``UserMessage`` or an ``AgentMessage`` (``content``: text parts); both forms are read. The
same turn also appears as a ``response_item`` message, next to items Codex injects itself with
role ``user`` (AGENTS.md instructions, ``<environment_context>``), so response items are read
only from logs that have no ``event_msg`` records at all (older versions); ``flags["events"]``
remembers across incremental reads that this log has them. Tool calls and their output
(``function_call``, ``function_call_output``...) and reasoning are never messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

KIND = "lines"

_INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
    "<user_shell_command>",
)


def _parts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [
        part["text"]
        for part in content
        if isinstance(part, dict)
        and part.get("type") in ("input_text", "output_text", "text")
        and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts)


_ITEM_ROLES = {"UserMessage": "user", "AgentMessage": "assistant"}


def _event(payload: dict[str, Any]) -> tuple[str, str] | None:
    kind = payload.get("type")
    if kind == "item_completed":  # Codex 0.171: a finished turn item
        item = payload.get("item")
        role = _ITEM_ROLES.get(item.get("type", "")) if isinstance(item, dict) else None
        if role is None or not isinstance(item, dict):
            return None
        content = [
            {**part, "type": "text"} if isinstance(part, dict) else part
            for part in item.get("content") or []
        ]
        return role, _parts(content)
    text = payload.get("message")
    if kind not in ("user_message", "agent_message") or not isinstance(text, str):
        return None
    return ("user" if kind == "user_message" else "assistant", text)


def _item(payload: dict[str, Any]) -> tuple[str, str] | None:
    if payload.get("type") != "message" or payload.get("role") not in ("user", "assistant"):
        return None
    text = _parts(payload.get("content"))
    if payload["role"] == "user" and text.lstrip().startswith(_INJECTED):
        return None
    return (str(payload["role"]), text)


def messages(
    records: Iterable[Any], flags: dict[str, Any]
) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    rows = [r for r in records if isinstance(r, dict) and isinstance(r.get("payload"), dict)]
    events = bool(flags.get("events")) or any(r.get("type") == "event_msg" for r in rows)
    found = []
    for record in rows:
        if events and record.get("type") == "event_msg":
            message = _event(record["payload"])
        elif not events and record.get("type") == "response_item":
            message = _item(record["payload"])
        else:
            continue
        if message is not None and message[1].strip():
            found.append(message)
    return found, {**flags, "events": events}


def origin(records: Iterable[Any]) -> tuple[str | None, str | None]:
    """(session id, working directory) from the log's ``session_meta`` record."""
    for record in records:
        if isinstance(record, dict) and record.get("type") == "session_meta":
            payload = record.get("payload")
            if isinstance(payload, dict):
                return _named(payload.get("id")), _named(payload.get("cwd"))
    return None, None


def _named(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
