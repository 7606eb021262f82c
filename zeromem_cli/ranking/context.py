"""Conversation context, the one implementation search and pack share: in a session, the
memories written next to a strong hit borrow part of its score.

A session (``--session``) is a conversation: an agent logging its turns, ``ingest`` of a chat,
an imported transcript. Its memories answer each other: the turn naming the topic is followed
by an answer that often shares no word with the question. So each of the best hits lends
``weight`` times its score to the memories written just before and after it in the session it
was written in (its origin, whichever session asks): its REAL neighbours, read from storage in
``created_at`` order (``Backend.neighbours``), whatever their ids, so sessions written
interleaved (two agents, two chats at once) never lend to each other. ``context_span`` on each
side, ``context_decay`` less per step, only within ``context_window_minutes`` of the hit (days
apart is another conversation). A memory written outside a session is an independent fact: it
lends nothing. A neighbour longer than ``context_lend_chars`` borrows in proportion (a long
assistant answer next to the best hit would take the room of the short turns answering it).

``search`` lends among its candidates (a neighbour it did not find stays out); ``pack`` adds the
neighbours it reads to its candidates. Benchmark: ``python -m benchmarks.retrieval --ablation``
(factor "conversation context").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta

from zeromem_cli.models import Memory
from zeromem_cli.ranking.tuning import Tuning

# (memory, span, window) -> (the memories written before it, nearest first; those after it).
Neighbours = Callable[[Memory, int, timedelta], tuple[Sequence[Memory], Sequence[Memory]]]


def lent_by_neighbours(
    scores: Mapping[int, float],
    sources: Mapping[int, Memory],
    neighbours: Neighbours,
    tuning: Tuning,
    weight: float,
    found: dict[int, Memory] | None = None,
) -> dict[int, float]:
    """What each neighbour of the ``tuning.context_sources`` best-scored memories borrows (the
    most any one lends it), its length already weighed. ``sources``: the memories behind
    ``scores`` (only the best are read). ``found``: if given, every neighbour read is added."""
    if weight <= 0 or not scores:
        return {}
    window = timedelta(minutes=tuning.context_window_minutes)
    best = sorted(scores, key=lambda i: (-scores[i], -i))[: tuning.context_sources]
    bonus: dict[int, float] = {}
    for source_id in best:
        source = sources[source_id]
        if source.session is None or scores[source_id] <= 0:
            continue  # written outside a session: a fact, not a turn
        for side in neighbours(source, tuning.context_span, window):
            for step, memory in enumerate(side):
                if found is not None:
                    found.setdefault(memory.id, memory)
                lent = weight * scores[source_id] * tuning.context_decay**step
                lent *= min(1.0, tuning.context_lend_chars / max(len(memory.content), 1))
                bonus[memory.id] = max(bonus.get(memory.id, 0.0), lent)
    return bonus


__all__ = ["Neighbours", "lent_by_neighbours"]
