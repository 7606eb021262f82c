"""The memories nearest a question: brute force over the scope's vectors, then the best ones
checked against the scope and filters as lexical candidates are (``Backend.visible_rows``).

Brute force is exact and, with vectors in blocks per owner, cheap at the sizes a memory store
reaches (``python -m benchmarks.semantic --costs`` times 100k). A long-lived process (the MCP
server) keeps an owner's vectors between calls while the database is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from zeromem_cli.models import Filters, Scope
from zeromem_cli.ranking.factors import semantic_merge, semantic_pack_merge, semantic_settled
from zeromem_cli.ranking.tuning import DEFAULT_TUNING, Tuning
from zeromem_cli.semantic import blocks
from zeromem_cli.semantic.need import holding
from zeromem_cli.semantic.pending import Pending
from zeromem_cli.storage.base import Backend

# Owners' vectors a store keeps between searches (``Semantic.cache``), at most this many.
_CACHE_OWNERS = 8
Cache = dict[tuple[tuple[str, str], ...], tuple[Any, blocks.Vectors]]


def owners(scope: Scope) -> list[tuple[str, str]]:
    """The (user, project) owners whose blocks ``scope`` may read."""
    user, _, _, project = scope.as_columns()
    found = [(user, project)]
    if scope.with_user and project:
        found.append((user, ""))
    return found


def _vectors(backend: Backend, scope: Scope, dim: int, cache: Cache | None) -> blocks.Vectors:
    """The scope's owners' vectors; from ``cache`` (one store's, so one connection's) while
    the database is unchanged (``Backend.vectors_fingerprint``), with only the blocks read
    again that this store's own writes changed (``Backend.changed_vector_blocks``): an add
    through the MCP server does not make its next search read every vector again."""
    key = tuple(owners(scope))
    mark = backend.vectors_fingerprint() if cache is not None else None
    cached = cache.get(key) if cache is not None else None
    if cached is None or mark is None or cached[1].dim != dim:
        found = blocks.read(backend, list(key), dim)
    elif cached[0] == mark:
        return cached[1]
    else:
        changed = backend.changed_vector_blocks(cached[0])
        found = (
            blocks.read(backend, list(key), dim)
            if changed is None
            else blocks.refreshed(cached[1], backend, list(key), changed)
        )
    if cache is not None and mark is not None:
        if key not in cache and len(cache) >= _CACHE_OWNERS:
            cache.pop(next(iter(cache)))
        cache[key] = (mark, found)
    return found


def nearest(
    backend: Backend,
    scope: Scope,
    now: datetime,
    filters: Filters,
    query: np.ndarray,
    want: int,
    cache: Cache | None = None,
    near: dict[int, float | None] | None = None,
) -> list[tuple[Any, float]]:
    """Up to ``want`` (memory row, cosine similarity) pairs, most similar first, among the
    memories ``scope`` and ``filters`` admit whose vector is of their current content.
    ``near``: {memory id: None}; each of those ids that has a vector gets its similarity (the
    lexical hit a dense hit would push off a page), the others stay None."""
    if want <= 0:
        return []
    vectors = _vectors(backend, scope, int(query.shape[0]), cache)
    if not len(vectors):
        return []
    sims = vectors.similarities(query)
    if near:
        at = np.nonzero(np.isin(vectors.ids, np.fromiter(near, dtype=vectors.ids.dtype)))[0]
        near.update((int(vectors.ids[i]), float(sims[i])) for i in at)
    first = min(len(sims), 4 * want + 64)
    top = np.argpartition(-sims, first - 1)[:first]
    order = top[np.argsort(-sims[top], kind="stable")]
    found: list[tuple[Any, float]] = []
    start = 0
    step = want + want // 2 + 8
    while start < len(order) and len(found) < want:
        batch = order[start : start + step]
        start += len(batch)
        ids = [int(vectors.ids[i]) for i in batch]
        rows = backend.visible_rows(scope, now, filters, ids)
        found.extend(
            (rows[i], float(sims[j])) for i, j in zip(ids, batch, strict=True) if i in rows
        )
        step *= 4
        if start >= len(order) and len(order) < len(sims):  # the scope hides most: all of them
            seen = len(order)
            order = np.argsort(-sims, kind="stable")
            start = seen
    return found[:want]


def joined(
    backend: Backend,
    scope: Scope,
    now: datetime,
    words: Sequence[str],
    lexical: Sequence[tuple[Any, float]],
    filters: Filters,
    limit: int,
    query: np.ndarray | Pending,
    cache: Cache | None = None,
    tuning: Tuning = DEFAULT_TUNING,
    pack: bool = False,
) -> list[tuple[Any, float]]:
    """The lexical hits of a search with the nearest memories merged in: as a page
    (``ranking.factors.semantic_merge``) or, for ``pack``, scored for a budget
    (``semantic_pack_merge``: at most ``semantic_pack_hits`` of them, on the lexical scale).
    ``words``: the question's content words (how much of it a lexical hit holds);
    ``query``: the question's vector, or its ``Pending`` (waited for only when the dense hits
    could change the result)."""
    if tuning.semantic_floor > 1.0:  # switched off (the ablation's way)
        return list(lexical[:limit])
    if filters.min_score is not None:
        return list(lexical[:limit])  # a score threshold is a lexical one: no similarity passes
    # A page full of hits sure of the question is what the page merge would give; pack's
    # merge adds its few dense hits to the pool whatever the page, so it always waits.
    if not pack and semantic_settled(lexical, limit, holding(words), tuning):
        return list(lexical[:limit])  # no need to wait for ``query``
    vector = query.result() if isinstance(query, Pending) else query
    if vector is None:  # the model did not load (told once): words alone
        return list(lexical[:limit])
    if pack:
        want = min(limit, max(tuning.semantic_pack_hits, 0))
        dense = nearest(backend, scope, now, filters, vector, want, cache)
        return semantic_pack_merge(lexical, dense, limit, holding(words), tuning)
    # The similarity of the lexical hit a dense hit would push off a full page.
    near: dict[int, float | None] = {}
    if len(lexical) >= limit and tuning.semantic_push_margin >= 0:
        near[lexical[limit - 1][0]["id"]] = None
    dense = nearest(backend, scope, now, filters, vector, limit, cache, near)
    return semantic_merge(
        lexical, dense, limit, holding(words), tuning, lambda row: near.get(row["id"])
    )
