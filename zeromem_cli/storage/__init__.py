"""Storage: the only place zeromem writes SQL.

Storage model: one row per memory in ``memories`` (soft-deleted rows keep ``deleted_at``),
every earlier version in ``memory_history``, and a contentless FTS5 table ``memories_fts``
whose rowid is the memory id. The index holds segmented text (``text.normalize.index_text``),
computed in Python on every write, so there are no triggers: each write is one ``BEGIN
IMMEDIATE`` transaction that changes the row, its history and its index together.

Every statement lives behind the ``Backend`` interface (``base``), chosen once when a store opens
(``db.open_backend``): ``sqlite/`` (FTS5) and ``postgres/`` (tsvector) implement it, each in
modules by concern (``db``, ``migrations``, ``fts``, ``memories``, ``candidates``, ``bulk``,
``oplog``, ``sql``). Search hands it a structured query (``query``: term groups, match mode,
scope, filters, pool) that each backend compiles itself; ``records`` turns rows into records
for both. The policy modules above (store, writes, versions, search, pack, lifecycle, stats,
oplog, transfer) never write or run SQL themselves (``tests/system/test_sql_boundary.py`` fails
when they do) and never import a backend's modules (``tests/system/test_backends.py``).
"""
