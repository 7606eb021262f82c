"""The search index on PostgreSQL: the same tokens FTS5 indexes, as a ``tsvector``.

zeromem computes each memory's index text in Python (``text.normalize.index_text``: CJK runs as
bigrams, words segmented); SQLite's FTS5 then cuts it with ``porter unicode61
remove_diacritics 2``. To index exactly the same tokens here, that tokenizer is run in-process,
on an in-memory FTS5 table (SQLite is in the standard library), and its tokens become a
``tsvector`` literal, never re-parsed by a PostgreSQL text search configuration. Columns are
told apart by weight (key A, category B, tags C, content D), with a gap of positions between
them so a phrase never spans two columns; BM25's column weights are read back from the labels.

Queries arrive structured (``storage.query.Match``) and become a ``tsquery`` of ``Phrase``s in
``postgres.match``; only ``search --fts`` brings an FTS5 expression (``postgres.expression``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from zeromem_cli.storage.sqlite.migrations import FTS_TOKENIZER
from zeromem_cli.text.normalize import index_text

# Columns in position order: (name, weight label). Short columns first, content last, so
# positions stay below tsvector's limit (16383) for all but the longest contents.
_COLUMNS = (("key", "A"), ("category", "B"), ("tags", "C"), ("content", "D"))
_GAP = 8  # positions between two columns: no phrase crosses from one into the next
_MAX_POSITION = 16383
_MAX_TOKEN_CHARS = 500  # a lexeme may hold 2046 bytes: longer tokens are cut (both sides)
# BM25 column weights by label, as storage.sqlite.candidates.BM25_WEIGHTS orders them
# (content, tags, category, key).
WEIGHT_OF_LABEL = {"D": 1.0, "C": 2.0, "B": 1.5, "A": 3.0}

_lock = threading.Lock()
_tokenizer: sqlite3.Connection | None = None


def _open_tokenizer() -> sqlite3.Connection:
    global _tokenizer
    if _tokenizer is None:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(c, tokenize='{FTS_TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        _tokenizer = conn
    return _tokenizer


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """FTS5's tokens of each text (already index text), in order."""
    out: list[list[str]] = [[] for _ in texts]
    if not texts:
        return out
    with _lock:
        conn = _open_tokenizer()
        conn.execute("BEGIN")
        try:
            conn.executemany(
                "INSERT INTO t(rowid, c) VALUES (?, ?)", ((n, t) for n, t in enumerate(texts, 1))
            )
            for doc, term in conn.execute('SELECT doc, term FROM v ORDER BY doc, "offset"'):
                out[doc - 1].append(term[:_MAX_TOKEN_CHARS])
        finally:
            conn.execute("ROLLBACK")
    return out


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
