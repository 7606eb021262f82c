"""Bounded ranking for very large match sets: which matches a search ranks when there are
too many to rank them all.

FTS5 computes BM25 for every memory matching the query before it can sort them: on a store of
a million memories a common word ("report", "prefer") matches a hundred thousand or more, and
ranking them all is the slowest part of such a search (``python -m benchmarks.speed --tiers
1000000 --only latency``). A query with a word matching more than ``LARGE`` memories (a
common word) therefore ranks:

- the ``LARGE`` newest matches (FTS5 walks a match list newest first and stops, so finding
  them costs little), and
- every match of each of the query's other, rare words (at most ``LARGE`` matches each),
  however old: a rare word (a ticket number, a name) is what the user is looking for, and it
  must never fall outside the window because a common word filled it.

The ranking is FTS5's BM25 as before, except that a common word counts in its exact forms only
(see ``find_window``), so such queries score lower than they did; nothing changes for a query
none of whose words has more than ``LARGE`` matches. On the synthetic large stores
(``benchmarks.synthetic``) the top 10 of such queries then differ from ranking every match:
among tens of thousands of memories holding the same common words, the newest now win over
the shortest. When the scope and filters leave too few of the window's memories, the search
ranks every match as before (``storage.candidates.ranked``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from zeromem_cli.plain import FrozenRecord
from zeromem_cli.storage.query import LARGE
from zeromem_cli.storage.sqlite.sql import id_list
from zeromem_cli.text.query import Term, any_of

# More matches than this and only a window is ranked: ``storage.query.LARGE``, shared by both
# backends so they call the same words common.


class Window(FrozenRecord):
    """What to rank instead: ``match`` (the query with common words in their exact forms
    only) over rowids above ``after`` (its ``LARGE`` newest matches) and ``rare_ids``."""

    match: str
    after: int
    rare_ids: tuple[int, ...] = ()

    def clause(self) -> tuple[str, dict[str, Any]]:
        """A WHERE condition on ``memories_fts.rowid`` and its named parameters."""
        params: dict[str, Any] = {"w_after": self.after}
        if not self.rare_ids:
            return "memories_fts.rowid > :w_after", params
        params["w_ids"] = id_list(self.rare_ids)
        # Unary +: the rowids are a filter on the MATCH, never an index of their own; SQLite
        # 3.50+ would otherwise split the OR into scans that cannot run MATCH ("unable to use
        # function MATCH in the requested context", met with SQLCipher's newer SQLite).
        return (
            "(+memories_fts.rowid > :w_after OR +memories_fts.rowid IN "
            "(SELECT value FROM json_each(:w_ids)))",
            params,
        )


def find_window(
    conn: sqlite3.Connection, words: Sequence[Sequence[Term]], *, every: bool = False
) -> Window | None:
    """The window to rank for a query whose words have the search terms ``words`` (as
    ``query.expand_terms`` gives them, word by word), ORed or, with ``every``, ANDed; None
    when no word is common (more than ``LARGE`` matches) and every match can be ranked.

    Each word is probed by its exact forms, reading at most ``LARGE + 1`` entries of a match
    list. A common word is then searched in its exact forms only: a prefix variant
    (``"report"*``) makes FTS5 merge the match lists of every form it covers, and BM25 reads
    each phrase's whole match list once to weigh it, so on a common word the variant costs
    more than all the rest and adds nothing the window needs. Rare words keep their variants,
    and every match of a rare word is ranked, however old.
    """
    newest = conn.execute("SELECT max(id) FROM memories").fetchone()[0]
    if newest is None or newest <= LARGE:
        return None  # no word can match more memories than the store ever held
    common = [_more_than(conn, any_of(terms, exact=True), LARGE) for terms in words]
    if not any(common) or (every and not all(common)):
        return None  # no common word, or a rare one keeps every memory holding all words few
    groups = [any_of(terms, exact=big) for terms, big in zip(words, common, strict=True)]
    match = (" AND " if every else " OR ").join(f"({group})" for group in groups)
    row = conn.execute(
        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH :match "
        "ORDER BY rowid DESC LIMIT 1 OFFSET :large",
        {"match": match, "large": LARGE},
    ).fetchone()
    if row is None:
        return None
    after = int(row[0])
    rare: set[int] = set()
    for terms, big in zip(words, common, strict=True):
        if big:
            continue  # a common word: its newest matches are in the window already
        ids = conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH :match LIMIT :n",
            {"match": any_of(terms, exact=False), "n": LARGE + 1},
        ).fetchall()
        if len(ids) <= LARGE:  # else common through its prefix variant: in the window as is
            rare.update(i for (i,) in ids if i <= after)
    return Window(match, after, tuple(sorted(rare)))


def _more_than(conn: sqlite3.Connection, match: str, count: int) -> bool:
    row = conn.execute(
        "SELECT 1 FROM memories_fts WHERE memories_fts MATCH :match LIMIT 1 OFFSET :count",
        {"match": match, "count": count},
    ).fetchone()
    return row is not None


__all__ = ["LARGE", "Window", "find_window"]
