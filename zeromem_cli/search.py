"""Search: which memories match a query, and the ranking that orders them.

``MemoryStore.search`` delegates here. Two stages:

1. FTS5 finds the memories matching the parsed query (``ParsedQuery.match``: stop words
   dropped, terms OR-ed, prefix and verb variants) within the scope and filters, and BM25 orders
   them, with the labels a user chose (key, tags, category) weighted above the body text
   (``storage.candidates``). The best ``limit + pool`` of them are kept. The query's related
   English words (``text.related``: ``relatives`` -> ``cousin``) are ranked in a second pass
   whose BM25 counts ``Ranking.related`` of the asked words' and is added to theirs.
2. Those candidates are re-scored in Python: BM25 times factors for a date the query names
   ("in May 2023", "last week" -> memories created then, x2) and, gently, importance, pinned
   and recency; plus a bonus for holding more of the query's words (all of them: + the best
   candidate's score). Then session evidence: a turn of a session that matches the question
   less well than the best session loses up to ``Ranking.session`` of its score, and a
   candidate written next to one of the best hits in its session borrows part of that hit's
   score (the conversation context); a question adding things up ("how many", "in total")
   takes neither. A question about what the assistant said ("the hotel you recommended")
   ranks the assistant's turns up (``Ranking.assistant``). Every
   factor was measured (``python -m benchmarks.retrieval --ablation``). None can lift a memory
   that does not match the query.

The score (higher is better) is what ``Memory.score`` carries and what ``--min-score`` tests.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import cache
from operator import or_
from typing import Any

from zeromem_cli.models import Filters, Memory, Scope
from zeromem_cli.plain import FrozenRecord
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import BM25_WEIGHTS, CandidateQuery, Match
from zeromem_cli.storage.records import Row
from zeromem_cli.text.answers import answer_kinds, holds_answer
from zeromem_cli.text.lexicon import IRREGULAR_FORMS, MONTHS, NUMBER_WORDS, WEEKDAYS
from zeromem_cli.text.normalize import fold, latin_words, normalize, simplified
from zeromem_cli.text.query import (
    MAX_TERMS,
    PREFIX_MIN_LENGTH,
    ParsedQuery,
    Term,
    expand_terms,
    parse_query,
)
from zeromem_cli.text.related import related_words
from zeromem_cli.text.speakers import ASSISTANT_LABELS, speaker_of, told_by_you
from zeromem_cli.text.spelling import spelling_variants
from zeromem_cli.times import from_iso

# Chosen on the LongMemEval_S dev tuning half only (150/300/600/1200/2500 tried; turn R@10
# 0.849/0.871/0.881/0.839/0.821): longer than any LoCoMo turn (497), far shorter than the long
# assistant answers that crowded short turns out.
COVERAGE_CHARS = 600.0


class Ranking(FrozenRecord):
    """How candidates are re-scored. Each weight is the most a factor can add (0.1 = +10%)."""

    coverage: float = 1.0  # holding every query word adds this times the best score
    date: float = 1.0  # created within a period the query names (day, month, year...)
    importance: float = 0.05  # importance 10 vs 5 (importance 0 loses as much)
    pinned: float = 0.1
    recency: float = 0.05  # created now vs long ago
    recency_half_life_days: float = 30.0
    pool: int = 150  # candidates re-scored beyond ``limit``
    prefix: bool = True  # prefix variants of query words
    variants: bool = True  # irregular verb forms of query words
    # Rank the memories holding every query word first, when there are enough of them
    # (see ``ALL_WORDS_MAX``): the coverage bonus puts them on top anyway, and on a large
    # store this spares BM25 for the tens of thousands of memories sharing a common word.
    all_words_first: bool = True
    # Length normalisation of the coverage bonus: a memory longer than this many characters
    # gets it in proportion (a 5,000-word answer holds every word of most questions without
    # being about them; a 10-word turn holding them all is).
    coverage_chars: float = COVERAGE_CHARS
    # Session evidence (``_session_evidence``): how much a turn's score follows how much of the
    # query its session holds, beside the best session (0: not at all). Chosen on the tuning
    # halves of LoCoMo (each session its own) and LongMemEval_S dev, with the other session
    # strengths tried (``python -m benchmarks.retrieval --per-session``).
    session: float = 0.5
    # Related words (``text.related``: synonyms and kinds, ``relatives`` -> ``cousin``): their
    # BM25 counts ``related`` of a query word's own (0: not searched), and a memory holding a
    # word only through one counts ``related_share`` of it for coverage. Chosen on the tuning
    # halves (BM25 weight 0.15/0.3/0.5/0.7/1.0 tried: LongMemEval_S turn R@10
    # 0.881/0.885/0.895/0.895/0.906, LoCoMo R@10 flat at 0.696-0.699): 0.5 keeps a memory
    # holding the asked word above one holding a related word only.
    related: float = 0.5
    related_share: float = 0.3
    # A question adding things up across conversations ("how many", "in total", "both"):
    # session evidence is this share of ``session`` for it (its answer is spread over several
    # sessions, each holding part of the question): session evidence and the conversation
    # context (``context``) are this share of themselves for it. Tuning halves, 1.0/0.5/0
    # without ``context``: LongMemEval_S pack@1000 0.885/0.892/0.892, LoCoMo R@10
    # 0.697/0.696/0.696; with ``context`` 0.3, 0.5/0: LongMemEval_S turn R@10 0.871/0.895,
    # LoCoMo 0.730/0.729.
    aggregate_session: float = 0.0
    # Conversation context among the candidates (``_lent_by_neighbours``): a turn written next
    # to one of the best hits in its session borrows this share of that hit's score. Tuning
    # halves, 0.2/0.3/0.4/0.5/0.6 (questions adding things up left out): LoCoMo R@10
    # 0.723/0.729/0.735/0.731/0.730; LongMemEval_S turn R@10 -/0.895/0.906/0.906/0.927,
    # session hit@5 -/0.957/0.957/0.957/0.936 (0.2 was tried before that gate only).
    context: float = 0.4
    # A question about what the assistant said ("the hotel you recommended":
    # ``text.speakers.told_by_you``): the assistant's turns gain this share of their score.
    # Tuning halves, 0.3/0.5/1.0/2.0: LongMemEval_S single-session-assistant turn R@5
    # 0.750/1.000/1.000/1.000 (plain 1.000), pack@1000 1.000/1.000/1.000/0.750; no other
    # question of either dataset asks so.
    assistant: float = 0.5
    # A question whose form says what its answer looks like (``text.answers``: "how long" a
    # duration, "when" a date, "why" a reason, "what day" a weekday, "what time" a clock
    # time): the candidates holding one gain this share of their score. On LoCoMo's tuning
    # half, 76% of the evidence turns of "when" questions name a time, against 8% of all turns.
    # Tuning halves, 0/0.25/0.5/1.0 (duration and date kinds): LoCoMo R@10 0.736/0.736/0.738/
    # 0.737, pack@1000 0.817/0.819/0.819/0.817; LongMemEval_S flat (3 tuning questions ask so).
    answer: float = 0.5


DEFAULT_RANKING = Ranking()


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
    if ranking.all_words_first and 2 <= len(query.words) <= ALL_WORDS_MAX:
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
        ranked, asked, ranking, hint, words, filters, limit, (related, holders), query.text
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
RELATED_MAX_MATCHES = 1000


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
    """The candidates of the query and of its related words as one list, best first: BM25
    adds up over terms, so a memory's rank is its query rank plus ``weight`` times its
    related-words rank (a memory missing from one list counts 0 there)."""
    rows = {row["id"]: row for row, _ in ranked}
    rank = {row["id"]: score for row, score in ranked}
    for row, score in extra:
        rows.setdefault(row["id"], row)
        rank[row["id"]] = rank.get(row["id"], 0.0) + weight * score
    order = sorted(rank, key=lambda key: (rank[key], -key))[:candidates]
    return [(rows[key], rank[key]) for key in order]


def run_fts_search(
    backend: Backend,
    scope: Scope,
    now: datetime,
    expression: str,
    *,
    limit: int,
    filters: Filters,
    ranking: Ranking = DEFAULT_RANKING,
) -> list[tuple[Row, float]]:
    """``run_search`` for the user's own FTS5 expression (``search --fts``): no query
    processing, no date or coverage factor; a malformed expression raises InvalidInputError."""
    if not expression.strip():
        return []
    ranked = backend.expression_candidates(
        expression, scope, filters, now, _candidates(limit, ranking)
    )
    return _rescored(ranked, now, ranking, None, [], filters, limit)


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
    now: datetime,
    ranking: Ranking,
    hint: DateHint | None,
    words: list[str],
    filters: Filters,
    limit: int,
    related: tuple[Mapping[str, Sequence[str]], set[int]] | None = None,
    query_text: str | None = None,
) -> list[tuple[sqlite3.Row, float]]:
    """Stage 2: the candidates re-scored, best first, the first ``limit`` kept.
    ``related``: query words with their related words (``_related``), and the ids of the
    memories the related pass found (only those can hold one).
    ``query_text``: the question as asked (``aggregates``)."""
    rows = [row for row, _ in ranked]
    in_period = hint.test if hint is not None else None
    found = _found(words, rows)
    shares = [[1.0 if hit else 0.0 for hit in held] for held in found]
    if related and related[1] and words:
        _add_related(shares, found, words, rows, related, ranking.related_share)
    coverage = [sum(held) / len(held) if held else 0.0 for held in shares]
    base = [_score(row, rank, now, ranking, in_period) for row, rank in ranked]
    # Coverage is added on the scale of the best candidate: holding the whole query is worth
    # ``ranking.coverage`` times the top score, whatever the query's BM25 magnitude.
    top = max(base, default=0.0)
    limit_chars = ranking.coverage_chars
    scored = [
        (
            row,
            score
            + ranking.coverage * top * share * min(1.0, limit_chars / max(len(row["content"]), 1)),
        )
        for row, score, share in zip(rows, base, coverage, strict=True)
    ]
    if ranking.assistant > 0 and query_text is not None and told_by_you(query_text):
        scored = _said_by_the_assistant(scored, ranking.assistant)
    if ranking.answer > 0 and query_text is not None:
        kinds = answer_kinds(query_text)
        if kinds:
            scored = _holding_an_answer(scored, kinds, ranking.answer, limit_chars)
    session, context = ranking.session, ranking.context
    if (session > 0 or context > 0) and query_text is not None and aggregates(query_text):
        session *= ranking.aggregate_session
        context *= ranking.aggregate_session
    if session > 0 and words:
        scored = _session_evidence(scored, found, session)
    if context > 0:
        scored = _lent_by_neighbours(scored, context)
    scored.sort(key=lambda pair: (-pair[1], -pair[0]["id"]))
    if filters.min_score is not None:
        scored = [pair for pair in scored if pair[1] >= filters.min_score]
    return scored[:limit]


def _said_by_the_assistant(
    scored: list[tuple[sqlite3.Row, float]], weight: float
) -> list[tuple[sqlite3.Row, float]]:
    """The assistant's turns (``text.speakers.ASSISTANT_LABELS``) gain ``weight`` of their
    score: the question asks what it said, and the user's turns around it share its words."""
    return [
        (row, score * (1.0 + weight))
        if ASSISTANT_LABELS.intersection(speaker_of(row["content"])[:1])
        else (row, score)
        for row, score in scored
    ]


def _holding_an_answer(
    scored: list[tuple[sqlite3.Row, float]], kinds: tuple[str, ...], weight: float, chars: float
) -> list[tuple[sqlite3.Row, float]]:
    """The candidates holding an answer of the kinds the question asks for gain ``weight``
    of their score: "How long have I had Luna?" is answered by "for about 6 months", which
    shares no word with it, and a turn about Luna without it otherwise ranks first. A memory
    longer than ``chars`` gains in proportion, as for the coverage bonus (a long answer holds
    some date or number whatever it is about), and one past ``ANSWER_LONGEST`` times it is
    not even tested (it would gain little, and testing it costs the most)."""
    longest = ANSWER_LONGEST * chars
    out = []
    for row, score in scored:
        size = len(row["content"])
        if size <= longest and holds_answer(kinds, row["content"]):
            score *= 1.0 + weight * min(1.0, chars / max(size, 1))
        out.append((row, score))
    return out


ANSWER_LONGEST = 4  # times ``Ranking.coverage_chars``: past it the answer factor gains <= 1/8


_AGGREGATE = re.compile(
    r"\b(?:how many|how much|in total|total|altogether|combined|both|all (?:the|of)|"
    r"each of|every time|so far)\b"
    r"|,\s*the\b[^?]*\bor\b",  # "which came first, the thermostat or the router?"
    re.IGNORECASE,
)


def aggregates(text: str) -> bool:
    """Whether a question adds things up ("how many", "in total", "both of my"): its answer
    is usually spread over several conversations."""
    return _AGGREGATE.search(text) is not None


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


CONTEXT_SOURCES = 10  # the best hits that lend to their neighbours
CONTEXT_SPAN = 2  # write-order steps on each side
CONTEXT_DECAY = 0.8  # each step further lends this much less
CONTEXT_LEND_CHARS = 300.0  # a longer neighbour borrows in proportion (as pack's context)


def _lent_by_neighbours(
    scored: list[tuple[sqlite3.Row, float]], weight: float
) -> list[tuple[sqlite3.Row, float]]:
    """Candidates written just before or after one of the best hits, in its session, borrow
    ``weight`` of its score: the answer to a question often follows the turn naming its
    topic and shares no word with it. Only candidates take part (no extra read)."""
    origin = {row["id"]: (row["agent"], row["session"]) for row, _ in scored if row["session"]}
    if len(origin) < 2:
        return scored
    best = sorted(
        ((score, row["id"]) for row, score in scored if row["id"] in origin), reverse=True
    )[:CONTEXT_SOURCES]
    bonus: dict[int, float] = {}
    for score, source in best:
        for step in range(1, CONTEXT_SPAN + 1):
            for other in (source - step, source + step):
                if origin.get(other) == origin[source]:
                    lent = weight * score * CONTEXT_DECAY ** (step - 1)
                    bonus[other] = max(bonus.get(other, 0.0), lent)
    if not bonus:
        return scored
    return [
        (
            row,
            score
            + bonus.get(row["id"], 0.0)
            * min(1.0, CONTEXT_LEND_CHARS / max(len(row["content"]), 1)),
        )
        for row, score in scored
    ]


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
            (row, score * (1.0 - weight * (1.0 - share[(row["agent"], row["session"])] / best)))
            if row["session"]
            else (row, score)
        )
        for row, score in scored
    ]


# Queries of 2 to this many words try the all-words pass first; longer ones (a pasted paragraph)
# rarely have enough memories holding every word for it to pay.
ALL_WORDS_MAX = 6


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
    now: datetime,
    ranking: Ranking,
    in_period: Callable[[str], bool] | None,
) -> float:
    relevance = -rank  # FTS5 bm25 is negative: lower is better
    factor = 1.0 + ranking.importance * (row["importance"] - 5) / 5
    if row["pinned"]:
        factor *= 1.0 + ranking.pinned
    if ranking.recency:
        age_days = max((now - from_iso(row["created_at"])).total_seconds() / 86400, 0.0)
        factor *= 1.0 + ranking.recency * 0.5 ** (age_days / ranking.recency_half_life_days)
    if in_period is not None and in_period(row["created_at"]):
        factor *= 1.0 + ranking.date
    return relevance * factor


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


# -- dates named in a query -------------------------------------------------------------------

_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
# Month names that are also common words count only next to a day or a year.
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "march", "jun", "jan", "dec", "sep", "oct", "aug"})
_RELATIVE = {
    "today": (0, 1),
    "yesterday": (1, 1),
    "this week": (7, 7),
    "last week": (14, 14),
    "past week": (7, 7),
    "this month": (31, 31),
    "last month": (62, 62),
    "past month": (31, 31),
    "this year": (366, 366),
    "last year": (731, 731),
}
# A query names a date only if it holds a digit or one of these words: most queries skip the
# patterns below, which compile on first use: compiling them is a visible part of a cold
# search (``python -m benchmarks.speed --only cold``).
_DATE_WORDS = (
    frozenset(MONTHS)
    | frozenset(WEEKDAYS)
    | {"today", "yesterday", "week", "month", "year", "weeks", "months", "years", "days", "ago"}
)
# Days in each unit of "N units ago" / "the past N units".
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_COUNT = "|".join(sorted(map(re.escape, NUMBER_WORDS), key=len, reverse=True)) + r"|\d{1,3}"


class _DatePatterns(FrozenRecord):
    month_date: re.Pattern[str]
    year: re.Pattern[str]
    iso_date: re.Pattern[str]
    relative: re.Pattern[str]
    ago: re.Pattern[str]
    past: re.Pattern[str]
    weekday: re.Pattern[str]


@cache
def _date_patterns() -> _DatePatterns:
    return _DatePatterns(
        # "May 2023", "May 7, 2023", "7 May 2023", "August", "2023": month and year as said.
        month_date=re.compile(
            rf"\b(?:(?P<day1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?P<month>{_MONTH_NAMES})\.?"
            rf"(?:\s+(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?)?(?:,?\s+(?P<year>(?:19|20)\d\d))?\b",
            re.IGNORECASE,
        ),
        year=re.compile(r"\b(?:19|20)\d\d\b"),
        iso_date=re.compile(r"\b((?:19|20)\d\d)-(\d\d)(?:-(\d\d))?\b"),
        relative=re.compile(r"\b(" + "|".join(_RELATIVE) + r")\b", re.IGNORECASE),
        # "two weeks ago", "a few days ago", "3 months ago"
        ago=re.compile(
            rf"\b(?P<count>{_COUNT})\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.IGNORECASE
        ),
        # "the past three months", "in the last 10 days", "over the past few weeks"
        past=re.compile(
            rf"\b(?:past|last)\s+(?P<count>{_COUNT})\s+(?P<unit>day|week|month|year)s?\b",
            re.IGNORECASE,
        ),
        weekday=re.compile(r"\blast\s+(?P<day>" + "|".join(WEEKDAYS) + r")\b", re.IGNORECASE),
    )


def _may_name_a_date(text: str) -> bool:
    if any(char.isdigit() for char in text):
        return True
    return not _DATE_WORDS.isdisjoint(word.casefold() for word in latin_words(text))


def _count(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[" ".join(text.lower().split())]


def _counted_spans(
    patterns: _DatePatterns, text: str, now: datetime, covered: list[tuple[int, int]]
) -> list[tuple[str, str]]:
    """[start, end) ISO dates for "N units ago" (that moment, give or take a quarter of it:
    people round), "the past N units" (from then until now) and "last Saturday" (the latest
    Saturday before today). Each match is added to ``covered``."""
    spans: list[tuple[datetime, datetime]] = []
    for found in patterns.ago.finditer(text):
        back = _count(found.group("count")) * _UNIT_DAYS[found.group("unit").lower()]
        slack = max(1.0, back / 4)
        spans.append((now - timedelta(days=back + slack), now - timedelta(days=back - slack)))
        covered.append(found.span())
    for found in patterns.past.finditer(text):
        back = _count(found.group("count")) * _UNIT_DAYS[found.group("unit").lower()]
        spans.append((now - timedelta(days=back), now + timedelta(days=1)))
        covered.append(found.span())
    for found in patterns.weekday.finditer(text):
        today = now.date()
        back = (today.weekday() - WEEKDAYS.index(found.group("day").lower())) % 7 or 7
        day = datetime.combine(today - timedelta(days=back), datetime.min.time(), now.tzinfo)
        spans.append((day, day + timedelta(days=1)))
        covered.append(found.span())
    return [(start.date().isoformat(), end.date().isoformat()) for start, end in spans]


class DateHint(FrozenRecord):
    """The periods a query names: ``test(created_at)`` says whether a memory falls in one."""

    test: Callable[[str], bool]


def date_hint(query: str, now: datetime) -> DateHint | None:
    """The periods a query names ("was this memory created then?"), or None if it names none.

    Understands month names with an optional day and year ("May 2023", "7 May", "in August"),
    bare years ("2022"), ISO dates, a few relative periods ("yesterday", "last week") and
    counted ones: "two weeks ago", "the past three months", "last Saturday".
    """
    text = normalize(query)
    if not _may_name_a_date(text):
        return None
    patterns = _date_patterns()
    prefixes: list[str] = []  # created_at starts with one of these: "2023-05", "2023-05-07"
    months: list[tuple[int, int | None]] = []  # (month, day) in any year
    spans: list[tuple[str, str]] = []  # [start, end) as ISO strings
    covered: list[tuple[int, int]] = []
    for found in patterns.iso_date.finditer(text):
        year, month, day = found.groups()
        prefixes.append(f"{year}-{month}" + (f"-{day}" if day else ""))
        covered.append(found.span())
    for found in patterns.month_date.finditer(text):
        if any(a <= found.start() < b for a, b in covered):
            continue
        name = found.group("month").lower()
        day_text = found.group("day1") or found.group("day2")
        year_text = found.group("year")
        if name in _AMBIGUOUS_MONTHS and not (day_text or year_text):
            continue
        month = MONTHS[name]
        day = int(day_text) if day_text and 1 <= int(day_text) <= 31 else None
        if year_text:
            prefixes.append(f"{year_text}-{month:02d}" + (f"-{day:02d}" if day else ""))
        else:
            months.append((month, day))
        covered.append(found.span())
    for found in patterns.year.finditer(text):
        if not any(a <= found.start() < b for a, b in covered):
            prefixes.append(found.group(0))
            covered.append(found.span())
    spans += _counted_spans(patterns, text, now, covered)
    for found in patterns.relative.finditer(text):
        if any(a <= found.start() < b for a, b in covered):
            continue
        covered.append(found.span())
        back, length = _RELATIVE[found.group(1).lower()]
        start = (now - timedelta(days=back)).date()
        end = start + timedelta(days=length)
        spans.append((start.isoformat(), end.isoformat()))
    if not (prefixes or months or spans):
        return None

    def test(created_at: str) -> bool:
        if any(created_at.startswith(p) for p in prefixes):
            return True
        if any(start <= created_at < end for start, end in spans):
            return True
        month_of, day_of = int(created_at[5:7]), int(created_at[8:10])
        return any(m == month_of and (d is None or d == day_of) for m, d in months)

    return DateHint(test)


__all__ = [
    "BM25_WEIGHTS",
    "DEFAULT_RANKING",
    "Ranking",
    "aggregates",
    "date_hint",
    "run_fts_search",
    "run_search",
]
