"""Search candidates (interface; see ``storage.backend``): ranking and probes of the memories
matching an FTS5 expression. Implementations: ``storage.sqlite.candidates`` (FTS5) and
``storage.postgres.candidates`` (tsvector, BM25 from term statistics)."""

from __future__ import annotations

from zeromem_cli.storage.backend import forwarded
from zeromem_cli.storage.sqlite import candidates as _sqlite

BM25_WEIGHTS = _sqlite.BM25_WEIGHTS
check_expression = _sqlite.check_expression

holds_at_least = forwarded("candidates", _sqlite.holds_at_least)
probe_first = forwarded("candidates", _sqlite.probe_first)
count_matches = forwarded("candidates", _sqlite.count_matches)
larger_than = forwarded("candidates", _sqlite.larger_than)
ranked = forwarded("candidates", _sqlite.ranked)
