"""Re-writing a JSON document while keeping, byte for byte, every part of it that did not change.

``parse`` records where each value sits in the text; ``render`` writes the new document,
reusing the original text of any value equal to the old one at the same place (a whole
untouched setting, an event's existing hooks) and laying out only the containers that did
change, at the file's own indentation. So a merge shows up in a diff as just what was added.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

_WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()
_STRING = json.decoder.scanstring  # type: ignore[attr-defined]  # public, untyped in typeshed


class Node(NamedTuple):
    value: Any
    start: int
    end: int
    children: dict[Any, Node] | list[Node] | None


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def parse(text: str, at: int = 0) -> Node:
    """The node of the value starting at (or after whitespace from) ``at``; ValueError if the
    text is not JSON (``json.loads`` has already accepted it when this is called)."""
    at = _skip(text, at)
    char = text[at : at + 1]
    if char == "{":
        members: dict[Any, Node] = {}
        value: dict[str, Any] = {}
        begin = at
        at = _skip(text, at + 1)
        while text[at] != "}":
            key, at = _STRING(text, at + 1)
            at = _skip(text, at)
            child = parse(text, at + 1)  # past the colon
            members[key] = child
            value[key] = child.value
            at = _skip(text, child.end)
            if text[at] == ",":
                at = _skip(text, at + 1)
        return Node(value, begin, at + 1, members)
    if char == "[":
        items: list[Node] = []
        begin = at
        at = _skip(text, at + 1)
        while text[at] != "]":
            child = parse(text, at)
            items.append(child)
            at = _skip(text, child.end)
            if text[at] == ",":
                at = _skip(text, at + 1)
        return Node([c.value for c in items], begin, at + 1, items)
    scalar, end = _DECODER.raw_decode(text, at)
    return Node(scalar, at, end, None)


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same JSON types all the way down (True is not 1 here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def render(value: Any, old: Node | None, text: str, indent: str, level: int = 0) -> str:
    if old is not None and _same(value, old.value):
        return text[old.start : old.end]
    inner = "\n" + indent * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        kids = old.children if old is not None and isinstance(old.children, dict) else {}
        parts = [
            json.dumps(key, ensure_ascii=False)
            + ": "
            + render(item, kids.get(key), text, indent, level + 1)
            for key, item in value.items()
        ]
        return "{" + inner + ("," + inner).join(parts) + "\n" + indent * level + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = old.children if old is not None and isinstance(old.children, list) else []
        parts = [
            render(item, items[i] if i < len(items) else None, text, indent, level + 1)
            for i, item in enumerate(value)
        ]
        return "[" + inner + ("," + inner).join(parts) + "\n" + indent * level + "]"
    return json.dumps(value, ensure_ascii=False)
