"""Ranking: every factor of search and pack, and the one ``Tuning`` record that weighs them.

- ``tuning.py`` / ``tuning.json``: every knob, each with the benchmark command and commit that
  chose it (``ZEROMEM_TUNING`` overrides; docs/ranking.md).
- ``factors.py``: each factor a small pure function, registered in ``FACTORS`` (one ordered
  list search and pack share, which ``python -m benchmarks.retrieval --ablation`` walks).
- ``context.py``: conversation context over a hit's real neighbours in its session.
- ``features.py``: what a candidate holds of the query (the coverage and session features).
- ``rescore.py``: search's re-scoring stage, applying the factors to its candidates.

Search's score of a memory ``m`` for a query ``q`` (higher is better; ``t`` the ``Tuning``)::

    base(m)  = bm25(m, q)                                  # FTS5, labels weighed above body;
             + t.related * bm25(m, related(q))             #   merged_candidates
    mult(m)  = (1 + t.importance * (importance - 5) / 5)
             * (1 + t.pinned   if pinned)
             * (1 + t.date     if created in a period q names)
    s1(m)    = base(m) * mult(m)
             + t.coverage * max(s1) * share_of_q_words_held(m) * L(m)
    s2(m)    = s1(m) * (1 - t.session * (1 - share(session(m)) / best session share))
    score(m) = s2(m) + t.context * s2(h) * t.context_decay ** step * Lc(m)
               for the best hit h written next to m in its session (step 0 = adjacent)

where ``L(m) = min(1, t.coverage_chars / len(m))`` and ``Lc(m) = min(1, t.context_lend_chars /
len(m))``.

Pack's score, relevance ``r(m)`` being search's score over the best hit's, plus what a
neighbour lends (``context.py``, weight ``t.pack_context``)::

    rel(m)   = r(m) * (1 + t.opener if m opens its session) + lent(m)
    score(m) = rel(m) * (t.pack_relevance + t.pack_importance * importance / 10
                         + t.pack_recency * 0.5 ** (age / t.pack_half_life_days)
                         + t.pack_access * log1p(uses) / log1p(t.access_saturation))

pinned memories first (up to the pinned share of the budget); a near-duplicate (content-word
Jaccard >= ``t.near_duplicate``) of a packed memory is skipped.
"""
