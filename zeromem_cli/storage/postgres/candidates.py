"""Search candidates on PostgreSQL: memories matching an FTS5 expression (``index.parse``),
ranked by the BM25 FTS5 computes, rebuilt from term statistics.

FTS5's ``bm25()`` (k1 1.2, b 0.75, column weights ``BM25_WEIGHTS``): for each phrase, an IDF
``log((N - n + 0.5) / (n + 0.5))`` (at least 1e-6) over the N indexed rows and the n matching
it, times ``f (k1 + 1) / (f + k1 (1 - b + b len / avglen))`` where f is the phrase's weighted
count in the row (each occurrence counts its column's weight) and len the row's token count.
``ts_rank`` is not BM25 and ranks too differently for the same re-scoring to apply
(``python -m benchmarks.retrieval --backend both`` shows both backends side by side).

One difference stays: a phrase of several tokens is counted by its first token's occurrences
(the match itself is exact, through the ``tsquery`` phrase operator).
"""

from __future__ import annotations

import math
import re
import time
import weakref
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage.postgres import index
from zeromem_cli.storage.postgres.index import WEIGHT_OF_LABEL
from zeromem_cli.storage.postgres.sql import M_COLUMNS, filter_clause, scope_params, scope_sql
from zeromem_cli.storage.sqlite.candidates import BM25_WEIGHTS, check_expression
from zeromem_cli.text.query import Term

K1, B = 1.2, 0.75


def holds_at_least(conn: Any, matches: Iterable[str], count: int) -> bool:
    for match in matches:
        parsed = index.parse(match)
        if parsed.tsquery is None:
            continue
        row = conn.execute(
            "SELECT 1 FROM memories WHERE fts @@ %s::tsquery LIMIT 1 OFFSET %s",
            (parsed.tsquery, max(count - 1, 0)),
        ).fetchone()
        if row is not None:
            return True
    return False


def count_matches(conn: Any, match: str, cap: int) -> int:
    parsed = index.parse(match)
    if parsed.tsquery is None:
        return 0
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ %s::tsquery LIMIT %s) s",
        (parsed.tsquery, cap),
    ).fetchone()
    return int(row[0])


def _idfs(conn: Any, phrases: Sequence[index.Phrase]) -> tuple[list[float], float, list[int]]:
    """Each phrase's IDF, the average token count over every indexed row (the totals the
    ``fts_totals`` triggers keep) and each phrase's match count.

    A phrase is counted exactly up to ``COUNT_CAP``. Past that, and for a phrase whose first
    token the planner's statistics (ANALYZE's most common lexemes) already put past it, the
    count is that estimate: counting a common word builds a bitmap of all its matches, the
    slowest part of a search on a large store, for an IDF near zero either way. Stores of
    fewer than ``COUNT_CAP`` memories are always counted exactly."""
    totals = conn.execute(
        "SELECT (SELECT coalesce(sum(rows), 0) FROM fts_totals) AS total, "
        "(SELECT coalesce(sum(tokens), 0) FROM fts_totals) AS tokens, "
        "(SELECT count(*) FROM fts_totals) AS deltas"
    ).fetchone()
    total, tokens = int(totals["total"]), int(totals["tokens"])
    if int(totals["deltas"]) > FOLD_AFTER:
        conn.execute("SELECT zeromem_fold_totals()")
    common = _common_lexemes(conn) if total > COUNT_CAP else {}
    estimates = [int(common.get(p.tokens[0], 0.0) * total) for p in phrases]
    counted = [n for n, estimate in enumerate(estimates) if estimate <= COUNT_CAP]
    hits = list(estimates)
    if counted:
        counts = ", ".join(
            f"(SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ %(p{n})s::tsquery "
            f"LIMIT {COUNT_CAP + 1}) s{n}) AS hits{n}"
            for n in counted
        )
        row = conn.execute(
            f"SELECT {counts}", {f"p{n}": phrases[n].tsquery() for n in counted}
        ).fetchone()
        for n in counted:
            hits[n] = max(int(row[f"hits{n}"]), estimates[n])
    # The totals and the counts are read in separate statements (autocommit): rows committed
    # in between can make a count exceed the total, and log() of a negative is an error.
    total = max(total, *hits) if hits else total
    idfs = []
    for n in range(len(phrases)):
        idf = math.log((total - hits[n] + 0.5) / (hits[n] + 0.5)) if total else 0.0
        idfs.append(idf if idf > 0 else 1e-6)
    return idfs, (tokens / total if total else 1.0), hits


_COMMON: weakref.WeakKeyDictionary[Any, tuple[float, dict[str, float]]] = (
    weakref.WeakKeyDictionary()
)
_COMMON_SECONDS = 60.0  # ANALYZE refreshes the statistics far less often


def _common_lexemes(conn: Any) -> dict[str, float]:
    """The share of rows holding each of the most common lexemes (ANALYZE's sample), read
    once a minute per connection."""
    cached = _COMMON.get(conn)
    if cached is not None and time.monotonic() - cached[0] < _COMMON_SECONDS:
        return cached[1]
    _COMMON[conn] = (time.monotonic(), _read_common_lexemes(conn))
    return _COMMON[conn][1]


def _read_common_lexemes(conn: Any) -> dict[str, float]:
    row = conn.execute(
        "SELECT most_common_elems::text AS elems, most_common_elem_freqs AS freqs "
        "FROM pg_stats WHERE tablename = 'memories' AND attname = 'fts' "
        "AND schemaname = current_schema()"
    ).fetchone()
    if row is None or row["elems"] is None:
        return {}
    import csv

    elems = next(csv.reader([row["elems"].strip("{}")]))
    return dict(zip(elems, map(float, row["freqs"]), strict=False))


# The vectors of the matches come back as text ('lexeme':1A,5,9C ...; weight D is not
# written) and BM25 is computed here: faster than unnesting each vector in SQL.
_VECTORS_SQL = (
    "SELECT m.id, m.fts_len, m.fts::text AS vector FROM memories m "
    "WHERE m.fts @@ %(tsq)s::tsquery AND {scope} AND {where} {window}"
)
_ENTRY = re.compile(r"'((?:[^'\\]|''|\\.)*)'(?::([0-9A-D,]+))?")


def _bm25(
    vector: str, length: int, phrases: Sequence[tuple[str, bool, float]], avglen: float
) -> float:
    """FTS5's bm25() (negative: lower is better) of one row from its vector text."""
    frequencies = [0.0] * len(phrases)
    for entry in _ENTRY.finditer(vector):
        lexeme = entry.group(1)
        if "'" in lexeme or "\\" in lexeme:
            lexeme = lexeme.replace("''", "'").replace("\\\\", "\\")
        weight = 0.0
        for number, (token, prefix, _) in enumerate(phrases):
            if lexeme == token or (prefix and lexeme.startswith(token)):
                if not weight:
                    positions = entry.group(2) or ""
                    weight = sum(WEIGHT_OF_LABEL.get(p[-1], 1.0) for p in positions.split(",") if p)
                frequencies[number] += weight
    score = 0.0
    norm = K1 * (1 - B + B * length / avglen)
    for (_, _, idf), f in zip(phrases, frequencies, strict=True):
        if f:
            score += idf * f * (K1 + 1) / (f + norm)
    return -score


# A query whose phrases match more than this many memories ranks a window only: the WINDOW
# newest matches in the scope and filters, and every match of its rare phrases (LARGE or
# fewer matches each), as SQLite does (``storage.sqlite.window``): computing BM25 costs far
# more here than inside FTS5 (``python -m benchmarks.postgres``).
LARGE = 3_000
WINDOW = 500
COUNT_CAP = 1_000
FOLD_AFTER = 1_000  # rows of deltas in fts_totals before a reader folds them into one
_WINDOW_SQL = (
    "AND (m.id IN (SELECT m.id FROM memories m WHERE m.fts @@ %(tsq)s::tsquery AND {scope} "
    "AND {where} ORDER BY m.id DESC LIMIT %(window)s){rare})"
)


def ranked(
    conn: Any,
    scope: Scope,
    now: datetime,
    match: str,
    filters: Filters,
    candidates: int,
    *,
    words: Sequence[Sequence[Term]] | None = None,
    every: bool = False,
) -> list[tuple[Any, float]]:
    """The best ``candidates`` memories matching ``match`` in the scope and filters, by BM25
    (FTS5's sign: lower is better), ties newest id first. ``words`` and ``every`` (bounded
    ranking on SQLite, ``storage.sqlite.window``) are accepted and not needed: the ranking
    runs in one query over the scope's matches."""
    parsed = index.parse(match)
    if parsed.tsquery is None or not parsed.phrases:
        return []
    idfs, avglen, hits = _idfs(conn, parsed.phrases)
    where, params = filter_clause(filters, now)
    owner = scope_sql(scope)
    params.update(scope_params(scope), tsq=parsed.tsquery, window=max(WINDOW, 2 * candidates))
    terms = [
        (p.tokens[0] if len(p.tokens) > 1 or not p.prefix else p.tokens[-1],
         p.prefix and len(p.tokens) == 1, idf)
        for p, idf in zip(parsed.phrases, idfs, strict=True)
    ]  # fmt: skip
    scored: list[tuple[float, int]] = []
    if sum(hits) > LARGE:
        rare = [p.tsquery() for p, n in zip(parsed.phrases, hits, strict=True) if n <= LARGE]
        params["rare"] = " | ".join(rare) if rare else None
        clause = " OR m.fts @@ %(rare)s::tsquery" if rare else ""
        window = _WINDOW_SQL.format(scope=owner, where=where, rare=clause)
        scored = _scored(conn, owner, where, window, params, terms, avglen)
    if len(scored) < candidates:  # a small match set, or a window too small: rank every match
        scored = _scored(conn, owner, where, "", params, terms, avglen)
    best = sorted(scored)[: min(candidates, len(scored))]
    rows = {
        row["id"]: row
        for row in conn.execute(
            f"SELECT {M_COLUMNS} FROM memories m WHERE m.id = ANY(%s)", ([-i for _, i in best],)
        )
    }
    return [(rows[-negative_id], score) for score, negative_id in best if -negative_id in rows]


def _scored(
    conn: Any,
    owner: str,
    where: str,
    window: str,
    params: dict[str, Any],
    terms: Sequence[tuple[str, bool, float]],
    avglen: float,
) -> list[tuple[float, int]]:
    """(bm25, -id) of every match in the scope (``owner``: its clause), filters and window:
    sorted, best first and newest first among equals, as FTS5 orders them."""
    sql = _VECTORS_SQL.format(scope=owner, where=where, window=window)
    return [
        (_bm25(row["vector"], row["fts_len"], terms, avglen or 1.0), -row["id"])
        for row in conn.execute(sql, params)
    ]


__all__ = ["BM25_WEIGHTS", "check_expression", "count_matches", "holds_at_least", "ranked"]
