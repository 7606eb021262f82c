"""The PostgreSQL backend: a shared store on a database server (``--db postgresql://...``).

Storage model: the tables of ``storage.sqlite`` with the same columns and value forms (so
rows read the same), in the connection's schema; the search index is a ``tsvector`` column of
each row (the FTS5 tokens of its index text, ``index``) with a GIN index, and BM25 is rebuilt
from term statistics (``candidates``). Every write is one transaction (``db``); migrations are
numbered (``migrations``), row-level security keeps the members of a team store apart
(``migrations.m002_row_security``, ``admin``). Loaded only for a PostgreSQL URL, with psycopg.
"""
