"""Which schema and search-index version a SQLite store is at, read on every open.

A store written by this version is current, and opening it runs two reads; the steps that
upgrade an older one (``migrations``, ``fts``) are imported only when one is needed, not on
every start of a command (``python -m benchmarks.startup_compare --callgrind``).
"""

from __future__ import annotations

import sqlite3

from zeromem_cli.errors import SchemaError
from zeromem_cli.text.normalize import INDEX_VERSION

# The number of steps in ``migrations.MIGRATIONS`` (tests/system/test_migrations.py checks it):
# a new step raises it.
LATEST_VERSION = 11


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def check_not_newer(version: int) -> None:
    if version > LATEST_VERSION:
        raise SchemaError(
            f"database schema version {version} is newer than this zeromem understands "
            f"({LATEST_VERSION}); upgrade zeromem"
        )


def index_version(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT value FROM store_meta WHERE key = 'index_version'").fetchone()
    return None if row is None else int(row[0])


def is_current(conn: sqlite3.Connection) -> bool:
    """Schema and search index are this version's: nothing to upgrade. A store newer than
    this zeromem is refused (``SchemaError``)."""
    version = schema_version(conn)
    check_not_newer(version)
    return version == LATEST_VERSION and index_version(conn) == INDEX_VERSION


def check_current(conn: sqlite3.Connection, path: object) -> None:
    """A read-only open: the schema and the search index must already be this version's,
    since neither can be upgraded without writing."""
    if not is_current(conn):
        raise SchemaError(
            f"{path} is read-only and was written by an older zeromem: open it once where it "
            "can be written, to upgrade it"
        )
