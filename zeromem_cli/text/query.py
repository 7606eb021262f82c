"""User text -> a safe FTS5 MATCH expression.

User text never reaches MATCH raw. It is cut into words (Latin scripts) and pieces of CJK runs;
stop words (``lexicon``) are dropped so "when is the weekly report sent?" searches for
``weekly``, ``report`` and ``sent``; every term is double-quoted (a quoted string is a plain
phrase to FTS5, so no input can produce a syntax error or an operator) and the terms are OR-ed,
so BM25 ranks memories that match more of the query higher.

Each Latin word also brings:
- a prefix variant (``"report"*``) when it is long enough, so ``config`` finds
  ``configuration``; a memory with the exact word matches both and ranks above one matching
  only the prefix;
- the other forms of an irregular English verb (``go`` -> ``went``, ``gone``), which the
  porter stemmer in the index cannot connect;
- its other British / American spelling (``colour`` -> ``color``, ``organise`` ->
  ``organize``: ``spelling``), with its own prefix variant.

CJK runs are split at question words and particles, then cut into the overlapping bigrams the
index holds (``周报发送`` -> ``周报 报发 发送``); a one-character piece is searched as a prefix
(``"报"*``): the index holds each character as the start of a bigram or as a run's last one.

A query is cut into words once per call (``parse_query`` -> ``ParsedQuery``); search and pack
hand the parsed query down instead of cutting the text again.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence

from zeromem_cli.plain import FrozenRecord
from zeromem_cli.text.lexicon import (
    CHINESE_STOP_PHRASES,
    CJK_PARTICLES,
    CJK_WEAK_CHARACTERS,
    ENGLISH_STOP_WORDS,
    irregular_forms,
)
from zeromem_cli.text.normalize import CJK_RUN, cjk_bigrams, latin_words, normalize, simplified
from zeromem_cli.text.spelling import spelling_variants

# Shortest word that also gets a prefix variant: shorter prefixes match too much.
PREFIX_MIN_LENGTH = 4
# A runaway query (a pasted document) is cut to this many terms: more adds time, not recall.
MAX_TERMS = 64


@functools.cache
def _stop_phrase_index() -> tuple[dict[str, list[str]], dict[str, int]]:
    """The stop phrases by their first character (only those starting with a character the
    text holds are looked for: most texts hold few of them), and each phrase's place in
    ``CHINESE_STOP_PHRASES``. Built for the first text holding CJK, not on every start."""
    by_start: dict[str, list[str]] = {}
    for phrase in CHINESE_STOP_PHRASES:
        by_start.setdefault(phrase[0], []).append(phrase)
    return by_start, {phrase: place for place, phrase in enumerate(CHINESE_STOP_PHRASES)}


# A particle becomes a break (str.translate), then the run is split there.
_PARTICLE_BREAKS = {ord(char): "\x00" for char in CJK_PARTICLES}


def _split_cjk_run(run: str, phrases: Sequence[str] = CHINESE_STOP_PHRASES) -> list[str]:
    """Split a CJK run at its question words and particles, keeping the content pieces.

    ``phrases``: the stop phrases to look for (``query_terms`` passes those its whole text
    holds, in ``CHINESE_STOP_PHRASES`` order, so each run is not tested against all of them)."""
    pieces = [run]
    # Pieces are substrings of the run: a phrase absent from the run splits nothing (the test
    # is one C-level scan; splitting every piece by every phrase dominated pack's time).
    for phrase in [phrase for phrase in phrases if phrase in run]:
        pieces = [p for piece in pieces for p in piece.split(phrase) if p]
    split: list[str] = []
    for piece in pieces:
        if CJK_PARTICLES.isdisjoint(piece):
            split.append(piece)
        else:
            split += [p for p in piece.translate(_PARTICLE_BREAKS).split("\x00") if p]
    return [p for p in split if not (len(p) == 1 and p in CJK_WEAK_CHARACTERS)]


# How many index tokens may lie between the two characters of a split CJK word (``Term.near``).
NEAR_DISTANCE = 3


class Term(FrozenRecord):
    """One search term: the text FTS5 sees and how it may match.

    ``near``: a two-character CJK word whose characters may stand apart (开会 in 开季度会议):
    each character as a prefix, within ``NEAR_DISTANCE`` tokens. Such a term is a variant:
    build it with ``prefix=True`` too, so the exact-forms probes leave it out."""

    text: str
    prefix: bool = False
    near: bool = False

    def expression(self) -> str:
        if self.near:
            first, second = (quote(char) + "*" for char in self.text)
            return f"NEAR({first} {second}, {NEAR_DISTANCE})"
        return quote(self.text) + ("*" if self.prefix else "")


def query_terms(
    text: str, *, drop_stop_words: bool = True, pairs: list[str] | None = None
) -> list[str]:
    """The distinct content terms of ``text``, in order: Latin words and CJK grams.
    ``pairs``, when given, receives the two-character CJK pieces (``ParsedQuery.pairs``)."""
    # "Report" and "report" are one term to FTS5: the first spelling of each is kept.
    distinct: dict[str, str] = {}
    normal = normalize(text)
    ascii_only = normal.isascii()  # no CJK run to cut (most memories): one pass
    for word in latin_words(normal if ascii_only else CJK_RUN.sub(" ", normal)):
        lowered = word.lower()
        if lowered not in distinct and not (drop_stop_words and lowered in ENGLISH_STOP_WORDS):
            distinct[lowered] = word
    runs = [] if ascii_only else CJK_RUN.findall(normal)
    if runs:
        normal = simplified(normal)  # as the index holds them: 會議 -> 会议
        runs = [simplified(run) for run in runs]
        # Only the stop phrases the text holds can split one of its runs (a phrase whose
        # first character the text lacks is not tested further).
        by_start, order = _stop_phrase_index()
        held = [
            phrase
            for start in by_start.keys() & set(normal)
            for phrase in by_start[start]
            if phrase in normal
        ]
        phrases = sorted(held, key=order.__getitem__)  # CHINESE_STOP_PHRASES order
        for run in runs:
            pieces = _split_cjk_run(run, phrases) if drop_stop_words else [run]
            for piece in pieces:
                for gram in cjk_bigrams(piece):  # CJK has no case: a gram is its own key
                    distinct.setdefault(gram, gram)
                if pairs is not None and len(piece) == 2:
                    pairs.append(piece)
    return list(distinct.values())


def expand_terms(
    words: Sequence[str],
    *,
    prefix: bool = True,
    variants: bool = True,
    apart: Collection[str] = (),
) -> list[Term]:
    """Search terms for ``words``: each word, its prefix variant, its irregular forms; a
    two-character CJK word in ``apart`` also as its characters near each other (``Term.near``).
    """
    terms: list[Term] = []
    for word in words:
        latin = not CJK_RUN.search(word)
        # A lone CJK character is indexed only as the start of its bigrams (and alone at the
        # end of a run): as a prefix it finds every occurrence (see text.cjk_grams).
        terms.append(Term(word, prefix=not latin and len(word) == 1))
        # Its characters apart (开会 in 开季度会议) only when the caller asks: searched for
        # every such word, it cost Chinese queries +77% CPU at p50 on the 10k synthetic store,
        # so search asks only for the words whose bigram finds too little (``search``).
        if word in apart:
            terms.append(Term(word, prefix=True, near=True))
        if prefix and latin and len(word) >= PREFIX_MIN_LENGTH and not word.isdigit():
            terms.append(Term(word, prefix=True))
        if variants and latin:
            terms.extend(Term(form) for form in irregular_forms(word))
            for other in spelling_variants(word):  # colour / color
                terms.append(Term(other))
                if prefix and len(other) >= PREFIX_MIN_LENGTH:
                    terms.append(Term(other, prefix=True))
    return list(dict.fromkeys(terms))[:MAX_TERMS]


def any_of(terms: Sequence[Term], *, exact: bool) -> str:
    """One word's terms ORed; ``exact``: without its prefix variant (a lone CJK character,
    searched only as a prefix, keeps it)."""
    kept = [t for t in terms if not (exact and t.prefix)] or list(terms)
    return " OR ".join(t.expression() for t in kept)


def quote(term: str) -> str:
    """An FTS5 string literal: the term becomes a phrase, never an operator."""
    return '"' + term.replace('"', '""') + '"'


class ParsedQuery(FrozenRecord):
    """A query cut into words once: ``content`` holds its content terms (stop words dropped),
    ``words`` the terms searched (``query_words``: ``content``, or the stop words when there
    is nothing else), ``pairs`` the words that were a two-character CJK piece of their own
    (开会 in 周一什么时候开会: a word, where 京出 in 北京出差 is only a bigram)."""

    __slots__ = ("text", "content", "words", "pairs")
    text: str
    content: tuple[str, ...]
    words: tuple[str, ...]
    pairs: tuple[str, ...]

    def __init__(
        self,
        text: str,
        content: Sequence[str],
        words: Sequence[str],
        pairs: Sequence[str] = (),
    ) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "content", tuple(content))
        object.__setattr__(self, "words", tuple(words))
        object.__setattr__(self, "pairs", tuple(pairs))

    def match(
        self, *, prefix: bool = True, variants: bool = True, apart: Collection[str] = ()
    ) -> str | None:
        """The FTS5 expression OR-ing the quoted terms of ``words``; None when there are none.
        ``apart``: the ``pairs`` also searched with their characters apart."""
        if not self.words:
            return None
        terms = expand_terms(self.words, prefix=prefix, variants=variants, apart=apart)
        return " OR ".join(t.expression() for t in terms)


def query_words(text: str, content: list[str] | None = None) -> list[str]:
    """The terms searched for ``text``: its content terms (``content``, when the caller has
    them already) or, when every word of it is a stop word ("what is it?"), the stop words
    themselves rather than nothing."""
    if content is None:
        content = query_terms(text)
    return content or query_terms(text, drop_stop_words=False)


def parse_query(text: str) -> ParsedQuery:
    """``text`` cut into words once: its content terms and the terms searched."""
    pairs: list[str] = []
    content = query_terms(text, pairs=pairs)
    words = query_words(text, content)
    return ParsedQuery(text, content, words, [p for p in pairs if p in words])


def build_match(text: str, *, prefix: bool = True, variants: bool = True) -> str | None:
    """An FTS5 expression OR-ing the quoted terms of ``text``; None when it has no terms.

    If every word is a stop word ("what is it?"), the stop words themselves are searched
    rather than returning nothing.
    """
    return parse_query(text).match(prefix=prefix, variants=variants)
