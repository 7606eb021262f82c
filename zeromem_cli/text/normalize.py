"""Text normalisation, content hashing and the segmentation shared by indexing and querying.

SQLite's unicode61 tokenizer splits on spaces and punctuation, which is right for Latin scripts
and useless for Chinese, Japanese and Korean, where a whole sentence is one run of letters. So
before text reaches FTS5 every CJK run is rewritten as overlapping character bigrams followed by
its last character (``周报发送`` -> ``周报 报发 发送 送``). Queries are cut into the same bigrams
(``query.py``), so a two-character word always meets its own bigram; a one-character query
searches the character as a prefix (``"报"*``), which meets every bigram it starts and the last
character of a run, i.e. each of its occurrences exactly once. (Indexing every character alone
as well, as version 3 did, took a third of the index entries: 6% of a store's bytes.)

Traditional Chinese characters are folded to simplified ones on both sides (``simplified``), so
会议 finds 會議 and back: one character at a time, from a table generated from OpenCC
(``hanzi_table``, loaded on the first CJK text; an OpenCC dependency would cost every
command its import).

Changing what ``index_text`` produces changes the index: bump ``INDEX_VERSION`` and the store
rebuilds the FTS table on next open.
"""

from __future__ import annotations

import functools
import re
from operator import add
from typing import Any, cast

from zeromem_cli.errors import InvalidInputError

INDEX_VERSION = 6  # 6: traditional Chinese folded to simplified (``simplified``)

# Han (incl. extension A, compatibility, extension B+), kana, hangul syllables and jamo: letters
# only. The kana blocks' combining voiced marks (U+3099, U+309A) and punctuation (U+30A0,
# U+30FB) are not, and unicode61 drops them: as part of a run they made grams no query finds.
CJK_CLASS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
    "\U00020000-\U0002fa1f"
)


class _LazyPattern:
    """A pattern compiled on first use of ``compiled``; after that, reading ``compiled`` is a
    plain attribute lookup (cheaper than a cached function call, per text of a bulk import)."""

    def __init__(self, source: str) -> None:
        self.source = source

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.source)


class _NonAsciiPattern(_LazyPattern):
    """A pattern that can only match non-ASCII characters, compiled on first use.

    Compiling the CJK class takes ~1.5 ms, on every start of every command; on ASCII text
    (most queries, most memories) these methods answer at once without it, exactly as the
    pattern would (no match). Anything else is delegated to the compiled pattern.
    """

    def search(self, text: str, *bounds: int) -> re.Match[str] | None:
        return None if text.isascii() else self.compiled.search(text, *bounds)

    def match(self, text: str, *bounds: int) -> re.Match[str] | None:
        return None if text.isascii() else self.compiled.match(text, *bounds)

    def findall(self, text: str, *bounds: int) -> list[Any]:
        return [] if text.isascii() else self.compiled.findall(text, *bounds)

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        return text if text.isascii() else self.compiled.sub(repl, text, count)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)


CJK_RUN: re.Pattern[str] = cast("re.Pattern[str]", _NonAsciiPattern(f"[{CJK_CLASS}]+"))
# Word characters that are not CJK: Latin, Cyrillic, digits... (underscore splits words).
# The full Unicode patterns take milliseconds to compile (large character classes), so they
# are compiled on first use: an ASCII query or write never needs them.
# (A negated class, not a negative lookahead per character: the same runs, ~1.7x faster.)
_WORD_PATTERN = f"[^\\W_{CJK_CLASS}]+"
# ASCII characters that are not letters or digits: in ASCII text, the words _WORD finds are
# what is left between them. Splitting on them (``_ascii_words``) finds those runs without
# compiling a pattern on every start of a search.
_ASCII_NOT_WORD = "".join([chr(c) for c in range(128) if not chr(c).isalnum()])
_ASCII_GAPS = str.maketrans(_ASCII_NOT_WORD, " " * len(_ASCII_NOT_WORD))


def _ascii_words(text: str) -> list[str]:
    """The runs of ``[A-Za-z0-9]`` in ASCII ``text``, in order."""
    return text.translate(_ASCII_GAPS).split()


_UNICODE_WORD = _LazyPattern(r"[^\W_]+")  # what it finds in text without CJK


_WORD = _LazyPattern(_WORD_PATTERN)
_CJK_SPLIT = _LazyPattern(f"([{CJK_CLASS}]+)")


def _word() -> re.Pattern[str]:
    return _WORD.compiled


def _cjk_split() -> re.Pattern[str]:
    return _CJK_SPLIT.compiled


# Needed by non-ASCII (accents) or unprintable text (controls) only: compiled on first use.
_LATIN_ACCENTED = _LazyPattern("[\u00c0-\u024f\u1e00-\u1eff]")
# C0/C1 control characters other than tab and newline, plus NUL: never stored.
_CONTROL = _LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def require_utf8(text: str, what: str) -> str:
    """``text`` unchanged, or InvalidInputError when it cannot be stored as UTF-8.

    Python turns undecodable bytes in argv or the environment into lone surrogates
    (``zeromem add $'caf\\xe9'``); SQLite cannot bind them, so they are refused up front.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} is not valid UTF-8 text (character {exc.start + 1} is an undecodable byte)"
        ) from None
    return text


# The characters NFKC most often changes in Chinese and Japanese text: full-width punctuation
# and the ideographic space, each with its NFKC form, one ASCII character (its whole
# compatibility decomposition). Replacing them first gives exactly the same NFKC result (NFKC
# decomposes every character anyway, and an ASCII character decomposes to itself), and what
# is left is usually normalised already: unicodedata's quick check then answers without the
# full algorithm, ~8x faster on a sentence of Chinese prose (bulk import normalises each memory).
_WIDE_TO_ASCII = (
    ("\uff0c", ","),
    ("\uff1a", ":"),
    ("\uff1b", ";"),
    ("\uff01", "!"),
    ("\uff1f", "?"),
    ("\uff08", "("),
    ("\uff09", ")"),
    ("\uff05", "%"),
    ("\uff5e", "~"),
    ("\u3000", " "),
)


def normalize(text: str) -> str:
    """NFKC, so full-width letters, compatibility forms and half-width kana compare equal."""
    if text.isascii():  # NFKC leaves ASCII unchanged; the check is ~10x cheaper
        return text
    import unicodedata  # non-ASCII text only: an ASCII search never loads it

    if unicodedata.is_normalized("NFKC", text):
        return text
    for wide, narrow in _WIDE_TO_ASCII:
        if wide in text:
            text = text.replace(wide, narrow)
    return unicodedata.normalize("NFKC", text)


def fold(text: str) -> str:
    """Casefolded, accents of Latin letters removed (``Café`` -> ``cafe``), as the index
    compares words. Other scripts are left alone (kana voicing marks are not accents)."""
    text = normalize(text).casefold()
    if text.isascii():
        return text
    return _LATIN_ACCENTED.compiled.sub(lambda m: _strip_accents(m.group(0)), text)


def fold_accents(text: str) -> str:
    """``text`` with the accents of Latin letters removed (``é`` -> ``e``), case kept, as
    unicode61's ``remove_diacritics`` treats them (``text.tokens``)."""
    if text.isascii():
        return text
    return _LATIN_ACCENTED.compiled.sub(lambda m: _strip_accents(m.group(0)), text)


@functools.lru_cache(maxsize=1024)
def _strip_accents(char: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))


def clean_content(text: str) -> str:
    """What is stored: CRLF folded to LF, control characters removed, ends trimmed.

    Control characters (NUL, escape sequences...) are removed rather than rejected: they are
    never meaningful in a memory and could corrupt a terminal or a prompt when printed.
    """
    if text.isprintable():  # no CR, no control character (most labels and one-line texts)
        return text.strip()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.compiled.sub("", text).strip()


def content_hash(text: str) -> int:
    """Identity of content for duplicate detection: NFKC, casefold, whitespace collapsed.

    A signed 64-bit BLAKE2b digest: 8 bytes in the row and its index instead of 64 hex
    characters (the index is per scope, so a collision is a 2**-64 event per pair).
    """
    return hash_of_normalized(normalize(text))


def hash_of_normalized(normalized: str) -> int:
    """``content_hash(text)`` given ``normalized = normalize(text)`` (a bulk import normalises
    each text once, for its hash and its index text)."""
    # split() and re's \s agree on what whitespace is; join/split is ~3x faster than a sub.
    canonical = normalized.casefold()
    # Printable text has no whitespace but the ASCII space (every other kind is a control or
    # separator character): without a space at either end or two in a row, the join/split
    # would give it back unchanged, so it is skipped (most memories, each a bulk import).
    if not (
        canonical.isprintable()
        and not canonical.startswith(" ")
        and not canonical.endswith(" ")
        and "  " not in canonical
    ):
        canonical = " ".join(canonical.split())
    digest = (_blake2b or _load_blake2b())(canonical.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


_blake2b: Any = None


def _load_blake2b() -> Any:
    global _blake2b
    import hashlib  # imported on first use: reads never hash, and it costs ~2 ms to load

    _blake2b = hashlib.blake2b
    return _blake2b


def has_cjk(text: str) -> bool:
    return bool(CJK_RUN.search(text))


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping bigrams of a CJK run; a single character stays a unigram."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_grams(run: str) -> list[str]:
    """What the index holds for a CJK run: its bigrams, then its last character, so a
    two-character word matches its bigram and every character starts exactly one gram (the
    prefix query ``"字"*`` of a one-character search finds each occurrence once)."""
    if len(run) == 1:
        return [run]
    return [*cjk_bigrams(run), run[-1]]


def index_text(text: str) -> str:
    """The form of ``text`` given to FTS5: its words, and CJK runs as grams, space-separated.

    Outside ASCII the index holds exactly the words the query side finds (``latin_words``),
    not the raw text: unicode61's Unicode 6.1 tables and Python's disagree on newer symbols
    and letters, and a word glued to one ("deploy🤖bot") must be findable by its parts.
    """
    if text.isascii():
        return text  # ASCII letters, digits and separators are the same to both
    return _segmented(normalize(text))


def index_text_of_normalized(text: str, normalized: str) -> str:
    """``index_text(text)`` given ``normalized = normalize(text)``."""
    return text if text.isascii() else _segmented(normalized)


def _segmented(normalized: str) -> str:
    # Split around CJK runs (odd items): the words between them are found in C by findall,
    # so Python loops once per CJK run, not once per word (bulk import indexes ~100k texts).
    parts = _CJK_SPLIT.compiled.split(normalized)
    words = _WORD.compiled.findall
    ascii_words = _ascii_words
    pieces = words(parts[0])
    table = _SIMPLIFY or _simplify_table()
    for number in range(1, len(parts), 2):
        run = parts[number].translate(table)
        # cjk_grams, inline: the bigrams are the pairs of each character and the next one
        # (joined in C by map, ~1.6x faster than slicing), then the last character.
        pieces += map(add, run, run[1:])
        pieces.append(run[-1])
        part = parts[number + 1]
        # Between two runs there is mostly punctuation ("，" is "," by now): no word to find.
        if part.strip(_NOT_WORD):
            pieces += ascii_words(part) if part.isascii() else words(part)
    return " ".join(pieces)


# Characters that never belong to a word (each matches [\W_]): ASCII punctuation, spaces and
# controls, and the CJK punctuation NFKC leaves as it is.
_NOT_WORD = _ASCII_NOT_WORD + (
    "\u3001\u3002\u300c\u300d\u300e\u300f\u3010\u3011\u300a\u300b\u2026\u00b7"
    "\u201c\u201d\u2018\u2019"
)


_SIMPLIFY: dict[int, str] = {}
_TRADITIONAL: set[str] = set()


def _simplify_table() -> dict[int, str]:
    from zeromem_cli.text.hanzi_table import SIMPLIFIED, TRADITIONAL

    _SIMPLIFY.update(zip(map(ord, TRADITIONAL), SIMPLIFIED, strict=True))
    _TRADITIONAL.update(TRADITIONAL)
    return _SIMPLIFY


def simplified(text: str) -> str:
    """``text`` with traditional Chinese characters folded to simplified (會議 -> 会议)."""
    if text.isascii():
        return text
    table = _SIMPLIFY or _simplify_table()
    # Most text holds no traditional character: testing for one costs a fifth of translating.
    return text if _TRADITIONAL.isdisjoint(text) else text.translate(table)


def latin_words(text: str) -> list[str]:
    """Non-CJK words (digits included), in order, in their case.

    Case is left to FTS5: unicode61 folds query terms exactly as it folded the index, while
    Python's ``casefold`` turns ``ß`` into ``ss`` and knows letters newer than unicode61's
    tables, so a term folded here could miss "Straße" in the index.
    """
    if text.isascii():
        return _ascii_words(text)
    # The runs ``_WORD_PATTERN`` finds, without compiling it (~2 ms): CJK runs become spaces,
    # then any word character but "_" (a cheap pattern: no large character class) forms words.
    return _UNICODE_WORD.compiled.findall(CJK_RUN.sub(" ", normalize(text)))


def cjk_runs(text: str) -> list[str]:
    return CJK_RUN.findall(normalize(text))
