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
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from operator import or_
from typing import Any

from zeromem_cli.models import Filters, Memory, Scope
from zeromem_cli.ranking import factors
from zeromem_cli.ranking.context import lent_by_neighbours
from zeromem_cli.ranking.tuning import DEFAULT_TUNING, Tuning
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import BM25_WEIGHTS, CandidateQuery, Match
from zeromem_cli.storage.records import Row, to_memory
from zeromem_cli.text.dates import DateHint, date_hint
from zeromem_cli.text.lexicon import IRREGULAR_FORMS
from zeromem_cli.text.normalize import fold, latin_words, simplified
from zeromem_cli.text.query import (
    MAX_TERMS,
    PREFIX_MIN_LENGTH,
    ParsedQuery,
    Term,
    expand_terms,
    parse_query,
)
from zeromem_cli.text.related import related_words
from zeromem_cli.text.spelling import spelling_variants

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
    return _rescored(
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
    common weighs little in BM25 and costs a search the most (related words, pack's feedback)."""
    return backend.holds_at_least(Match.phrase(word), more_than + 1)


def held_by_few(backend: Backend, word: str, most: int = RELATED_MAX_MATCHES) -> bool:
    """Whether ``word``, exactly, is held by at least one and at most ``most`` memories. On a
    store that large, a word added to a query (pack's feedback) must be: a common one says
    little and costs its search the most, and one held only through its prefix variant (a
    stem like ``migrat``) may be common through it, which only a costly prefix probe tells."""
    return 0 < backend.count_matches(Match.phrase(word), most + 1) <= most


def may_hold_common_words(backend: Backend, more_than: int = RELATED_MAX_MATCHES) -> bool:
    """Whether any word of the store can match more than ``more_than`` memories."""
    return backend.larger_than(more_than)


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
    return _rescored(ranked, ranking, None, [], filters, limit)


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


def _rescored(
    ranked: list[tuple[sqlite3.Row, float]],
    ranking: Ranking,
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
    found = _found(words, rows)
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
    test = _WordTest(flat)
    for row, share, hits in zip(rows, shares, found, strict=True):
        if row["id"] not in holders:
            continue
        holds = test(row)
        for i, others in asked:
            if not hits[i] and any(holds[where[w]] for w in others):
                share[i] = weight


Neighbours = Callable[[Memory, int, timedelta], tuple[list[Memory], list[Memory]]]


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
    (``_found``); a session's share is that of the words any of its candidates holds, and a
    turn's score is multiplied by ``1 - weight * (1 - its session's share / the best
    session's)``. Memories written outside a session are facts, not turns: they keep their
    score. So does every turn when the candidates come from one session (a single
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


# -- how much of the query a memory holds ------------------------------------------------------

_SUFFIXES = ("ing", "ed", "es", "s", "ly", "er")


def _crude_stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def present(words: list[str], row: sqlite3.Row) -> list[bool]:
    """Which query words (Latin words, CJK bigrams) the memory's text holds.

    A word counts when it, its crude stem or an irregular form occurs in the text; words of
    four letters or more may also start a longer word (as the prefix variant in the query).
    """
    return _WordTest(words)(row)


class _WordTest:
    """``present`` for one query: what each word is looked for as, worked out once, so each
    candidate costs one fold of its text and a few substring tests (pack re-scores hundreds)."""

    def __init__(self, words: list[str]) -> None:
        # Per word: (needles found anywhere in the text, whole words among its tokens).
        self.tests: list[tuple[tuple[str, ...], frozenset[str]]] = []
        for word in map(fold, words):
            forms = tuple(IRREGULAR_FORMS.get(word, ()))
            spellings = spelling_variants(word)
            if len(word) >= PREFIX_MIN_LENGTH or not word.isascii():
                stems = (_crude_stem(word), *map(_crude_stem, spellings))
                self.tests.append(((*stems, *forms), frozenset()))
            else:  # short words must be whole words: "art" is not in "start"
                self.tests.append((forms, frozenset((word, _crude_stem(word), *spellings))))
        self.needs_tokens = any(whole for _, whole in self.tests)

    def __call__(self, row: sqlite3.Row | Mapping[str, Any]) -> list[bool]:
        text = " " + fold(
            " ".join((row["content"], row["tags"], row["category"], row["key"] or ""))
        )
        tokens = set(latin_words(text)) if self.needs_tokens else set()
        found = [
            not tokens.isdisjoint(whole) or any(needle in text for needle in needles)
            for needles, whole in self.tests
        ]
        if all(found) or text.isascii():
            return found
        # Traditional characters fold to simplified (as in the index) only when a word was
        # missed: most candidates hold them as written, and folding each costs.
        text = simplified(text)
        return [
            hit or any(needle in text for needle in needles)
            for hit, (needles, _) in zip(found, self.tests, strict=True)
        ]


def holding_every_word(query: str, items: Sequence[Memory]) -> list[Memory]:
    """The memories among ``items`` whose text, tags, category or key hold every word of
    ``query`` (its content words; all its words when each is a stop word), in the forms
    ``present`` accepts. What ``forget --query`` and ``restore --query`` act on."""
    words = list(parse_query(query).words)
    if not words:
        return []
    test = _WordTest(words)
    return [
        m
        for m in items
        if all(
            test(
                {
                    "content": m.content,
                    "tags": " ".join(m.tags),
                    "category": m.category,
                    "key": m.key,
                }
            )
        )
    ]


def _found(words: list[str], rows: list[sqlite3.Row]) -> list[list[bool]]:
    """For each candidate, which query words it holds (``present``).

    BM25 adds up term scores, so one very rare word can outweigh three ordinary ones: the
    share of the question a memory holds (the coverage bonus) makes a memory holding more of
    it rank above one holding less, and the share its session holds is session evidence.
    """
    if not words or not rows:
        return [[] for _ in rows]
    test = _WordTest(words)
    return [test(row) for row in rows]


__all__ = [
    "BM25_WEIGHTS",
    "DEFAULT_RANKING",
    "Ranking",
    "date_hint",
    "run_fts_search",
    "run_search",
]
