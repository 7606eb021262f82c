"""How ``pack`` prints memories: text, markdown, json and xml, each a fixed head and tail
around one unit per memory, so a unit's cost in tokens is known before it is added.

``content_of`` is the single place where a memory's text enters the output: by default it
masks likely credentials (``secrets.mask_secrets``), so the budget counts the masked text,
exactly what is printed; ``plain_content`` (``reveal=True``) shows them. Every format escapes
what a memory could use to break out of its unit: an XML closing tag, a markdown heading or
fence, a JSON quote.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Memory
from zeromem_cli.text.display import maybe_secret, terminal_safe

FORMATS = ("text", "markdown", "json", "xml")

ContentOf = Callable[[Memory], str]


def plain_content(memory: Memory) -> str:
    """The memory's text as stored (``reveal=True``)."""
    return memory.content


SECRET_MASK = "[secret: {rule}]"


def _mask(text: str, template: str = SECRET_MASK) -> str:
    """``text`` with likely credentials masked (``secrets.mask_secrets``); a text without any
    of the marks every rule needs (``display.maybe_secret``: most memories) is returned as it
    is without loading the rules."""
    if not maybe_secret(text):
        return text
    from zeromem_cli.text.secrets import mask_secrets as masked

    return masked(text, template)


def masked_content(memory: Memory) -> str:
    """The default ``content_of``: the memory's text with likely credentials masked.

    Writes refuse secrets, but a memory stored before detection existed, or with
    ``--allow-secret``, may hold one; a prompt must not receive it unless asked to.
    """
    return _masked(memory.content)


@functools.lru_cache(maxsize=4096)
def _masked(text: str) -> str:
    """Cached by text: pack masks every candidate it weighs (hundreds), and a long-lived
    process (the MCP server) packs the same memories again and again."""
    return terminal_safe(_mask(text))


def cached_content(content_of: ContentOf) -> ContentOf:
    """``content_of`` computed once per memory (the fill and the final render both ask)."""
    seen: dict[int, str] = {}

    def cached(memory: Memory) -> str:
        text = seen.get(memory.id)
        if text is None:
            text = seen[memory.id] = content_of(memory)
        return text

    return cached


def _label(text: str, mask: bool) -> str:
    """A category as printed: masked unless revealed (every format prints it), and never a
    control character a terminal would obey."""
    return terminal_safe(_mask(text) if mask else text)


def _date(memory: Memory) -> str:
    return (memory.updated_at or memory.created_at)[:10]


def xml_escape(text: str, *, attribute: bool = False) -> str:
    """Text (or, with ``attribute``, a double-quoted attribute value) that cannot open or close
    an XML element: the escaping that keeps a memory inside its ``<memory>`` envelope."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if attribute:
        text = text.replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")
    return text


# A markdown ATX heading: 1-6 "#" then a space.
_HEADING = re.compile(r"#{1,6} ")

# A line starting with one of these would become markdown structure (heading, quote, fence,
# list, table, html block, setext underline): the first character is escaped with a backslash.
_MARKDOWN_BLOCK_START = tuple("#>`~-+*=|<_")


def _markdown_line(line: str) -> str:
    stripped = line.lstrip(" \t")
    if not stripped:
        return ""
    if stripped.startswith(_MARKDOWN_BLOCK_START):
        return "\\" + stripped
    digits = len(stripped) - len(stripped.lstrip("0123456789"))
    if digits and stripped[digits : digits + 1] in (".", ")"):  # "1. x" would start a list
        return stripped[:digits] + "\\" + stripped[digits:]
    return stripped


def _markdown_text(text: str) -> str:
    """Memory text as the body of one list item: every line indented under the item and
    neutralised, so no memory can open a heading, a fence or a new item of its own."""
    lines = [_markdown_line(line) for line in text.split("\n")]
    return "\n  ".join(lines)


def _json_record(memory: Memory, content: str, mask_labels: bool) -> dict[str, Any]:
    tags, key = list(memory.tags), memory.key
    if mask_labels:  # only json prints tags and key; they were checked for secrets on write too
        tags = [_mask(tag) for tag in tags]
        key = _mask(key) if key else key
    return {
        "id": memory.id,
        "content": content,
        "category": _label(memory.category, mask_labels),
        "tags": tags,
        "key": key,
        "importance": memory.importance,
        "pinned": memory.pinned,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
    }


class Formatter:
    """One output format: a fixed ``head`` and ``tail`` around one ``unit`` per memory."""

    def __init__(
        self, fmt: str, header: str | None, content_of: ContentOf, *, mask_labels: bool = False
    ) -> None:
        if fmt not in FORMATS:
            raise InvalidInputError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
        self.fmt = fmt
        self.header = (header or "").strip() or None
        self.content_of = content_of
        self.mask_labels = mask_labels

    def head(self) -> str:
        header = self.header
        if self.fmt == "json":
            return "[\n" if header is None else '{"header": ' + _dumps(header) + ', "memories": [\n'
        if self.fmt == "xml":
            return "<memories>\n" if header is None else f"{_xml_header(header)}<memories>\n"
        if header is None:
            return ""
        if self.fmt == "markdown":  # a heading of its own ("## Memories") is kept as given
            line = " ".join(header.split())
            return (line if _HEADING.match(line) else "## " + line) + "\n\n"
        return header + "\n"

    def tail(self) -> str:
        if self.fmt == "json":
            return "]\n" if self.header is None else "]}\n"
        if self.fmt == "xml":
            return "</memories>\n"
        return ""

    def unit(self, memory: Memory, *, last: bool = False) -> str:
        """The text of one memory, with its own line break(s)."""
        content = self.content_of(memory)
        category = _label(memory.category, self.mask_labels)
        if self.fmt == "text":
            body = content.replace("\n", "\n  ")
            pinned = ", pinned" if memory.pinned else ""
            return f"- [{category}{pinned}] {body} ({_date(memory)})\n"
        if self.fmt == "markdown":
            pin = "📌 " if memory.pinned else ""
            category = _markdown_line(category).replace("*", "\\*")
            return f"- {pin}**{category}** {_markdown_text(content)} _({_date(memory)})_\n"
        if self.fmt == "json":
            return _dumps(_json_record(memory, content, self.mask_labels)) + (
                "\n" if last else ",\n"
            )
        attributes = f'id="{memory.id}" category="{xml_escape(category, attribute=True)}"'
        if memory.pinned:
            attributes += ' pinned="true"'
        attributes += f' date="{_date(memory)}"'
        return f"<memory {attributes}>{xml_escape(content)}</memory>\n"

    def render(self, memories: Sequence[Memory]) -> str:
        """The full snippet. Nothing at all for text and markdown when there are no memories."""
        if not memories:
            # Text and markdown: nothing at all; json and xml: a valid empty document.
            return (
                "" if self.fmt in ("text", "markdown") else self.head().rstrip("\n") + self.tail()
            )
        units = [self.unit(m, last=i == len(memories) - 1) for i, m in enumerate(memories)]
        return self.head() + "".join(units) + self.tail()


def _dumps(value: Any) -> str:
    import json  # the json format only

    return json.dumps(value, ensure_ascii=False)


def _xml_header(header: str) -> str:
    return xml_escape(" ".join(header.split())) + "\n"


__all__ = [
    "FORMATS",
    "SECRET_MASK",
    "ContentOf",
    "Formatter",
    "cached_content",
    "masked_content",
    "plain_content",
    "xml_escape",
]
