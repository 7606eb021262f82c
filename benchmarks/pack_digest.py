"""One digest line per pack, to prove a change to pack's plumbing leaves every pack the same:
``python -m benchmarks.pack_digest > before.txt`` on one checkout, the same on the other, then
``diff before.txt after.txt`` (no output: identical packs).

Each line is ``query | budget | format | ids packed | tokens | sha256 of the text`` for every
query of ``--queries`` (the fixed-seed ``benchmarks.synthetic.queries``, as
``benchmarks.mcp_latency`` asks them) times each budget and format, plus one pack without a
query per budget and format. The store is a private copy of the cached synthetic one
(``--count``, default 100k), read with a fixed clock and ``touch=False``, so two runs minutes
apart, or on two checkouts, weigh recency and access alike. A timing line goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path

from benchmarks import synthetic
from benchmarks.speed import fresh_copy
from zeromem_cli import MemoryStore

BUDGETS = (200, 1000, 2000, 8000)
FORMATS = ("xml", "text")
# Fixed, after every synthetic memory was written: recency is the same in every run.
NOW = datetime(2027, 1, 1, tzinfo=timezone.utc)


def digests(db: Path, queries: Sequence[str | None]) -> Iterator[str]:
    """The digest line of each pack of ``queries`` x ``BUDGETS`` x ``FORMATS`` over ``db``."""
    with MemoryStore(db, clock=lambda: NOW) as store:
        for query in queries:
            for budget in BUDGETS:
                for fmt in FORMATS:
                    packed = store.pack(query, budget=budget, format=fmt, touch=False)
                    ids = ",".join(str(m.id) for m in packed.memories)
                    digest = hashlib.sha256(packed.text.encode()).hexdigest()[:16]
                    yield f"{query} | {budget} | {fmt} | {ids} | {packed.tokens} | {digest}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000, help="Synthetic store size.")
    parser.add_argument("--queries", type=int, default=100, help="Queries asked (100).")
    args = parser.parse_args(argv)
    queries: list[str | None] = [None, *synthetic.queries(args.queries, seed=7)]
    started = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        db = fresh_copy(synthetic.cached_database(args.count), Path(folder))
        lines = 0
        for line in digests(db, queries):
            print(line)
            lines += 1
    spent = time.process_time() - started
    print(f"{lines} packs, {spent:.1f} s CPU", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
