"""Bounded ranking for very large match sets: which matches a search ranks when there are
too many to rank them all.

FTS5 computes BM25 for every memory matching the query before it can sort them: on a store of
a million memories a common word ("report", "prefer") matches a hundred thousand or more, and
ranking them took 100-300 ms. A query matching more than ``LARGE`` memories therefore ranks:

- the ``LARGE`` newest matches (FTS5 walks a match list newest first and stops, so finding
  them costs little), and
- every match of each of the query's rare words (those matching at most ``LARGE`` memories),
  however old: a rare word (a ticket number, a name) is what the user is looking for, and it
  must never fall outside the window because a common word filled it.

Scores are the same BM25 as before for the memories ranked; only which memories are ranked
changes, and only for queries with more than ``LARGE`` matches. When the scope and filters
leave too few of them, the search ranks every match as before (``search.ranked_candidates``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zeromem_cli.query import Term

# More matches than this and only a window is ranked. BM25 costs ~1 microsecond per match,
# so the window costs a few ms at most; no conversation-sized store ever reaches it.
LARGE = 3_000


@dataclass(frozen=True)
class Window:
    """The matches to rank: rowids above ``after`` (the ``LARGE`` newest) and ``rare_ids``."""

    after: int
    rare_ids: tuple[int, ...] = ()

    def clause(self) -> tuple[str, dict[str, Any]]:
        """A WHERE condition on ``memories_fts.rowid`` and its named parameters."""
        params: dict[str, Any] = {"w_after": self.after}
        if not self.rare_ids:
            return "memories_fts.rowid > :w_after", params
        params["w_ids"] = json.dumps(self.rare_ids)
        return (
            "(memories_fts.rowid > :w_after OR memories_fts.rowid IN "
            "(SELECT value FROM json_each(:w_ids)))",
            params,
        )


def find_window(
    conn: sqlite3.Connection, match: str, words: Sequence[Sequence[Term]] = ()
) -> Window | None:
    """The window to rank for ``match``, or None when it has at most ``LARGE`` matches.

    ``words``: the search terms of each query word (as ``query.expand_terms`` gives them);
    the matches of the rare ones are kept whatever their age. Each probe reads at most
    ``LARGE + 1`` entries of a match list; a word is first probed by its exact forms only,
    since a prefix variant (``"report"*``) costs a walk over every form it covers.
    """
    row = conn.execute(
        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH :match "
        "ORDER BY rowid DESC LIMIT 1 OFFSET :large",
        {"match": match, "large": LARGE},
    ).fetchone()
    if row is None:
        return None
    after = int(row[0])
    rare: set[int] = set()
    for terms in words:
        exact = " OR ".join(t.expression() for t in terms if not t.prefix)
        if exact and _more_than(conn, exact, LARGE):
            continue  # a common word: its newest matches are in the window already
        group = " OR ".join(t.expression() for t in terms)
        ids = conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH :match LIMIT :n",
            {"match": group, "n": LARGE + 1},
        ).fetchall()
        if len(ids) <= LARGE:
            rare.update(i for (i,) in ids if i <= after)
    return Window(after, tuple(sorted(rare)))


def _more_than(conn: sqlite3.Connection, match: str, count: int) -> bool:
    row = conn.execute(
        "SELECT 1 FROM memories_fts WHERE memories_fts MATCH :match LIMIT 1 OFFSET :count",
        {"match": match, "count": count},
    ).fetchone()
    return row is not None


__all__ = ["LARGE", "Window", "find_window"]
