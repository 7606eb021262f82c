"""Caps on what one memory may carry (issue 15, part B: a memory with 100,000 tags printed
30,000 lines on a terminal): tags per memory and tag length, on every write path (add,
update, import), configurable (add.max_tags, add.max_tag_chars)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Run, as_json, stored
from zeromem_cli import InvalidInputError, MemoryStore, StoreSettings


def _tags(count: int, length: int = 5) -> list[str]:
    return [f"t{number:0{length - 1}d}" for number in range(count)]


def _tag_args(tags: list[str]) -> list[str]:
    return [arg for tag in tags for arg in ("-t", tag)]


def test_add_and_update_refuse_more_tags_than_the_cap(cli: Run) -> None:
    refused = cli("add", "many tags", *_tag_args(_tags(51)))
    assert refused.exit_code == 2
    assert "51 tags, more than add.max_tags (50)" in refused.stderr
    assert stored(cli) == []
    assert cli("add", "just enough", *_tag_args(_tags(50))).exit_code == 0
    update = cli("update", "1", *_tag_args(_tags(60)))
    assert update.exit_code == 2 and "add.max_tags (50)" in update.stderr
    assert len(as_json(cli("show", "1", "--json"))["tags"]) == 50


def test_a_tag_longer_than_the_cap_is_refused(cli: Run) -> None:
    refused = cli("add", "long tag", "-t", "x" * 101)
    assert refused.exit_code == 2
    assert "a tag of 101 characters, more than add.max_tag_chars (100)" in refused.stderr
    assert cli("add", "long tag", "-t", "x" * 100).exit_code == 0


def test_the_caps_are_config_keys(cli: Run) -> None:
    assert cli("config", "set", "add.max_tags", "3", db=False).exit_code == 0
    assert cli("config", "set", "add.max_tag_chars", "10", db=False).exit_code == 0
    assert cli("add", "four tags", *_tag_args(_tags(4))).exit_code == 2
    assert cli("add", "a long one", "-t", "x" * 11).exit_code == 2
    assert cli("add", "three short tags", *_tag_args(_tags(3))).exit_code == 0


def test_import_refuses_a_record_over_the_caps_naming_its_line(cli: Run) -> None:
    lines = [
        json.dumps({"content": "fine", "tags": ["a", "b"]}),
        json.dumps({"content": "too many", "tags": _tags(100_000, 7)}),
        json.dumps({"content": "too long", "tags": ["y" * 150]}),
    ]
    result = cli("import", "-", "--format", "jsonl", input="\n".join(lines) + "\n")
    assert result.exit_code == 2
    assert "line 2: field 'tags': 100000 tags, more than add.max_tags (50)" in result.stderr
    assert "line 3: field 'tags': a tag of 150 characters" in result.stderr
    assert stored(cli) == []
    skipped = cli(
        "import", "-", "--format", "jsonl", "--skip-invalid", input="\n".join(lines) + "\n"
    )
    assert skipped.exit_code == 0
    assert [m["content"] for m in as_json(cli("list", "--json"))] == ["fine"]


def test_library_caps(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "caps.db"
    with MemoryStore(path, settings=StoreSettings(max_tags=2, max_tag_chars=4)) as store:
        with pytest.raises(InvalidInputError, match="add.max_tags"):
            store.add("x", tags=["a", "b", "c"])
        with pytest.raises(InvalidInputError, match="add.max_tag_chars"):
            store.add("x", tags=["abcde"])
        assert store.add("x", tags=["ab", "cd"]).tags == ["ab", "cd"]
