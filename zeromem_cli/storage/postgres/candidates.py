"""Search candidates on PostgreSQL: memories matching a compiled query (``postgres.match``:
a ``tsquery`` and its phrases), ranked by BM25 computed by the server from PostgreSQL's own
statistics, in the statement that finds the matches.

Why BM25 and not ``ts_rank``/``ts_rank_cd``: those weigh every query word alike (no inverse
document frequency), and zeromem's ranking rests on BM25's weights; measured on LoCoMo they
fall outside the 0.01 both backends must stay within (docs/backends.md, "Scoring on
PostgreSQL"). The BM25 is the plain one, with the parameters and column weights SQLite's
ranks with (so both backends give the same memories the same scores:
``tests/postgres/test_ranking.py``): for each phrase an IDF ``log((N - n + 0.5) / (n + 0.5))``
(at least 1e-6) over the N indexed rows (the ``fts_totals`` running sums) and the n matching
it (counted up to ``COUNT_CAP``, past that ANALYZE's most common lexemes), times
``f (k1 + 1) / (f + k1 (1 - b + b len / avglen))``, k1 1.2, b 0.75, where f is
``ts_rank_cd`` of the phrase's lexeme without normalisation (exactly its weighted count in
the row: see ``_RANK_WEIGHTS``) and len the row's ``fts_len``. Only the best rows come back
(reading every match's vector back into Python cost most of a search: ``python -m
benchmarks.postgres``).

One approximation: a phrase of several tokens is counted by its first token's occurrences
(the match itself is exact, through the ``tsquery`` phrase operator).
"""

from __future__ import annotations

import math
import re
import time
import weakref
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage.postgres import index, recent
from zeromem_cli.storage.postgres.index import WEIGHT_OF_LABEL
from zeromem_cli.storage.postgres.match import compiled
from zeromem_cli.storage.postgres.sql import (
    M_COLUMNS,
    MEMORY_COLUMNS,
    filter_clause,
    scope_params,
    scope_sql,
)
from zeromem_cli.storage.query import BM25_WEIGHTS, LARGE, Match, exact_forms
from zeromem_cli.text.query import Term

K1, B = 1.2, 0.75
# Statements with a tsquery are never prepared: a prepared statement may settle on a generic
# plan, chosen without knowing the words, and the right plan depends on them (walk the newest
# rows for a common word, ask the index for a rare one). On a 100k store a generic plan made
# four-word searches three times slower (``python -m benchmarks.postgres``).
CUSTOM_PLANS = False


def holds_at_least(conn: Any, parsed: index.Parsed, count: int) -> bool:
    if parsed.tsquery is None:
        return False
    if _newest_hold(conn, parsed, count):
        return True
    row = conn.execute(
        "SELECT 1 FROM memories WHERE fts @@ %s::tsquery LIMIT 1 OFFSET %s",
        (parsed.tsquery, max(count - 1, 0)),
        prepare=CUSTOM_PLANS,
    ).fetchone()
    return row is not None


def larger_than(conn: Any, count: int) -> bool:
    # The indexed rows of the whole store (``fts_totals``), not ``max(id)``: under row-level
    # security that walks back through every newer row the role may not read.
    return _totals(conn).rows > count


def count_matches(conn: Any, parsed: index.Parsed, cap: int) -> int:
    if parsed.tsquery is None:
        return 0
    if _newest_hold(conn, parsed, cap):
        return cap
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ %s::tsquery LIMIT %s) s",
        (parsed.tsquery, cap),
        prepare=CUSTOM_PLANS,
    ).fetchone()
    return int(row[0])


def _newest_hold(conn: Any, parsed: index.Parsed, count: int) -> bool:
    """Whether the newest id blocks (``recent``) alone hold ``count`` matches of ``parsed``,
    a common word: then the whole store does too, and counting them is not needed.

    Counting even a few hundred matches of a common word builds a bitmap of all of them (its
    whole match list): ~3 ms a word on a million memories, and pack asks about ten feedback
    words (``search.held_by_few``); the word's entries in its newest blocks are a fiftieth as
    many. The matches in those blocks are matches, so a yes is exact; a no (too few there:
    an old word, another member's rows, a store grown since ``_block_totals``) is decided by
    counting as before. Only for one word (or prefix) the planner's statistics call common:
    for the others the count is cheap, or the blocks of one word do not bound it. Without
    statistics (row-level security hides them from a member), its newest block is tried."""
    if count <= 0 or len(parsed.phrases) != 1 or len(parsed.phrases[0].tokens) != 1:
        return False
    phrase = parsed.phrases[0]
    totals = _block_totals(conn)
    shares = _common_lexemes(conn)
    if not shares:
        if not _index_usable(conn):
            return False
        guessed = recent.guess([[phrase]], totals.newest)
        near = None if guessed is None else guessed.tsquery
    elif shares.get(phrase.tokens[0], 0.0) * totals.rows <= count:
        return False
    else:
        near = recent.restriction([[phrase]], shares, totals.rows, totals.newest, 2 * count, count)
    if near is None:
        return False
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ %s::tsquery LIMIT %s) s",
        (near, count),  # the blocks' lexemes of one word are its matches in those blocks
        prepare=CUSTOM_PLANS,
    ).fetchone()
    return int(row[0]) >= count


_BLOCK_TOTALS: weakref.WeakKeyDictionary[Any, tuple[float, Totals]] = weakref.WeakKeyDictionary()
_BLOCK_TOTALS_SECONDS = 1.0


def _block_totals(conn: Any) -> Totals:
    """The totals ``_newest_hold`` picks its blocks by: those the connection last read, when
    less than a second old (pack asks about its feedback words right after its search read
    them), else read again. Figures a little old can only make it look in too few blocks
    (and count instead)."""
    cached = _BLOCK_TOTALS.get(conn)
    if cached is not None and time.monotonic() - cached[0] < _BLOCK_TOTALS_SECONDS:
        return cached[1]
    return _totals(conn)


class Totals(NamedTuple):
    rows: int  # indexed rows
    tokens: int  # their tokens
    newest: int  # the last id handed out (``recent``)


def _totals(conn: Any) -> Totals:
    """The running totals the ``fts_totals`` triggers append (folded into one row once there
    are ``FOLD_AFTER`` of them), and the newest id, in one round trip.

    The newest id is the id sequence's last value: ``max(id)`` under row-level security walks
    back through every newer row the role may not read. A member whose newest rows are older
    only gets newest blocks that hold too few of them (the whole store is searched then); a
    role that may not read the sequence gets none."""
    return _read_totals(conn, (), ())[0]


def _read_totals(
    conn: Any, phrases: Sequence[index.Phrase], counted: Sequence[int]
) -> tuple[Totals, dict[int, int]]:
    """``_totals``, and in the same statement the match counts of the ``counted`` phrases (at
    most ``COUNT_CAP + 1``, by position)."""
    probes = _count_probes(conn, phrases, counted)
    # "id > 0" (every row) lets the planner read the few live rows through the key: a table
    # that once held many deltas (an import by an earlier zeromem wrote one per row) keeps its
    # empty pages until VACUUM FULL, and a sequential scan read them all on every search.
    row = conn.execute(
        "SELECT coalesce(sum(rows), 0) AS total, coalesce(sum(tokens), 0) AS tokens, "
        "count(*) AS deltas, (SELECT CASE WHEN has_sequence_privilege(q, 'SELECT,USAGE') "
        "THEN pg_sequence_last_value(q) END FROM CAST(pg_get_serial_sequence('memories', 'id') "
        f"AS regclass) q) AS newest{_count_columns(counted, probes, ', ')} "
        "FROM fts_totals WHERE id > 0",
        _count_params(phrases, counted, probes),
        prepare=CUSTOM_PLANS if counted else None,
    ).fetchone()
    if int(row["deltas"]) > FOLD_AFTER:
        conn.execute("SELECT zeromem_fold_totals()")
    read = Totals(int(row["total"]), int(row["tokens"]), int(row["newest"] or 0))
    _BLOCK_TOTALS[conn] = (time.monotonic(), read)
    return read, {n: int(row[f"hits{n}"]) for n in counted}


def _count_columns(counted: Sequence[int], probes: Mapping[int, str], lead: str = "") -> str:
    """The select list counting each phrase ``%(pN)s`` of ``counted``, at most to one past
    ``COUNT_CAP``; with a probe ``%(qN)s`` (``_count_probes``), the probe's matches first,
    and the phrase's only when they are fewer (an InitPlan runs only when it is asked)."""
    cap = COUNT_CAP + 1
    columns = []
    for n in counted:
        count = (
            f"(SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ %(p{n})s::tsquery "
            f"LIMIT {cap}) s{n})"
        )
        if n in probes:
            count = (
                f"CASE WHEN (SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ "
                f"%(q{n})s::tsquery LIMIT {cap}) b{n}) >= {cap} THEN {cap} ELSE {count} END"
            )
        columns.append(f"{count} AS hits{n}")
    return (lead if columns else "") + ", ".join(columns)


def _count_params(
    phrases: Sequence[index.Phrase], counted: Sequence[int], probes: Mapping[int, str]
) -> dict[str, str]:
    params = {f"p{n}": phrases[n].tsquery() for n in counted}
    params.update((f"q{n}", probe) for n, probe in probes.items())
    return params


def _count_probes(
    conn: Any, phrases: Sequence[index.Phrase], counted: Sequence[int]
) -> dict[int, str]:
    """For a connection without the planner's statistics (row-level security hides them from
    a member, and so every phrase is counted, the common ones too): each one-word phrase's
    lexemes in its newest block (``recent.guess``, by the totals read last), to count first.
    Their matches are the phrase's, so when they reach the cap so does the phrase: the cap
    is exact, and a common word's whole match list is not read."""
    last = _BLOCK_TOTALS.get(conn)
    if not counted or last is None or _common_lexemes(conn) or not _index_usable(conn):
        return {}
    probes = {}
    for n in counted:
        if len(phrases[n].tokens) == 1:
            guessed = recent.guess([[phrases[n]]], last[1].newest)
            if guessed is not None:
                probes[n] = guessed.tsquery
    return probes


def _statistics(
    conn: Any, phrases: Sequence[index.Phrase]
) -> tuple[Totals, list[float], float, list[int]]:
    """``_totals`` and ``_idfs`` in one round trip (a search on a store of a few hundred
    memories made two for each of its rankings, and pack makes five rankings): which phrases
    to count is chosen by the totals this connection read last, and checked against the ones
    read with them, so a count they call for that was not made is made then, and one they do
    not is dropped (the same figures as reading the totals first)."""
    last = _BLOCK_TOTALS.get(conn)
    guess = _to_count(conn, phrases, last[1].rows)[1] if last is not None else []
    totals, counts = _read_totals(conn, phrases, guess)
    return (totals, *_idfs(conn, phrases, totals, counts))


def _to_count(
    conn: Any, phrases: Sequence[index.Phrase], total: int
) -> tuple[list[int], list[int]]:
    """Each phrase's estimated match count (0 when not among the most common lexemes, or on
    a store of at most ``COUNT_CAP`` rows) and the positions of those to count (``_idfs``)."""
    common = _common_lexemes(conn) if total > COUNT_CAP else {}
    estimates = [int(common.get(p.tokens[0], 0.0) * total) for p in phrases]
    return estimates, [n for n, estimate in enumerate(estimates) if estimate <= COUNT_CAP]


def _idfs(
    conn: Any,
    phrases: Sequence[index.Phrase],
    totals: Totals,
    known: Mapping[int, int] | None = None,
) -> tuple[list[float], float, list[int]]:
    """Each phrase's IDF, the average token count over every indexed row (``totals``) and
    each phrase's match count (``known``: counts already made, by position).

    A phrase is counted exactly up to ``COUNT_CAP``. Past that, and for a phrase whose first
    token the planner's statistics (ANALYZE's most common lexemes) already put past it, the
    count is that estimate: counting a common word builds a bitmap of all its matches, the
    slowest part of a search on a large store, for an IDF near zero either way. Stores of
    fewer than ``COUNT_CAP`` memories are always counted exactly."""
    total, tokens = totals.rows, totals.tokens
    estimates, counted = _to_count(conn, phrases, total)
    counts = dict(known or {})
    missing = [n for n in counted if n not in counts]
    if missing:
        probes = _count_probes(conn, phrases, missing)
        row = conn.execute(
            f"SELECT {_count_columns(missing, probes)}",
            _count_params(phrases, missing, probes),
            prepare=CUSTOM_PLANS,
        ).fetchone()
        counts.update((n, int(row[f"hits{n}"])) for n in missing)
    hits = list(estimates)
    for n in counted:
        hits[n] = max(counts[n], estimates[n])
    # The totals and the counts may be read in separate statements (autocommit): rows
    # committed in between can make a count exceed the total, and log() of a negative is an
    # error.
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


# A query whose words (or phrases) match more than LARGE memories ranks a window only: the
# WINDOW newest matches in the scope and filters, and every match of its rare words, as SQLite
# does (``storage.sqlite.window``, whose LARGE this is: both backends call the same words
# common). The window is smaller than SQLite's (its LARGE newest): each row ranked costs more
# here than inside FTS5, and the newest blocks to read (``recent``) grow with it. Measured at
# 1M synthetic memories (load ~4, taking turns): SQLite's 1,000 made search p50 34 -> 68 and
# 40 -> 52 ms, and its mean twice as long; the conversation-sized stores of the quality
# benchmarks never reach a window, so their figures do not depend on it.
WINDOW = 500
COUNT_CAP = 1_000
FOLD_AFTER = 1_000  # rows of deltas in fts_totals before a reader folds them into one

# f of each phrase in a row: its occurrences, each counted with its column's weight. For a
# query of one lexeme (or one prefix), ts_rank_cd without normalisation is exactly that sum:
# every occurrence is a cover of one position, worth the weight of its label. The weights are
# a quarter of BM25's (ts_rank_cd takes weights up to 1), exact binary fractions, so f is
# exact; the order is ts_rank_cd's {D, C, B, A}.
_RANK_WEIGHTS = "{" + ",".join(str(WEIGHT_OF_LABEL[label] / 4) for label in "DCBA") + "}"
# The matches, with what ranking them reads (their vectors and lengths) and what comes back,
# all taken from the rows the scan visits anyway: joining them back by id cost as much as
# finding them (1M memories, ``python -m benchmarks.postgres``).
_HIT_COLUMNS = f"{M_COLUMNS}, m.fts, m.fts_len"
_HITS_SQL = (
    f"SELECT {_HIT_COLUMNS} FROM memories m "
    "WHERE m.fts @@ %(match)s::tsquery AND {scope} AND {where}"
)
# The window: the newest matches, and every match of the rare phrases (read through the
# index by the rare phrases alone, the whole query tested on those rows only: OFFSET 0
# keeps the planner from asking the index for the common ones too).
_WINDOW_SQL = "(" + _HITS_SQL + " ORDER BY m.id DESC LIMIT %(window)s){rare}"
_RARE_SQL = (
    f" UNION (SELECT r.* FROM (SELECT {_HIT_COLUMNS} "
    "FROM memories m WHERE m.fts @@ %(rare)s::tsquery AND {scope} AND {where} OFFSET 0) r "
    "WHERE r.fts @@ %(tsq)s::tsquery)"
)
_S_COLUMNS = ", ".join(f's."{c}"' for c in MEMORY_COLUMNS)
_RANKED_SQL = f"""
WITH hits AS MATERIALIZED ({{hits}})
SELECT {_S_COLUMNS}, s.bm25, (SELECT count(*) FROM hits) AS windowed FROM (
    SELECT h.*, -({{score}}) AS bm25
    FROM hits h
    CROSS JOIN LATERAL (SELECT {{frequencies}}, {{k1}} * (1 - {{b}} + {{b}} * h.fts_len
        / %(avglen)s) AS norm OFFSET 0) f
    ORDER BY bm25, h.id DESC LIMIT %(candidates)s
) s
ORDER BY s.bm25, s.id DESC
"""


def ranked(
    conn: Any,
    scope: Scope,
    now: datetime,
    parsed: index.Parsed,
    filters: Filters,
    candidates: int,
    *,
    words: Sequence[Sequence[Term]] | None = None,
    every: bool = False,
) -> list[tuple[Any, float]]:
    """The best ``candidates`` memories matching ``match`` in the scope and filters, by BM25
    (FTS5's sign: lower is better), ties newest id first. BM25 is computed by the server, in
    the statement that finds the matches; only the best rows come back.

    ``words`` (the terms of each query word, which ``match`` ORs, or ANDs with ``every``)
    allows bounded ranking as on SQLite (``storage.sqlite.window``): when a word matches more
    than ``LARGE`` memories, the query is ranked with its common words in their exact forms,
    over a window of its ``WINDOW`` newest matches and every match of its rare words. Without
    ``words`` (``search --fts``), the window is chosen from the phrases' match counts."""
    if parsed.tsquery is None or not parsed.phrases:
        return []
    where, params = filter_clause(filters, now)
    params.update(scope_params(scope), window=max(WINDOW, 2 * candidates), candidates=candidates)
    owner = scope_sql(scope)
    totals, idfs, avglen, hits = _statistics(conn, parsed.phrases)
    found: list[tuple[Any, float]] = []
    bounds = (
        _word_window(conn, words, every, totals.rows)
        if words is not None
        else _phrase_window(parsed, hits)
    )
    if bounds is not None:
        within, rare = bounds
        if within is not parsed:
            idfs_within, avglen, _ = _idfs(conn, within.phrases, totals)
        else:
            idfs_within = idfs
        params["rare"] = rare
        clause = _RARE_SQL.format(scope=owner, where=where) if rare else ""
        window = _WINDOW_SQL.format(scope=owner, where=where, rare=clause)
        groups = _required(words, every, within) if rare is None else None
        tried = _newest_blocks(conn, groups, totals, params["window"]) if groups else None
        for _ in range(2):  # the newest blocks first: exact when they fill the window
            if tried is None:
                break
            found, filled = _ranked(
                conn, window, within, idfs_within, avglen, params, tried.tsquery
            )
            if filled >= params["window"]:
                break
            found = []  # too few there: as many more blocks as their matches say, once
            tried = recent.wider(groups or [], tried, totals.newest, filled, params["window"])
        if not found:
            found, _ = _ranked(conn, window, within, idfs_within, avglen, params)
    if len(found) < candidates:  # a small match set, or a window too small: rank every match
        found, _ = _ranked(
            conn, _HITS_SQL.format(scope=owner, where=where), parsed, idfs, avglen, params
        )
    return found


def _required(
    words: Sequence[Sequence[Term]] | None, every: bool, within: index.Parsed
) -> list[tuple[index.Phrase, ...]] | None:
    """The query's required words, each as the phrases of its forms, for ``recent``: every
    word of an all-words query (all common, in their exact forms), or each phrase of an
    expression that only ANDs phrases (``search --fts``); None for any other query."""
    if words is not None:
        if not every:
            return None
        groups = [_compiled(terms, exact=True).phrases for terms in words]
        return groups if all(groups) else None
    if within.tsquery is None or any(op in _OPERATORS.sub("", within.tsquery) for op in "|!"):
        return None
    return [(phrase,) for phrase in within.phrases]


_OPERATORS = re.compile(r"'(?:[^']|'')*'")  # a quoted lexeme (its text is not an operator)


def _newest_blocks(
    conn: Any, groups: Sequence[Sequence[index.Phrase]], totals: Totals, window: int
) -> recent.Blocks | None:
    """The newest blocks for a window over ``groups`` (``_required``): chosen by the words'
    shares of the store (``recent.choose``), or a first guess when there are none."""
    if not _index_usable(conn):
        return None
    shares = _common_lexemes(conn)
    chosen = recent.choose(groups, shares, totals.rows, totals.newest, window, LARGE)
    if chosen is None and not any(p.tokens[0] in shares for g in groups for p in g):
        return recent.guess(groups, totals.newest)  # no statistics (row-level security)
    return chosen


_USABLE: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def _index_usable(conn: Any) -> bool:
    """Whether this connection's searches can use the search index (once per connection):
    always for the owner; for a member under row-level security only when the text-search
    match is leakproof (``admin.members_use_the_index``). Otherwise the newest blocks are
    no help: every statement reads the table, and a block of the newest ids is found last
    (a member's search at 1M took ~9 s with them, ~0.1 s without)."""
    usable = _USABLE.get(conn)
    if usable is None:
        from zeromem_cli.storage.postgres.admin import members_use_the_index

        row = conn.execute("SELECT row_security_active('memories') AS active").fetchone()
        usable = not row["active"] or members_use_the_index(conn)
        _USABLE[conn] = usable
    return usable


def _phrase_window(
    parsed: index.Parsed, hits: Sequence[int]
) -> tuple[index.Parsed, str | None] | None:
    """The window of an expression (no words known): its newest matches and every match of
    its rare phrases, when its phrases match more than ``LARGE`` memories in all."""
    if sum(hits) <= LARGE:
        return None
    rare = [p.tsquery() for p, n in zip(parsed.phrases, hits, strict=True) if n <= LARGE]
    return parsed, (" | ".join(rare) if rare else None)


def _word_window(
    conn: Any, words: Sequence[Sequence[Term]], every: bool, total: int
) -> tuple[index.Parsed, str | None] | None:
    """``storage.sqlite.window.find_window`` on PostgreSQL: the query to rank (common words in
    their exact forms) and the ``tsquery`` of its rare words (with their variants; None when
    there are none), or None when no word is common and every match can be ranked."""
    if total <= LARGE:
        return None  # no word can match more memories than the store holds
    common = [_more_than_large(conn, _compiled(terms, exact=True), total) for terms in words]
    if not any(common) or (every and not all(common)):
        return None
    groups = [
        exact_forms(terms) if big else terms for terms, big in zip(words, common, strict=True)
    ]
    within = compiled(Match.every_word(groups) if every else Match.any_word(groups))
    if within.tsquery is None or not within.phrases:
        return None
    rare = []
    for terms, big in zip(words, common, strict=True):
        if not big:
            variants = _compiled(terms, exact=False)
            if not _more_than_large(conn, variants, total):  # else common through a variant
                rare.append(variants.tsquery)
    kept = [r for r in rare if r is not None]
    return within, (" | ".join(kept) if kept else None)


def _compiled(terms: Sequence[Term], *, exact: bool) -> index.Parsed:
    """One word's terms ORed (``exact``: without its prefix variants)."""
    return compiled(Match.any_word([exact_forms(terms) if exact else tuple(terms)]))


def _more_than_large(conn: Any, parsed: index.Parsed, total: int) -> bool:
    """Whether ``parsed`` matches more than ``LARGE`` memories: by the planner's statistics
    when they already say so (the most common lexemes), else counted, at most ``LARGE + 1``
    (a rare word's matches are few: the index finds them at little cost)."""
    if parsed.tsquery is None:
        return False
    common = _common_lexemes(conn)
    if sum(common.get(p.tokens[0], 0.0) for p in parsed.phrases) * total > LARGE:
        return True
    if _newest_hold(conn, parsed, LARGE + 1):  # without statistics: a member's common word
        return True
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ %s::tsquery LIMIT %s) s",
        (parsed.tsquery, LARGE + 1),
        prepare=CUSTOM_PLANS,
    ).fetchone()
    return int(row[0]) > LARGE


def _counted(phrase: index.Phrase) -> str:
    """The ``tsquery`` whose occurrences stand for the phrase's in BM25: its one token (or
    prefix), or the first token of a phrase of several (see the module's docstring)."""
    if len(phrase.tokens) == 1:
        return phrase.tsquery()
    return index.Phrase(phrase.tokens[:1]).tsquery()


def _ranked(
    conn: Any,
    hits: str,
    parsed: index.Parsed,
    idfs: Sequence[float],
    avglen: float,
    params: dict[str, Any],
    near: str | None = None,
) -> tuple[list[tuple[Any, float]], int]:
    """(row, bm25) of the best ``params["candidates"]`` rows of ``hits`` (a query of ids)
    for the query ``parsed``: best first and newest first among equals, as FTS5 orders
    them; and how many rows ``hits`` held. ``near``: a ``tsquery`` ANDed with the query in
    ``hits`` (``recent.restriction``)."""
    match = parsed.tsquery if near is None else f"({parsed.tsquery}) & {near}"
    params = {**params, "tsq": parsed.tsquery, "match": match, "avglen": avglen or 1.0}
    for number, (phrase, idf) in enumerate(zip(parsed.phrases, idfs, strict=True)):
        params[f"t{number}"] = _counted(phrase)
        params[f"idf{number}"] = idf
    phrases = range(len(parsed.phrases))
    frequencies = ", ".join(
        f"4 * ts_rank_cd('{_RANK_WEIGHTS}', h.fts, %(t{n})s::tsquery, 0)::float8 AS f{n}"
        for n in phrases
    )
    score = " + ".join(f"%(idf{n})s * f.f{n} * {K1 + 1} / (f.f{n} + f.norm)" for n in phrases)
    sql = _RANKED_SQL.format(hits=hits, score=score, frequencies=frequencies, k1=K1, b=B)
    out = []
    windowed = 0
    for row in conn.execute(sql, params, prepare=CUSTOM_PLANS):
        bm25 = float(row.pop("bm25"))
        windowed = int(row.pop("windowed"))
        out.append((row, bm25))
    return out, windowed


__all__ = ["BM25_WEIGHTS", "count_matches", "holds_at_least", "larger_than", "ranked"]
