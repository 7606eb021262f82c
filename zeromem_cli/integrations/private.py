"""What never leaves a transcript: ``<private>...</private>`` spans, and zeromem's own injections.

A span the user marks ``<private>`` is removed before any rule sees the text (an unclosed tag
hides the rest of the message: failing closed). The block a hook injected
(``<zeromem-memory>...</zeromem-memory>``) is removed too: a harness that records it as part
of the user's turn (Gemini CLI appends it to the prompt) must not have it stored again.
"""

from __future__ import annotations

import re

INJECTION_OPEN = "<zeromem-memory>"
INJECTION_CLOSE = "</zeromem-memory>"

_SPANS = re.compile(
    r"<private>.*?(?:</private>|\Z)|<zeromem-memory>.*?(?:</zeromem-memory>|\Z)",
    re.IGNORECASE | re.DOTALL,
)


def strip_private(text: str) -> str:
    """``text`` without its private spans and zeromem injections (cheap when it has none)."""
    if "<" not in text:
        return text
    return _SPANS.sub(" ", text)
