"""The SQLCipher driver (the optional ``zeromem[encryption]`` extra): loaded only for an
encrypted store, never on a plain one.

zeromem's own stores use SQLCipher 4's settings but for the page HMAC, HMAC-SHA256 instead of
HMAC-SHA512: the same integrity check, at about half the CPU per page read on processors with
SHA instructions (every page a cold command reads is verified; ``python -m benchmarks.encryption``).
A store with SQLCipher's own defaults (4.x, or an older version's: 3.x's SHA1, 64k KDF
iterations, 1 KiB pages) is opened too: zeromem's settings are tried first, then each
compatibility level, newest first (so such a store, opened with a passphrase, runs PBKDF2
twice; ``zeromem rekey`` rewrites it in zeromem's settings).

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
HMAC_ALGORITHM = "HMAC_SHA256"
# The settings an existing file may use: zeromem's (0), then SQLCipher major versions' defaults,
# newest first. A new store gets zeromem's.
OWN_SETTINGS = 0
COMPATIBILITY = (OWN_SETTINGS, 4, 3, 2, 1)


def driver() -> ModuleType:
    """``sqlcipher3.dbapi2``, its exceptions registered with ``storage.db``."""
    try:
        from sqlcipher3 import dbapi2
    except ImportError:
        raise StoreError(INSTALL_HINT) from None
    from zeromem_cli.storage.sqlite import db

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
    from zeromem_cli.storage.sqlite import db

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


def apply_key(conn: Any, key: Key, level: int = OWN_SETTINGS) -> None:
    """``PRAGMA key`` (must be the first statement on the connection) and the settings of
    whoever wrote the file: zeromem's, or a SQLCipher major version's defaults."""
    conn.execute("PRAGMA cipher_log_level = NONE")  # its own stderr lines: we say it in one
    conn.execute(f"PRAGMA key = {key.pragma_literal()}")
    if level == OWN_SETTINGS:
        own_settings(conn, "main")
    else:
        conn.execute(f"PRAGMA cipher_compatibility = {int(level)}")


def own_settings(conn: Any, schema: str) -> None:
    """zeromem's SQLCipher settings on the keyed database ``schema`` (``main``, or a copy
    being written through ATTACH), before its first page is read or written."""
    conn.execute(f"PRAGMA {schema}.cipher_hmac_algorithm = {HMAC_ALGORITHM}")
