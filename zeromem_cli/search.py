"""Search: which memories match a query, and in what order.

``MemoryStore.search`` delegates here: the query parsed once (``ParsedQuery``) -> candidates
from storage -> the ranking of ``zeromem_cli.ranking`` (its docstring writes the score down).

1. Candidates: FTS5 finds the memories matching the parsed query (``ParsedQuery.match``: stop
   words dropped, terms OR-ed, prefix and verb variants) within the scope and filters, and
   BM25 orders them, the labels a user chose (key, tags, category) weighted above the body
   (``Backend.candidates``); the best ``limit + pool`` are kept. The query's related English
   words (``text.related``) are ranked in a second pass merged at
   ``ranking.factors.merged_candidates``.
2. Re-scoring: BM25 times the per-candidate multipliers (importance, pinned, a date the
   query names), plus the coverage bonus, then the list factors (session evidence,
   conversation context), each a function of
   ``ranking.factors`` weighed by a field of ``Tuning``. None can lift a memory that does not
   match the query.

The score (higher is better) is what ``Memory.score`` carries and what ``--min-score`` tests.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from zeromem_cli.models import Filters, Scope
from zeromem_cli.ranking import factors
from zeromem_cli.ranking.features import holding_every_word, present
from zeromem_cli.ranking.rescore import rescored
from zeromem_cli.ranking.tuning import DEFAULT_TUNING, Tuning
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import BM25_WEIGHTS, CandidateQuery, Match
from zeromem_cli.storage.records import Row
from zeromem_cli.text.dates import date_hint
from zeromem_cli.text.query import (
    MAX_TERMS,
    ParsedQuery,
    Term,
    expand_terms,
)
from zeromem_cli.text.related import related_words

# Search's knobs are fields of the one ``Tuning`` record (``zeromem_cli/ranking/tuning.json``);
# ``Ranking`` is its name here, kept for callers (``store.search(..., ranking=...)``).
Ranking = Tuning
DEFAULT_RANKING = DEFAULT_TUNING


def run_search(
    backend: Backend,
    scope: Scope,
    now: datetime,
    query: ParsedQuery,
    *,
    limit: int,
    filters: Filters,
    ranking: Ranking = DEFAULT_RANKING,
    as_of: datetime | None = None,
) -> list[tuple[Row, float]]:
    """The best ``limit`` memories for ``query`` as (row, score) pairs, best first.

    ``as_of``: the moment the question is asked from (default ``now``): dates it names
    ("last week", "yesterday") and recency are reckoned from it; which memories are visible
    (expiry) is still decided by ``now``. Driver errors propagate for the store to map.
    """
    apart = _split_pairs(backend, query, limit)
    groups = _word_terms(query, ranking, apart)
    if not groups:
        return []
    candidates = _candidates(limit, ranking)
    ranked: list[tuple[Row, float]] = []
    if ranking.all_words_first and 2 <= len(query.words) <= ranking.all_words_max:
        # The memories holding every word first, when enough do: the coverage bonus puts them
        # on top anyway, and on a large store this spares ranking the many holding one
        # common word (the backend may probe that enough do before ranking them).
        every = CandidateQuery(
            Match.every_word(groups), scope, filters, now, candidates, full_only=True
        )
        ranked = backend.candidates(every)
    if len(ranked) < candidates:  # too few hold every word: rank every memory holding any
        ranked = backend.candidates(
            CandidateQuery(Match.any_word(groups), scope, filters, now, candidates)
        )
    related = _related(query) if ranking.related > 0 else {}
    if related:
        related = _rare_related(backend, related)
    if related:
        terms = [[Term(word)] for word in dict.fromkeys(w for ws in related.values() for w in ws)]
        extra = backend.candidates(
            CandidateQuery(Match.any_word(terms), scope, filters, now, candidates)
        )
        ranked = _merged(ranked, extra, ranking.related, candidates)
        holders = {row["id"] for row, _ in extra}
    else:
        holders = set()
    asked = as_of or now
    hint = date_hint(query.text, asked)
    words = list(query.content) if ranking.coverage or ranking.session else []
    return rescored(
        ranked,
        ranking,
        hint,
        words,
        filters,
        limit,
        (related, holders),
        lambda memory, span, window: backend.neighbours(
            memory.scope, filters, now, memory, span, window
        ),
    )


def _related(query: ParsedQuery) -> dict[str, tuple[str, ...]]:
    """Each content word of ``query`` with its related words (``text.related``) that are
    not query words themselves; words with none are left out."""
    asked = [word.lower() for word in query.content]
    found: dict[str, tuple[str, ...]] = {}
    for word in query.content:
        others = tuple(w for w in related_words(word) if not any(_same_root(w, a) for a in asked))
        if others:
            found[word] = others
    return found


# A related word matching more memories than this is left out: its BM25 weight is small
# (common), and ranking its matches was the whole cost of the related pass on the 100k
# synthetic store (a search with a common related word took twice as long). No
# conversation-sized store reaches it, so the quality figures do not depend on it.
RELATED_MAX_MATCHES = DEFAULT_TUNING.related_max_matches


def is_common(backend: Backend, word: str, more_than: int = RELATED_MAX_MATCHES) -> bool:
    """Whether ``word`` (exactly, no variants) matches more than ``more_than`` memories:
    probed without ranking, a walk of at most that many index entries. An added word this
    common weighs little in BM25 and costs a search the most (related words)."""
    return backend.holds_at_least(Match.phrase(word), more_than + 1)


def _rare_related(
    backend: Backend, related: dict[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """``related`` without the related words matching more than ``RELATED_MAX_MATCHES``
    memories (``is_common``)."""
    common = {
        word
        for word in dict.fromkeys(w for ws in related.values() for w in ws)
        if is_common(backend, word)
    }
    if not common:
        return related
    kept = {key: tuple(w for w in ws if w not in common) for key, ws in related.items()}
    return {key: ws for key, ws in kept.items() if ws}


def _same_root(one: str, other: str) -> bool:
    """Whether two words are likely forms of one word (game / gaming, start / started): the
    index's stemmer or the prefix variant finds them already, and as a related word one would
    only count twice."""
    shared = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        shared += 1
    return shared >= 3 and shared >= min(len(one), len(other)) - 1


def _merged(
    ranked: list[tuple[sqlite3.Row, float]],
    extra: list[tuple[sqlite3.Row, float]],
    weight: float,
    candidates: int,
) -> list[tuple[sqlite3.Row, float]]:
    """The candidates of the query and of its related words as one list, best first
    (``ranking.factors.merged_candidates``: BM25 adds up over terms, so a memory's rank is its
    query rank plus ``weight`` times its related-words rank; ties by id, newest first)."""
    rows = {row["id"]: row for row, _ in ranked}
    for row, _ in extra:
        rows.setdefault(row["id"], row)
    merged = factors.merged_candidates(
        [
            (1.0, [(-row["id"], score) for row, score in ranked]),
            (weight, [(-row["id"], score) for row, score in extra]),
        ],
        len(rows),
    )
    merged.sort(key=lambda item: (item[1], item[0]))
    return [(rows[-key], score) for key, score in merged[:candidates]]


def run_fts_search(
    backend: Backend,
    scope: Scope,
    now: datetime,
    expression: str,
    *,
    limit: int,
    filters: Filters,
    ranking: Ranking = DEFAULT_RANKING,
) -> list[tuple[sqlite3.Row, float]]:
    """``run_search`` for the user's own FTS5 expression (``search --fts``): no query
    processing, no date or coverage factor; a malformed expression raises InvalidInputError."""
    if not expression.strip():
        return []
    ranked = backend.expression_candidates(
        expression, scope, filters, now, _candidates(limit, ranking)
    )
    return rescored(ranked, ranking, None, [], filters, limit)


def _split_pairs(backend: Backend, query: ParsedQuery, limit: int) -> tuple[str, ...]:
    """The two-character CJK words of ``query`` whose bigram matches fewer than ``limit``
    memories: those are also searched with their characters apart (开会 in 开季度会议). A word
    that fills the page as written is not: the fallback's NEAR query costs, and is needed
    only where the word as written finds too little."""
    return tuple(
        pair
        for pair in query.pairs
        if backend.count_matches(Match.phrase(pair), max(limit, 1)) < limit
    )


def _candidates(limit: int, ranking: Ranking) -> int:
    return min(limit + max(ranking.pool, 0), 2**63 - 1)  # SQLite ints are 64-bit


ALL_WORDS_MAX = DEFAULT_TUNING.all_words_max


def _word_terms(
    query: ParsedQuery, ranking: Ranking, apart: tuple[str, ...] = ()
) -> list[list[Term]]:
    """The search terms of each word of ``query``, word by word: those ``ParsedQuery.match``
    ORs, cut where it cuts a runaway query (``MAX_TERMS``)."""
    groups: list[list[Term]] = []
    room = MAX_TERMS
    for word in query.words:
        every = expand_terms([word], prefix=ranking.prefix, variants=ranking.variants, apart=apart)
        terms = every[:room]
        if not terms:
            break
        groups.append(terms)
        room -= len(terms)
    return groups


__all__ = [
    "BM25_WEIGHTS",
    "DEFAULT_RANKING",
    "Ranking",
    "date_hint",
    "holding_every_word",
    "present",
    "run_fts_search",
    "run_search",
]
