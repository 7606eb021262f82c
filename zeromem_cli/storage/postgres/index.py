"""The search index on PostgreSQL: the same tokens FTS5 indexes, as a ``tsvector``.

zeromem computes each memory's index text in Python (``text.normalize.index_text``: CJK runs as
bigrams, words segmented); SQLite's FTS5 then cuts it with ``porter unicode61
remove_diacritics 2``. To index exactly the same tokens here, that tokenizer is run in-process,
on an in-memory FTS5 table (SQLite is in the standard library), and its tokens become a
``tsvector`` literal, never re-parsed by a PostgreSQL text search configuration. Columns are
told apart by weight (key A, category B, tags C, content D), with a gap of positions between
them so a phrase never spans two columns; BM25's column weights are read back from the labels.

Queries are FTS5 expressions (the ones ``text.query`` builds, or ``search --fts``): ``parse``
reads the subset PostgreSQL can answer (phrases, prefix ``*``, AND, OR, NOT, parentheses,
NEAR read as AND) into a ``tsquery`` and the list of phrases BM25 scores.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from zeromem_cli.errors import InvalidInputError
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


_KEYWORDS = ("AND", "OR", "NOT", "NEAR")
_PUNCTUATION = "()*,:^+{}"


def _lex(expression: str) -> list[tuple[str, str]]:
    """(kind, text) tokens of an FTS5 expression: str, word, op, or a punctuation mark."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(expression)
    while i < n:
        char = expression[i]
        if char.isspace():
            i += 1
        elif char == '"':
            j, text = i + 1, ""
            while True:
                k = expression.find('"', j)
                if k < 0:
                    raise InvalidInputError("invalid FTS5 expression: unterminated string")
                text += expression[j:k]
                if k + 1 < n and expression[k + 1] == '"':
                    text += '"'
                    j = k + 2
                    continue
                i = k + 1
                break
            out.append(("str", text))
        elif char in _PUNCTUATION:
            out.append((char, char))
            i += 1
        else:
            j = i
            while j < n and not expression[j].isspace() and expression[j] not in _PUNCTUATION + '"':
                j += 1
            word = expression[i:j]
            out.append(("op" if word in _KEYWORDS else "word", word))
            i = j
    return out


_END = ("end", "")


class _Parser:
    def __init__(self, expression: str) -> None:
        self.tokens = _lex(expression)
        self.at = 0
        self.phrases: list[Phrase] = []

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else _END

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect(self, kind: str) -> None:
        token = self.peek()
        if token[0] != kind:
            raise InvalidInputError(f"invalid FTS5 expression: expected {kind!r}")
        self.at += 1

    def parse(self) -> str | None:
        if not self.tokens:
            raise InvalidInputError("invalid FTS5 expression: empty")
        result = self.or_expr()
        if self.peek() != _END:
            raise InvalidInputError(f"invalid FTS5 expression: unexpected {self.peek()[1]!r}")
        return result

    def or_expr(self) -> str | None:
        parts = [self.and_expr()]
        while self.peek() == ("op", "OR"):
            self.take()
            parts.append(self.and_expr())
        kept = [p for p in parts if p is not None]
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else "(" + " | ".join(kept) + ")"

    def and_expr(self) -> str | None:
        parts = [self.not_expr()]
        while True:
            token = self.peek()
            if token == ("op", "AND"):
                self.take()
            elif token == _END or token[0] in (")", ",") or token == ("op", "OR"):
                break
            parts.append(self.not_expr())
        if any(p is None for p in parts):
            return None
        return parts[0] if len(parts) == 1 else "(" + " & ".join(p for p in parts if p) + ")"

    def not_expr(self) -> str | None:
        left = self.primary()
        while self.peek() == ("op", "NOT"):
            self.take()
            saved = len(self.phrases)
            right = self.primary()
            del self.phrases[saved:]  # a NOT phrase is never in a match: BM25 skips it
            if left is not None and right is not None:
                left = f"({left} & !{right})"
        return left

    def primary(self) -> str | None:
        token = self.peek()
        if token == _END:
            raise InvalidInputError("invalid FTS5 expression: incomplete")
        if token[0] == "(":
            self.take()
            inner = self.or_expr()
            self.expect(")")
            return inner
        if token == ("op", "NEAR"):
            self.take()
            self.expect("(")
            parts = []
            while self.peek()[0] not in (")", ",", "end"):
                parts.append(self.phrase())
            if self.peek()[0] == ",":
                self.take()
                self.take()  # the distance: NEAR is read as AND here
            self.expect(")")
            if not parts or any(p is None for p in parts):
                return None
            return "(" + " & ".join(p for p in parts if p) + ")"
        return self.phrase()

    def phrase(self) -> str | None:
        texts: list[str] = []
        prefix = False
        while True:
            kind, text = self.take() if self.peek() != _END else _END
            if kind not in ("str", "word"):
                raise InvalidInputError("invalid FTS5 expression: expected a phrase")
            if self.peek()[0] == ":":
                raise InvalidInputError(
                    "column filters (column:term) are not supported on PostgreSQL stores"
                )
            texts.append(text)
            prefix = False
            if self.peek()[0] == "*":
                self.take()
                prefix = True
            if self.peek()[0] == "+":
                self.take()
                continue
            break
        tokens = tuple(tokenize([" ".join(texts)])[0])
        if not tokens:
            return None
        phrase = Phrase(tokens, prefix)
        self.phrases.append(phrase)
        return phrase.tsquery()


# A search parses the same few expressions many times over (each word's forms for the window,
# the counts and the ranking): a parse runs FTS5's tokenizer, ~0.15 ms, a tenth of a search's
# client time at 1M memories before this cache (``python -m benchmarks.postgres``).
@functools.lru_cache(maxsize=4096)
def parse(expression: str) -> Parsed:
    """The ``tsquery`` and phrases of an FTS5 expression; InvalidInputError when malformed or
    using what PostgreSQL cannot answer (column filters, ``^``)."""
    parser = _Parser(expression)
    tsquery = parser.parse()
    return Parsed(tsquery, tuple(dict.fromkeys(parser.phrases)))
