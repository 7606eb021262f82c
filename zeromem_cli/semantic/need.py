"""Whether a search needs the question's vector at all, decided without numpy or the model.

A cold process pays the numpy import, the model load and the question's embedding before a
dense hit can be ranked (``python -m benchmarks.semantic --costs``). When the lexical page is
full of hits holding the question's words, ``ranking.factors.semantic_merge`` keeps it as it
is whatever the dense hits, so none of that is paid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from zeromem_cli.models import Filters
from zeromem_cli.ranking.factors import semantic_settled
from zeromem_cli.ranking.tuning import DEFAULT_TUNING, Tuning
from zeromem_cli.search import present


def holding(words: Sequence[str]) -> Callable[[Any], float]:
    """``held(row)``: the share of the question's content ``words`` a memory holds."""
    asked = list(words)

    def held(row: Any) -> float:
        found = present(asked, row) if asked else []
        return sum(found) / len(found) if found else 0.0

    return held


def settled(
    words: Sequence[str],
    lexical: Sequence[tuple[Any, float]],
    filters: Filters,
    limit: int,
    tuning: Tuning = DEFAULT_TUNING,
) -> bool:
    """Whether ``joined`` would return the lexical hits as they are, whatever the question's
    vector: then the model need not be loaded nor the question embedded."""
    if filters.min_score is not None:
        return True
    return semantic_settled(lexical, limit, holding(words), tuning)
