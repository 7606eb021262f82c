"""The newest matches of common words, found without reading every memory that holds them.

A window (``candidates``: the newest matches of a query whose words are common) asks for the
few hundred newest memories holding every word. The GIN index can only answer "which memories
hold all these words": on a million memories whose words are each in a fifth of them, it walks
a word's whole match list (~200k entries) to find them, 35-130 ms for 3-4 words, and walking
the table newest first instead reads ~50k rows for three such words.

So each indexed word is indexed a second time with the block of ids its memory is in
(migration 5: ``~61~report`` for "report" in ids 61 * 16384 up to 62 * 16384). Asking for one
query word in the newest blocks only (``'~61~report' | '~60~report'``), ANDed with the query
itself, makes the index walk that word's entries in those blocks and skip through the other
words' lists: the same matches, the ones in those blocks, for a fraction of the work. How many
blocks is estimated from the words' shares of the store (the planner's statistics); when the
blocks hold fewer matches than the window asks for, the caller searches the whole store as
before, so the window is always exactly the newest matches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from zeromem_cli.storage.postgres import index

SHIFT = 14  # ids per block: 2 ** SHIFT (the literal in migration 5's trigger)
# Blocks enough for this many times the window's expected matches: the words' shares are
# estimates (ANALYZE's sample), and words may come together less often than their shares say.
MARGIN = 1.25
# Past this share of the store, or this many blocks (each a term of the query the index
# weighs for every entry it reads), the newest blocks save too little for the risk of a
# second search (when they hold too few matches): search all of it.
MOST = 0.8
MOST_BLOCKS = 32


class Blocks(NamedTuple):
    """Newest blocks to search: ``tsquery`` (to AND with the query), the ids they span (from
    the first block's start to the newest id) and which query word's lexemes it uses."""

    tsquery: str
    span: int
    group: int


def restriction(
    groups: Sequence[Sequence[index.Phrase]],
    shares: Mapping[str, float],
    total: int,
    newest: int,
    window: int,
    least: int,
) -> str | None:
    """A ``tsquery`` matching memories in the newest blocks that hold one of ``groups``
    (query words, each the phrases of its forms, all required), to AND with the query: blocks
    below id ``newest`` enough for ``window`` matches by the words' ``shares`` of the ``total``
    rows (a word missing from them is taken as barely common: ``least`` matches). None when
    that would be most of the store."""
    chosen = choose(groups, shares, total, newest, window, least)
    return None if chosen is None else chosen.tsquery


def choose(
    groups: Sequence[Sequence[index.Phrase]],
    shares: Mapping[str, float],
    total: int,
    newest: int,
    window: int,
    least: int,
) -> Blocks | None:
    """``restriction`` with what it spans (``Blocks``)."""
    if not groups or total <= 0:
        return None
    floor = min(1.0, least / total)
    word_shares = [
        min(1.0, sum(shares.get(p.tokens[0], 0.0) for p in phrases) or floor) for phrases in groups
    ]
    density = math.prod(word_shares)
    rows = MARGIN * window / density if density > 0 else math.inf
    rarest = min(range(len(groups)), key=word_shares.__getitem__)
    return _blocks(groups, rarest, newest, rows)


def guess(groups: Sequence[Sequence[index.Phrase]], newest: int) -> Blocks | None:
    """The newest block (and the one before when the newest is not yet half full), for words
    without statistics: a member under row-level security cannot read the planner's (the
    ``pg_stats`` view hides a table with active policies). Its words' lexemes: those of the
    longest word (likely the rarest)."""
    longest = max(range(len(groups)), key=lambda n: (len(groups[n][0].tokens[0]), -n))
    return _blocks(groups, longest, newest, float(1 << (SHIFT - 1)))


def wider(
    groups: Sequence[Sequence[index.Phrase]], tried: Blocks, newest: int, found: int, window: int
) -> Blocks | None:
    """Blocks enough for ``window`` matches when ``tried`` held ``found`` (fewer): as many more
    ids as the matches found there say (``MARGIN`` beyond), None when it found none or that
    would be most of the store."""
    if found <= 0:
        return None
    return _blocks(groups, tried.group, newest, MARGIN * tried.span * window / found)


def _blocks(
    groups: Sequence[Sequence[index.Phrase]], group: int, newest: int, rows: float
) -> Blocks | None:
    if rows >= MOST * newest:
        return None
    first_block = max(0, int(newest - rows)) >> SHIFT
    blocks = range(newest >> SHIFT, first_block - 1, -1)
    if len(blocks) > MOST_BLOCKS:
        return None
    parts = [_in_block(block, phrase) for block in blocks for phrase in groups[group]]
    return Blocks("(" + " | ".join(parts) + ")", newest - (first_block << SHIFT), group)


def _in_block(block: int, phrase: index.Phrase) -> str:
    """The lexeme of ``phrase``'s first token (a prefix stays one) in id block ``block``:
    every memory holding the phrase holds it."""
    prefix = phrase.prefix and len(phrase.tokens) == 1
    return index.Phrase((f"~{block}~{phrase.tokens[0]}",), prefix).tsquery()
