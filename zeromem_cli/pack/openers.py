"""Session openers for ``pack``: the first turn of a conversation ranks up.

A conversation opens with its news. Between friends it is what happened since they last
spoke ("Hey! Last weekend I joined a mentorship program"); between a user and an assistant
it is the user's situation and request ("I just got a new car, what insurance ..."), which
the rest of the session answers. So the first memory of a session (its origin: user,
project, agent and session; ``storage.memories.session_openers``) holds the facts a later
question asks about far more often than a turn in the middle: 3.7 times the rate of other
candidates on LoCoMo's tuning half, 17 times that of a later turn on LongMemEval_S's. An
opener's own relevance gains ``WEIGHT`` of itself (not what its neighbours lend it). It costs
one indexed read for the ``OPENER_HITS`` best hits written in a session, none when no hit
was. Chosen on the tuning halves (0.3/0.5/1.0: LoCoMo pack@1000 0.814/0.814/0.816,
LongMemEval_S 0.931 for each, from 0.807 and 0.913; ``python -m benchmarks.pack_recall``,
``python -m benchmarks.retrieval``).
"""

from __future__ import annotations

WEIGHT = 0.5
# Only the best hits are looked up: an opener further down does not reach a pack even
# raised, and each one looked up is an index probe.
OPENER_HITS = 100


def opener_factors(openers: set[int]) -> dict[int, float]:
    """The factor on each opener's own relevance (``select.score_candidates``)."""
    return dict.fromkeys(openers, 1.0 + WEIGHT)


__all__ = ["OPENER_HITS", "WEIGHT", "opener_factors"]
