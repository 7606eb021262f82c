"""The SQLCipher driver (the optional ``zeromem[encryption]`` extra): loaded only for an
encrypted store, never on a plain one.

A store written by an older SQLCipher (3.x defaults: SHA1, 64k KDF iterations, 1 KiB pages)
is opened too: the current defaults are tried first, then each older compatibility level.
A wrong key and a file that is not a store look alike to SQLCipher; both get one line that
names neither the key nor its text.
"""

from __future__ import annotations

import sqlite3
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from zeromem_cli.errors import StoreError

if TYPE_CHECKING:
    from zeromem_cli.keys import Key

# No memory map on an encrypted file (pages must be decrypted), so a larger page cache keeps
# decrypted pages instead: allocated only as pages are read (``python -m benchmarks.encryption``).
CACHE_KIB = 65536
INSTALL_HINT = "encryption needs the SQLCipher driver: pip install 'zeromem[encryption]'"
# SQLCipher major versions whose defaults an existing file may use, newest first.
COMPATIBILITY = (4, 3, 2, 1)


def driver() -> ModuleType:
    """``sqlcipher3.dbapi2``, its exceptions registered with ``storage.db``."""
    try:
        from sqlcipher3 import dbapi2
    except ImportError:
        raise StoreError(INSTALL_HINT) from None
    from zeromem_cli.storage import db

    db.register_driver_errors(dbapi2.Error, dbapi2.OperationalError, dbapi2.IntegrityError)
    return dbapi2


def raw_connect(path: Path | str, timeout: float) -> Any:
    """A SQLCipher connection configured like ``db.connect``'s, no key applied yet."""
    dbapi2 = driver()
    conn = dbapi2.connect(str(path), timeout=timeout, isolation_level=None, check_same_thread=False)
    conn.row_factory = dbapi2.Row
    return conn


def open_encrypted(path: Path, key: Key, timeout: float) -> sqlite3.Connection:
    """A connection to the encrypted store at ``path`` (or a new, empty one), keyed."""
    from zeromem_cli.storage import db

    new = path.stat().st_size == 0
    for level in COMPATIBILITY[:1] if new else COMPATIBILITY:
        conn = raw_connect(path, timeout)
        try:
            apply_key(conn, key, level)
            db.retry_busy(partial(_first_read, conn))
            conn.execute(f"PRAGMA cache_size = {-CACHE_KIB}")
            return conn
        except db.ERRORS as exc:
            conn.close()
            lowered = str(exc).lower()
            if "not a database" not in lowered and "encrypted" not in lowered:
                raise db.map_error(exc, path) from None
    raise StoreError(f"wrong key for {path}, or not a zeromem store ({db.ENCRYPTED_HINT})")


def _first_read(conn: Any) -> None:
    """The first page read: where a wrong key or compatibility level shows."""
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()


def apply_key(conn: Any, key: Key, level: int = COMPATIBILITY[0]) -> None:
    """``PRAGMA key`` (must be the first statement on the connection) and the compatibility
    level of the SQLCipher version that wrote the file."""
    conn.execute("PRAGMA cipher_log_level = NONE")  # its own stderr lines: we say it in one
    conn.execute(f"PRAGMA key = {key.pragma_literal()}")
    if level != COMPATIBILITY[0]:
        conn.execute(f"PRAGMA cipher_compatibility = {int(level)}")
