"""Every factor of search and pack: a small pure function each, and ``FACTORS``, the one
ordered list of them (what each reads, what it returns, the ``Tuning`` field that weighs it).

``search`` (``zeromem_cli.search``) and ``pack`` (``zeromem_cli.pack.select``) call these
functions and nothing else to score; ``python -m benchmarks.retrieval --ablation`` switches
each registered factor off in turn (its ``weight`` fields set to 0 or False) and prints its
effect on the tuning half of every dataset. The final scores are written out in
``zeromem_cli.ranking``'s docstring.

Semantic candidates (``zeromem[semantic]``) join at ``semantic_merge``, after the lexical
ranking, in its order (``zeromem_cli.semantic.recall``).

Extending: a new candidate source merges at ``merged_candidates``
(a ranked list and the share its score counts); a new per-candidate feature (a "semantic
similarity" in 0..1, say) becomes a pure function here returning a multiplier or a bonus, a
field of ``tuning.json`` (value, benchmark command, commit) and one ``Factor`` entry in
``FACTORS``: the ablation then measures it with no other change.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from zeromem_cli.plain import FrozenRecord
from zeromem_cli.ranking.tuning import Tuning

Key = TypeVar("Key", bound=Hashable)


class Factor(FrozenRecord):
    """One registered factor: ``kind`` is "multiplier" (score times it), "bonus" (added to
    the score) or "candidates" (adds candidates); ``off``: the tuning values that switch it
    off."""

    name: str
    used_by: str  # "search", "pack" or "search, pack"
    kind: str
    reads: str
    off: tuple[tuple[str, float | bool], ...]


# -- search: per candidate ----------------------------------------------------------------------


def importance_factor(importance: float, tuning: Tuning) -> float:
    """Importance 10 gains ``tuning.importance``, 0 loses as much, 5 is neutral."""
    return 1.0 + tuning.importance * (importance - 5) / 5


def pinned_factor(pinned: bool, tuning: Tuning) -> float:
    return 1.0 + tuning.pinned if pinned else 1.0


def date_factor(in_named_period: bool, tuning: Tuning) -> float:
    """Created in a period the query names ("last week", "May 2023": ``text.dates``)."""
    return 1.0 + tuning.date if in_named_period else 1.0


def length_share(length: int, tuning: Tuning) -> float:
    """How much of a length-normalised bonus a memory of ``length`` characters gets."""
    return min(1.0, tuning.coverage_chars / max(length, 1))


def coverage_bonus(share: float, top: float, length: int, tuning: Tuning) -> float:
    """Holding ``share`` of the query's words adds that share of ``tuning.coverage`` times the
    best candidate's score ``top`` (a long memory in proportion: ``length_share``)."""
    return tuning.coverage * top * share * length_share(length, tuning)


def session_factor(session_share: float, best_share: float, weight: float) -> float:
    """A turn of a session holding less of the query than the best session loses up to
    ``weight`` (``tuning.session``) of its score."""
    if best_share <= 0:
        return 1.0
    return 1.0 - weight * (1.0 - session_share / best_share)


def merged_candidates(
    lists: Sequence[tuple[float, Sequence[tuple[Key, float]]]], limit: int
) -> list[tuple[Key, float]]:
    """The candidate-merge point: ranked lists of (key, rank) (lower is better, as FTS5's
    BM25), each counting its ``share``, summed per key; the best ``limit``, best first.
    The related-words pass merges here (share ``tuning.related``); so would semantic hits."""
    rank: dict[Key, float] = {}
    for share, ranked in lists:
        for key, score in ranked:
            rank[key] = rank.get(key, 0.0) + share * score
    order = sorted(rank.items(), key=lambda item: item[1])
    return order[:limit]


def semantic_settled(
    lexical: Sequence[tuple[Any, float]],
    limit: int,
    held: Callable[[Any], float],
    tuning: Tuning,
) -> bool:
    """Whether ``semantic_merge`` would return ``lexical[:limit]`` whatever the dense hits:
    the page is full of lexical hits holding at least ``semantic_sure`` of the question (dense
    hits go in only after those), or semantic candidates are switched off. Then the question
    needs no vector, and a cold process need not load the model."""
    if tuning.semantic_floor > 1.0:
        return True
    return len(lexical) >= limit and all(
        held(row) >= tuning.semantic_sure for row, _ in lexical[:limit]
    )


def semantic_merge(
    lexical: Sequence[tuple[Any, float]],
    dense: Sequence[tuple[Any, float]],
    limit: int,
    held: Callable[[Any], float],
    tuning: Tuning,
    near: Callable[[Any], float | None] = lambda row: None,
) -> list[tuple[Any, float]]:
    """Semantic candidates (``zeromem[semantic]``) joining the lexical ranking: ``lexical``
    (row, score) in zeromem's order, ``dense`` (row, cosine similarity) best first, ``held(row)``
    the share of the question's content words a memory holds.

    zeromem's order is kept (fusing scores or ranks with a dense model cost the conversation
    sets points: issue #35's anchors): at most ``semantic_tail`` dense hits within
    ``semantic_spread`` of the best one go in before the first lexical hit holding less than
    ``semantic_sure`` of the question, and dense hits fill the slots left after the lexical
    ones. No dense hit under ``semantic_floor`` is shown. A dense hit's score is
    put just below the hit before it, so scores stay in order. On a page full of lexical hits,
    a dense hit pushes the last one off only when nearer the question than it (``near(row)``,
    its similarity; None when unknown) by ``semantic_push_margin``: both kinds of evidence
    then favour the dense hit (a question sharing words with many memories of a long history
    has a full page of weak hits, and the one pushed off can be the memory asked for)."""
    if not dense:
        return list(lexical[:limit])
    shown = {row["id"] for row, _ in lexical}
    best = dense[0][1]
    fresh = [
        (row, sim) for row, sim in dense if row["id"] not in shown and sim >= tuning.semantic_floor
    ]
    close = [p for p in fresh if p[1] >= best - tuning.semantic_spread][: tuning.semantic_tail]
    if close and len(lexical) >= limit and tuning.semantic_push_margin >= 0:
        last = near(lexical[limit - 1][0])
        if last is not None:
            close = [p for p in close if p[1] > last + tuning.semantic_push_margin]
    taken = {row["id"] for row, _ in close}
    # zeromem's order is never changed: the close dense hits go in just before the first
    # lexical hit holding less than ``semantic_sure`` of the question.
    weak = next(
        (n for n, pair in enumerate(lexical) if held(pair[0]) < tuning.semantic_sure),
        len(lexical),
    )
    order: list[tuple[Any, float | None]] = [
        *lexical[:weak],
        *((row, None) for row, _ in close),
        *lexical[weak:],
        *((row, None) for row, _ in fresh if row["id"] not in taken),
    ]
    return _in_order(order[:limit], {row["id"]: sim for row, sim in dense})


def _in_order(
    order: Sequence[tuple[Any, float | None]], sims: dict[Any, float]
) -> list[tuple[Any, float]]:
    """Scores for ``order`` (dense hits' None) that never rise down the list: a dense hit
    just below the hit before it, and dense hits ahead of every lexical hit just above the
    first lexical score (its similarity when there is none), so the scores a pack reads as
    relevance keep their lexical scale."""
    first = next((score for _, score in order if score is not None), None)
    lead = next((n for n, (_, score) in enumerate(order) if score is not None), len(order))
    out: list[tuple[Any, float]] = []
    last: float | None = None
    for n, (row, score) in enumerate(order):
        if score is None and n < lead:
            if first is None or first <= 0:
                score = sims.get(row["id"], 0.0)
            else:
                score = first * (1.0 + 0.001 * (lead - n))
        if last is not None and (score is None or score > last):
            score = last * 0.999 if last > 0 else last
        out.append((row, 0.0 if score is None else score))
        last = out[-1][1]
    return out


def semantic_pack_merge(
    lexical: Sequence[tuple[Any, float]],
    dense: Sequence[tuple[Any, float]],
    limit: int,
    held: Callable[[Any], float],
    tuning: Tuning,
) -> list[tuple[Any, float]]:
    """Pack's merge: a budget, filled by score, not a page read in order.

    Every lexical hit keeps its own score (what pack reads as relevance and lends to its
    neighbours), so the memories that share the question's words weigh what they weigh with
    semantic off. At most ``semantic_pack_hits`` dense hits not among them, at or above
    ``semantic_floor``, join with ``semantic_pack_share`` of the best lexical score times
    their similarity relative to the best dense hit, and never above a lexical hit holding
    ``semantic_sure`` of the question: those are packed first, as search shows them first.
    (Scored by their place in search's page instead, a dense hit took the relevance of the
    sure hit before it and lent it to its neighbours: at a small budget that crowded out
    memories sharing the question's words; ``python -m benchmarks.semantic --pack-variants``.)
    """
    shown = {row["id"]: score for row, score in lexical[:limit]}
    near = [(row, sim) for row, sim in dense if sim >= tuning.semantic_floor][
        : max(tuning.semantic_pack_hits, 0)
    ]
    fresh = near if tuning.semantic_pack_lift else [p for p in near if p[0]["id"] not in shown]
    if not fresh:
        return list(lexical[:limit])
    best = dense[0][1]
    top = max((score for _, score in lexical), default=0.0)
    scale = tuning.semantic_pack_share * top if top > 0 else 1.0
    raw = [(row, scale * sim / best if best > 0 else 0.0) for row, sim in fresh]
    # Only a lexical hit scoring under a joining score can cap it: what each holds of the
    # question is worked out for those alone (pack's pool holds hundreds).
    highest = max(score for _, score in raw)
    sure = [
        score
        for row, score in lexical[:limit]
        if score * 0.999 < highest and held(row) >= tuning.semantic_sure
    ]
    cap = min(sure) * 0.999 if sure and top > 0 else math.inf
    joining = {row["id"]: (row, min(cap, score)) for row, score in raw}
    merged = [
        (row, max(score, joining.pop(row["id"])[1]) if row["id"] in joining else score)
        for row, score in lexical[:limit]
    ]
    merged = sorted([*merged, *joining.values()], key=lambda pair: -pair[1])
    return merged


# -- pack ----------------------------------------------------------------------------------------


def pack_recency(age_days: float, half_life_days: float) -> float:
    return float(0.5 ** (max(age_days, 0.0) / half_life_days))


def pack_access(count: int, tuning: Tuning) -> float:
    """Access frequency in 0..1, saturating at ``tuning.access_saturation`` uses."""
    return min(1.0, math.log1p(count) / math.log1p(tuning.access_saturation))


def opener_factor(tuning: Tuning) -> float:
    """A session's first turn: its own relevance gains ``tuning.opener``."""
    return 1.0 + tuning.opener


FACTORS: tuple[Factor, ...] = (
    Factor("prefix variants", "search, pack", "candidates", "query words", (("prefix", False),)),
    Factor("verb variants", "search, pack", "candidates", "query words", (("variants", False),)),
    Factor(
        "related words",
        "search, pack",
        "candidates",
        "query words, text/related_words.txt",
        (("related", 0.0),),
    ),
    Factor(
        "semantic candidates",
        "search, pack",
        "candidates",
        "question and memory vectors (zeromem[semantic])",
        (("semantic_floor", 2.0),),
    ),
    Factor("importance", "search", "multiplier", "importance", (("importance", 0.0),)),
    Factor("pinned", "search", "multiplier", "pinned", (("pinned", 0.0),)),
    Factor("date named", "search, pack", "multiplier", "created_at, query dates", (("date", 0.0),)),
    Factor("coverage", "search, pack", "bonus", "query words held, length", (("coverage", 0.0),)),
    Factor(
        "session evidence",
        "search, pack",
        "multiplier",
        "origin session, query words held",
        (("session", 0.0),),
    ),
    Factor(
        "conversation context",
        "search, pack",
        "bonus",
        "real neighbours in origin session",
        (
            ("context", 0.0),
            ("pack_context", 0.0),
        ),
    ),
    Factor("session opener", "pack", "multiplier", "first turn of a session", (("opener", 0.0),)),
    Factor(
        "pack importance/recency/access",
        "pack",
        "multiplier",
        "importance, updated_at, access_count",
        (
            ("pack_importance", 0.0),
            ("pack_recency", 0.0),
            ("pack_access", 0.0),
        ),
    ),
)


def without(tuning: Tuning, factor: Factor) -> Tuning:
    """``tuning`` with ``factor`` switched off."""
    changes: dict[str, Any] = dict(factor.off)
    return tuning._replace(**changes)


__all__ = ["FACTORS", "Factor", "merged_candidates", "without"]
