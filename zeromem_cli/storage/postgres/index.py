"""The search index on PostgreSQL: each memory's tokens (``text.tokens``) as a ``tsvector``.

zeromem computes each memory's index text in Python (``text.normalize.index_text``: CJK runs as
grams, words segmented) and cuts it into tokens in Python too (``text.tokens``: words folded
and stemmed as SQLite's FTS5 tokenizer does), so both backends index the same tokens and
PostgreSQL needs no FTS5. The tokens become a ``tsvector`` literal, never re-parsed by a
PostgreSQL text search configuration. Columns are told apart by weight (key A, category B,
tags C, content D), with a gap of positions between them so a phrase never spans two columns;
BM25's column weights are read back from the labels.

Queries arrive structured (``storage.query.Match``) and become a ``tsquery`` of ``Phrase``s in
``postgres.match``; ``search --fts`` brings the user's own ``tsquery`` (``match.expression``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from zeromem_cli.text.normalize import index_text
from zeromem_cli.text.tokens import tokens

# Columns in position order: (name, weight label). Short columns first, content last, so
# positions stay below tsvector's limit (16383) for all but the longest contents.
_COLUMNS = (("key", "A"), ("category", "B"), ("tags", "C"), ("content", "D"))
_GAP = 8  # positions between two columns: no phrase crosses from one into the next
_MAX_POSITION = 16383
_MAX_TOKEN_CHARS = 500  # a lexeme may hold 2046 bytes: longer tokens are cut (both sides)
# BM25 column weights by label, as storage.sqlite.candidates.BM25_WEIGHTS orders them
# (content, tags, category, key).
WEIGHT_OF_LABEL = {"D": 1.0, "C": 2.0, "B": 1.5, "A": 3.0}


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """The tokens of each text (already index text), in order."""
    return [[token[:_MAX_TOKEN_CHARS] for token in tokens(text)] for text in texts]


def _lexeme(token: str) -> str:
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def _tags_text(tags: Any) -> str:
    import json

    return index_text(" ".join(json.loads(tags)) if isinstance(tags, str) else "")


def column_texts(row: Any, content: str | None = None) -> list[str]:
    """The index text of each column of ``row``, in ``_COLUMNS`` order (``content``: the
    content's index text when the caller has it)."""
    return [
        index_text(row["key"] or ""),
        index_text(row["category"]),
        _tags_text(row["tags"]),
        content if content is not None else index_text(row["content"]),
    ]


def vectors(rows: Iterable[Any], contents: Sequence[str] | None = None) -> list[tuple[str, int]]:
    """Each row's (``tsvector`` literal, token count)."""
    rows = list(rows)
    texts: list[str] = []
    for number, row in enumerate(rows):
        texts += column_texts(row, contents[number] if contents is not None else None)
    tokens = tokenize(texts)
    out = []
    width = len(_COLUMNS)
    for number in range(len(rows)):
        positions: dict[str, list[str]] = {}
        position, count = 1, 0
        for column, (_, label) in enumerate(_COLUMNS):
            for token in tokens[number * width + column]:
                if position <= _MAX_POSITION:
                    positions.setdefault(token, []).append(f"{position}{label}")
                position += 1
                count += 1
            position += _GAP
        literal = " ".join(f"{_lexeme(t)}:{','.join(p[:256])}" for t, p in positions.items())
        out.append((literal, count))
    return out


# -- queries ------------------------------------------------------------------------------------


class Phrase(NamedTuple):
    """One FTS5 phrase as tokens; ``prefix``: its last token is a prefix."""

    tokens: tuple[str, ...]
    prefix: bool = False

    def tsquery(self) -> str:
        parts = [_lexeme(t) for t in self.tokens]
        if self.prefix:
            parts[-1] += ":*"
        return parts[0] if len(parts) == 1 else "(" + " <-> ".join(parts) + ")"


class Parsed(NamedTuple):
    """A query: ``tsquery`` text (None: it can match nothing) and its positive phrases."""

    tsquery: str | None
    phrases: tuple[Phrase, ...]
