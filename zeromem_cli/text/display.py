"""Stored text made safe to print for a person: no secret, nothing a terminal would obey.

Writes clean content (control characters are removed), but a database written by another tool
(raw SQL, an old version) can hold anything, and scope names and meta were stored as given.
So every field printed in table or plain form passes through ``shown``:

- likely credentials are masked (``secrets.mask_secrets``);
- C0/C1 control characters other than tab and newline (ESC starts every terminal escape
  sequence) become a visible ``\\x1b``-style escape;
- bidirectional controls (U+202A-U+202E embeddings and overrides, U+2066-U+2069 isolates,
  U+200E/U+200F marks, U+061C) become a visible ``\\u202e``-style escape too: they reorder
  the text around them on screen, so ``txt.exe`` could read as ``exe.txt``. Right-to-left
  text itself (Arabic, Hebrew) is printed as it is.

JSON output is left whole (its encoder escapes control characters, and it is for programs).
"""

from __future__ import annotations

import re

__all__ = ["shown", "terminal_safe"]

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control and bidi character replaced by a visible escape."""
    if text.isprintable():  # the common case; every character replaced here is unprintable
        return text
    return _UNSAFE.sub(_escape, text)


# Every secret rule needs one of these (an assignment sign, a run of 12+ token characters, a
# PEM header, "is"/"was" of "my password is X", 密码); ``secrets`` uses the same pattern as its
# first pre-check. Text without any skips importing ``secrets`` at all: ``search`` prints most
# results without loading the rules.
MAYBE_SECRET = re.compile(r"[=:]|[A-Za-z0-9_\-/+.]{12}|-----BEGIN|\s(?i:is|was)\s|密码")


def shown(text: str) -> str:
    """What a person sees of a stored field: masked, then terminal-safe."""
    if MAYBE_SECRET.search(text) is None:
        return terminal_safe(text)
    from zeromem_cli.text.secrets import mask_secrets

    return terminal_safe(mask_secrets(text))
