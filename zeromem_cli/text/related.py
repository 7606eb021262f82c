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
def _groups() -> dict[str, list[list[str]]]:
    """Word -> the word lists of the table's lines it heads (a kinds line) or is part of (a
    synonyms line), in file order. Built on a word's first lookup; the related words of one
    word are put together only when it is looked up (``_related``): a search looks up a few
    words, and building every word's related tuple up front was a measurable part of a cold
    ``search`` (``python -m benchmarks.speed --only cold``)."""
    groups: dict[str, list[list[str]]] = {}
    section = ""
    for raw in TABLE.read_text(encoding="utf-8").splitlines():
        line = raw.partition("#")[0].strip()
        if not line:
            continue
        if line[0] == "[" and line[-1] == "]":
            section = line[1:-1]
        elif section == "synonyms":
            words = line.split()
            for word in words:
                groups.setdefault(word, []).append(words)
        elif section == "kinds":
            broad, _, kinds = line.partition(":")
            groups.setdefault(broad.strip(), []).append(kinds.split())
    return groups


def _related(word: str) -> tuple[str, ...] | None:
    """The table's related words of ``word`` as written (None: not in the table)."""
    lines = _groups().get(word)
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
