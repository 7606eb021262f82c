"""User text -> a safe FTS5 MATCH expression.

User text never reaches MATCH raw: it is cut into words (Latin) and bigrams (CJK), stop words
are dropped so "when is the report sent?" searches for ``report`` and ``sent``, and every term is
double-quoted and OR-ed. A quoted string is a plain phrase to FTS5, so no input can produce a
syntax error or an operator. BM25 then ranks memories that match more terms higher.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from zeromem_cli.text import CJK_RUN, cjk_grams, cjk_runs, latin_words, normalize
from zeromem_cli.times import to_iso

ENGLISH_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could did do does doing don't down
    during each few for from further had has have having he her here hers herself him himself
    his how i if in into is isn't it its itself just let me more most my myself no nor not now of
    off on once only or other ought our ours ourselves out over own same she should so some such
    than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you
    your yours yourself yourselves s t d ll m re ve tell know remember please did does""".split()
)

# Chinese function words and question words, longest first so 什么时候 wins over 什么.
CHINESE_STOP_WORDS = sorted(
    """什么时候 为什么 怎么样 是不是 有没有 什么 怎么 哪里 哪儿 哪个 哪些 多少 几点 时候 请问 告诉
    我们 你们 他们 她们 它们 自己 这个 那个 这些 那些 一下 一个 可以 应该 需要 是否 还是 或者
    以及 还有 就是 但是 因为 所以 如果 关于 的 了 吗 呢 吧 啊 呀 么 是 在 和 与 及 或 也 都 就 还
    我 你 他 她 它 把 被 给 让 向 从 对 到 又 很 该 要 会 能 得 地 着 过 这 那 哪 谁 几""".split(),
    key=len,
    reverse=True,
)


def _strip_chinese_stop_words(run: str) -> list[str]:
    """Split a CJK run at its stop words, keeping the content pieces."""
    pieces = [run]
    for word in CHINESE_STOP_WORDS:
        next_pieces: list[str] = []
        for piece in pieces:
            next_pieces.extend(p for p in piece.split(word) if p)
        pieces = next_pieces
    return pieces


def query_terms(text: str, *, drop_stop_words: bool = True) -> list[str]:
    """The distinct search terms of ``text``, in order: Latin words and CJK bigrams."""
    terms: list[str] = []
    latin_part = CJK_RUN.sub(" ", normalize(text))
    for word in latin_words(latin_part):
        if drop_stop_words and word.lower() in ENGLISH_STOP_WORDS:
            continue
        terms.append(word)
    for run in cjk_runs(text):
        pieces = _strip_chinese_stop_words(run) if drop_stop_words else [run]
        for piece in pieces:
            terms.extend(cjk_grams(piece))
    distinct: dict[str, str] = {}  # "Report" and "report" are one term to FTS5
    for term in terms:
        distinct.setdefault(term.lower(), term)
    return list(distinct.values())


def quote(term: str) -> str:
    """An FTS5 string literal: the term becomes a phrase, never an operator."""
    return '"' + term.replace('"', '""') + '"'


def build_match(text: str) -> str | None:
    """An FTS5 expression OR-ing the quoted terms of ``text``; None when it has no terms.

    If every word is a stop word ("what is it?"), the stop words themselves are searched
    rather than returning nothing.
    """
    terms = query_terms(text) or query_terms(text, drop_stop_words=False)
    if not terms:
        return None
    return " OR ".join(quote(t) for t in terms)


@dataclass
class Filters:
    """Which memories a read considers, besides the scope. Turned into one SQL WHERE clause
    over the ``memories m`` alias, with named parameters only."""

    category: str | None = None
    tags: Sequence[str] = ()
    key: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_expired: bool = False
    include_deleted: bool = False
    min_score: float | None = None

    def where(self, now: datetime) -> tuple[str, dict[str, Any]]:
        clauses: list[str] = []
        params: dict[str, Any] = {}
        if not self.include_deleted:
            clauses.append("m.deleted_at IS NULL")
        if not self.include_expired:
            clauses.append("(m.expires_at IS NULL OR m.expires_at > :f_now)")
            params["f_now"] = to_iso(now)
        if self.category is not None:
            clauses.append("m.category = :f_category")
            params["f_category"] = self.category
        for number, tag in enumerate(dict.fromkeys(self.tags)):
            clauses.append(
                f"EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = :f_tag{number})"
            )
            params[f"f_tag{number}"] = tag
        if self.key is not None:
            clauses.append("m.key = :f_key")
            params["f_key"] = self.key
        if self.since is not None:
            clauses.append("m.created_at >= :f_since")
            params["f_since"] = to_iso(self.since)
        if self.until is not None:
            clauses.append("m.created_at <= :f_until")
            params["f_until"] = to_iso(self.until)
        return (" AND ".join(clauses) or "1"), params
