"""The interface between the storage backends, drawn from what the policy modules call.

The policy modules (store, writes, search, pack, lifecycle, stats, oplog, transfer) call named
functions of ``storage.memories``, ``storage.candidates``, ``storage.bulk``, ``storage.fts``,
``storage.oplog`` and ``storage.db``, each taking the connection first. Those modules are this
interface: each function is ``forwarded`` to the module of the same name in
``storage/sqlite/`` or ``storage/postgres/``, chosen by the connection's type, with the
SQLite function's signature (``tests/system/test_backends.py`` checks the PostgreSQL modules
define every one of them, with the same parameters). A SQLite connection (sqlite3, or
SQLCipher's for an encrypted store) goes straight to the SQLite function; the PostgreSQL
modules (and psycopg) are imported on first use only.

Pure helpers (records from rows, the FTS5 expression check, constants) are the SQLite
modules' own and re-exported as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

# module -> names forwarded (what a backend must implement)
INTERFACE: dict[str, list[str]] = {}


def is_postgres(conn: object) -> bool:
    """A psycopg connection (anything else is SQLite's: ``sqlite3`` or, for an encrypted
    store, SQLCipher's ``sqlcipher3`` connection class)."""
    return type(conn).__module__.startswith("psycopg")


def forwarded(module: str, sqlite_function: F) -> F:
    """``sqlite_function`` for a SQLite connection, else ``storage.postgres.<module>``'s
    function of the same name."""
    name = sqlite_function.__name__
    target = f"zeromem_cli.storage.postgres.{module}"
    INTERFACE.setdefault(module, []).append(name)

    def call(conn: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_postgres(conn):
            return sqlite_function(conn, *args, **kwargs)
        return getattr(import_module(target), name)(conn, *args, **kwargs)

    call.__name__ = name
    call.__qualname__ = name
    call.__doc__ = sqlite_function.__doc__
    call.__wrapped__ = sqlite_function  # type: ignore[attr-defined]
    return cast(F, call)
