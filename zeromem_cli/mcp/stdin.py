"""The stdio server's input: the client's JSON-RPC messages, with lone UTF-16 surrogates made
readable.

A JSON string may spell half of a surrogate pair as an escape (``"\\ud83d"``): JavaScript's
``JSON.stringify`` writes one for a string cut inside an emoji, and a model's output can be
cut there. Such a string cannot be stored or sent on as UTF-8 (the SDK's parser refused the
whole line, and never answered it). Each lone surrogate becomes U+FFFD, as the transport
already does for bytes that are not UTF-8, and the call is answered as any other.
"""

from __future__ import annotations

import re
from typing import Any

# A \u escape of a UTF-16 surrogate (D800-DFFF): the only lines worth a second look. An
# escaped backslash before "ud800" matches too, harmlessly: that message is walked for nothing.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def may_hold_surrogates(line: str) -> bool:
    """Whether the JSON ``line`` escapes a surrogate (a lone one among them, perhaps)."""
    return "\\u" in line and _SURROGATE_ESCAPE.search(line) is not None


def readable(value: Any) -> Any:
    """``value`` (a parsed message) with every string's lone surrogates replaced by U+FFFD (a
    valid pair is one character once parsed, so only lone halves remain)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [readable(item) for item in value]
    if isinstance(value, dict):
        return {readable(key): readable(item) for key, item in value.items()}
    return value


__all__ = ["may_hold_surrogates", "readable"]
