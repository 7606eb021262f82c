"""The tokens a search index holds for an index text: words, folded and stemmed.

SQLite's FTS5 cuts ``normalize.index_text`` with its ``porter unicode61 remove_diacritics 2``
tokenizer. The PostgreSQL index needs the same tokens without FTS5, so this module does that
job in Python: a word is a run of letters and digits (``_`` and everything else separates),
lower-cased, the accents of Latin letters removed, then stemmed by the Porter algorithm as
FTS5's ``porter`` tokenizer writes it (its steps, conditions and limits: a token shorter than
3 or longer than 64 bytes is kept as it is; the bytes are stemmed, so a letter outside ASCII
counts as a consonant). CJK text arrives already cut into grams (``normalize.cjk_grams``),
each one word here, never stemmed in effect (no ASCII letter).

It need not be bit-exact with FTS5 (PostgreSQL's index is built and queried by this module
alone); ``tests/unit/test_tokens_vs_fts5.py`` shows that it is on ordinary text, and where the
two may part: letters Python's Unicode tables know and unicode61's (Unicode 6.1) do not.
"""

from __future__ import annotations

import functools
import re

from zeromem_cli.text.normalize import fold_accents

_ASCII_WORD = re.compile("[A-Za-z0-9]+")
_WORD = re.compile(r"[^\W_]+")
MAX_STEMMED = 64  # bytes: FTS5's porter passes longer tokens through unchanged
# Where Python's lower() and unicode61's folding differ: dotted capital I (one letter there,
# "i" and a combining dot here) and Greek final sigma (folded to sigma there).
_LOWER_AS_UNICODE61 = str.maketrans({"\u0130": "i", "\u03c2": "\u03c3"})


def tokens(text: str) -> list[str]:
    """The index's tokens of ``text`` (index text, or a query term), in order."""
    if text.isascii():
        return [stem(word.lower()) for word in _ASCII_WORD.findall(text)]
    return [stem(fold_accents(_lower(word))) for word in _WORD.findall(text)]


def _lower(word: str) -> str:
    return word.translate(_LOWER_AS_UNICODE61).lower().translate(_LOWER_AS_UNICODE61)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """``word`` (lower case) as FTS5's porter tokenizer stems it. Cached: a store's
    vocabulary is small beside its token count."""
    raw = word.encode("utf-8")
    if len(raw) < 3 or len(raw) > MAX_STEMMED:
        return word
    return _porter(bytearray(raw)).decode("utf-8", "ignore")


# -- the Porter steps, as SQLite's fts5_tokenize.c has them ------------------------------------

_VOWELS = b"aeiou"
_Y = ord("y")


def _is_vowel(char: int, y_is_vowel: bool) -> bool:
    return char in _VOWELS or (y_is_vowel and char == _Y)


def _gobble_vc(stem: bytes, previous_consonant: bool) -> int:
    """The length after the first vowel-consonant sequence of ``stem``; 0 when there is none."""
    consonant = previous_consonant
    i = 0
    while i < len(stem):
        consonant = not _is_vowel(stem[i], consonant)
        if not consonant:
            break
        i += 1
    i += 1
    while i < len(stem):
        consonant = not _is_vowel(stem[i], consonant)
        if consonant:
            return i + 1
        i += 1
    return 0


def _m_gt0(stem: bytes) -> bool:
    return _gobble_vc(stem, False) > 0


def _m_gt1(stem: bytes) -> bool:
    n = _gobble_vc(stem, False)
    return bool(n and _gobble_vc(stem[n:], True))


def _m_eq1(stem: bytes) -> bool:
    n = _gobble_vc(stem, False)
    return bool(n and not _gobble_vc(stem[n:], True))


def _o_star(stem: bytes) -> bool:
    """Consonant-vowel-consonant at the end, the last not w, x or y."""
    if stem[-1:] in (b"w", b"x", b"y"):
        return False
    mask, consonant = 0, False
    for char in stem:
        consonant = not _is_vowel(char, consonant)
        mask = (mask << 1) + consonant
    return (mask & 7) == 5


def _m_gt1_s_or_t(stem: bytes) -> bool:
    return stem[-1:] in (b"s", b"t") and _m_gt1(stem)


def _has_vowel(stem: bytes) -> bool:
    return any(_is_vowel(char, i > 0) for i, char in enumerate(stem))


# Each step: (suffix, condition on the stem, replacement), grouped by the word's next-to-last
# byte; within a group only the first suffix that ends the word is tried (as in the C code).
_Rule = tuple[bytes, object, bytes]
_STEP2: dict[str, list[_Rule]] = {
    "a": [(b"ational", _m_gt0, b"ate"), (b"tional", _m_gt0, b"tion")],
    "c": [(b"enci", _m_gt0, b"ence"), (b"anci", _m_gt0, b"ance")],
    "e": [(b"izer", _m_gt0, b"ize")],
    "g": [(b"logi", _m_gt0, b"log")],
    "l": [
        (b"bli", _m_gt0, b"ble"),
        (b"alli", _m_gt0, b"al"),
        (b"entli", _m_gt0, b"ent"),
        (b"eli", _m_gt0, b"e"),
        (b"ousli", _m_gt0, b"ous"),
    ],
    "o": [(b"ization", _m_gt0, b"ize"), (b"ation", _m_gt0, b"ate"), (b"ator", _m_gt0, b"ate")],
    "s": [
        (b"alism", _m_gt0, b"al"),
        (b"iveness", _m_gt0, b"ive"),
        (b"fulness", _m_gt0, b"ful"),
        (b"ousness", _m_gt0, b"ous"),
    ],
    "t": [(b"aliti", _m_gt0, b"al"), (b"iviti", _m_gt0, b"ive"), (b"biliti", _m_gt0, b"ble")],
}
_STEP3: dict[str, list[_Rule]] = {
    "a": [(b"ical", _m_gt0, b"ic")],
    "s": [(b"ness", _m_gt0, b"")],
    "t": [(b"icate", _m_gt0, b"ic"), (b"iciti", _m_gt0, b"ic")],
    "u": [(b"ful", _m_gt0, b"")],
    "v": [(b"ative", _m_gt0, b"")],
    "z": [(b"alize", _m_gt0, b"al")],
}
_STEP4: dict[str, list[_Rule]] = {
    "a": [(b"al", _m_gt1, b"")],
    "c": [(b"ance", _m_gt1, b""), (b"ence", _m_gt1, b"")],
    "e": [(b"er", _m_gt1, b"")],
    "i": [(b"ic", _m_gt1, b"")],
    "l": [(b"able", _m_gt1, b""), (b"ible", _m_gt1, b"")],
    "n": [
        (b"ant", _m_gt1, b""),
        (b"ement", _m_gt1, b""),
        (b"ment", _m_gt1, b""),
        (b"ent", _m_gt1, b""),
    ],
    "o": [(b"ion", _m_gt1_s_or_t, b""), (b"ou", _m_gt1, b"")],
    "s": [(b"ism", _m_gt1, b"")],
    "t": [(b"ate", _m_gt1, b""), (b"iti", _m_gt1, b"")],
    "u": [(b"ous", _m_gt1, b"")],
    "v": [(b"ive", _m_gt1, b"")],
    "z": [(b"ize", _m_gt1, b"")],
}
_STEP1B2 = {"a": (b"at", b"ate"), "b": (b"bl", b"ble"), "i": (b"iz", b"ize")}


def _apply(word: bytearray, rules: dict[str, list[_Rule]]) -> None:
    """The first rule of ``word``'s next-to-last byte whose suffix ends it, if its condition
    holds on the stem (the word is longer than the suffix, as in the C code)."""
    if len(word) < 2:
        return
    for suffix, condition, replacement in rules.get(chr(word[-2]), ()):
        if len(word) > len(suffix) and word.endswith(suffix):
            stem_part = bytes(word[: -len(suffix)])
            if condition(stem_part):  # type: ignore[operator]
                word[-len(suffix) :] = replacement
            return


def _step1a(word: bytearray) -> None:
    if word[-1:] != b"s":
        return
    if word[-2:-1] == b"e":
        if (len(word) > 4 and word[-4:-2] == b"ss") or (len(word) > 3 and word[-3:-2] == b"i"):
            del word[-2:]
        else:
            del word[-1:]
    elif word[-2:-1] != b"s":
        del word[-1:]


def _step1b(word: bytearray) -> bool:
    """Step 1b ("eed", "ed", "ing"): True when "ed" or "ing" was removed."""
    second = chr(word[-2]) if len(word) >= 2 else ""
    if second == "e":
        if len(word) > 3 and word.endswith(b"eed"):
            if _m_gt0(bytes(word[:-3])):
                del word[-1:]
            return False
        if len(word) > 2 and word.endswith(b"ed") and _has_vowel(bytes(word[:-2])):
            del word[-2:]
            return True
    elif second == "n" and len(word) > 3 and word.endswith(b"ing"):
        if _has_vowel(bytes(word[:-3])):
            del word[-3:]
            return True
    return False


def _step1b2(word: bytearray) -> bool:
    if len(word) < 2:
        return False
    rule = _STEP1B2.get(chr(word[-2]))
    if rule is not None and len(word) > 2 and word.endswith(rule[0]):
        word[-2:] = rule[1]
        return True
    return False


def _porter(word: bytearray) -> bytes:
    _step1a(word)
    if _step1b(word) and not _step1b2(word):
        last = word[-1]
        if not _is_vowel(last, False) and last not in b"lsz" and len(word) > 1 and last == word[-2]:
            del word[-1:]
        elif _m_eq1(bytes(word)) and _o_star(bytes(word)):
            word.append(ord("e"))
    if word[-1:] == b"y" and _has_vowel(bytes(word[:-1])):
        word[-1] = ord("i")
    _apply(word, _STEP2)
    _apply(word, _STEP3)
    _apply(word, _STEP4)
    if word[-1:] == b"e":
        stem_part = bytes(word[:-1])
        if _m_gt1(stem_part) or (_m_eq1(stem_part) and not _o_star(stem_part)):
            del word[-1:]
    if len(word) > 1 and word[-2:] == b"ll" and _m_gt1(bytes(word[:-1])):
        del word[-1:]
    return bytes(word)
