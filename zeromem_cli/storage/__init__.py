"""Storage: the only place zeromem writes SQL.

Storage model: one row per memory in ``memories`` (soft-deleted rows keep ``deleted_at``),
every earlier version in ``memory_history``, and a contentless FTS5 table ``memories_fts``
whose rowid is the memory id. The index holds segmented text (``text.normalize.index_text``),
computed in Python on every write, so there are no triggers: each write is one ``BEGIN
IMMEDIATE`` transaction that changes the row, its history and its index together.

Every statement lives in a module of this package behind a named function that takes a
connection: ``db`` (connections, transactions, busy retry, error mapping), ``migrations``,
``fts``, ``uids``, ``window``, ``sql`` (the scope and filter clauses), ``memories`` (rows <->
records, one memory's reads, writes and versions), ``candidates`` (BM25 ranking and probes),
``bulk`` (forget/gc batches, purge, maintenance, stats counts, import) and ``oplog``. The
policy modules above (store, writes, search, pack, lifecycle, stats, oplog, transfer) never
write or run SQL themselves (``tests/system/test_sql_boundary.py`` fails when they do).
"""
