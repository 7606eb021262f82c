"""How dense hits join the lexical ones (``ranking.factors``): search's page keeps zeromem's
order with scores that keep their scale, and pack's merge never lets a dense hit outweigh a
memory holding the question's words. Pure functions: rows are plain dicts, no model."""

from __future__ import annotations

from typing import Any

from zeromem_cli.ranking.factors import semantic_merge, semantic_pack_merge
from zeromem_cli.ranking.tuning import DEFAULT_TUNING

T = DEFAULT_TUNING._replace(
    semantic_floor=0.5,
    semantic_sure=0.5,
    semantic_tail=1,
    semantic_spread=1.0,
    semantic_pack_hits=3,
    semantic_pack_share=0.5,
    semantic_pack_lift=True,
)


def row(n: int) -> dict[str, Any]:
    return {"id": n}


def held_by(shares: dict[int, float]) -> Any:
    return lambda r: shares.get(r["id"], 0.0)


def test_a_dense_hit_ahead_of_every_lexical_hit_keeps_the_scores_on_their_scale() -> None:
    # No lexical hit holds half the question: the close dense hit goes first. The lexical
    # scores after it stay what they were (they were all set to 0 before, and pack, which
    # reads them as relevance, then ranked by recency alone).
    lexical = [(row(1), 9.0), (row(2), 4.0), (row(3), 2.0)]
    dense = [(row(7), 0.9), (row(8), 0.8)]
    out = semantic_merge(lexical, dense, 10, held_by({1: 0.34, 2: 0.34, 3: 0.34}), T)
    assert [r["id"] for r, _ in out] == [7, 1, 2, 3, 8]
    scores = [s for _, s in out]
    assert scores == sorted(scores, reverse=True)
    assert scores[1:4] == [9.0, 4.0, 2.0]
    assert scores[0] > 9.0 and 0 < scores[4] < 2.0


def test_with_no_lexical_hit_dense_hits_score_their_similarity() -> None:
    out = semantic_merge([], [(row(7), 0.9), (row(8), 0.8)], 10, held_by({}), T)
    assert [(r["id"], s) for r, s in out] == [(7, 0.9), (8, 0.8)]


def test_a_dense_hit_pushes_the_last_of_a_full_page_off_only_when_clearly_nearer() -> None:
    # A page full of weak lexical hits (a question sharing words with much of a long
    # history): the dense hit would push the 10th off. It does when it is nearer the question
    # than that hit by more than the margin, or when that hit's similarity is unknown.
    lexical = [(row(n), 20.0 - n) for n in range(1, 11)]
    held = held_by({n: 0.34 for n in range(1, 11)})
    dense = [(row(42), 0.86)]
    margin = T._replace(semantic_push_margin=0.03)

    def page(last: float | None, tuning: Any = margin) -> list[int]:
        near = lambda r: last if r["id"] == 10 else None  # noqa: E731
        return [r["id"] for r, _ in semantic_merge(lexical, dense, 10, held, tuning, near)]

    assert page(0.84) == list(range(1, 11))  # 0.02 nearer: the 10th stays
    assert page(0.80) == [42, *range(1, 10)]  # 0.06 nearer: the dense hit takes its place
    assert page(None) == [42, *range(1, 10)]  # the 10th has no vector: as before
    always = T._replace(semantic_push_margin=-1.0)
    assert page(0.84, always) == [42, *range(1, 10)]
    # A page with room pushes nothing off: the margin does not apply.
    assert [r["id"] for r, _ in semantic_merge(lexical[:9], dense, 10, held, margin)] == [
        42,
        *range(1, 10),
    ]


def test_pack_keeps_every_lexical_score_and_caps_dense_hits_below_sure_ones() -> None:
    lexical = [(row(1), 10.0), (row(2), 3.0), (row(3), 2.0), (row(4), 1.0)]
    # 2 holds half the question (sure), 3 and 4 less: a dense hit may pass those, never 2.
    held = held_by({1: 1.0, 2: 0.5, 3: 0.34, 4: 0.34})
    dense = [(row(7), 0.9), (row(8), 0.45), (row(9), 0.85)]
    out = dict((r["id"], s) for r, s in semantic_pack_merge(lexical, dense, 200, held, T))
    assert {n: out[n] for n in (1, 2, 3, 4)} == {1: 10.0, 2: 3.0, 3: 2.0, 4: 1.0}
    assert 8 not in out  # under the floor
    assert out[2] > out[7] > out[3]  # share 0.5 of 10 = 5, capped just below 3.0
    assert out[9] < 3.0


def test_pack_counts_at_most_its_dense_hits_and_lifts_a_weak_lexical_one() -> None:
    lexical = [(row(1), 10.0), (row(2), 1.0)]
    held = held_by({1: 1.0, 2: 0.34})
    dense = [(row(2), 0.9), (row(5), 0.88), (row(6), 0.87), (row(7), 0.86)]
    out = dict((r["id"], s) for r, s in semantic_pack_merge(lexical, dense, 200, held, T))
    assert set(out) == {1, 2, 5, 6}  # the three nearest, one of them already a lexical hit
    assert out[2] == 5.0  # the more of its lexical score and the share a dense hit joins with
    unlifted = semantic_pack_merge(lexical, dense, 200, held, T._replace(semantic_pack_lift=False))
    assert dict((r["id"], s) for r, s in unlifted)[2] == 1.0


def test_pack_without_dense_hits_is_the_lexical_list() -> None:
    lexical = [(row(1), 10.0), (row(2), 1.0)]
    assert semantic_pack_merge(lexical, [], 200, held_by({}), T) == lexical
    floor = T._replace(semantic_floor=0.95)
    assert semantic_pack_merge(lexical, [(row(3), 0.9)], 200, held_by({}), floor) == lexical
