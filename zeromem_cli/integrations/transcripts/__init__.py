"""Transcript readers: each harness's session files as chat messages, read whole (``ingest
--format claude-code``) or incrementally from where the last hook run stopped.

Two shapes exist. Claude Code and Codex append one JSON record a line (``lines``): a cursor
keeps the byte offset after the last complete line and a fingerprint of the file's first bytes,
so a replaced file is read from its start again. Gemini CLI rewrites one JSON document
(``document``): the cursor keeps how many of its messages were read. Every message's text has
its ``<private>`` spans removed before anyone sees it (``private.py``).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.ingest.formats import Message
from zeromem_cli.integrations.private import strip_private

READERS = {
    "claude-code": "zeromem_cli.integrations.transcripts.claude_code",
    "codex": "zeromem_cli.integrations.transcripts.codex",
    "gemini": "zeromem_cli.integrations.transcripts.gemini",
}
MAX_READ_BYTES = 8 * 1024 * 1024  # per hook run: a larger backlog is read over several runs
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
_HEAD_BYTES = 512


class TranscriptError(InvalidInputError):
    """A transcript that cannot be read or parsed."""


def reader(name: str) -> ModuleType:
    return importlib.import_module(READERS[name])


def _finish(found: list[tuple[str, str]], start: int) -> list[Message]:
    messages: list[Message] = []
    for role, text in found:
        cleaned = strip_private(text)
        if cleaned.strip():
            messages.append(Message(role, cleaned, start + len(messages)))
    return messages


def parse(name: str, data: str) -> list[Message]:
    """Every message of a whole transcript (``ingest --format NAME``)."""
    return parse_with_origin(name, data)[0]


def parse_with_origin(name: str, data: str) -> tuple[list[Message], tuple[str | None, str | None]]:
    """Every message of a whole transcript, and the harness session it records: (its id, its
    working directory), each None where the format does not say. A backfill writes where the
    hooks would have written during that session (``ingest --format NAME``)."""
    module = reader(name)
    if module.KIND == "document":
        return _finish(module.messages(module.records_of(data)), 0), module.origin(data)
    records = []
    lines = data.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            if number == len(lines) and not data.endswith("\n"):
                break  # the harness was still writing its last line
            raise TranscriptError(f"line {number} is not valid JSON") from None
    found, _ = module.messages(records, {})
    return _finish(found, 0), module.origin(records)


def read_new(name: str, path: Path, cursor: dict[str, Any] | None) -> tuple[list[Message], dict]:
    """The messages added to ``path`` since ``cursor`` (None: from the start), and the cursor
    to keep for the next run."""
    module = reader(name)
    cursor = dict(cursor or {})
    if cursor.get("path") != str(path):
        cursor = {}
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if module.KIND == "document":
                return _read_document(module, handle, info.st_size, cursor, path)
            return _read_lines(module, handle, info.st_size, cursor, path)
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript {path}: {exc.strerror or exc}") from None


def _fingerprint(handle: Any, length: int) -> str:
    handle.seek(0)
    return hashlib.sha1(handle.read(length)).hexdigest()[:16]


def _read_lines(
    module: ModuleType, handle: Any, size: int, cursor: dict[str, Any], path: Path
) -> tuple[list[Message], dict]:
    offset = int(cursor.get("offset", 0))
    head_length = int(cursor.get("head_length", 0))
    if offset > size or (head_length and _fingerprint(handle, head_length) != cursor.get("head")):
        cursor, offset = {}, 0  # replaced or truncated: a new file, read it all
    handle.seek(offset)
    chunk = handle.read(MAX_READ_BYTES)
    end = chunk.rfind(b"\n") + 1
    if end == 0 and len(chunk) == MAX_READ_BYTES:
        end = len(chunk)  # one line longer than a run may read: skip past it
    records = []
    for line in chunk[:end].splitlines():
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue  # a damaged line costs that line only
    found, flags = module.messages(records, dict(cursor.get("flags", {})))
    messages = _finish(found, int(cursor.get("messages", 0)))
    new_offset = offset + end
    length = min(_HEAD_BYTES, new_offset)  # checked against the same bytes next time
    return messages, {
        "path": str(path),
        "offset": new_offset,
        "head_length": length,
        "head": _fingerprint(handle, length),
        "messages": int(cursor.get("messages", 0)) + len(messages),
        "flags": flags,
    }


def _read_document(
    module: ModuleType, handle: Any, size: int, cursor: dict[str, Any], path: Path
) -> tuple[list[Message], dict]:
    if size > MAX_DOCUMENT_BYTES:
        raise TranscriptError(f"transcript {path} is over {MAX_DOCUMENT_BYTES >> 20} MiB")
    data = handle.read().decode("utf-8", errors="replace")
    records = module.records_of(data)
    first = module.record_id(records[0]) if records else None
    seen = int(cursor.get("records", 0))
    if first != cursor.get("first") or seen > len(records):
        seen = 0  # another conversation in the same file, or a rewritten one
        cursor = {}
    found = module.messages(records[seen:])
    messages = _finish(found, int(cursor.get("messages", 0)))
    return messages, {
        "path": str(path),
        "first": first,
        "records": len(records),
        "messages": int(cursor.get("messages", 0)) + len(messages),
    }
