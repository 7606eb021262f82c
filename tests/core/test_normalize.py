"""Text normalisation (``text.normalize``): NFKC, folding, cleaning, the CJK grams, the index
text and the content hash that decides what is a duplicate.

Core layer: pure public functions, no database. (Each fast path against its plain reference:
test_text_fast_paths.py; what the store then finds: test_store_search.py, test_cjk_index.py.)
"""

from __future__ import annotations

import pytest

from zeromem_cli import InvalidInputError
from zeromem_cli.text.normalize import (
    cjk_bigrams,
    cjk_grams,
    cjk_runs,
    clean_content,
    content_hash,
    fold,
    has_cjk,
    hash_of_normalized,
    index_text,
    index_text_of_normalized,
    latin_words,
    normalize,
    require_utf8,
)

# -- NFKC and folding --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("Ｐｙｔｈｏｎ\u3000３．１２", "Python 3.12"),  # full-width letters, digits, space
        ("周报，发送：明天！", "周报,发送:明天!"),  # full-width punctuation
        ("ｶﾞｷﾞ", "ガギ"),  # half-width kana and their voicing marks compose
        ("ﬁle ①", "file 1"),  # compatibility forms
        ("e\u0301", "é"),  # a combining accent composes
        ("plain ascii", "plain ascii"),
        ("Café", "Café"),  # NFKC keeps accents: folding is a separate step
    ],
)
def test_normalize_gives_the_nfkc_form(text: str, normal: str) -> None:
    assert normalize(text) == normal
    assert normalize(normal) == normal  # idempotent


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Café", "cafe"),
        ("ZÜRICH", "zurich"),
        ("Ångström", "angstrom"),
        ("Straße", "strasse"),  # casefold, not lower
        ("Ｃａｆé", "cafe"),  # NFKC first
        ("ガギ", "ガギ"),  # kana voicing is not an accent
        ("周报 Report", "周报 report"),
    ],
)
def test_fold_removes_case_and_latin_accents_only(text: str, folded: str) -> None:
    assert fold(text) == folded


# -- cleaning and UTF-8 ------------------------------------------------------------------------


def test_clean_content_folds_line_ends_and_drops_control_characters() -> None:
    assert clean_content("  a\r\nb\rc  ") == "a\nb\nc"
    assert clean_content("bell\x07 esc\x1b[31m nul\x00 del\x7f c1\x85 end") == (
        "bell esc[31m nul del c1 end"
    )
    assert clean_content("tab\tand\nnewline") == "tab\tand\nnewline"  # kept
    assert clean_content("\x00\x1b\x07") == ""


def test_text_that_is_not_utf8_is_refused_with_its_position() -> None:
    assert require_utf8("café 周报", "content") == "café 周报"
    with pytest.raises(InvalidInputError, match="content is not valid UTF-8 text .character 4"):
        require_utf8("caf\udce9", "content")  # a lone surrogate: an undecodable argv byte


# -- CJK grams and the index text --------------------------------------------------------------


def test_cjk_bigrams_and_grams() -> None:
    assert cjk_bigrams("周报发送") == ["周报", "报发", "发送"]
    assert cjk_grams("周报发送") == ["周报", "报发", "发送", "送"]
    assert cjk_bigrams("猫") == ["猫"] and cjk_grams("猫") == ["猫"]
    assert cjk_grams("周报") == ["周报", "报"]


def test_cjk_runs_cover_han_kana_and_hangul_but_not_punctuation() -> None:
    assert cjk_runs("周报。发送 カナ 한국 ゛゠・ plain") == ["周报", "发送", "カナ", "한국"]
    assert cjk_runs("ｶﾅ") == ["カナ"]  # normalised first
    assert has_cjk("plain 周") and not has_cjk("plain café") and not has_cjk("。・")


def test_latin_words_split_at_everything_but_letters_and_digits() -> None:
    assert latin_words("Café, Zürich! under_score 周报 report 42x") == [
        "Café",
        "Zürich",
        "under",
        "score",
        "report",
        "42x",
    ]
    assert latin_words("deploy🤖bot") == ["deploy", "bot"]
    assert latin_words("") == [] and latin_words("周报") == []


@pytest.mark.parametrize(
    ("text", "indexed"),
    [
        ("Weekly report, Fridays 17:00", "Weekly report, Fridays 17:00"),  # ASCII: FTS5's job
        ("我的猫 cat", "我的 的猫 猫 cat"),
        ("周报，发送。OK", "周报 报 发送 送 OK"),  # each run its grams, punctuation dropped
        ("カレーが好き", "カレ レー ーが が好 好き き"),
        ("내일 회의는", "내일 일 회의 의는 는"),
        ("Ｐｙｔｈｏｎ\u3000３．１２ released", "Python 3 12 released"),
        ("deploy🤖bot", "deploy bot"),  # a word glued to a symbol is findable by its parts
        ("ｶﾞ周ﾞ报", "ガ周 周 报"),  # a lone voicing mark is no letter
    ],
)
def test_index_text_is_the_words_and_the_grams(text: str, indexed: str) -> None:
    assert index_text(text) == indexed
    assert index_text_of_normalized(text, normalize(text)) == indexed


# -- the content hash: what counts as the same content ------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Café  Zürich opens at 8", " café zürich OPENS at 8 "),  # case and whitespace
        ("ＡＢＣ　１２３", "abc 123"),  # NFKC, the ideographic space
        ("line one\nline two", "line one line two"),  # any whitespace run is one space
        ("Straße", "STRASSE"),  # casefold
        ("周报 发送", "周报\t发送"),
    ],
)
def test_content_hash_equates_case_width_and_whitespace(a: str, b: str) -> None:
    assert content_hash(a) == content_hash(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("cafe", "café"),  # accents are content
        ("ab", "a b"),  # so is a space between words
        ("report due Friday", "report due Thursday"),
        ("周报", "日报"),
    ],
)
def test_content_hash_tells_different_content_apart(a: str, b: str) -> None:
    assert content_hash(a) != content_hash(b)


def test_content_hash_is_a_signed_64_bit_integer_of_the_normalised_text() -> None:
    for text in ("", "plain", "Ｆｕｌｌ　ｗｉｄｔｈ", "周报 每周五", "  padded  "):
        value = content_hash(text)
        assert -(2**63) <= value < 2**63
        assert hash_of_normalized(normalize(text)) == value
    # Stored in every row and compared with new writes: the same value in every version, or
    # an upgraded store would stop seeing its duplicates.
    assert content_hash("plain") == 987004733112904405
    assert content_hash("Weekly report goes out Fridays 17:00") == -8526372754523508545
