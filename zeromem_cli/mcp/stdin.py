"""The stdio transport's input: the client's JSON-RPC lines, with lone UTF-16 surrogates made
readable.

A JSON string may spell half of a surrogate pair as an escape (``"\\ud83d"``): JavaScript's
``JSON.stringify`` writes one for a string cut inside an emoji, and a model's output can be
cut there. The SDK's parser refuses such a line as invalid JSON and, unable to read the
request's id, never answers it: the client waits until it times out. Such a line is read with
Python's parser instead (which accepts them), each lone surrogate becomes U+FFFD, as the
transport already does for bytes that are not UTF-8, and the call is answered as any other.
Every other line reaches the SDK unchanged.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from typing import Any, cast

import anyio

# A \u escape of a UTF-16 surrogate (D800-DFFF): the only lines worth a second look. An
# escaped backslash before "ud800" matches too, harmlessly: that line is parsed and rewritten
# to the same message.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def readable_line(line: str) -> str:
    """``line`` with every string's lone surrogates replaced by U+FFFD (a valid pair is one
    character once parsed, so only lone halves remain); unchanged when it has none or is not
    JSON (the SDK reports that as before)."""
    if "\\u" not in line or _SURROGATE_ESCAPE.search(line) is None:
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    return json.dumps(_replaced(message), ensure_ascii=False) + "\n"


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replaced(item) for item in value]
    if isinstance(value, dict):
        return {_replaced(key): _replaced(item) for key, item in value.items()}
    return value


class _ReadableLines:
    """What the SDK's stdio reader iterates (``async for line in stdin``)."""

    def __init__(self, source: anyio.AsyncFile[str]) -> None:
        self._source = source

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._source:
            yield readable_line(line)


def readable_stdin() -> anyio.AsyncFile[str]:
    """The process's standard input as the SDK's stdio transport reads it (UTF-8, undecodable
    bytes replaced), through ``readable_line``. A duplicate of file descriptor 0, so closing it
    leaves ``sys.stdin`` alone."""
    wire = open(os.dup(0), encoding="utf-8", errors="replace")  # noqa: SIM115 (the session's)
    return cast("anyio.AsyncFile[str]", _ReadableLines(anyio.wrap_file(wire)))


__all__ = ["readable_line", "readable_stdin"]
