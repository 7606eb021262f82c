"""Related English words, so ``my relatives`` can find ``my cousin's wedding``.

A memory often names the thing a question asks about by another word: a kind of it (cousin
for relatives, a laptop for devices) or a synonym (job / career, car / vehicle). BM25 cannot
connect them. This is a small table of general-purpose English, written by hand for zeromem
(no model, no download) and kept in a data file of the package (``related_words.txt``, which
says where its entries come from). It is low-weight query expansion: ``search``
looks the related words up in a second pass whose BM25 counts ``Ranking.related`` of a query
word's own (``zeromem_cli.search``), so a memory holding the asked word still ranks above one
holding only a related word.

Two relations:
- synonym groups (each word finds the others): ``job work career occupation profession``;
- broad words and their kinds, one way: ``relative`` finds ``cousin`` and ``aunt``, but
  ``cousin`` does not find ``aunt``.

Lookup is by the lower-case word or its singular (``relatives`` -> ``relative``); the index's
porter stemmer matches the plurals and tenses of what is found. Only Latin words are looked
up: the table is English.
"""

from __future__ import annotations

import functools
from pathlib import Path

# The table: a data file in the package, read on first use (most queries never need it).
TABLE = Path(__file__).with_name("related_words.txt")

# The most related words one query word brings (a long kinds line is cut, not searched whole).
MAX_RELATED = 16


@functools.cache
def _text() -> str:
    """The table file's text, read once."""
    return TABLE.read_text(encoding="utf-8")


def _entries(line: str, section: str, word: str | None) -> list[tuple[str, list[str]]]:
    """(headword, word list) of one line of the table's ``section`` (``word``: only those
    of that headword): a synonyms line makes each of its words a headword of the whole line,
    a kinds line ``broad: kind kind`` makes ``broad`` the headword of its kinds."""
    line = line.partition("#")[0].strip()
    if line[:1] == "[" and line[-1:] == "]":  # a section's own line
        return []
    if section == "synonyms":
        words = line.split()
        return [(w, words) for w in words if word is None or w == word]
    if section == "kinds":
        broad, _, kinds = line.partition(":")
        if word is None or broad.strip() == word:
            return [(broad.strip(), kinds.split())]
    return []


@functools.cache
def _sections() -> list[tuple[int, str]]:
    """(offset, name) of each ``[section]`` line of the table, in file order."""
    text = _text()
    found: list[tuple[int, str]] = []
    at = text.find("[")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        line = text[start : len(text) if end < 0 else end].partition("#")[0].strip()
        if line[:1] == "[" and line[-1:] == "]" and (not found or found[-1][0] != start):
            found.append((start, line[1:-1]))
        at = text.find("[", at + 1)
    return found


def _groups() -> dict[str, list[list[str]]]:
    """Every headword -> the word lists of the table's lines it heads (a kinds line) or is
    part of (a synonyms line), in file order (what ``table_size`` counts)."""
    text = _text()
    groups: dict[str, list[list[str]]] = {}
    bounds = [*_sections(), (len(text), "")]
    for (start, section), (end, _) in zip(bounds, bounds[1:], strict=False):
        for line in text[start:end].splitlines()[1:]:
            for head, words in _entries(line, section, None):
                groups.setdefault(head, []).append(words)
    return groups


def _lines_of(word: str) -> list[list[str]] | None:
    """The word lists ``_groups()`` holds for ``word`` (None: not a headword), found by
    looking for the word in the table's text instead of reading every line into a dict:
    a search looks up a few words, and building the whole dict was a measurable part of a
    cold ``search`` (``python -m benchmarks.speed --only cold``)."""
    text = _text()
    sections = _sections()
    lines: list[list[str]] = []
    seen = -1
    at = text.find(word)
    while at >= 0:
        after = at + len(word)
        # Only where it can be a whole word of a line (``_entries`` decides).
        if (at == 0 or text[at - 1].isspace()) and (
            after == len(text) or text[after].isspace() or text[after] in ":#"
        ):
            start = text.rfind("\n", 0, at) + 1
            if start > seen:  # each line once, in file order
                seen = start
                end = text.find("\n", at)
                section = ""
                for offset, name in sections:
                    if offset <= start:
                        section = name
                line = text[start : len(text) if end < 0 else end]
                lines += [words for _, words in _entries(line, section, word)]
        at = text.find(word, after)
    return lines or None


def _related(word: str) -> tuple[str, ...] | None:
    """The table's related words of ``word`` as written (None: not in the table)."""
    lines = _lines_of(word)
    if lines is None:
        return None
    found = dict.fromkeys(w for words in lines for w in words if w != word)
    return tuple(found)[:MAX_RELATED]


@functools.lru_cache(maxsize=4096)
def related_words(word: str) -> tuple[str, ...]:
    """The words related to ``word`` (a synonym, or a kind of it), () for most words."""
    if len(word) < 2 or not word.isascii():
        return ()
    word = word.lower()
    for form in _forms(word):
        found = _related(form)
        if found is not None:
            return tuple(w for w in found if w != word)
    return ()


def _forms(word: str) -> tuple[str, ...]:
    """``word`` and the singulars it may be the plural of, most likely first."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    if word.endswith("s") and len(word) > 2:
        forms.append(word[:-1])
    return tuple(forms)


def table_size() -> tuple[int, int]:
    """(headwords, related pairs) in the table: what the docstring's size claim is checked by."""
    groups = _groups()
    return len(groups), sum(len(_related(word) or ()) for word in groups)
