"""The connection: opening the SQLite file safely, its pragmas, transactions, busy retry and
error mapping.

A path that is a directory, a file that is not SQLite, or a location we cannot write is reported
before SQLite writes anything, so a mistaken ``--db`` never damages the file it points at.

The driver is chosen here: the standard ``sqlite3`` for a plain store; SQLCipher
(``storage.cipher``, the optional ``zeromem[encryption]`` extra) only for an encrypted one, or a
new store when a key is configured. Code elsewhere catches ``db.ERRORS`` / ``db.INTEGRITY``
rather than ``sqlite3.Error``: the SQLCipher driver's exceptions are its own classes, added to
those tuples when it loads.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from zeromem_cli.errors import StoreError

if TYPE_CHECKING:
    from zeromem_cli.keys import Key

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_SECONDS = 30.0
T = TypeVar("T")
ENCRYPTED_HINT = "this store is encrypted: set ZEROMEM_KEY or --key-file"

# The exception classes of every loaded driver (see the module docstring).
ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,)
OPERATIONAL: tuple[type[Exception], ...] = (sqlite3.OperationalError,)
INTEGRITY: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)


# ``postgresql://u@/db`` read as a path: Path folds "//" to "/", so the first part is "scheme:".
_URL_SCHEME = r"([A-Za-z][A-Za-z0-9+.\-]+):/"


def check_location(location: str | Path) -> None:
    """Refuse a database location zeromem does not serve, before anything is created.

    A ``scheme://`` URL is never a file path (it would become folders named ``postgresql:``
    in the current directory). A PostgreSQL URL never gets here as text: ``storage.db``
    routes it to the PostgreSQL backend; every other scheme is refused with one line.
    """
    text = str(location)
    if ":/" not in text:  # a plain path (the pattern is compiled only for a URL-like one)
        return
    match = re.match(_URL_SCHEME, text)
    if match is None:
        return
    scheme = match.group(1).lower()
    if scheme in ("postgres", "postgresql"):  # storage.db routes URLs given as text
        raise StoreError(f"{scheme}:/... as a file path lost a '/': give the URL as text")
    raise StoreError(f"{scheme}:// is not a database zeromem can open: give a SQLite file path")


def register_driver_errors(
    error: type[Exception], operational: type[Exception], integrity: type[Exception]
) -> None:
    """Make ``except db.ERRORS`` (and the others) catch another driver's exceptions too."""
    global ERRORS, OPERATIONAL, INTEGRITY
    if error not in ERRORS:
        ERRORS += (error,)
        OPERATIONAL += (operational,)
        INTEGRITY += (integrity,)


def store_state(path: Path) -> str:
    """``new`` (absent or empty), ``plain`` (SQLite) or ``encrypted`` (pages of random-looking
    bytes: what SQLCipher writes). Anything else given as ``--db`` is refused here, before a
    driver touches it."""
    check_location(path)
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a database file")
    if not path.exists():
        return "new"
    if not stat.S_ISREG(path.stat().st_mode):  # /dev/null, a FIFO, a socket: not a database
        raise StoreError(f"{path} is not a regular file: give a database file path")
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except PermissionError:
        raise StoreError(f"cannot read {path}: permission denied") from None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not header:
        return "new"
    if header == SQLITE_HEADER:
        return "plain"
    if looks_encrypted(path, header):
        return "encrypted"
    raise StoreError(f"{path} is not a SQLite database")


def looks_encrypted(path: Path, header: bytes) -> bool:
    """Whole pages (SQLCipher's are 1 KiB multiples) starting with a random salt, not zeros or
    text: most likely an encrypted store rather than some other file given as ``--db``."""
    size = path.stat().st_size
    if size < 1024 or size % 1024:
        return False
    printable = sum(32 <= byte < 127 or byte in (9, 10, 13) for byte in header)
    return header.count(0) < len(header) // 2 and printable < len(header)


def _create_private(path: Path) -> None:
    """Create the folder (0700) and an empty database file (0600) so no one else can read it."""
    try:
        if not path.parent.exists():
            # exist_ok: when several processes create a new store at once, the loser of the
            # mkdir race must still create the file itself (0600), not leave it to SQLite.
            path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
    except FileExistsError:
        pass  # another process created it first: fine
    except OSError as exc:
        raise StoreError(f"cannot create database {path}: {exc.strerror or exc}") from None


def can_write(path: Path) -> bool:
    """Whether this process can write the database as SQLite needs in WAL mode: the file, and
    its folder (the ``-wal`` and ``-shm`` files are created beside it). A missing file counts
    as writable: it is created, or its creation fails with its own message."""
    path = path.expanduser()
    if not path.exists():
        return True
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _read_only_uri(path: Path) -> str:
    """The URI of a read-only connection (``mode=ro``).

    ``immutable=1`` is added only when the folder cannot be written and no ``-wal`` file
    exists: read-only media, a snapshot, a writable file in a read-only folder (#33). A
    WAL-mode database needs its ``-shm`` file even to read, and in such a folder it cannot be
    created, so SQLite must be told that the file cannot change (no locks, no shared memory);
    with no ``-wal`` there, no WAL writer is at work on it. Were a ``-wal`` there, it would
    hold committed pages that an immutable open ignores, and a writable folder means another
    process may still write it while we read: in both cases plain ``mode=ro`` is the honest
    open.
    """
    query = "mode=ro"
    wal = path.with_name(path.name + "-wal")
    if not os.access(path.parent, os.W_OK) and not wal.exists():
        query += "&immutable=1"
    return f"{path.resolve().as_uri()}?{query}"


def connect(
    path: Path, key: Key | None = None, *, ask_keyring: bool = True, read_only: bool = False
) -> sqlite3.Connection:
    """An autocommit connection (we issue BEGIN ourselves) with WAL, busy timeout and FKs on.

    ``key`` (``keys.configured()``) opens an encrypted store or creates a new one encrypted;
    an encrypted store without it takes the OS keyring's key (when ``ask_keyring``). A plain
    store given a key is refused, never encrypted behind the user's back (``zeromem encrypt``
    does that, on purpose).

    ``read_only``: open an existing plain file ``mode=ro`` (see ``_read_only_uri``); every
    write on it fails as SQLite's "readonly database". (An encrypted store opens as usual.)"""
    path = path.expanduser()
    state = store_state(path)
    if state == "plain" and key is not None:
        raise StoreError(
            f"{path} is not encrypted, but a key is configured ({key.source}): "
            "run `zeromem encrypt` to encrypt it, or unset the key"
        )
    if key is None and ask_keyring and (state == "encrypted" or (state == "new" and not read_only)):
        # A store created while a key is in the OS keyring (`zeromem key store`) is
        # encrypted from the start, as with a key file or ZEROMEM_KEY (#33: it was created
        # in plain text).
        from zeromem_cli.keys import from_keyring

        key = from_keyring()
    if state == "encrypted" and key is None:
        raise StoreError(f"cannot open {path}: {ENCRYPTED_HINT}")
    if state == "new":
        if read_only:
            raise StoreError(f"no database at {path}")
        _create_private(path)
    if key is not None:
        from zeromem_cli.storage import cipher

        conn = cipher.open_encrypted(path, key, BUSY_TIMEOUT_SECONDS)
        try:
            retry_busy(lambda: _setup(conn))
        except ERRORS as exc:
            conn.close()
            raise map_error(exc, path) from None
        return conn
    try:
        conn = sqlite3.connect(
            _read_only_uri(path) if read_only else str(path),
            timeout=BUSY_TIMEOUT_SECONDS,
            isolation_level=None,
            check_same_thread=False,
            uri=read_only,
        )
    except ERRORS as exc:
        raise StoreError(f"cannot open database {path}: {exc}") from None
    conn.row_factory = sqlite3.Row
    try:
        retry_busy(lambda: _setup(conn, read_only))
    except ERRORS as exc:
        conn.close()
        if not read_only and not can_write(path):  # WAL could not make its -shm file
            raise StoreError(
                f"cannot write {path}: the database or its folder is read-only"
            ) from None
        raise map_error(exc, path) from None
    return conn


# The copy ``zeromem encrypt/decrypt/rekey`` writes beside the store (``storage.convert``).
CONVERT_SUFFIX = ".zeromem-convert"


def remove_stale_copy(path: Path) -> None:
    """Remove what a killed ``encrypt``/``decrypt``/``rekey`` left beside the store: after
    ``decrypt`` that copy is the memories in plain text (#33). Called once the store is open
    and migrated, which a running conversion's exclusive lock would have made wait: a copy
    still there then is stale. Best effort: a folder that cannot be written keeps it."""
    copy = path.with_name(path.name + CONVERT_SUFFIX)
    for leftover in (copy, copy.with_name(copy.name + "-journal")):
        try:
            leftover.unlink()
        except OSError:
            pass


def connect_empty() -> sqlite3.Connection:
    """An empty store in memory, nothing on disk: what a read of the default store sees
    before anything was written (a read never creates a database or its folders)."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _setup(conn: sqlite3.Connection, read_only: bool = False) -> None:
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if mode != "wal" and not read_only:  # a read-only file keeps the journal mode it has
        conn.execute("PRAGMA journal_mode=WAL")
    # FULL: a committed memory survives power loss too, not only a crashed process.
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    # Deleted rows and freed pages are overwritten with zeros, so `forget --purge` leaves
    # no copy of the text behind (many builds default to this; some do not).
    conn.execute("PRAGMA secure_delete=ON")
    # Read pages through a memory map instead of one read() each: a short-lived process (every
    # CLI call) reads hundreds of scattered pages per search (``python -m benchmarks.speed
    # --only cold`` shows the difference).
    conn.execute("PRAGMA mmap_size=268435456")


def retry_busy(action: Callable[[], T]) -> T:
    """Run ``action``, retrying while SQLite says busy, up to the busy timeout.

    The busy handler covers most waits, but not all: switching a brand-new database to WAL
    while other processes open it, or a read racing the WAL recovery or the checkpoint of the
    last connection closing, can report SQLITE_BUSY at once. Those windows are short.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    delay = 0.001
    while True:
        try:
            return action()
        except OPERATIONAL as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def map_error(exc: Exception, path: Path | str) -> StoreError:
    """Turn an sqlite3 exception into a one-line message the user can act on."""
    text = str(exc)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return StoreError(
            f"database is locked: another process is using {path} "
            f"(waited up to {BUSY_TIMEOUT_SECONDS:.0f}s); try again"
        )
    if "disk is full" in lowered:
        return StoreError(f"cannot write {path}: the database or disk is full")
    if "disk i/o error" in lowered:
        return StoreError(f"cannot use {path}: disk I/O error (is the disk full?)")
    if "readonly" in lowered or "read-only" in lowered:
        return StoreError(f"cannot write {path}: the database or its folder is read-only")
    if "vtable constructor failed" in lowered:
        return StoreError(
            f"the search index of {path} is damaged ({text}): `zeromem export` still reads "
            "every memory; export them (-o FILE) and import them into a new store"
        )
    if "not a database" in lowered or "malformed" in lowered:
        return StoreError(f"{path} is not a valid SQLite database ({text})")
    if "unable to open" in lowered:
        return StoreError(f"cannot open {path}: {text}")
    return StoreError(f"database error on {path}: {text}")


@contextmanager
def mapped_errors(path: Path | str) -> Iterator[None]:
    """Inside the block, an sqlite3 exception becomes the ``StoreError`` of ``map_error``."""
    try:
        yield
    except ERRORS as exc:
        raise map_error(exc, path) from None


def read(
    conn: sqlite3.Connection, path: Path | str, action: Callable[[sqlite3.Connection], T]
) -> T:
    """``action(conn)`` retried while SQLite is busy, its errors mapped: how a read runs."""
    with mapped_errors(path):
        return retry_busy(lambda: action(conn))


@contextmanager
def transaction(conn: sqlite3.Connection, path: Path | str) -> Iterator[sqlite3.Connection]:
    """One write transaction; BEGIN IMMEDIATE takes the write lock up front, so the busy
    timeout applies and a read never has to be upgraded mid-transaction.

    Nested use joins the outer transaction through a SAVEPOINT: undone alone if it fails,
    committed with the outer transaction otherwise.
    """
    if conn.in_transaction:
        yield from _savepoint(conn, path)
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
    except ERRORS as exc:
        raise map_error(exc, path) from None
    try:
        yield conn
        conn.execute("COMMIT")
    except ERRORS as exc:
        _rollback(conn, "ROLLBACK")
        raise map_error(exc, path) from None
    except BaseException:
        _rollback(conn, "ROLLBACK")
        raise


def _rollback(conn: sqlite3.Connection, *statements: str) -> None:
    """Undo what is still open. On a full disk or an I/O error SQLite has already rolled the
    transaction back: rolling back again would fail ("no transaction is active") and that
    error would hide the cause, so only an open transaction is rolled back, and a failing
    rollback never replaces the error being raised."""
    from zeromem_cli.storage.sqlite.vectors import rolled_back

    rolled_back(conn)  # what a cache of vectors read inside the transaction may be undone
    if not conn.in_transaction:
        return
    try:
        for statement in statements:
            conn.execute(statement)
    except ERRORS:
        pass


def _savepoint(conn: sqlite3.Connection, path: Path | str) -> Iterator[sqlite3.Connection]:
    name = "zeromem_nested"  # SQLite resolves a repeated name to the innermost one
    conn.execute(f"SAVEPOINT {name}")
    try:
        yield conn
        conn.execute(f"RELEASE {name}")
    except ERRORS as exc:
        _rollback(conn, f"ROLLBACK TO {name}", f"RELEASE {name}")
        raise map_error(exc, path) from None
    except BaseException:
        _rollback(conn, f"ROLLBACK TO {name}", f"RELEASE {name}")
        raise


@contextmanager
def best_effort_writes(conn: sqlite3.Connection, lock_wait_ms: int) -> Iterator[None]:
    """Writes that are not worth waiting or a disk flush for (the operations log): the write
    lock is waited for at most ``lock_wait_ms``, and the commit is not synced (WAL with
    synchronous=NORMAL; the checkpoint when the store closes, back under FULL, flushes it with
    everything else). The usual settings are back when the block ends."""
    conn.execute(f"PRAGMA busy_timeout = {int(lock_wait_ms)}")
    conn.execute("PRAGMA synchronous = NORMAL")
    try:
        yield
    finally:
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")


@contextmanager
def page_cache(conn: sqlite3.Connection, kib: int) -> Iterator[None]:
    """A page cache of ``kib`` KiB for the block (bulk import: many index b-tree inserts), the
    previous size restored after it."""
    before = conn.execute("PRAGMA cache_size").fetchone()[0]
    conn.execute(f"PRAGMA cache_size = {-int(kib)}")  # negative: KiB, as PRAGMA cache_size takes it
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {int(before)}")
