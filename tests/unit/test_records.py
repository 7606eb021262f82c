"""Reading a row's JSON columns: tags written the usual way are read without the ``json``
module (a cold search need not load it), and every text reads exactly as ``json.loads`` reads
it, the tricky ones included."""

from __future__ import annotations

import json
import random

import pytest

from zeromem_cli.storage.records import _from_json, _plain_tags

TAG_LISTS = [
    [],
    [""],
    ["", ""],
    ["work"],
    ["work", "team lead"],
    ["a, b", "c"],
    ['say "hi"'],
    ["back\\slash"],
    ["tab\there", "new\nline", "bell\x07"],
    ["del\x7f"],
    ["周报", "émigré", "🙂"],
    ['", "'],
    ["\u2028line", "\ud800"],
]
TEXTS = [
    "{}",
    "[]",
    '{"k": 1}',
    '{"k": [1, "a"]}',
    '["a","b"]',
    '["a",  "b"]',
    '[ "a" ]',
    '["a", 1]',
    '["a", null]',
    '["\\u0041"]',
    '["x", "y\\"z"]',
]
BROKEN = ['["]', '["a"', '["a", "b"]]', '["a\x01"]', '["a" "b"]']


def _same_as_json(text: str) -> None:
    expected = json.loads(text)
    assert _from_json(text) == expected
    assert type(_from_json(text)) is type(expected)


@pytest.mark.parametrize("tags", TAG_LISTS, ids=repr)
def test_tags_written_by_json_read_back_the_same(tags: list[str]) -> None:
    for text in (json.dumps(tags, ensure_ascii=False), json.dumps(tags)):
        _same_as_json(text)


@pytest.mark.parametrize("text", TEXTS)
def test_other_json_reads_as_json_reads_it(text: str) -> None:
    _same_as_json(text)


@pytest.mark.parametrize("text", BROKEN)
def test_what_json_refuses_is_never_read_as_tags(text: str) -> None:
    assert _plain_tags(text) is None
    with pytest.raises(ValueError):
        _from_json(text)


def test_random_tags_and_texts_read_as_json_reads_them() -> None:
    rng = random.Random(30)
    alphabet = 'ab ,"\\\t\n\x00\x1f\x7f\u00e9\u2028\ud83d\ude42周[]:{}'
    for _ in range(3000):
        tags = [
            "".join(rng.choices(alphabet, k=rng.randint(0, 6))) for _ in range(rng.randint(0, 4))
        ]
        _same_as_json(json.dumps(tags, ensure_ascii=rng.random() < 0.5))
        text = "".join(rng.choices('["", ]\\a\x01', k=rng.randint(0, 12)))
        try:
            expected = json.loads(text)
        except ValueError:
            assert _plain_tags(text) is None
        else:
            assert _from_json(text) == expected
