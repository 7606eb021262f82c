"""Conversation context for ``pack``: in a session, memories written next to a strong hit share
its relevance.

A session (``--session``) is a conversation: an agent logging its turns, ``ingest`` of a
chat, an imported transcript. Its memories answer each other: the question names the topic
("how was the waterfall in Oregon?") and the answer that follows often shares no word with it
("I felt like I was in a fairy tale!"). Search alone cannot find that answer; its position can.
So each of the best hits lends ``weight`` times its relevance to the memories written just
before and after it in the session it was written in (its origin, whichever session asks:
``SPAN`` on each side, ``DECAY`` less per step), provided they were written within ``window``
of it: days apart is another conversation. A memory written outside a session is an
independent fact whose position says nothing: it lends nothing. A neighbour longer than
``LEND_CHARS`` borrows in proportion: a budget fills by tokens, and a 5,000-character
assistant answer next to the question's best hit would otherwise take the room of the short
turns that answer it (LongMemEval_S, ``python -m benchmarks.retrieval --per-session``).
``pack`` lends nothing for a question adding things up ("how many", "both", "in total":
``search.aggregates``): its answers lie in many conversations, and the turns around its best
hits would take their room (tuning halves, each session its own: LongMemEval_S pack@1000
0.902 -> 0.913, multi-session 0.740 -> 0.802; LoCoMo 0.789 -> 0.792).

Measured on LoCoMo (``python -m benchmarks.pack_recall``, each conversation in one session):
evidence recall at 1000 tokens 0.696 -> 0.784; 0.794 on the five conversations the constants
were chosen on, 0.774 on the five held out.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from zeromem_cli.models import Memory

SOURCES = 10  # the best hits that lend relevance to their neighbours
SPAN = 2  # neighbours on each side
DECAY = 0.8  # each step further away lends this much less
# Chosen on the LongMemEval_S tuning half (300/600/1200 tried; pack recall at 1000 tokens
# 0.755 -> 0.837/0.819/0.798); LoCoMo's turns are all shorter, its figures unchanged.
LEND_CHARS = 300

Neighbours = Callable[[Memory, int, timedelta], tuple[list[Memory], list[Memory]]]


def context_bonus(
    relevance: dict[int, float],
    memories: dict[int, Memory],
    neighbours: Neighbours,
    *,
    weight: float,
    window: timedelta,
) -> dict[int, float]:
    """The relevance each neighbour of the ``SOURCES`` best hits borrows (the most any one
    source lends it). New neighbours are added to ``memories``; ``relevance`` is not changed.

    ``neighbours(memory, span, window)`` returns the memories written before and after
    ``memory`` within ``window``, nearest first (``MemoryStore.neighbours`` with the pack's
    filters).
    """
    if weight <= 0 or not relevance:
        return {}
    best = sorted(relevance, key=lambda i: (-relevance[i], -i))[:SOURCES]
    bonus: dict[int, float] = {}
    for source_id in best:
        for side in neighbours(memories[source_id], SPAN, window):
            for step, memory in enumerate(side):
                memories.setdefault(memory.id, memory)
                lent = weight * relevance[source_id] * DECAY**step
                lent *= min(1.0, LEND_CHARS / max(len(memory.content), 1))
                bonus[memory.id] = max(bonus.get(memory.id, 0.0), lent)
    return bonus


__all__ = ["DECAY", "LEND_CHARS", "SOURCES", "SPAN", "context_bonus"]
