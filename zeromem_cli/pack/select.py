"""``pack``: the most relevant memories that fit a token budget, formatted for a prompt.

The only place zeromem costs tokens, so its promise is exact: the text it returns, counted
with the chosen tokenizer (every character, headers and the trailing newline included), never
exceeds the budget. Steps:

1. Candidates: up to ``pool`` search hits for the query (none without a query) plus the
   pinned memories (with a query, only as many as the budget can hold, ``_pinned``) and,
   without a query, the most important and most recent ones.
2. Score (relevance: the search's score relative to its best hit): with a
   query ``relevance * (w_rel + importance * w_imp + recency * w_rec + access *
   w_acc)``, without one the last three parts added; each part in 0..1 (relevance relative to
   the best hit of this query, importance / 10, recency halving every ``half_life_days``,
   access saturating at ~100 uses). Pinned memories come first whatever
   their score (they are the user's core memory), up to ``pinned_share`` of the budget: past
   it, the remaining pinned memories take their place among the others by score, so a store
   pinning more than the budget holds still packs what the query asks for.
3. Fill greedily in score order, skipping any memory that does not fit and going on, since a
   smaller one further down may still fit (one proved too big by ``Tokenizer.least`` is not
   even counted), and any near-duplicate of a memory already packed
   (same content words, Jaccard >= 0.8). Then the whole text is counted once more; if an
   exact tokenizer merged differently at a boundary, the lowest-scored memory goes until it fits.

Formatting lives in ``format.py``; in a session, neighbours of the best hits borrow
relevance (``ranking.context``). ``MemoryStore.pack`` runs ``pack`` over its connection, scope and
clock, and records the access of what was packed; the query is parsed once per call.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from zeromem_cli import validation
from zeromem_cli.config import SETTINGS
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Filters, Memory, Scope
from zeromem_cli.pack.format import (
    Formatter,
    cached_content,
    masked_content,
    plain_content,
)
from zeromem_cli.pack.tokens import Tokenizer, get_tokenizer
from zeromem_cli.plain import FrozenRecord, Record, field
from zeromem_cli.ranking import factors
from zeromem_cli.ranking.context import lent_by_neighbours
from zeromem_cli.ranking.tuning import DEFAULT_TUNING, Tuning
from zeromem_cli.search import run_search
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.records import to_memory
from zeromem_cli.text.normalize import require_utf8
from zeromem_cli.text.query import ParsedQuery, parse_query
from zeromem_cli.text.similarity import features
from zeromem_cli.times import from_iso

if TYPE_CHECKING:
    from zeromem_cli.requests import PackRequest

_EMPTY = Memory(id=0, uid="", content="", category="", created_at="0000-00-00")


class Weights(FrozenRecord):
    """How much each part of a memory's score counts (config keys ``pack.weights.*``)."""

    relevance: float = SETTINGS["pack.weights.relevance"].default
    importance: float = SETTINGS["pack.weights.importance"].default
    recency: float = SETTINGS["pack.weights.recency"].default
    access: float = SETTINGS["pack.weights.access"].default
    half_life_days: float = SETTINGS["pack.weights.recency_half_life_days"].default
    context: float = SETTINGS["pack.weights.context"].default
    context_window_minutes: float = SETTINGS["pack.weights.context_window_minutes"].default

    @classmethod
    def from_config(cls, config: Any) -> Weights:
        """From a ``Config`` (anything with ``get(key)``)."""
        return cls(
            relevance=config.get("pack.weights.relevance"),
            importance=config.get("pack.weights.importance"),
            recency=config.get("pack.weights.recency"),
            access=config.get("pack.weights.access"),
            half_life_days=config.get("pack.weights.recency_half_life_days"),
            context=config.get("pack.weights.context"),
            context_window_minutes=config.get("pack.weights.context_window_minutes"),
        )

    @classmethod
    def from_tuning(cls, tuning: Tuning) -> Weights:
        """From a ``Tuning`` (its ``pack_*`` fields; the config keys' defaults equal them)."""
        return cls(
            relevance=tuning.pack_relevance,
            importance=tuning.pack_importance,
            recency=tuning.pack_recency,
            access=tuning.pack_access,
            half_life_days=tuning.pack_half_life_days,
            context=tuning.pack_context,
            context_window_minutes=tuning.context_window_minutes,
        )


class Candidate(Record):
    """One memory considered by pack, its score parts and what became of it."""

    memory: Memory
    relevance: float
    importance: float
    recency: float
    access: float
    score: float
    context: float = 0.0  # the part of ``relevance`` lent by a neighbouring hit
    tokens: int = 0
    status: str = "not reached"  # included / over budget / near-duplicate of #N / ...

    @property
    def included(self) -> bool:
        return self.status == "included"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "pinned": self.memory.pinned,
            "score": round(self.score, 4),
            "relevance": round(self.relevance, 4),
            "importance": round(self.importance, 4),
            "recency": round(self.recency, 4),
            "access": round(self.access, 4),
            "context": round(self.context, 4),
            "tokens": self.tokens,
            "status": self.status,
        }


class PackResult(Record):
    """What ``pack`` produced: ``text`` (print it as is), its ``tokens`` and the memories in it."""

    text: str
    tokens: int
    budget: int
    tokenizer: str
    format: str
    memories: list[Memory] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what a person should be told (stderr)

    @property
    def considered(self) -> int:
        return len(self.candidates)


# -- scoring ------------------------------------------------------------------------------------


def _recency(memory: Memory, now: datetime, half_life_days: float) -> float:
    return _recency_of(memory.updated_at or memory.created_at, now, half_life_days)


def _recency_of(stamp: str | None, now: datetime, half_life_days: float) -> float:
    if not stamp:
        return 0.0
    return factors.pack_recency((now - from_iso(stamp)).total_seconds() / 86400, half_life_days)


def _access(count: int, tuning: Tuning = DEFAULT_TUNING) -> float:
    return factors.pack_access(count, tuning)


def _standing(weights: Weights, importance: float, recency: float, access: float) -> float:
    """What orders memories of equal relevance (every one a query does not match)."""
    return weights.importance * importance + weights.recency * recency + weights.access * access


def score_candidates(
    memories: Sequence[Memory],
    relevance: dict[int, float],
    weights: Weights,
    now: datetime,
    context: dict[int, float] | None = None,
    own: dict[int, float] | None = None,
) -> list[Candidate]:
    """Score parts of each memory, best first (pinned before all others).

    With a query (some relevance given), relevance gates the other parts: ``score = relevance
    * (w_rel + w_imp * importance + w_rec * recency + w_acc * access)``, so they reorder
    memories of similar relevance but cannot lift a barely matching one above a strong match
    (measured on LoCoMo: the additive form let recency push evidence out). Without a query the
    parts simply add up. ``context`` is relevance lent by neighbours (``ranking.context``), added to
    a memory's own relevance on the same scale; ``own`` multiplies a memory's own relevance
    (session openers).
    """
    context = context or {}
    own = own or {}
    top = max(relevance.values(), default=0.0)
    candidates = []
    for memory in memories:
        lent = context.get(memory.id, 0.0) / top if top > 0 else 0.0
        mine = relevance.get(memory.id, 0.0) * own.get(memory.id, 1.0)
        rel = mine / top + lent if top > 0 else 0.0
        imp = memory.importance / 10
        rec = _recency(memory, now, weights.half_life_days)
        acc = _access(memory.access_count)
        others = _standing(weights, imp, rec, acc)
        score = rel * (weights.relevance + others) if top > 0 else others
        candidates.append(Candidate(memory, rel, imp, rec, acc, score, context=lent))
    # Equal scores (every memory the query does not match scores 0) go by the other parts:
    # of the pinned memories it does not match, the important and recent ones lead.
    candidates.sort(
        key=lambda c: (
            not c.memory.pinned,
            -c.score,
            -_standing(weights, c.importance, c.recency, c.access),
            -c.memory.id,
        )
    )
    return candidates


def _signature(text: str) -> frozenset[str]:
    """The content words of a memory, as near-duplicate detection on ``add`` sees them."""
    return features(text)


def near_duplicate(
    signature: frozenset[str],
    kept: Sequence[tuple[Candidate, frozenset[str]]],
    threshold: float = DEFAULT_TUNING.near_duplicate,
) -> Candidate | None:
    """The first kept candidate whose content words match ``signature`` (Jaccard at least
    ``threshold``, ``Tuning.near_duplicate``)."""
    size = len(signature)
    for better, other in kept:
        if min(size, len(other)) < threshold * max(size, len(other)):
            continue  # sizes alone rule it out
        common = len(signature & other)
        union = size + len(other) - common
        if union and common / union >= threshold:
            return better
    return None


# -- packing ------------------------------------------------------------------------------------


def _check_share(share: float) -> float:
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise InvalidInputError(f"pinned share must be a number from 0 to 1, not {share!r}")
    return float(share)


def _check_budget(budget: int) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidInputError(f"budget must be a positive number of tokens, not {budget!r}")
    return budget


def fill(
    candidates: Sequence[Candidate],
    formatter: Formatter,
    tokenizer: Tokenizer,
    budget: int,
    pinned_share: float = 1.0,
) -> tuple[list[Candidate], str, int]:
    """Greedy fill by rank, skipping what does not fit; returns (included, text, tokens).

    Pinned candidates (first in ``candidates``) are packed first while they use at most
    ``pinned_share`` of the budget; the pinned ones past it are ranked with the rest by score.
    """
    overhead = tokenizer.overhead
    skeleton = formatter.head() + formatter.tail()
    used = tokenizer.count(skeleton)
    if used > budget:
        for candidate in candidates:
            candidate.status = "over budget"
        return [], "", 0
    # No unit is cheaper than an empty memory's: below that, stop counting.
    floor = tokenizer.count(formatter.unit(_EMPTY)) - overhead - 1
    chosen: list[Candidate] = []
    kept: list[tuple[Candidate, frozenset[str]]] = []

    def beyond(candidate: Candidate, room: float) -> bool:
        """Proved not to fit ``room`` without counting it: once the budget is nearly full,
        most candidates (``Tokenizer.least``; -1 for the empty unit's rounding, as ``floor``)."""
        if candidate.tokens:
            return candidate.tokens > room
        return floor - 1 + tokenizer.least(formatter.content_of(candidate.memory)) > room

    def cost(candidate: Candidate) -> int:
        # A unit's cost: its own count without the tokenizer's per-text overhead (already
        # paid by the skeleton); the exact count of the whole text is checked below.
        if not candidate.tokens:
            units = tokenizer.count(formatter.unit(candidate.memory))
            candidate.tokens = max(1, units - overhead)
        return candidate.tokens

    def offer(candidate: Candidate) -> None:
        nonlocal used
        if budget - used < floor:
            candidate.status = f"over budget ({budget - used} left)"
            return
        if beyond(candidate, budget - used) or used + cost(candidate) > budget:
            left = budget - used
            size = f"{candidate.tokens}" if candidate.tokens else f"> {left}"
            candidate.status = f"over budget ({size} tokens, {left} left)"
            return
        # Near-duplicates are looked for only among what fits: once the budget is nearly
        # full most candidates stop here, before the costlier word-set comparison.
        signature = _signature(candidate.memory.content)
        better = near_duplicate(signature, kept)
        if better is not None:
            candidate.status = f"near-duplicate of #{better.memory.id}"
            return
        used += candidate.tokens
        candidate.status = "included"
        chosen.append(candidate)
        kept.append((candidate, signature))

    pinned_room = pinned_share * budget
    pinned_used = 0
    rest: list[Candidate] = []  # the others, and the pinned ones past the share
    for candidate in candidates:
        if (
            candidate.memory.pinned
            and pinned_room - pinned_used > floor  # else no unit fits the pinned share
            and budget - used >= floor
            and not beyond(candidate, pinned_room - pinned_used)
            and pinned_used + cost(candidate) <= pinned_room
        ):
            before = used
            offer(candidate)
            pinned_used += used - before
        else:
            rest.append(candidate)
    if pinned_share < 1:  # the pinned past the share compete by score (ties keep their order)
        rest.sort(key=lambda c: -c.score)
    for candidate in rest:
        offer(candidate)
    while True:
        text = formatter.render([c.memory for c in chosen])
        tokens = tokenizer.count(text)
        if tokens <= budget:
            return chosen, text, tokens
        dropped = chosen.pop()  # the lowest-ranked one
        dropped.status = "dropped: the whole text counted over budget"


def _add_relevance(
    hits: Sequence[Memory],
    share: float,
    relevance: dict[int, float],
    memories: dict[int, Memory],
) -> None:
    """Add ``share`` times each hit's score relative to the best hit."""
    top = max((hit.score or 0.0 for hit in hits), default=0.0)
    for hit in hits:
        part = max(hit.score or 0.0, 0.0) / top if top > 0 else 0.0
        relevance[hit.id] = relevance.get(hit.id, 0.0) + share * part
        memories.setdefault(hit.id, hit)


def enclosing_scopes(scope: Scope) -> list[Scope]:
    """The scopes around ``scope``, nearest first, that ``inherit`` also reads.

    A store already reads every agent and session of its user and project, so around it is
    only the user's memories outside any project (``(alice, project p)`` -> ``(alice)``); never
    another user's, the unscoped ones included. An isolated scope widens one field at a time,
    as scopes did before projects: without its session, then its agent, then its project, then
    its user (``(alice, bot, s1)`` -> ``(alice, bot)``, ``(alice)``, unscoped). Siblings
    (another session, agent, project or user) are never among them."""
    u, a, p = scope.user, scope.agent, scope.project
    if scope.isolate:
        chain = [Scope(u, a, None, p), Scope(u, None, None, p), Scope(u), Scope()]
        wider = [Scope(s.user, s.agent, s.session, s.project, isolate=True) for s in chain]
    else:
        wider = [Scope(u)]
    found: list[Scope] = []
    for each in wider:
        if not each.reads(scope) and each not in found:
            found.append(each)
    return found


def _read_scopes(scope: Scope) -> list[Scope]:
    """What ``inherit`` reads: ``scope`` and ``enclosing_scopes``; a project with its user's own
    memories as one scope, so one search covers both (each scope is a search of its own, and a
    project holding few of the matches makes its search widen: ``python -m
    benchmarks.hook_latency`` run inside a repository)."""
    if not scope.isolate and scope.project is not None:
        return [Scope(scope.user, scope.agent, scope.session, scope.project, with_user=True)]
    return [scope, *enclosing_scopes(scope)]


def _search(
    backend: Backend,
    scopes: Sequence[Scope],
    now: datetime,
    query: ParsedQuery,
    limit: int,
    filters: Filters,
    as_of: datetime | None = None,
    ranking: Tuning = DEFAULT_TUNING,
    vector: Any = None,
) -> tuple[list[Memory], dict[int, float | None]]:
    """The best ``limit`` hits of ``query`` over every scope, by score (one BM25 index: the
    scores of different scopes compare), as ``MemoryStore.search`` finds them; with the
    question's ``vector`` (the vector and its store's cache of vectors), the nearest
    memories merged in as search merges them. Also those placed by meaning: {id: the score
    its words alone give it, None for a memory sharing none of them}."""
    limit = validation.check_limit(limit)
    by_meaning: dict[int, float | None] = {}

    def found(scope: Scope) -> list[tuple[Any, float]]:
        hits = run_search(
            backend,
            scope,
            now,
            query,
            limit=limit,
            filters=filters,
            ranking=_pack_ranking(ranking),
            as_of=as_of,
        )
        if vector is None:
            return hits
        from zeromem_cli.semantic.recall import joined

        merged = joined(
            backend,
            scope,
            now,
            query.content,
            hits,
            filters,
            limit,
            vector[0],
            vector[1],
            ranking,
            pack=True,
        )
        words = {row["id"]: score for row, score in hits}
        for row, score in merged:
            if row["id"] not in words or score > words[row["id"]]:
                by_meaning[row["id"]] = words.get(row["id"])
        return merged

    per_scope = [[to_memory(row, score=score) for row, score in found(s)] for s in scopes]
    if len(per_scope) == 1:
        return per_scope[0], by_meaning
    hits = [hit for found in per_scope for hit in found]
    hits.sort(key=lambda hit: (-(hit.score or 0.0), -hit.id))
    return hits[:limit], by_meaning


def _long_guesses_by_words(
    hits: Sequence[Memory],
    by_meaning: dict[int, float | None],
    room: float,
    formatter: Formatter,
    counter: Tokenizer,
) -> list[Memory]:
    """``hits`` with each one placed by meaning that would fill more than ``room`` tokens
    placed by its words alone instead (left out when it shares none): nearness in meaning
    is a guess, and a long guess ranked first takes the room of the memories holding the
    question's words (``Tuning.semantic_pack_room``; ``python -m benchmarks.semantic
    --longmemeval 20 --pack-variants``)."""
    kept: list[Memory] = []
    for hit in hits:
        if hit.id in by_meaning and counter.count(formatter.unit(hit)) - counter.overhead > room:
            words = by_meaning[hit.id]
            if words is None:
                continue
            hit.score = words
        kept.append(hit)
    return kept


def _pinned(
    backend: Backend,
    scope: Scope,
    filters: Filters,
    now: datetime,
    budget: int,
    formatter: Formatter,
    counter: Tokenizer,
    weights: Weights,
    as_of: datetime | None,
    known: Collection[int],
) -> list[int]:
    """The ids of the pinned memories a pack with a query may hold besides ``known`` (its
    search hits and what it excludes), best first by what ranks those the query does not
    match (``_standing``): no more than the budget holds of the format's smallest unit.
    Only these are read in full."""
    smallest = counter.count(formatter.unit(_EMPTY)) - counter.overhead - 1
    standing = backend.pinned_standing(
        scope, filters, now, limit=validation.check_limit(max_lines(budget))
    )
    standing = [s for s in standing if s[0] not in known]
    asked, half_life = as_of or now, weights.half_life_days
    standing.sort(
        key=lambda s: (
            -_standing(weights, s[1] / 10, _recency_of(s[2], asked, half_life), _access(s[3])),
            -s[0],
        )
    )
    return [s[0] for s in standing[: max(1, budget // max(1, smallest))]]


def _pack_ranking(tuning: Tuning) -> Tuning:
    """How pack's searches rank: without search's conversation context (pack lends to
    neighbours itself, reading beyond the candidates, so it would count twice) and without the
    re-scoring pool beyond the ``pool`` hits pack asks for (200 already, of which a budget
    holds tens: it brought nothing measurable into a pack and cost a fifth of pack's CPU at
    100k memories; ``python -m benchmarks.pack_recall``)."""
    return tuning._replace(context=0.0, pool=0)


def max_lines(budget: int) -> int:
    """More memories than this cannot fit ``budget``: every packed memory costs at least two
    tokens in any format and tokenizer (its text and a separator), so loading more pinned
    memories than this is wasted work (a store pinning 10k would otherwise load them all)."""
    return max(1, budget // 2)


def pack(
    backend: Backend,
    scope: Scope,
    now: datetime,
    query: str | None,
    request: PackRequest,
    query_vector: Any = None,
) -> PackResult:
    """Pack the best memories of ``scope`` for ``query`` into ``budget`` tokens (a read: the
    caller records the access of what it packed).

    ``query`` None or blank: pinned, important and recent memories. ``inherit`` also draws on
    the scopes enclosing ``scope`` (``enclosing_scopes``): a session's pack then holds its
    user's long-term memories too. Pinned memories go first up to ``pinned_share`` of the
    budget (0-1; past it they compete by score). ``exclude``: ids never packed (a harness hook
    passes what its session was already given, so nothing is repeated). Likely secrets in the
    packed text are masked
    (``[secret: rule]``, counted in the budget as printed) unless ``reveal``; ``content_of``
    overrides how a memory's text is shown. ``as_of``: when the question is asked (default
    ``now``): the dates it names and recency are reckoned from it. Raises InvalidInputError
    for a bad budget, format or tokenizer. Each part is a field of ``request``
    (``requests.PackRequest``), built once by the caller; ``request.ranking`` is the
    ``Tuning`` of search and pack (default ``DEFAULT_TUNING``; ``weights`` still override its
    pack weights). ``query_vector``: the question's vector and the store's vector cache, when
    semantic recall is on.
    """
    tuning = request.ranking or DEFAULT_TUNING
    budget, tokenizer, format, header = (
        request.budget,
        request.tokenizer,
        request.format,
        request.header,
    )
    weights, filters, pool, reveal = request.weights, request.filters, request.pool, request.reveal
    content_of, inherit, exclude, as_of = (
        request.content_of,
        request.inherit,
        request.exclude,
        request.as_of,
    )
    budget = _check_budget(budget)
    pinned_share = request.pinned_share
    pinned_share = _check_share(pinned_share)
    if content_of is None:
        content_of = plain_content if reveal else masked_content
    formatter = Formatter(format, header, cached_content(content_of), mask_labels=not reveal)
    counter = get_tokenizer(tokenizer)
    notes: list[str] = []
    if formatter.header is not None:
        alone = counter.count(formatter.head() + formatter.tail())
        if alone > budget:  # the memories are what was asked for: pack them without it
            notes.append(
                f"the header takes {alone} tokens, more than the budget of {budget}: "
                "packed without it"
            )
            formatter = Formatter(format, None, formatter.content_of, mask_labels=not reveal)
    weights = weights or Weights.from_tuning(tuning)
    filters = filters or Filters()
    relevance: dict[int, float] = {}
    memories: dict[int, Memory] = {}
    lent: dict[int, float] = {}
    scopes = _read_scopes(scope) if inherit else [scope]
    if query is not None and query.strip():
        parsed = parse_query(require_utf8(query, "query"))
        hits, by_meaning = _search(
            backend, scopes, now, parsed, pool, filters, as_of, tuning, query_vector
        )
        room = tuning.semantic_pack_room * budget
        hits = _long_guesses_by_words(hits, by_meaning, room, formatter, counter)
        _add_relevance(hits, 1.0, relevance, memories)
        # A session is a conversation (``ranking.context``): a hit written in one lends to
        # the memories written around it in that session (its origin), whichever session
        # asks, and those join the candidates.
        lent = lent_by_neighbours(
            relevance,
            memories,
            lambda memory, span, window: backend.neighbours(
                memory.scope, filters, now, memory, span, window
            ),
            tuning._replace(context_window_minutes=weights.context_window_minutes),
            weights.context,
            found=memories,
        )
    exclude = set(exclude)
    for each in scopes:
        if query is not None and query.strip():
            known = memories.keys() | exclude
            ids = _pinned(
                backend, each, filters, now, budget, formatter, counter, weights, as_of, known
            )
            extra = backend.by_ids(ids)
        else:
            extra = backend.pack_candidates(
                each,
                filters,
                now,
                limit=validation.check_limit(pool),
                pinned_limit=validation.check_limit(max_lines(budget)),
                pinned_only=False,
            )
        for memory in extra:
            memories.setdefault(memory.id, memory)
    for memory_id in exclude:
        memories.pop(memory_id, None)  # relevance keeps its scale: the best hit still counts
    # The first turn of a conversation holds its news (``factors.opener_factor``): its own
    # relevance counts more, not what its neighbours lend it.
    in_sessions = [i for i in relevance if i in memories and memories[i].session]
    in_sessions = sorted(in_sessions, key=lambda i: -relevance[i])[: tuning.opener_hits]
    opener = factors.opener_factor(tuning)
    openers = (
        dict.fromkeys(backend.session_openers(in_sessions), opener)
        if in_sessions and tuning.opener > 0
        else {}
    )
    candidates = score_candidates(
        list(memories.values()), relevance, weights, as_of or now, lent, openers
    )
    chosen, text, tokens = fill(candidates, formatter, counter, budget, pinned_share)
    return PackResult(
        text=text,
        tokens=tokens,
        budget=budget,
        tokenizer=counter.name,
        format=formatter.fmt,
        memories=[c.memory for c in chosen],
        candidates=candidates,
        notes=notes,
    )
