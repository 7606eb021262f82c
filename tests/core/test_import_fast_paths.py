"""The shortcuts that make bulk import fast give exactly what the plain code gives: the JSON
line scanner answers as ``json.loads``, record validation (times, the cache of tag sets) as
the plain checks, and the secret pre-check of a record's fields as scanning each one.

Core layer: pure functions of ``transfer.read`` and ``text.secrets``, no database. (The
text fast paths are in test_text_fast_paths.py; an imported store against one filled by
``add``, on the FTS5 index itself, in tests/system/test_fts.py.)
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zeromem_cli.text.secrets import find_secrets, first_secret
from zeromem_cli.transfer.read import RecordError, parse, validate_record

# -- records: the JSON line scanner, times, tags ----------------------------------------------


def _parsed(text: str) -> list[tuple[str, object]]:
    return [
        (where, str(item) if isinstance(item, RecordError) else item)
        for where, item in parse(text, "jsonl")
    ]


def _not_json(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")  # NaN, Infinity: refused as invalid JSON


def _parsed_by_json_loads(text: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            out.append((where, json.loads(line, parse_constant=_not_json)))
        except ValueError as exc:
            out.append((where, str(RecordError(where, None, f"not valid JSON ({exc})"))))
    return out


JSON_LINES = [
    '{"content": "plain"}',
    '{"content": "a"}{"content": "b"}',  # two objects on a line
    '{"content": "trailing comma",}',
    '{"content": "x"} ',  # trailing and leading blanks
    ' {"content": "x"}',
    '\ufeff{"content": "bom"}',
    '{"content": NaN, "n": Infinity}',
    '{"content": "dup", "content": "last wins"}',
    '{"content": "\\u5468\\u62a5", "tags": ["a", "a"]}',
    '{"content": "unterminated}',
    "{}",
    "{",
    "}",
    "[1, 2]",
    '"text"',
    "   ",
    '{"content": "nested", "meta": {"a": [1, {"b": null}]}}',
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(JSON_LINES), max_size=8))
def test_jsonl_lines_read_as_json_loads_reads_them(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert _parsed(text) == _parsed_by_json_loads(text)


def _validated(record: dict[str, object]) -> dict[str, object]:
    return validate_record(
        record, "line 1", clean=lambda text: text.strip(), scope=None, now="2026-01-01T00:00:00Z"
    ).values


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2025-02-30T00:00:00Z", "not an ISO-8601 date or time"),
        ("2025-01-01T24:00:00Z", "not an ISO-8601 date or time"),
        ("0000-01-01T00:00:00Z", "not an ISO-8601 date or time"),
    ],
)
def test_canonical_looking_times_that_do_not_exist_are_refused(value: str, problem: str) -> None:
    with pytest.raises(RecordError, match=f"field 'created_at': {problem}"):
        _validated({"content": "x", "created_at": value})


def test_times_are_kept_or_made_canonical() -> None:
    values = _validated(
        {"content": "x", "created_at": "2025-03-01T10:00:00Z", "updated_at": "2025-03-01"}
    )
    assert values["created_at"] == "2025-03-01T10:00:00Z"
    assert values["updated_at"] == "2025-03-01T00:00:00Z"


def test_tags_are_cleaned_and_checked_the_same_the_first_time_and_after() -> None:
    for _ in range(2):  # the second time answers from the cache of tag sets
        assert _validated({"content": "x", "tags": [" a ", "a", "b\x00c"]})["tags"] == '["a", "bc"]'
        with pytest.raises(RecordError, match="field 'tags': is empty"):
            _validated({"content": "x", "tags": ["ok", "  "]})
        with pytest.raises(RecordError, match="field 'tags': is longer than 200 characters"):
            _validated({"content": "x", "tags": ["t" * 201]})
        with pytest.raises(RecordError, match="field 'tags': expected text, got a number"):
            _validated({"content": "x", "tags": ["ok", 3]})


# -- secrets: one pre-check for all the fields of a record -------------------------------------


def _texts() -> list[str]:
    from tests.core.test_secrets import ORDINARY, SAMPLES

    samples = [template.format(s=secret) for _, template, secret in SAMPLES]
    return samples + list(ORDINARY) + [s.upper() for s in samples] + [s.lower() for s in samples]


def test_first_secret_names_the_first_field_that_holds_one() -> None:
    filler = [("content", "ordinary words: a colon, and a_long_identifier_here"), ("tags", "[]")]
    for text in _texts():
        expected = find_secrets(text)
        for position in range(len(filler) + 1):
            fields = list(filler)
            fields.insert(position, ("key", text))
            found = first_secret([*fields, ("meta", None), ("history[1].key", "")])
            if expected:
                assert found == ("key", expected[0]), text
            else:
                assert found is None, text
