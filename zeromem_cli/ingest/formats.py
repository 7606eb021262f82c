"""Input formats of ``ingest``: detection and parsing into messages or key/value records.

Accepted:

- ``json``: one chat message ``{"role", "content"}``, an array of them (OpenAI style), an
  object with a ``messages`` array (a chat-completion request), or ``llm`` records.
- ``jsonl``: one such value per line (blank lines ignored).
- ``llm``: ``llm logs --json`` output: records with ``prompt`` (the user) and ``response``
  (the assistant), as a JSON array or JSONL.
- ``text``: one user message per line; a ``user:`` / ``assistant:`` prefix sets the role.
- ``kv``: JSON tool results: an object, an array of objects, or JSONL objects, whose scalar
  fields become key/value memories.
- ``claude-code``, ``codex``, ``gemini``: an agent harness's transcript file, read by
  ``zeromem_cli.integrations.transcripts`` (only what people and the model wrote; tool calls,
  tool results and images are not messages; ``<private>`` spans are removed).

``auto`` tries JSON, then JSONL, then plain text. Content given as a list of parts
(``[{"type": "text", "text": ...}]``) is joined.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from zeromem_cli.errors import InvalidInputError

INPUT_FORMATS = ("auto", "jsonl", "json", "llm", "text", "kv", "claude-code", "codex", "gemini")
# Transcript formats, parsed by the harness integrations (imported only when used).
TRANSCRIPT_FORMATS = ("claude-code", "codex", "gemini")

_ROLE_ALIASES = {
    "human": "user",
    "ai": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "gpt": "assistant",
    "developer": "system",
}
_TEXT_ROLE = re.compile(r"^\s*(user|assistant|human|ai)\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Message:
    """One message of the input: who said it and what."""

    role: str
    content: str
    index: int  # 0-based position in the input


@dataclass
class ParsedInput:
    format: str  # the format used (auto resolved)
    messages: list[Message] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # kv only
    session: str | None = None  # a transcript's harness session id
    cwd: str | None = None  # and its working directory, where the format records them


def normalize_role(role: Any) -> str:
    text = str(role or "user").strip().casefold()
    return _ROLE_ALIASES.get(text, text) or "user"


def content_text(content: Any) -> str:
    """Text of a message content: a string, a list of parts, or a part object."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [content_text(part) for part in content]
        return "\n".join(t for t in texts if t)
    if isinstance(content, dict):
        kind = content.get("type", "text")
        if kind in ("text", "input_text", "output_text") and isinstance(content.get("text"), str):
            return str(content["text"])
        return ""
    return ""


def _is_llm_record(value: Any) -> bool:
    return isinstance(value, dict) and ("prompt" in value or "response" in value)


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "content" in value and ("role" in value or len(value) == 1)


class _Collector:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def add(self, role: Any, content: Any) -> None:
        text = content_text(content)
        if text.strip():
            self.messages.append(Message(normalize_role(role), text, len(self.messages)))

    def llm(self, record: dict[str, Any]) -> None:
        self.add("user", record.get("prompt"))
        self.add("assistant", record.get("response"))

    def chat(self, value: Any, where: str, *, llm_only: bool = False) -> None:
        """A parsed JSON value that should hold chat messages."""
        if isinstance(value, list):
            for number, item in enumerate(value):
                self.chat(item, f"{where}[{number}]", llm_only=llm_only)
        elif _is_llm_record(value):
            self.llm(value)
        elif llm_only:
            raise InvalidInputError(
                f"{where}: not an llm log record (expected an object with prompt/response)"
            )
        elif isinstance(value, dict) and isinstance(value.get("messages"), list):
            self.chat(value["messages"], f"{where}.messages")
        elif _is_message(value):
            self.add(value.get("role"), value.get("content"))
        else:
            raise InvalidInputError(
                f'{where}: not a chat message (expected {{"role": ..., "content": ...}}, '
                "a messages array or llm log records; for tool results use --kv)"
            )


def _json_lines(data: str) -> list[tuple[int, Any]]:
    values = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            values.append((number, json.loads(line)))
        except ValueError as exc:
            raise InvalidInputError(f"line {number} is not valid JSON: {exc}") from None
    return values


def _whole_json(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError as exc:
        raise InvalidInputError(f"input is not valid JSON: {exc}") from None


def _parse_text(data: str) -> list[Message]:
    collector = _Collector()
    for line in data.splitlines():
        match = _TEXT_ROLE.match(line)
        if match:
            collector.add(match.group(1), line[match.end() :])
        else:
            collector.add("user", line)
    return collector.messages


def _kv_records(values: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for where, value in values:
        items = value if isinstance(value, list) else [value]
        for number, item in enumerate(items):
            if not isinstance(item, dict):
                place = f"{where}[{number}]" if isinstance(value, list) else where
                raise InvalidInputError(
                    f"{place}: --kv needs JSON objects, not {type(item).__name__}"
                )
            records.append(item)
    return records


def _looks_json(data: str) -> bool:
    return data.lstrip().startswith(("{", "["))


def parse_input(data: str, fmt: str = "auto") -> ParsedInput:
    """Parse ``data`` in format ``fmt`` (one of ``INPUT_FORMATS``)."""
    if fmt not in INPUT_FORMATS:
        raise InvalidInputError(f"unknown input format {fmt!r} (use {', '.join(INPUT_FORMATS)})")
    data = data.lstrip("\ufeff")
    if fmt in TRANSCRIPT_FORMATS:
        from zeromem_cli.integrations.transcripts import parse_with_origin

        messages, (session, cwd) = parse_with_origin(fmt, data)
        return ParsedInput(fmt, messages, session=session, cwd=cwd)
    if fmt == "text":
        return ParsedInput("text", _parse_text(data))
    if fmt == "kv":
        if not data.strip():
            return ParsedInput("kv")
        try:
            values: list[tuple[str, Any]] = [("input", json.loads(data))]
        except ValueError:
            values = [(f"line {n}", v) for n, v in _json_lines(data)]
        return ParsedInput("kv", records=_kv_records(values))
    collector = _Collector()
    if fmt in ("json", "llm"):
        if fmt == "llm" and not _looks_whole_json(data):
            for number, value in _json_lines(data):
                collector.chat(value, f"line {number}", llm_only=True)
        else:
            collector.chat(_whole_json(data), "input", llm_only=fmt == "llm")
        return ParsedInput(fmt, collector.messages)
    if fmt == "jsonl":
        for number, value in _json_lines(data):
            collector.chat(value, f"line {number}")
        return ParsedInput("jsonl", collector.messages)
    # auto
    if not _looks_json(data):
        return ParsedInput("text", _parse_text(data))
    try:
        whole = json.loads(data)
    except ValueError:
        whole = None
        try:
            lines = _json_lines(data)
        except InvalidInputError:
            return ParsedInput("text", _parse_text(data))
        for number, value in lines:
            collector.chat(value, f"line {number}")
        return ParsedInput("jsonl", collector.messages)
    collector.chat(whole, "input")
    detected = "llm" if _all_llm(whole) else "json"
    return ParsedInput(detected, collector.messages)


def _looks_whole_json(data: str) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def _all_llm(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_is_llm_record(v) for v in value)
    return _is_llm_record(value)
