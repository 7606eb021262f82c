"""Re-scoring: search's candidates scored by the factors of ``ranking.factors``.

Stage 2 of ``zeromem_cli.search``: BM25 relevance times the per-candidate multipliers, the
coverage bonus, then session evidence and conversation context (the formula is written in
``zeromem_cli.ranking``'s docstring). Works on storage rows; reads nothing itself but the
neighbours its caller's function returns.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from operator import or_

from zeromem_cli.models import Filters, Memory
from zeromem_cli.ranking import factors
from zeromem_cli.ranking.context import lent_by_neighbours
from zeromem_cli.ranking.features import WordTest, found_words
from zeromem_cli.ranking.tuning import Tuning
from zeromem_cli.storage.records import to_memory
from zeromem_cli.text.dates import DateHint

Neighbours = Callable[[Memory, int, timedelta], tuple[list[Memory], list[Memory]]]


def rescored(
    ranked: list[tuple[sqlite3.Row, float]],
    ranking: Tuning,
    hint: DateHint | None,
    words: list[str],
    filters: Filters,
    limit: int,
    related: tuple[Mapping[str, Sequence[str]], set[int]] | None = None,
    neighbours: Neighbours | None = None,
) -> list[tuple[sqlite3.Row, float]]:
    """Stage 2: the candidates re-scored by the factors of ``ranking.factors``, best first,
    the first ``limit`` kept. ``related``: query words with their related words
    (``_related``), and the ids of the memories the related pass found (only those can hold
    one). ``neighbours``: reads the memories written next to one in its session
    (conversation context; None: none)."""
    rows = [row for row, _ in ranked]
    in_period = hint.test if hint is not None else None
    found = found_words(words, rows)
    shares = [[1.0 if hit else 0.0 for hit in held] for held in found]
    if related and related[1] and words:
        _add_related(shares, found, words, rows, related, ranking.related_share)
    coverage = [sum(held) / len(held) if held else 0.0 for held in shares]
    base = [_score(row, rank, ranking, in_period) for row, rank in ranked]
    # Coverage is added on the scale of the best candidate: holding the whole query is worth
    # ``ranking.coverage`` times the top score, whatever the query's BM25 magnitude.
    top = max(base, default=0.0)
    scored = [
        (row, score + factors.coverage_bonus(share, top, len(row["content"]), ranking))
        for row, score, share in zip(rows, base, coverage, strict=True)
    ]
    session, context = ranking.session, ranking.context
    if session > 0 and words:
        scored = _session_evidence(scored, found, session)
    if context > 0 and neighbours is not None:
        scored = _lent_by_neighbours(scored, context, ranking, neighbours)
    scored.sort(key=lambda pair: (-pair[1], -pair[0]["id"]))
    if filters.min_score is not None:
        scored = [pair for pair in scored if pair[1] >= filters.min_score]
    return scored[:limit]


def _add_related(
    shares: list[list[float]],
    found: list[list[bool]],
    words: list[str],
    rows: list[sqlite3.Row],
    related: tuple[Mapping[str, Sequence[str]], set[int]],
    weight: float,
) -> None:
    """A query word a candidate misses but holds a related word of counts ``weight`` of a
    word in ``shares``. Only the candidates the related pass found are tested."""
    others_of, holders = related
    asked = [(i, others_of[word]) for i, word in enumerate(words) if word in others_of]
    if not asked:
        return
    flat = list(dict.fromkeys(w for _, others in asked for w in others))
    where = {w: n for n, w in enumerate(flat)}
    test = WordTest(flat)
    for row, share, hits in zip(rows, shares, found, strict=True):
        if row["id"] not in holders:
            continue
        holds = test(row)
        for i, others in asked:
            if not hits[i] and any(holds[where[w]] for w in others):
                share[i] = weight


def _lent_by_neighbours(
    scored: list[tuple[sqlite3.Row, float]],
    weight: float,
    ranking: Tuning,
    neighbours: Neighbours,
) -> list[tuple[sqlite3.Row, float]]:
    """Candidates written just before or after one of the best hits, in its session (its
    real neighbours, ``ranking.context``), borrow ``weight`` of its score: the answer to a
    question often follows the turn naming its topic and shares no word with it. Only
    candidates take part: a neighbour search did not find stays out."""
    in_session = [(row, score) for row, score in scored if row["session"]]
    if len(in_session) < 2:
        return scored
    best = sorted(in_session, key=lambda pair: (-pair[1], -pair[0]["id"]))
    best = best[: ranking.context_sources]
    sources = {row["id"]: to_memory(row) for row, _ in best}
    bonus = lent_by_neighbours(
        {row["id"]: score for row, score in best}, sources, neighbours, ranking, weight
    )
    if not bonus:
        return scored
    return [(row, score + bonus.get(row["id"], 0.0)) for row, score in scored]


def _session_evidence(
    scored: list[tuple[sqlite3.Row, float]], found: list[list[bool]], weight: float
) -> list[tuple[sqlite3.Row, float]]:
    """Turns of the session holding most of the query keep their score; turns of sessions
    holding less of it lose up to ``weight`` of theirs.

    A session (a memory's origin: its agent and session) is a conversation, and the one that
    answers a question usually holds all its words across a few turns, where a stray turn of
    another conversation holds one. ``found``: per candidate, which query words it holds
    (``features.found_words``); a session's share is that of the words any of its candidates
    holds, and a turn's score is multiplied by ``1 - weight * (1 - its session's share / the
    best session's)``. Memories written outside a session are facts, not turns: they keep
    their score. So does every turn when the candidates come from one session (a single
    conversation orders as before).
    """
    held: dict[tuple[str, str], list[bool]] = {}
    for (row, _), words in zip(scored, found, strict=True):
        if row["session"]:
            origin = (row["agent"], row["session"])
            before = held.get(origin)
            held[origin] = list(words) if before is None else [*map(or_, before, words)]
    if len(held) < 2:
        return scored
    share = {origin: sum(words) / len(words) for origin, words in held.items()}
    best = max(share.values())
    if best <= 0:
        return scored
    return [
        (
            (row, score * factors.session_factor(share[row["agent"], row["session"]], best, weight))
            if row["session"]
            else (row, score)
        )
        for row, score in scored
    ]


# Queries of 2 to this many words try the all-words pass first; longer ones (a pasted paragraph)
# rarely have enough memories holding every word for it to pay.
def _score(
    row: sqlite3.Row,
    rank: float,
    ranking: Tuning,
    in_period: Callable[[str], bool] | None,
) -> float:
    """BM25 relevance (FTS5's rank is negative: lower is better) times the per-candidate
    multipliers of ``ranking.factors``."""
    return (
        -rank
        * factors.importance_factor(row["importance"], ranking)
        * factors.pinned_factor(bool(row["pinned"]), ranking)
        * factors.date_factor(in_period is not None and in_period(row["created_at"]), ranking)
    )


__all__ = ["Neighbours", "rescored"]
