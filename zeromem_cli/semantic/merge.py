"""How semantic candidates join the lexical ranking.

zeromem's own order is kept where it is sure: a question sharing words with its memory finds
it by words, and fusing scores or ranks with a dense model cost the conversation benchmarks
points (issue #35's anchor runs). Dense hits take the places the words leave: the slots after
the lexical hits that hold enough of the question (``Merge.sure``), the tail of the page
(``Merge.tail``), and any slot the words leave empty. A dense hit must be similar enough to
be shown at all (``Merge.floor``) or, in the tail, close to the best dense hit
(``Merge.spread``). Each weight was chosen on the tuning halves only
(``python -m benchmarks.semantic --ablation``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple


class Merge(NamedTuple):
    """The merge's settings."""

    # Lexical hits holding at least this share of the question's content words keep the head
    # of the page, in zeromem's order.
    sure: float = 0.5
    # Dense hits shown after the sure lexical hits, before the others: at most this many.
    tail: int = 1
    # A dense hit below this cosine similarity is never shown (e5 puts unrelated text near
    # 0.7-0.75 and paraphrases above 0.8).
    floor: float = 0.78
    # A dense hit taking a slot ahead of a lexical hit must be within this of the best one.
    spread: float = 0.06


DEFAULT_MERGE = Merge()

Pair = tuple[Any, float]


def merged(
    lexical: Sequence[Pair],
    dense: Sequence[Pair],
    limit: int,
    held: Callable[[Any], float],
    merge: Merge = DEFAULT_MERGE,
) -> list[Pair]:
    """One ranking of ``lexical`` (row, score) and ``dense`` (row, similarity) pairs, best
    first, at most ``limit``. ``held(row)``: the share of the question's content words the
    memory holds. Scores of dense hits are put on the lexical scale just below the lexical
    hit they follow, so ``Memory.score`` stays ordered."""
    if not dense:
        return list(lexical[:limit])
    shown = {row["id"] for row, _ in lexical}
    best = dense[0][1]
    fresh = [(row, sim) for row, sim in dense if row["id"] not in shown and sim >= merge.floor]
    sure = [pair for pair in lexical if held(pair[0]) >= merge.sure]
    unsure = [pair for pair in lexical if held(pair[0]) < merge.sure]
    close = [pair for pair in fresh if pair[1] >= best - merge.spread][: merge.tail]
    taken = {row["id"] for row, _ in close}
    rest = [pair for pair in fresh if pair[0]["id"] not in taken]
    order: list[tuple[Any, float | None]] = [
        *sure,
        *((row, None) for row, _ in close),
        *unsure,
        *((row, None) for row, _ in rest),
    ]
    return _scored(order[:limit])


def _scored(order: Sequence[tuple[Any, float | None]]) -> list[Pair]:
    """Scores that follow the order: a dense hit (None) or a lexical one placed after a
    lower-scored hit gets just below the hit before it (0 when nothing scored comes first)."""
    out: list[Pair] = []
    last: float | None = None
    for row, score in order:
        if last is not None and (score is None or score > last):
            score = last * 0.999 if last > 0 else last
        out.append((row, 0.0 if score is None else score))
        last = out[-1][1]
    return out
