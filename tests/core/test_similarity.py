"""Near-duplicate detection: the threshold measured on a labelled set, and what
``MemoryStore.write`` does with a near-duplicate (reports it, or merges into it).

Core layer: ``text.similarity`` and the library; ``zeromem add`` / ``--merge`` is in
tests/cli/test_add_similar.py."""

from __future__ import annotations

import pytest

from tests.core.similarity_pairs import PAIRS
from zeromem_cli import MemoryStore
from zeromem_cli.text.similarity import SIMILARITY_THRESHOLD, similarity


def test_threshold_separates_rephrasings_from_distinct_facts() -> None:
    rephrasings = [similarity(a, b) for a, b, same in PAIRS if same]
    distinct = [similarity(a, b) for a, b, same in PAIRS if not same]
    # The figures the threshold was chosen from (visible with pytest -s).
    print(
        f"\nrephrasings n={len(rephrasings)} min={min(rephrasings):.3f}; "
        f"distinct n={len(distinct)} max={max(distinct):.3f}; threshold={SIMILARITY_THRESHOLD}"
    )
    assert min(rephrasings) >= SIMILARITY_THRESHOLD > max(distinct)
    for language in ("en", "zh"):
        chinese = language == "zh"
        subset = [p for p in PAIRS if any("\u4e00" <= ch <= "\u9fff" for ch in p[0]) == chinese]
        assert any(p[2] for p in subset) and any(not p[2] for p in subset)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Bob is allergic to peanuts", "Bob has a peanut allergy"),
        ("小王对花生过敏", "小王花生过敏"),
    ],
)
def test_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    assert similarity(a, b) == similarity(b, a)
    assert similarity(a, a) == 1.0
    assert 0.0 <= similarity(a, "completely unrelated words") <= 1.0


# -- what a write does with a near-duplicate --------------------------------------------------


def test_a_near_duplicate_is_added_and_reported(store: MemoryStore) -> None:
    first = store.add("The staging database is db-2.internal")
    store.add("Lunch with Sam on Tuesday")
    result = store.write("Staging database: db-2.internal")
    assert result.action == "added" and result.memory.id != first.id
    assert [memory_id for memory_id, _ in result.similar] == [first.id]
    assert all(score >= SIMILARITY_THRESHOLD for _, score in result.similar)
    assert store.write("User prefers tabs over spaces").similar == []


def test_merge_makes_the_text_the_next_version_of_the_nearest(store: MemoryStore) -> None:
    nearest = store.add("Deploys happen every Tuesday morning", category="ops", key="deploys")
    store.add("Bob is allergic to peanuts")
    result = store.write("Deploys happen on Tuesday mornings", tags=["infra"], merge=True)
    assert result.action == "merged" and result.memory.id == nearest.id
    merged = store.get(nearest.id)
    assert (merged.content, merged.key, merged.category, merged.tags) == (
        "Deploys happen on Tuesday mornings",
        "deploys",
        "ops",
        ["infra"],
    )
    versions = store.history(nearest.id)
    assert [v.content for v in versions] == [
        "Deploys happen every Tuesday morning",
        "Deploys happen on Tuesday mornings",
    ]
    assert versions[0].change == "merge"
    assert store.count() == 2  # nothing deleted, nothing added


def test_merge_without_a_near_duplicate_adds(store: MemoryStore) -> None:
    store.add("Bob is allergic to peanuts")
    result = store.write("The API timeout is 30 seconds", merge=True)
    assert result.action == "added" and result.similar == [] and store.count() == 2


def test_near_duplicates_are_looked_for_in_the_writing_scope_only(store: MemoryStore) -> None:
    store.scoped(user="alice").add("Bob is allergic to peanuts")
    carol = store.scoped(user="carol").write("Bob has a peanut allergy", merge=True)
    assert carol.action == "added" and carol.similar == []
    forced = store.scoped(user="alice").write(
        "Bob has a peanut allergy", merge=True, allow_duplicate=True
    )
    assert forced.action == "added" and forced.similar == []  # allow_duplicate skips the check
