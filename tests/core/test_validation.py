"""The values a memory is made of (``zeromem_cli.validation``): labels (category, key, tag),
tags, importance, meta and limits, and that every write path refuses the same values
(``MemoryStore.add`` / ``update`` with the same message, an import record naming the field).

Core layer: pure public functions and the public store API.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from zeromem_cli import InvalidInputError, MemoryStore, StoreSettings
from zeromem_cli.transfer.read import RecordError, validate_record
from zeromem_cli.validation import (
    MAX_ID,
    MAX_LABEL,
    check_limit,
    clean_importance,
    clean_label,
    clean_meta,
    clean_tags,
)

# -- labels and tags ---------------------------------------------------------------------------


def test_a_label_is_cleaned_like_content() -> None:
    assert clean_label("  work\x00 ", "tag") == "work"
    assert clean_label("周报\r\n", "category") == "周报"
    assert clean_label("x" * MAX_LABEL, "key") == "x" * MAX_LABEL
    assert clean_label("周" * MAX_LABEL, "key") == "周" * MAX_LABEL  # characters, not bytes


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "category is empty"),
        ("   ", "category is empty"),
        ("\x00\x1b", "category is empty"),  # nothing left once cleaned
        ("x" * (MAX_LABEL + 1), "category is longer than 200 characters"),
        ("caf\udce9", "category is not valid UTF-8 text"),
    ],
)
def test_a_bad_label_names_itself(value: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        clean_label(value, "category")


def test_tags_are_distinct_cleaned_labels_in_order() -> None:
    assert clean_tags([" b", "a", "b ", "a\x00"]) == ["b", "a"]
    assert clean_tags("solo") == ["solo"]  # a lone string is one tag, not its characters
    assert clean_tags([]) == []
    with pytest.raises(InvalidInputError, match="tag is empty"):
        clean_tags(["ok", " "])


# -- importance, meta, limits ------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 5, 10])
def test_importance_is_an_integer_from_0_to_10(value: int) -> None:
    assert clean_importance(value) == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1, "importance must be from 0 to 10, not -1"),
        (11, "importance must be from 0 to 10, not 11"),
        (True, "importance must be an integer from 0 to 10"),  # a bool is not a number here
        (5.0, "importance must be an integer from 0 to 10"),
        ("5", "importance must be an integer from 0 to 10"),
    ],
)
def test_other_importances_are_refused(value: Any, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        clean_importance(value)


def test_meta_is_stored_as_json_with_sorted_keys() -> None:
    assert clean_meta(None) == "{}"
    assert clean_meta({"b": 1, "a": "周报", "c": [None, True]}) == (
        '{"a": "周报", "b": 1, "c": [null, true]}'
    )
    assert clean_meta({1: "x"}) == '{"1": "x"}'  # JSON object keys are text


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["a"], "meta must be an object of key/value pairs"),
        ("text", "meta must be an object of key/value pairs"),
        ({"x": math.nan}, "meta is not JSON-serialisable"),  # NaN would make the row unreadable
        ({"x": math.inf}, "meta is not JSON-serialisable"),
        ({"x": object()}, "meta is not JSON-serialisable"),
        ({"x": "caf\udce9"}, "meta is not valid UTF-8 text"),
    ],
)
def test_meta_that_is_not_a_json_object_is_refused(value: Any, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        clean_meta(value)


def test_a_limit_is_a_positive_integer_and_a_huge_one_means_all() -> None:
    assert check_limit(1) == 1
    assert check_limit(10**30) == MAX_ID == 2**63 - 1
    for bad in (0, -1, True, 1.5, "3"):
        with pytest.raises(InvalidInputError, match="limit must be a positive integer"):
            check_limit(bad)  # type: ignore[arg-type]


# -- the same rules on every write path --------------------------------------------------------


def _import_problem(record: dict[str, Any]) -> str:
    with pytest.raises(RecordError) as caught:
        validate_record(
            {"content": "x", **record}, "line 1", clean=str.strip, scope=None, now="2026"
        )
    return str(caught.value)


def test_every_write_path_refuses_the_same_values(store: MemoryStore) -> None:
    kept = store.add("kept", category="fact", tags=["a"], importance=5)
    # (fields, the library's message, the import's: the same rule, said of the field)
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"category": ""}, "category is empty", "field 'category': is empty"),
        (
            {"key": "k" * (MAX_LABEL + 1)},
            "key is longer than 200 characters",
            "field 'key': is longer than 200 characters",
        ),
        ({"tags": ["ok", "  "]}, "tag is empty", "field 'tags': is empty"),
        (
            {"importance": 11},
            "importance must be from 0 to 10, not 11",
            "field 'importance': must be from 0 to 10, not 11",
        ),
        (
            {"meta": {"x": math.nan}},
            "meta is not JSON-serialisable",
            "field 'meta': not valid JSON",
        ),
    ]
    for fields, message, imported in cases:
        with pytest.raises(InvalidInputError, match=message):
            store.add("new memory", **fields)
        with pytest.raises(InvalidInputError, match=message):
            store.update(kept.id, **fields)
        assert _import_problem(fields).startswith(f"line 1: {imported}")
    assert store.count() == 1
    unchanged = store.get(kept.id)
    assert (unchanged.category, unchanged.tags, unchanged.importance, unchanged.key) == (
        "fact",
        ["a"],
        5,
        None,
    )
    assert len(store.history(kept.id)) == 1


def test_a_store_limit_on_content_size_counts_bytes(db_path: Any) -> None:
    with MemoryStore(db_path, settings=StoreSettings(max_content_bytes=12)) as store:
        assert store.add("周报周报").content == "周报周报"  # 12 bytes in UTF-8
        with pytest.raises(InvalidInputError, match="content is 15 bytes, over the limit of 12"):
            store.add("周报周报周")
        with pytest.raises(InvalidInputError, match="content is empty"):
            store.add(" \x00 ")
        assert store.count() == 1


@pytest.mark.parametrize("bad", [10**30, 0, -3, "x", None, 1.5, True])
def test_record_access_refuses_what_is_not_a_memory_id(store: MemoryStore, bad: Any) -> None:
    """Not an OverflowError from the driver for a huge id, nor a silent no-op for junk."""
    memory = store.add("the heron fishes at dawn")
    with pytest.raises(InvalidInputError, match="not a memory id"):
        store.record_access([memory.id, bad])
    assert store.get(memory.id).access_count == 0  # nothing half-counted
    store.record_access([memory.id])
    assert store.get(memory.id).access_count == 1
