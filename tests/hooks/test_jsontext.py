"""The span-keeping JSON rewriter behind `setup`: an unchanged document comes back byte for
byte, a changed one parses to exactly the new data and keeps the text of what did not change."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zeromem_cli.integrations.setup import jsontext

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
layouts = st.sampled_from([None, 2, 4, "\t"])


def dump(value: Any, indent: Any) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), documents, max_size=5), layouts)
def test_an_unchanged_document_is_returned_as_it_was(data: dict, indent: Any) -> None:
    text = dump(data, indent)
    assert jsontext.render(data, jsontext.parse(text), text, "  ") == text


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=6), documents, min_size=1, max_size=5),
    st.dictionaries(st.text(max_size=6), documents, max_size=3),
    layouts,
)
def test_a_changed_document_parses_to_the_new_data(data: dict, extra: dict, indent: Any) -> None:
    text = dump(data, indent)
    first = next(iter(data))
    changed = {**data, **extra, first: {"added": [1, "two"]}}
    rendered = jsontext.render(changed, jsontext.parse(text), text, "  ")
    assert json.loads(rendered) == changed
    members = jsontext.parse(text).children
    assert isinstance(members, dict)
    for key, node in members.items():  # every member it kept, it kept as written
        if key != first and key not in extra:
            assert text[node.start : node.end] in rendered


def test_true_is_not_one() -> None:
    text = '{"a": 1}'
    assert jsontext.render({"a": True}, jsontext.parse(text), text, "  ") == '{\n  "a": true\n}'
