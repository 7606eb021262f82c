"""Candidates for search and near-duplicate checks: the FTS5 queries that rank (BM25) or only
count the memories matching an expression.

The expressions come from ``text.query`` (quoted terms, never raw user text) or, with
``search --fts``, from the user, checked first by ``check_expression``. Ranking runs inside
FTS5 and only the best matches are joined to ``memories`` (``ranked``); the re-scoring of those
candidates is ``zeromem_cli.search``'s.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage.query import BM25_WEIGHTS
from zeromem_cli.storage.sqlite.sql import filter_clause, id_list, scope_params, scope_sql
from zeromem_cli.storage.sqlite.window import Window, find_window
from zeromem_cli.text.query import Term

# The first FTS-only pass ranks this many matches (at least). When the scope and filters leave
# too few of them, one wider pass is tried only if the share that survived says it would be
# enough (with SURVIVAL_MARGIN to spare) and stays within WIDEST; otherwise one joined pass
# ranks every match. FTS5 scores every match of a pass before it sorts them, so each pass
# costs about as much as the joined one: blind widening (x8, x8, then joined) paid three.
FIRST_PASS = 400
WIDEST = 25_600
SURVIVAL_MARGIN = 1.5
# A scope holding at most this many memories is ranked in one pass over its own matches
# (``_within_scope``): FTS5 walks every match but scores only the scope's, so a project of a
# few thousand memories in a store of many never pays for scoring the rest of the store
# (`python -m benchmarks.speed --only latency` times an empty project's search beside the
# unscoped one; tests/core/test_scoped_ranking.py shows the ranks are unchanged). Counting a
# scope up to it walks at most this many index entries.
SMALL_SCOPE = 4096
# ... and only when the store holds many times more (its newest id): a scope that is most of
# its store is served as well by the passes over the matches, which keep the bounded window
# (``storage.window``) for very common words.
SMALL_SHARE = 4


def holds_at_least(conn: sqlite3.Connection, matches: Iterable[str], count: int) -> bool:
    """Whether one of ``matches`` (tried in order: put the cheapest first) matches ``count``
    memories or more, scope and filters aside. It walks match lists without ranking them."""
    for match in matches:
        row = conn.execute(
            "SELECT 1 FROM memories_fts WHERE memories_fts MATCH :match LIMIT 1 OFFSET :skip",
            {"match": match, "skip": max(count - 1, 0)},
        ).fetchone()
        if row is not None:
            return True
    return False


def probe_first(conn: sqlite3.Connection) -> bool:
    """Whether a search should probe that enough memories hold every query word
    (``holds_at_least``) before ranking them: here, yes. FTS5 computes BM25 for every match
    before it sorts them, so ranking a match set bound to fall short costs far more than
    walking it."""
    return True


def larger_than(conn: sqlite3.Connection, count: int) -> bool:
    """Whether the store ever held more than ``count`` memories (its newest id): if not, no
    word can match more, and probes for common words can be skipped."""
    newest = conn.execute("SELECT max(id) FROM memories").fetchone()[0]
    return newest is not None and newest > count


def count_matches(conn: sqlite3.Connection, match: str, cap: int) -> int:
    """How many memories ``match`` matches, counted up to ``cap``."""
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
        (match, cap),
    ).fetchone()
    return int(row[0])


def ranked(
    conn: sqlite3.Connection,
    scope: Scope,
    now: datetime,
    match: str,
    filters: Filters,
    candidates: int,
    *,
    words: Sequence[Sequence[Term]] | None = None,
    every: bool = False,
) -> list[tuple[sqlite3.Row, float]]:
    """The best ``candidates`` memories matching ``match`` within the scope and filters, by
    BM25 (with that rank), best first (ties: newest id first).

    BM25 is computed inside FTS5 and only the best matches are joined to ``memories``: joining
    every match first (tens of thousands for common words) cost more than the ranking itself.
    When the scope and filters reject too many of those, the pass is widened once if the
    share that survived says that will do, else a single joined query ranks every match, so
    the result is the same as ranking all matches at once. A scope of at most ``SMALL_SCOPE``
    memories, a small share of the store (a project in a store of many), is ranked in one
    pass that scores only its own matches, and an empty one answers at once.

    ``words`` (the terms of each query word, which ``match`` ORs, or ANDs with ``every``)
    allows bounded ranking: when a word has more than ``window.LARGE`` matches, only the
    newest matches and every match of the rare words are ranked (``storage.window``), unless
    too few of those are visible.
    """
    where, params = filter_clause(filters, now)
    owner = scope_sql(scope)
    where = f"{owner} AND {where}"
    params.update(candidates=candidates, **scope_params(scope))
    held = _scope_size(conn, owner, params, SMALL_SCOPE + 1)
    if held == 0:
        return []
    if held <= SMALL_SCOPE and larger_than(conn, SMALL_SHARE * held):
        return _within_scope(conn, match, owner, where, params)
    if words is not None:
        bounds = find_window(conn, words, every=every)
        if bounds is not None:
            rows = _rank(conn, bounds.match, candidates, where, params, bounds)
            if len(rows) >= candidates:
                return rows
    return _rank(conn, match, candidates, where, params, None)


def _rank(
    conn: sqlite3.Connection,
    match: str,
    candidates: int,
    where: str,
    params: dict[str, Any],
    bounds: Window | None,
) -> list[tuple[sqlite3.Row, float]]:
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    within, within_params = bounds.clause() if bounds is not None else ("1", {})
    first = max(FIRST_PASS, 2 * candidates)
    while first <= WIDEST:
        ranked = conn.execute(
            f"SELECT rowid, bm25(memories_fts, {weights}) AS bm25_rank FROM memories_fts "
            f"WHERE memories_fts MATCH :match AND {within} "
            "ORDER BY bm25_rank, rowid DESC LIMIT :first",
            {"match": match, "first": first, **within_params},
        ).fetchall()
        rows = _visible(conn, ranked, candidates, where, params)
        if len(rows) >= candidates or len(ranked) < first:
            return rows  # enough survived the scope and filters, or every match was ranked
        first = _wider(first, len(rows), candidates)
    sql = (
        f"SELECT m.*, bm25(memories_fts, {weights}) AS rank "
        "FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
        f"WHERE memories_fts MATCH :match AND {within} AND {where} "
        "ORDER BY rank, m.id DESC LIMIT :candidates"
    )
    return _scored(conn.execute(sql, {**params, **within_params, "match": match}))


def _within_scope(
    conn: sqlite3.Connection, match: str, owner: str, where: str, params: dict[str, Any]
) -> list[tuple[sqlite3.Row, float]]:
    """``ranked`` for a small scope, in one pass: FTS5 walks the matches, the scope's ids (a
    list built once from the scope index) keep only the scope's, and only those are scored
    and joined. Unary ``+``: the ids filter the matches, never drive the scan. BM25 still
    weighs terms by the whole index, so the ranks are those of a pass over every match."""
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    sql = (
        f"SELECT m.*, bm25(memories_fts, {weights}) AS rank "
        "FROM memories_fts CROSS JOIN memories m ON m.id = memories_fts.rowid "
        "WHERE memories_fts MATCH :match "
        f"AND +memories_fts.rowid IN (SELECT m.id FROM memories m WHERE {owner}) AND {where} "
        "ORDER BY rank, m.id DESC LIMIT :candidates"
    )
    return _scored(conn.execute(sql, {**params, "match": match}))


def _scope_size(conn: sqlite3.Connection, owner: str, params: dict[str, Any], cap: int) -> int:
    """How many memories the scope ``owner`` holds, deleted ones included, counted up to
    ``cap`` on the scope index: a large scope costs ``cap`` index entries, never a scan."""
    sql = f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {owner} LIMIT :cap)"
    return int(conn.execute(sql, {**params, "cap": cap}).fetchone()[0])


def _wider(first: int, survived: int, candidates: int) -> int:
    """The next pass's size: what the share that survived ``first`` says would yield
    ``candidates``, or past ``WIDEST`` (the joined pass) when that share is too small."""
    if survived == 0:
        return WIDEST + 1
    return max(first * 2, int(first * candidates / survived * SURVIVAL_MARGIN))


def _scored(rows: Iterable[sqlite3.Row]) -> list[tuple[sqlite3.Row, float]]:
    return [(row, float(row["rank"])) for row in rows]


def _visible(
    conn: sqlite3.Connection,
    ranked: list[sqlite3.Row],
    candidates: int,
    where: str,
    params: dict[str, Any],
) -> list[tuple[sqlite3.Row, float]]:
    """The first ``candidates`` of ``ranked`` (rowid, bm25) within the scope and filters, as
    (memory row, bm25), in rank order.

    Rows are looked up in rank order, a little more than still needed at a time: most often
    the first batch is enough, and every row not looked up is one less Row object built.
    Each later batch is at least twice the one before, so a scope that rejects most matches
    costs a few look-ups, not one per handful of rows.
    """
    rows: list[tuple[sqlite3.Row, float]] = []
    start = 0
    size = 0
    while start < len(ranked) and len(rows) < candidates:
        need = candidates - len(rows)
        size = max(need + need // 4 + 8, 2 * size)
        batch = ranked[start : start + size]
        start += len(batch)
        found = {
            row["id"]: row
            for row in conn.execute(
                # CROSS JOIN: look each id up by rowid; left to itself the planner may walk
                # the scope index over the whole table instead.
                "SELECT m.* FROM json_each(:ids) AS j CROSS JOIN memories m ON m.id = j.value "
                f"WHERE {where}",
                {**params, "ids": id_list([r[0] for r in batch])},
            )
        }
        rows.extend((found[r[0]], float(r[1])) for r in batch if r[0] in found)
    return rows[:candidates]


def check_expression(expression: str) -> None:
    """Raise InvalidInputError when ``expression`` is not a valid FTS5 query for our columns.

    It is tried on an empty in-memory table with the same columns, so a malformed expression is
    told apart from a real database error (locked, unreadable) by construction, not by message.
    """
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE memories_fts USING fts5(content, tags, category, key)")
        probe.execute("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?", (expression,))
    except sqlite3.Error as exc:
        raise InvalidInputError(f"invalid FTS5 expression: {exc}") from None
    finally:
        probe.close()
