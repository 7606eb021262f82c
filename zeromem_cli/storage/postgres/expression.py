"""``search --fts`` on PostgreSQL: the user's own FTS5 expression read into a ``tsquery``.

Only this option brings query text to the server backend (search, pack and the near-duplicate
check hand it a structured ``Match``: ``postgres.match``). The subset PostgreSQL can answer is
read: phrases, prefix ``*``, AND, OR, NOT, parentheses, NEAR read as AND; a column filter or
``^`` is refused.
"""

from __future__ import annotations

import functools

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.storage.postgres.index import Parsed, Phrase, tokenize

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


@functools.lru_cache(maxsize=4096)
def parse(expression: str) -> Parsed:
    """The ``tsquery`` and phrases of an FTS5 expression; InvalidInputError when malformed or
    using what PostgreSQL cannot answer (column filters, ``^``)."""
    parser = _Parser(expression)
    tsquery = parser.parse()
    return Parsed(tsquery, tuple(dict.fromkeys(parser.phrases)))
