"""Gemini CLI chats: ``~/.gemini/tmp/<project hash>/chats/session-*.json``, one JSON document.

The document holds ``messages``: ``{"id", "timestamp", "type", "content", ...}`` where type is
``user`` for the person and ``gemini`` for the model (``info`` and ``error`` are the CLI's own
notes); content is a string or a list of parts (``{"text": ...}``). Tool calls hang off the
model's messages (``toolCalls``) and are not messages. The whole file is rewritten as the chat
grows, so it is read whole and the cursor counts messages. A file of one JSON record a line
is accepted too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from zeromem_cli.errors import InvalidInputError

KIND = "document"
_ROLES = {"user": "user", "gemini": "assistant", "model": "assistant"}


def records_of(data: str) -> list[Any]:
    """The message records of a chat file."""
    try:
        document = json.loads(data)
    except ValueError:
        document = None
        records = []
        for number, line in enumerate(data.splitlines(), start=1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    raise InvalidInputError(
                        f"not a Gemini CLI chat: line {number} is not valid JSON"
                    ) from None
        return records
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return list(document["messages"])
    if isinstance(document, list):
        return document
    raise InvalidInputError("not a Gemini CLI chat (expected an object with messages)")


def record_id(record: Any) -> str | None:
    if isinstance(record, dict):
        value = record.get("id") or record.get("timestamp")
        return str(value) if value is not None else None
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    texts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n".join(texts)


def messages(records: Iterable[Any]) -> list[tuple[str, str]]:
    found = []
    for record in records:
        if not isinstance(record, dict):
            continue
        role = _ROLES.get(str(record.get("type") or record.get("role") or ""))
        text = _text(record.get("content", record.get("parts")))
        if role and text.strip():
            found.append((role, text))
    return found


def origin(data: str) -> tuple[str | None, str | None]:
    """(session id, None) of a chat file: Gemini CLI keeps the project as a hash of its
    directory (``projectHash``), not the directory itself."""
    try:
        document = json.loads(data)
    except ValueError:
        return None, None
    session = document.get("sessionId") if isinstance(document, dict) else None
    return (session if isinstance(session, str) and session else None), None
