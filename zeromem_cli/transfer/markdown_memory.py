"""Agent memory files (Claude Code's CLAUDE.md, AGENTS.md, GEMINI.md) as import records.

One memory per list item (with its continuation lines and nested items, which belong to it)
or per paragraph. The headings above it are its context: its tags are the file's name and
the heading path (``["CLAUDE.md", "Code style", "Python"]``) and its category the nearest
heading, so a pack shows ``[Python] Prefer f-strings``; before the first heading the category
is ``general``. Not memories: YAML front matter, HTML comments (dropped wherever they stand
outside code), thematic breaks, fenced or indented code blocks standing alone (examples,
usually: a code block inside a list item stays part of that item).

``@path`` imports (CLAUDE.md and GEMINI.md; AGENTS.md has none), as Claude Code documents
them: an ``@`` at a line start or after whitespace, outside code spans and code blocks,
relative to the file holding it (``~/`` is the home folder). An import naming an existing
markdown or text file is followed (``.md``, ``.markdown``, ``.txt``, or a suffix-less
upper-case name such as ``README``; anything else is noted and not read), each file once, at
most ``MAX_IMPORT_DEPTH`` hops from the first file; a cycle is noted and broken. A paragraph or
item that is nothing but imports is not a memory itself. Records of imported files follow
those of the file importing them.

``meta``: ``source`` (the format), ``file`` (absolute path) and ``project`` (the root of the
git repository holding the file, when there is one). A file's records name that
repository's project scope (its ``--project auto`` name, ``projects.project_of``), so a
repository's CLAUDE.md lands in its project and ``~/.claude/CLAUDE.md`` in none. Records
carry no line numbers, so their derived uids survive edits elsewhere in the file and a
re-import skips what it already holds; the line is in each record's place (``where``).

zeromem's own ``export --format markdown`` (titled ``# zeromem memories``) is read back as
what it is: each section heading is a category (its count removed), the detail line under a
memory gives its key, tags, importance, pinned flag and dates, and nothing is imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.transfer.memory_files import MemoryFilePlan

MAX_IMPORT_DEPTH = 5  # hops from the first file, as Claude Code documents
FORMATS_WITH_IMPORTS = ("claude-md", "gemini-md")
TEXT_SUFFIXES = (".md", ".markdown", ".txt")
MAX_LABEL = 200
EXPORT_TITLE = "# zeromem memories"

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)$")
_LIST = re.compile(r"( {0,3})([-+*]|\d{1,9}[.)])([ \t]+|$)(.*)$")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
_IMPORT = re.compile(r"(?:^|(?<=\s))@(\S+)")
_DETAILS = re.compile(r"<sub>(#\d+(?: · .*)?)</sub>")
_COUNT = re.compile(r"\s*\(\d+\)\Z")


@dataclass
class _Block:
    """A paragraph or list item being read."""

    line: int
    path: tuple[str, ...]
    lines: list[str]
    item_column: int | None = None  # where an item's content starts; None for a paragraph
    blanks: int = 0  # blank lines seen inside an item, kept if the item goes on
    fence: tuple[str, int] | None = None  # a code fence open inside the item

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()


@dataclass
class _Parsed:
    blocks: list[_Block]
    imports: list[tuple[int, str]]  # (line, what follows the @)
    directives: set[int] = field(default_factory=set)  # lines that are only imports: no text


# -- lines --------------------------------------------------------------------------------------


def _expand(line: str) -> str:
    """Leading tabs as spaces (tab stops of 4), so indentation is a column count."""
    if "\t" not in line:
        return line
    body = line.lstrip(" \t")
    column = 0
    for char in line[: len(line) - len(body)]:
        column = column + 4 - column % 4 if char == "\t" else column + 1
    return " " * column + body


def _dedent(original: str, expanded: str, column: int) -> str:
    """``original`` without its first ``column`` columns of indentation; a tab further in
    is content and stays a tab (``expanded`` is the line with its leading tabs expanded)."""
    if original[:column] == " " * column:
        return original[column:]
    return expanded[column:]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _without_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """``line`` with its HTML comments removed (code spans kept as they are), and whether a
    comment is still open at its end."""
    if not in_comment and "<!--" not in line:
        return line, False
    kept: list[str] = []
    position = 0
    while position < len(line):
        if in_comment:
            end = line.find("-->", position)
            if end < 0:
                return "".join(kept), True
            position, in_comment = end + 3, False
            continue
        span = _CODE_SPAN.match(line, position) if line[position] == "`" else None
        if span is not None:
            kept.append(span.group(0))
            position = span.end()
        elif line.startswith("<!--", position):
            position, in_comment = position + 4, True
        else:
            kept.append(line[position])
            position += 1
    return "".join(kept), in_comment


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after YAML front matter (0 when there is none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for number in range(1, len(lines)):
        if lines[number].rstrip() in ("---", "..."):
            return number + 1
    return 0


def import_targets(line: str) -> list[str]:
    """What follows each ``@`` of ``line`` that can be an import (code spans skipped)."""
    if "@" not in line:
        return []
    return _IMPORT.findall(_CODE_SPAN.sub(" ", line))


def _heading_label(text: str) -> str:
    """A heading as a tag or category: trimmed, unwrapped from emphasis, at most MAX_LABEL."""
    label = " ".join(text.split())
    for mark in ("**", "__", "*", "_", "`"):
        if len(label) > 2 * len(mark) and label.startswith(mark) and label.endswith(mark):
            label = label[len(mark) : -len(mark)].strip()
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1].rstrip() + "…"


# -- blocks -------------------------------------------------------------------------------------


def parse_blocks(text: str, *, imports_on: bool = False, items_win: bool = False) -> _Parsed:
    """The paragraphs and list items of a markdown text, with their heading path and first
    line, and the ``@`` targets met outside code. With ``imports_on`` a line holding nothing
    but imports is a directive, not text: it joins no block. With ``items_win`` a list item
    is never read as a thematic break: zeromem's own export writes every memory as ``- TEXT``
    and draws no rules, so ``- --`` there is the memory ``--``, where CommonMark sees a rule."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[_Block] = []
    imports: list[tuple[int, str]] = []
    directives: set[int] = set()
    headings: list[tuple[int, str]] = []  # (level, label)
    current: _Block | None = None
    fence: tuple[str, int] | None = None  # a code fence standing alone: skipped
    in_comment = False

    def path() -> tuple[str, ...]:
        return tuple(label for _, label in headings)

    def close() -> None:
        nonlocal current
        if current is not None and current.text:
            blocks.append(current)
        current = None

    def set_heading(level: int, text: str) -> None:
        nonlocal headings
        headings = [(lv, label) for lv, label in headings if lv < level]
        label = _heading_label(text)
        if label:
            headings.append((level, label))

    for number in range(_front_matter_end(lines), len(lines)):
        line_no = number + 1
        raw = _expand(lines[number])
        if fence is not None:  # inside a code block that is not a memory
            if _closes(raw, fence):
                fence = None
            continue
        if current is not None and current.fence is not None:  # code inside a list item
            column = current.item_column or 0
            if not raw.strip() or _indent(raw) >= column:
                inner = _dedent(lines[number], raw, column)
                current.lines.append(inner.rstrip())
                if _closes(inner, current.fence):
                    current.fence = None
                continue
            current.fence = None  # a line left of the item ends it, and its code with it
            close()
        kept, in_comment = _without_comments(lines[number], in_comment)
        line = _expand(kept)
        if not line.strip():
            if lines[number].strip():
                continue  # a line that was only a comment is not a blank line either
            if current is not None and current.item_column is not None:
                current.blanks += 1
            else:
                close()
            continue
        targets = import_targets(line)
        imports.extend((line_no, target) for target in targets)
        if targets and imports_on and not _IMPORT.sub("", _CODE_SPAN.sub("x", line)).strip():
            directives.add(line_no)
            continue
        indent = _indent(line)
        item = current if current is not None and current.item_column is not None else None
        if item is not None and item.item_column is not None and indent >= item.item_column:
            inner = _dedent(kept, line, item.item_column).rstrip()
            item.lines.extend([""] * item.blanks + [inner])
            item.blanks = 0
            item.fence = _fence(inner)
            continue
        if item is not None and not item.blanks and not _starts_block(line, in_list=True):
            item.lines.append(line.strip())  # a lazy continuation line
            continue
        if item is not None:
            close()
        paragraph = current  # an open paragraph, if any
        heading = _ATX.match(line)
        if heading:
            close()
            set_heading(len(heading.group(1)), heading.group(2) or "")
            continue
        underline = _SETEXT.match(line)
        if underline and paragraph is not None:
            current = None
            set_heading(1 if underline.group(1)[0] == "=" else 2, " ".join(paragraph.lines))
            continue
        if _THEMATIC.match(line) and not (items_win and _LIST.match(line)):
            close()
            continue
        opened = _fence(line)
        if opened is not None:
            close()
            fence = opened
            continue
        if paragraph is None and indent >= 4:
            continue  # an indented code block
        marker = _LIST.match(line)
        if marker and (paragraph is None or _interrupts(marker)):
            close()
            lead, bullet, gap, rest = marker.groups()
            width = len(gap) if rest and 1 <= len(gap) <= 4 else 1
            column = len(lead) + len(bullet) + width
            current = _Block(line_no, path(), [rest.rstrip()], item_column=column)
            current.fence = _fence(rest)
            continue
        if paragraph is None:
            current = _Block(line_no, path(), [])
        assert current is not None
        current.lines.append(line.strip())
    close()
    return _Parsed(blocks, imports, directives)


def _fence(line: str) -> tuple[str, int] | None:
    """The fence (character, length) ``line`` opens, if it opens one."""
    opened = _FENCE.match(line)
    if opened is None or (opened.group(2)[0] == "`" and "`" in opened.group(3)):
        return None
    return opened.group(2)[0], len(opened.group(2))


def _closes(line: str, fence: tuple[str, int]) -> bool:
    char, length = fence
    stripped = line.strip()
    return _indent(line) <= 3 and len(stripped) >= length and stripped == char * len(stripped)


def _interrupts(marker: re.Match[str]) -> bool:
    """Whether a list marker may interrupt a paragraph (CommonMark: a bullet, or ``1.``,
    with text after it)."""
    bullet, rest = marker.group(2), marker.group(4)
    return bool(rest.strip()) and (bullet in "-+*" or bullet[:-1] == "1")


def _starts_block(line: str, *, in_list: bool) -> bool:
    """Whether ``line`` opens a block of its own instead of continuing a paragraph (in a
    list, any marker starts the next item)."""
    if _ATX.match(line) or _THEMATIC.match(line) or _fence(line) is not None:
        return True
    marker = _LIST.match(line)
    return marker is not None and (in_list or _interrupts(marker))


# -- files ------------------------------------------------------------------------------------


def repository_root(path: Path) -> Path | None:
    """The nearest folder above ``path`` holding ``.git`` (a folder, or a worktree's file)."""
    for folder in path.parents:
        if (folder / ".git").exists():
            return folder
    return None


def _place(path: Path, first: Path | None) -> str:
    """A file as errors and the plan name it: relative to the first file's folder, else with
    ``~`` for the home folder, else absolute."""
    if first is not None:
        try:
            return str(path.relative_to(first.parent))
        except ValueError:
            pass
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except (ValueError, RuntimeError):
        return str(path)


def _readable(path: Path) -> bool:
    return path.suffix.lower() in TEXT_SUFFIXES or (not path.suffix and path.name.isupper())


def _resolve(target: str, folder: Path) -> Path | None:
    """The existing file an ``@`` target names, trailing punctuation tolerated."""
    for candidate in (target, target.rstrip(".,;:!?)]}'\"")):
        if not candidate:
            continue
        if candidate.startswith("~/"):
            try:
                path = Path.home() / candidate[2:]
            except RuntimeError:
                continue
        else:
            path = folder / candidate
        if path.is_file():
            return path.resolve()
    return None


def read_markdown(fmt: str, path: Path | None, text: str) -> MemoryFilePlan:
    """The records of a memory file (``path`` None: stdin, imports relative to the current
    folder) and of the files it imports."""
    plan = MemoryFilePlan(fmt)
    first = path.resolve() if path is not None else None
    if text.lstrip("\ufeff").startswith(EXPORT_TITLE + "\n"):
        _read_export(plan, first, text)
        return plan
    follow = fmt in FORMATS_WITH_IMPORTS
    seen: set[Path] = set() if first is None else {first}
    # (file, its text, hops from the first file, the chain of files that led to it)
    queue: list[tuple[Path | None, str, int, tuple[Path, ...]]] = [
        (first, text, 0, () if first is None else (first,))
    ]
    while queue:
        current, body, depth, chain = queue.pop(0)
        place = "stdin" if current is None else _place(current, first)
        plan.files.append(place)
        if current is None:
            where = "line"
        else:
            where = f"{current.name if current == first else place} line"
        parsed = parse_blocks(body, imports_on=follow)
        _add_blocks(plan, parsed.blocks, current, where)
        if not follow:
            continue
        folder = Path.cwd() if current is None else current.parent
        for line_no, target in parsed.imports:
            found = _resolve(target, folder)
            at = f"{where} {line_no}: @{target}"
            if found is None and line_no in parsed.directives:
                # #33: the note said "kept as text" of a line no record holds
                plan.notes.append(f"{at}: no such file, not read (the line is only imports)")
            elif found is None:
                plan.notes.append(f"{at}: no such file, kept as text")
            elif found in chain:
                plan.notes.append(f"{at}: an import cycle, not followed again")
            elif found in seen:
                plan.notes.append(f"{at}: already read")
            elif not _readable(found):
                plan.notes.append(f"{at}: not a markdown or text file, not read")
            elif depth >= MAX_IMPORT_DEPTH:
                plan.notes.append(f"{at}: more than {MAX_IMPORT_DEPTH} imports deep, not read")
            else:
                seen.add(found)
                queue.append((found, _read(found, at), depth + 1, (*chain, found)))
    return plan


def _read(path: Path, at: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"{at}: cannot read it ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{at}: not valid UTF-8 (byte {exc.start}); nothing was imported"
        ) from None


def _add_blocks(plan: MemoryFilePlan, blocks: list[_Block], path: Path | None, where: str) -> None:
    meta: dict[str, Any] = {"source": plan.format}
    project: str | None = None
    if path is not None:
        meta["file"] = str(path)
        root = repository_root(path)
        if root is not None:
            from zeromem_cli.projects import project_of

            meta["project"] = str(root)
            project = project_of(root)
    name = path.name if path is not None else None
    for block in blocks:
        record: dict[str, Any] = {"content": block.text, "meta": meta}
        if project is not None:
            record["project"] = project
        tags = list(dict.fromkeys([name, *block.path] if name else block.path))
        if tags:
            record["tags"] = tags
        if block.path:
            record["category"] = block.path[-1]
        plan.records.append((f"{where} {block.line}", record))


def _read_export(plan: MemoryFilePlan, path: Path | None, text: str) -> None:
    """zeromem's markdown export: sections are categories, detail lines hold the fields."""
    name = path.name if path is not None else None
    plan.files.append(name or "stdin")
    where = f"{name} line" if name else "line"
    meta: dict[str, Any] = {"source": plan.format}
    if path is not None:
        meta["file"] = str(path)
    for block in parse_blocks(text, items_win=True).blocks:
        if block.item_column is None:
            continue  # the "_No memories._" line: only list items are memories here
        lines = list(block.lines)
        while lines and not lines[-1].strip():  # blank lines an unclosed code fence took in
            lines.pop()
        record: dict[str, Any] = {"meta": meta}
        details = _DETAILS.fullmatch(lines[-1].strip()) if lines else None
        if details is not None:
            lines.pop()
            record.update(_export_details(details.group(1)))
        record["content"] = "\n".join(lines).strip()
        if len(block.path) > 1:
            record["category"] = _COUNT.sub("", block.path[-1])
        plan.records.append((f"{where} {block.line}", record))


def _export_details(details: str) -> dict[str, Any]:
    """The fields of a detail line (``#3 · pinned · key `k` · tags a, b · importance 7 ·
    added 2026-01-31``); scope parts are left to the import's scope."""
    fields: dict[str, Any] = {}
    dates = {"added": "created_at", "expires": "expires_at", "forgotten": "deleted_at"}
    for part in details.split(" · ")[1:]:
        word, _, rest = part.partition(" ")
        if part == "pinned":
            fields["pinned"] = True
        elif word == "key" and rest.startswith("`") and rest.endswith("`"):
            fields["key"] = rest[1:-1]
        elif word == "tags" and rest:
            fields["tags"] = rest.split(", ")
        elif word == "importance" and rest.isdigit():
            fields["importance"] = int(rest)
        elif word in dates and rest:
            fields[dates[word]] = rest
    return fields
