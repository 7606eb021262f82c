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

Error messages quote what was given (``not a TTL: '...'``), and a face shows them to a person or
a model: ``message_line`` masks them the same way and shortens a long quoted value, so a
200,000-character argument is not answered with a 200,000-character error.
"""

from __future__ import annotations

import functools
import re

__all__ = ["message_line", "shortened", "shown", "terminal_safe"]


@functools.cache
def _unsafe() -> re.Pattern[str]:
    """Compiled on first need: most text printed is printable, and the class is costly."""
    return re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control and bidi character replaced by a visible escape."""
    if text.isprintable():  # the common case; every character replaced here is unprintable
        return text
    return _unsafe().sub(_escape, text)


@functools.cache
def maybe_secret_pattern() -> re.Pattern[str]:
    """Every secret rule needs one of these (an assignment sign, a run of 12+ token
    characters, a PEM header, "is"/"was" of "my password is X", 密码); ``secrets`` uses this
    pattern as its first pre-check. Text without any skips importing ``secrets`` at all:
    ``search`` prints most results without loading the rules."""
    return re.compile(r"[=:]|[A-Za-z0-9_\-/+.]{12}|-----BEGIN|\s(?i:is|was)\s|密码")


# ASCII text is checked without the pattern (compiling it cost every cold search that prints a
# memory): what is not a token character, or not whitespace, becomes a space.
_TOKEN_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-/+."
_NOT_TOKEN = "".join([chr(c) for c in range(128) if chr(c) not in _TOKEN_CHARACTERS])
_TOKEN_RUNS = str.maketrans(_NOT_TOKEN, " " * len(_NOT_TOKEN))
_WHITESPACE = "".join([chr(c) for c in range(128) if chr(c).isspace()])  # what \s matches
_SPACES = str.maketrans(_WHITESPACE, " " * len(_WHITESPACE))


def maybe_secret(text: str) -> bool:
    """``text`` holds one of the marks every secret rule needs (``maybe_secret_pattern``)."""
    if not text.isascii():
        return maybe_secret_pattern().search(text) is not None
    if "=" in text or ":" in text or "-----BEGIN" in text:
        return True
    if any(len(run) >= 12 for run in text.translate(_TOKEN_RUNS).split()):
        return True
    spaced = text.translate(_SPACES).lower()
    return " is " in spaced or " was " in spaced


def shown(text: str) -> str:
    """What a person sees of a stored field: masked, then terminal-safe."""
    if not maybe_secret(text):
        return terminal_safe(text)
    from zeromem_cli.text.secrets import mask_secrets

    return terminal_safe(mask_secrets(text))


# A quoted value (as ``repr`` writes it) longer than this in a message is cut to its start;
# a whole message longer than MESSAGE_MAX loses its middle.
QUOTED_MAX = 80
MESSAGE_MAX = 1000
_LONGER = "{" + str(QUOTED_MAX + 1) + ",}"


@functools.cache
def _quoted() -> re.Pattern[str]:
    """A quoted value longer than ``QUOTED_MAX``; compiled with the first long message."""
    return re.compile(
        r"'((?:[^'\\\n]|\\.)" + _LONGER + r")'|\"((?:[^\"\\\n]|\\.)" + _LONGER + r")\""
    )


def _cut(match: re.Match[str]) -> str:
    quote = match.group(0)[0]
    inner = match.group(1) if match.group(1) is not None else match.group(2)
    return f"{quote}{inner[: QUOTED_MAX - 20]}…{quote} ({len(inner)} characters)"


def shortened(text: str) -> str:
    """``text`` with each quoted value longer than ``QUOTED_MAX`` characters cut to its start."""
    if len(text) <= QUOTED_MAX:
        return text
    return _quoted().sub(_cut, text)


def message_line(text: str) -> str:
    """An error message as one line for a person or a model: likely secrets masked (before
    anything is cut, so no part of one is left), long quoted values shortened, control
    characters made visible; past ``MESSAGE_MAX`` characters its middle is left out (the
    start says what failed, the end often what to do)."""
    line = " ".join(shortened(shown(text)).split())
    if len(line) <= MESSAGE_MAX:
        return line
    return f"{line[: MESSAGE_MAX // 2]} … {line[-MESSAGE_MAX // 4 :]}"
