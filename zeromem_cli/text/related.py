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
def _table() -> dict[str, tuple[str, ...]]:
    """Word -> its related words (built on first use: most queries never need it)."""
    related: dict[str, dict[str, None]] = {}
    section = ""
    for raw in TABLE.read_text(encoding="utf-8").splitlines():
        line = raw.partition("#")[0].strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        elif line and section == "synonyms":
            words = line.split()
            for word in words:
                found = related.setdefault(word, {})
                found.update(dict.fromkeys(w for w in words if w != word))
        elif line and section == "kinds":
            broad, _, kinds = line.partition(":")
            found = related.setdefault(broad.strip(), {})
            found.update(dict.fromkeys(w for w in kinds.split() if w != broad.strip()))
    return {word: tuple(found)[:MAX_RELATED] for word, found in related.items()}


@functools.lru_cache(maxsize=4096)
def related_words(word: str) -> tuple[str, ...]:
    """The words related to ``word`` (a synonym, or a kind of it), () for most words."""
    if len(word) < 2 or not word.isascii():
        return ()
    word = word.lower()
    table = _table()
    for form in _forms(word):
        found = table.get(form)
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
    table = _table()
    return len(table), sum(len(found) for found in table.values())
