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
import time
import weakref
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage.postgres import index
from zeromem_cli.storage.postgres.sql import M_COLUMNS, SCOPE_SQL, filter_clause, scope_params
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
    ``fts_totals`` trigger keeps) and each phrase's match count. Counting stops past
    ``LARGE``: a more common phrase's count is estimated from the planner's statistics (its
    IDF is near zero either way)."""
    counts = ", ".join(
        f"(SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ %(p{n})s::tsquery "
        f"LIMIT {LARGE + 1}) s{n}) AS hits{n}"
        for n in range(len(phrases))
    )
    params = {f"p{n}": p.tsquery() for n, p in enumerate(phrases)}
    row = conn.execute(
        "SELECT (SELECT coalesce(sum(rows), 0) FROM fts_totals) AS total, "
        f"(SELECT coalesce(sum(tokens), 0) FROM fts_totals) AS tokens, {counts}",
        params,
    ).fetchone()
    total, tokens = int(row[0]), int(row[1])
    hits = [int(row[2 + n]) for n in range(len(phrases))]
    if any(h > LARGE for h in hits):
        common = _common_lexemes(conn)
        for n, phrase in enumerate(phrases):
            if hits[n] > LARGE:
                share = common.get(phrase.tokens[0], 0.0) if len(phrase.tokens) == 1 else 0.0
                hits[n] = max(hits[n], int(share * total))
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


_WEIGHT_CASE = (
    "CASE w "
    + " ".join(f"WHEN '{label}' THEN {weight}" for label, weight in index.WEIGHT_OF_LABEL.items())
    + " END"
)

_RANK_SQL = (
    "SELECT {columns}, -coalesce(("
    "  SELECT sum(q.idf * f.f * %(k1p1)s / (f.f + %(k1)s * (%(one_b)s + %(b)s * m.fts_len "
    "  / %(avglen)s)))"
    "  FROM unnest(%(lex)s::text[], %(pre)s::bool[], %(idf)s::float8[]) AS q(lex, pre, idf) "
    "  CROSS JOIN LATERAL ("
    f"   SELECT sum({_WEIGHT_CASE}) AS f FROM unnest(m.fts) AS u "
    "    CROSS JOIN LATERAL unnest(u.weights) AS w "
    "    WHERE u.lexeme = q.lex OR (q.pre AND starts_with(u.lexeme, q.lex))"
    "  ) f WHERE f.f > 0), 0) AS bm25_rank "
    "FROM memories m WHERE m.fts @@ %(tsq)s::tsquery AND {scope} AND {where} {window} "
    "ORDER BY bm25_rank, m.id DESC LIMIT %(candidates)s"
)
# A query whose phrases match more than this many memories ranks a window only: the WINDOW
# newest matches in the scope and filters, and every match of its rare phrases (LARGE or
# fewer matches each), as SQLite does (``storage.sqlite.window``). BM25 is computed in SQL
# per candidate row, which costs far more than FTS5's (``python -m benchmarks.postgres``).
LARGE = 3_000
WINDOW = 500
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
    params.update(
        scope_params(scope),
        tsq=parsed.tsquery,
        lex=[p.tokens[0] if len(p.tokens) > 1 or not p.prefix else p.tokens[-1]
             for p in parsed.phrases],
        pre=[p.prefix and len(p.tokens) == 1 for p in parsed.phrases],
        idf=idfs,
        k1=K1,
        k1p1=K1 + 1,
        b=B,
        one_b=1 - B,
        avglen=avglen or 1.0,
        candidates=min(candidates, 2**62),
        window=max(WINDOW, 2 * candidates),
    )  # fmt: skip
    rows = []
    if sum(hits) > LARGE:
        rare = [p.tsquery() for p, n in zip(parsed.phrases, hits, strict=True) if n <= LARGE]
        params["rare"] = " | ".join(rare) if rare else None
        clause = " OR m.fts @@ %(rare)s::tsquery" if rare else ""
        window = _WINDOW_SQL.format(scope=SCOPE_SQL, where=where, rare=clause)
        sql = _RANK_SQL.format(columns=M_COLUMNS, scope=SCOPE_SQL, where=where, window=window)
        rows = conn.execute(sql, params).fetchall()
    if len(rows) < candidates:  # a small match set, or a window too small: rank every match
        sql = _RANK_SQL.format(columns=M_COLUMNS, scope=SCOPE_SQL, where=where, window="")
        rows = conn.execute(sql, params).fetchall()
    out = []
    for row in rows:
        score = float(row.pop("bm25_rank"))
        out.append((row, score))
    return out


__all__ = ["BM25_WEIGHTS", "check_expression", "count_matches", "holds_at_least", "ranked"]
