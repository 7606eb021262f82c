"""The fast paths of text/ answer exactly as the plain computations they stand in for:
NFKC with full-width punctuation replaced first, the lazily compiled CJK and word patterns,
the split-based segmentation, the run-by-run query terms, the whitespace shortcut of
``content_hash`` and the pre-checks before the secret rules.

Core layer: pure functions of ``text.normalize``, ``text.query`` and ``text.secrets``, each
checked against a reference written plainly (a few references read a private pattern or
table, the thing the shortcut must agree with). Moved here from test_startup.py (which keeps
the start-up guards) and test_import_fast_paths.py (which keeps the import record paths).
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zeromem_cli.text import display, lexicon, secrets
from zeromem_cli.text import normalize as text
from zeromem_cli.text.normalize import (
    _WIDE_TO_ASCII,
    CJK_RUN,
    cjk_grams,
    index_text,
    normalize,
    simplified,
)

# Characters that stress normalisation and segmentation: full-width forms (the replaced ones
# and others), combining marks that compose with ASCII or kana, CJK, Latin, separators.
TRICKY = (
    "，：；！？（）％～\u3000ＡＺａｚ０９＂＇［］\u0301\u0308\u3099\u309a"
    "かがカガﾊﾟ周报发送会議회의éeE1 _-.,!?:;()%~\n\tﬁ①。、「」…·“’"
)
TEXTS = st.one_of(st.text(alphabet=TRICKY, max_size=40), st.text(max_size=40))


def test_each_replaced_character_is_its_own_nfkc_form() -> None:
    for wide, narrow in _WIDE_TO_ASCII:
        assert unicodedata.normalize("NFKC", wide) == narrow
        assert narrow.isascii() and len(narrow) == 1


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_normalize_is_nfkc(text: str) -> None:
    assert normalize(text) == unicodedata.normalize("NFKC", text)


def _reference_index_text(text: str) -> str:
    """index_text written plainly: words and CJK runs in order, each run as its grams."""
    import re

    if text.isascii():
        return text
    pieces: list[str] = []
    position = 0
    normalized = unicodedata.normalize("NFKC", text)
    word = re.compile(r"[^\W_]+")
    for run in CJK_RUN.finditer(normalized):
        pieces += [w for w in word.findall(normalized[position : run.start()])]
        pieces += cjk_grams(simplified(run.group()))  # traditional folded
        position = run.end()
    pieces += word.findall(normalized[position:])
    return " ".join(pieces)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_index_text_is_the_plain_segmentation(text: str) -> None:
    assert index_text(text) == _reference_index_text(text)


def test_characters_skipped_as_never_in_a_word_are_not_word_characters() -> None:
    import re

    from zeromem_cli.text.normalize import _NOT_WORD

    assert all(re.fullmatch(r"[\W_]", char) for char in _NOT_WORD)


def test_every_whitespace_but_the_space_is_unprintable() -> None:
    """content_hash skips its whitespace folding for printable text without double, leading
    or trailing spaces: that holds only if str.split() splits on nothing else printable."""
    separators = [chr(c) for c in range(0x110000) if len(f"a{chr(c)}b".split()) == 2]
    assert [c for c in separators if c.isprintable()] == [" "]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" \t\n\u3000\u2028\x85\xa0abcß，周报ﬁ", max_size=12))
def test_content_hash_folds_whitespace_and_case(text: str) -> None:
    import hashlib

    from zeromem_cli.text.normalize import content_hash

    canonical = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    digest = hashlib.blake2b(canonical.encode("utf-8"), digest_size=8).digest()
    assert content_hash(text) == int.from_bytes(digest, "big", signed=True)


# -- from the start-up shortcuts ------------------------------------------------------------


def _variants(sample: str) -> list[str]:
    return [
        sample,
        sample.upper(),
        sample.lower(),
        sample.swapcase(),
        f"note: {sample} (see ticket)",
        sample.replace("=", ": "),
        sample.replace("K", "\u212a").replace("s", "\u017f"),  # letters IGNORECASE folds
    ]


def test_secret_pre_checks_never_hide_what_the_rules_find() -> None:
    from tests.core.test_secrets import ORDINARY, SAMPLES

    texts = [t.format(s=s) for _, t, s in SAMPLES] + list(ORDINARY)
    for sample in texts:
        for variant in _variants(sample):
            every_rule = secrets._scan(variant, every_rule=True)
            assert secrets.find_secrets(variant) == every_rule, variant
            # Each rule's own literals (``SecretRule.needs``) never skip a text it matches.
            assert secrets._scan(variant) == every_rule, variant


# Pieces of credentials and of the names around them, in any case and order: texts near the
# rules' edges, where a wrong literal in a rule's ``needs`` would skip a match.
_SECRET_PIECES = st.sampled_from(
    [
        "password",
        "Passwd",
        "PIN",
        "my",
        "the",
        " is ",
        "=",
        ": ",
        '"',
        "'",
        "api_key",
        "Token",
        "SECRET",
        "aws",
        "AccountKey",
        "Authorization",
        "Basic ",
        "Bearer ",
        "://",
        "user:",
        "@host",
        "sk-",
        "sk_live_",
        "ghp_",
        "xoxb-",
        "eyJ",
        ".",
        "密码是",
        "AKIA",
        "AIza",
        "SG.",
        "SK",
        "hf_",
        "npm_",
        "-----BEGIN RSA PRIVATE KEY-----",
        "\u212a",
        "\u017f",
        "aB3xQ9zL7mN2pR5tV8wY1cE4",
        "0123456789abcdef0123456789abcdef",
        " ",
        "\n",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_SECRET_PIECES, max_size=12).map("".join))
def test_rule_literals_never_skip_a_match(sample: str) -> None:
    assert secrets._scan(sample) == secrets._scan(sample, every_rule=True)


def test_lazy_cjk_pattern_answers_as_the_compiled_one() -> None:
    compiled = re.compile(f"[{text.CJK_CLASS}]+")
    for sample in ("plain ascii text", "", "周报 weekly 报告", "カタカナ and 한국어", "café"):
        assert text.CJK_RUN.findall(sample) == compiled.findall(sample)
        assert text.CJK_RUN.sub(" ", sample) == compiled.sub(" ", sample)
        assert bool(text.CJK_RUN.search(sample)) == bool(compiled.search(sample))
        assert bool(text.CJK_RUN.match(sample)) == bool(compiled.match(sample))


def test_word_pattern_is_the_lookahead_one_for_every_character() -> None:
    # The index and the query side both use it: a changed word boundary would need a reindex.
    reference = re.compile(f"(?:(?![{text.CJK_CLASS}])[^\\W_])")
    faster = re.compile(text._WORD_PATTERN.removesuffix("+"))
    for code in [*range(0x3000), *range(0x3000, 0x10000, 7), *range(0x1F000, 0x2FA20, 13)]:
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        assert bool(reference.fullmatch(char)) == bool(faster.fullmatch(char)), hex(code)


def test_latin_words_finds_the_runs_of_the_word_pattern() -> None:
    import random

    pattern = re.compile(text._WORD_PATTERN)
    alphabet = [
        *"ab Z9_-.,:",
        *"周报发送ひらカナ한국゠・゛ßéÅ\u3099",
        "🤖",
        "\u3000",
        "ｆｕｌｌ",
        "Ⅻ",
    ]
    rng = random.Random(9)
    for _ in range(3000):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        assert text.latin_words(sample) == pattern.findall(text.normalize(sample)), repr(sample)


_AWKWARD = [
    "plain words",
    "  padded\u3000ideographic\xa0nbsp\u2028line sep\t tab ",
    "crlf\r\nand\rcr",
    "bell\x07 esc\x1b[31m del\x7f c1\x85",
    "周报 每周五\n发送",
    "ß Straße ǅ",
    "",
    " \n ",
]


def test_clean_content_and_content_hash_keep_their_exact_results() -> None:
    import hashlib

    control = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
    for sample in _AWKWARD:
        slow = control.sub("", sample.replace("\r\n", "\n").replace("\r", "\n")).strip()
        assert text.clean_content(sample) == slow
        canonical = re.sub(r"\s+", " ", text.normalize(sample).casefold()).strip()
        digest = hashlib.blake2b(canonical.encode("utf-8"), digest_size=8).digest()
        assert text.content_hash(sample) == int.from_bytes(digest, "big", signed=True)


def test_index_text_is_the_token_by_token_one() -> None:
    import random

    cjk = text.CJK_CLASS
    token = re.compile(f"(?:(?![{cjk}])[^\\W_])+|[{cjk}]+")
    cjk_start = re.compile(f"[{cjk}]")

    def reference(sample: str) -> str:  # the implementation before the split-based one
        if sample.isascii():
            return sample
        pieces: list[str] = []
        for match in token.finditer(text.normalize(sample)):
            word = match.group(0)
            pieces.extend(text.cjk_grams(word) if cjk_start.match(word) else [word])
        return " ".join(pieces)

    alphabet = (
        list("ab Z9_-.,:")
        + list("周报发送会议ひらカナ한국゠・゛ßéÅ")
        + ["🤖", "\u3000", "ｆｕｌｌ"]
    )
    rng = random.Random(8)
    for _ in range(3000):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        assert text.index_text(sample) == reference(sample), repr(sample)


def test_query_terms_are_those_of_the_run_by_run_splitting() -> None:
    import random

    from zeromem_cli.text.lexicon import (
        CHINESE_STOP_PHRASES,
        CJK_PARTICLES,
        CJK_WEAK_CHARACTERS,
        ENGLISH_STOP_WORDS,
    )
    from zeromem_cli.text.query import query_terms

    def split_run(run: str) -> list[str]:  # the implementation before phrases per text
        pieces = [run]
        for phrase in [phrase for phrase in CHINESE_STOP_PHRASES if phrase in run]:
            pieces = [p for piece in pieces for p in piece.split(phrase) if p]
        split: list[str] = []
        for piece in pieces:
            current = ""
            for char in piece:
                if char in CJK_PARTICLES:
                    if current:
                        split.append(current)
                    current = ""
                else:
                    current += char
            if current:
                split.append(current)
        return [p for p in split if not (len(p) == 1 and p in CJK_WEAK_CHARACTERS)]

    def reference(sample: str, drop: bool) -> list[str]:
        terms = [
            word
            for word in text.latin_words(text.CJK_RUN.sub(" ", text.normalize(sample)))
            if not (drop and word.lower() in ENGLISH_STOP_WORDS)
        ]
        for run in text.cjk_runs(sample):
            for piece in split_run(run) if drop else [run]:
                terms.extend(text.cjk_bigrams(piece) if len(piece) > 1 else [piece])
        distinct: dict[str, str] = {}
        for term in terms:
            distinct.setdefault(term.lower(), term)
        return list(distinct.values())

    alphabet = [
        *"周报发送的了吗是有什么时候哪里我们告诉一下",
        "ですか",
        " ",
        "the",
        "Report",
        "？",
        "，",
    ]
    rng = random.Random(10)
    for _ in range(3000):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        for drop in (True, False):
            assert query_terms(sample, drop_stop_words=drop) == reference(sample, drop), sample


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="aAzZ09 '_-.,!?\n\tsedingTHEthe", max_size=60),
        st.text(alphabet=st.characters(max_codepoint=127), max_size=60),
    )
)
def test_features_of_ascii_text_are_those_of_its_query_words(sample: str) -> None:
    """``similarity.features`` cuts ASCII text in one pass: the same features as the words
    search cuts it into (stop words only when it holds nothing else), casefolded, stemmed."""
    from zeromem_cli.text.query import query_words
    from zeromem_cli.text.similarity import features, word_features

    assert features(sample) == word_features(query_words(sample))


def _irregular_table() -> dict[str, tuple[str, ...]]:
    """The table as written plainly: each word -> the other forms of its verb."""
    forms: dict[str, tuple[str, ...]] = {}
    for group in lexicon._IRREGULAR.split("|"):
        words = group.split()
        for word in words:
            forms[word] = tuple(w for w in words if w != word)
    return forms


def test_irregular_forms_answer_as_the_table() -> None:
    table = _irregular_table()
    assert lexicon.irregular_forms("went") == ("go", "gone")
    for word, forms in table.items():
        assert lexicon.irregular_forms(word) == forms
        assert lexicon.irregular_forms(word.upper()) == ()  # callers fold first
    for word in ("deploy", "", " ", "go went", "go\twent", "wen", "ent", "|", "be was"):
        assert lexicon.irregular_forms(word) == table.get(word, ())


@given(st.text(alphabet="abegiknorstw |\n", max_size=8))
@settings(max_examples=300, deadline=None)
def test_irregular_forms_of_any_text_answer_as_the_table(word: str) -> None:
    assert lexicon.irregular_forms(word) == _irregular_table().get(word, ())


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
@settings(max_examples=500, deadline=None)
def test_ascii_words_are_the_runs_the_pattern_finds(sample: str) -> None:
    # Words of ASCII text are found by splitting at every other character, not by a pattern.
    assert text._ascii_words(sample) == re.findall("[A-Za-z0-9]+", sample)
    assert text.latin_words(sample) == re.findall("[A-Za-z0-9]+", sample)


_SECRET_MARKS = st.text(
    alphabet=st.sampled_from(list("aisIwWSx =:-/+._9\t\n\x1c\x0bBEGIN")), max_size=40
) | st.text(alphabet=st.characters(max_codepoint=127), max_size=40)


@given(_SECRET_MARKS)
@settings(max_examples=1500, deadline=None)
def test_maybe_secret_of_ascii_text_answers_as_the_pattern(sample: str) -> None:
    # ASCII text is checked with str methods, not the pattern compiled on every cold search.
    expected = display.maybe_secret_pattern().search(sample) is not None
    assert display.maybe_secret(sample) is expected


@pytest.mark.parametrize(
    "sample",
    [
        "deploy the service on friday",
        "my password is hunter2",
        "it WAS\tthere",
        "x is",
        "this\x1cis\x1cit",
        "a-very/long+token.value_1",
        "-----BEGIN RSA",
        "key=value",
        "密码 123",
        "İs the key here",
        "ſecret",
        "",
    ],
)
def test_maybe_secret_answers_as_the_pattern(sample: str) -> None:
    expected = display.maybe_secret_pattern().search(sample) is not None
    assert display.maybe_secret(sample) is expected
