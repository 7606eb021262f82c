"""The JSON a harness sends a hook on stdin, reduced to the fields zeromem reads.

All three harnesses send ``session_id``, ``transcript_path`` and ``cwd``; a prompt event adds
``prompt``, a session start ``source`` (``startup``, ``resume``, ``clear``, ``compact``).
Gemini CLI's ``AfterAgent`` also carries the turn's ``prompt``, which a capture uses when no
transcript can be read. Anything else in the object is ignored.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from zeromem_cli.errors import InvalidInputError

MAX_PAYLOAD_BYTES = 8 * 1024 * 1024


class HookInput(NamedTuple):
    session_id: str | None
    transcript_path: str | None
    cwd: str | None
    prompt: str | None
    source: str | None


def _text(data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    return value if isinstance(value, str) and value else None


def parse_payload(raw: bytes) -> HookInput:
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise InvalidInputError(f"hook input is over {MAX_PAYLOAD_BYTES >> 20} MiB")
    if not raw.strip():
        raise InvalidInputError("no hook input on stdin (expected the harness's JSON)")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"hook input is not UTF-8 (byte {exc.start})") from None
    except ValueError as exc:
        raise InvalidInputError(f"hook input is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidInputError("hook input is not a JSON object")
    return HookInput(
        session_id=_text(data, "session_id"),
        transcript_path=_text(data, "transcript_path"),
        cwd=_text(data, "cwd"),
        prompt=_text(data, "prompt"),
        source=_text(data, "source"),
    )
