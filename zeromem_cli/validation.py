"""Validation of the values a memory is made of: labels, tags, importance, meta, limits.

Shared by every write path (``MemoryStore.write``/``update`` and import), so a value the
library refuses in one place it refuses everywhere, with the same message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.text.normalize import clean_content, require_utf8

MAX_LABEL = 200
MAX_ID = 2**63 - 1  # the largest SQLite integer: ids and limits beyond it cannot be bound


def clean_label(value: str, what: str) -> str:
    """A category, key or tag: cleaned like content, non-empty, at most 200 characters."""
    cleaned = clean_content(require_utf8(str(value), what))
    if not cleaned:
        raise InvalidInputError(f"{what} is empty")
    if len(cleaned) > MAX_LABEL:
        raise InvalidInputError(f"{what} is longer than {MAX_LABEL} characters")
    return cleaned


def clean_tags(tags: Iterable[str]) -> list[str]:
    """Distinct cleaned tags, in order (a lone string is one tag, not its characters)."""
    if isinstance(tags, str):
        tags = [tags]
    return list(dict.fromkeys(clean_label(t, "tag") for t in tags))


# Default caps on a memory's tags (config add.max_tags, add.max_tag_chars): one memory with
# 100,000 tags printed 30,000 lines on a terminal, and no tag needs a paragraph.
DEFAULT_MAX_TAGS = 50
DEFAULT_MAX_TAG_CHARS = 100


def tag_limit_error(tags: list[str], max_tags: int, max_chars: int) -> str | None:
    """Why cleaned ``tags`` break the caps, or None: at most ``max_tags`` tags of at most
    ``max_chars`` characters each."""
    if len(tags) > max_tags:
        return f"{len(tags)} tags, more than add.max_tags ({max_tags})"
    for tag in tags:
        if len(tag) > max_chars:
            return f"a tag of {len(tag)} characters, more than add.max_tag_chars ({max_chars})"
    return None


def check_tags(tags: list[str], max_tags: int, max_chars: int) -> None:
    problem = tag_limit_error(tags, max_tags, max_chars)
    if problem is not None:
        raise InvalidInputError(f"too many or too long tags: {problem}")


def clean_importance(importance: int) -> int:
    if isinstance(importance, bool) or not isinstance(importance, int):
        raise InvalidInputError("importance must be an integer from 0 to 10")
    if not 0 <= importance <= 10:
        raise InvalidInputError(f"importance must be from 0 to 10, not {importance}")
    return importance


def clean_meta(meta: dict[str, Any] | None) -> str:
    """Meta as stored: a JSON object with sorted keys."""
    if meta is None:
        return "{}"
    if not isinstance(meta, dict):
        raise InvalidInputError("meta must be an object of key/value pairs")
    import json  # a write's; a search never checks meta

    try:
        # allow_nan=False: NaN/Infinity are not JSON and would make the row unreadable.
        text = json.dumps(meta, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"meta is not JSON-serialisable: {exc}") from None
    return require_utf8(text, "meta")


def memory_id(value: int | str) -> int:
    """A memory id: a positive integer SQLite can hold (given as a number or its digits)."""
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(value, str) and value.strip().isdigit():
        number = int(value)
    if number is None or not 1 <= number <= MAX_ID:
        raise InvalidInputError(f"not a memory id: {value!r}")
    return number


def check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive integer, not {limit!r}")
    return min(limit, MAX_ID)  # SQLite integers are 64-bit: a huge limit means "all"
