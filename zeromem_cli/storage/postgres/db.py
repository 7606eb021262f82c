"""The PostgreSQL connection: URL handling (a password is never shown), the driver loaded only
for such a URL, rows that read like ``sqlite3.Row``, transactions and error mapping.

The connection is in autocommit mode and every write is one ``conn.transaction()`` block (nested
blocks become savepoints, as on SQLite). psycopg 3 is the optional extra ``zeromem[postgres]``;
without it a PostgreSQL URL fails with one line naming the extra.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from zeromem_cli.errors import InvalidInputError, StoreError

T = TypeVar("T")
SCHEMES = ("postgres", "postgresql")
_URL = re.compile(r"(?i)^(postgres|postgresql)://")
# How long a statement waits for a row lock another writer holds before it gives up.
LOCK_TIMEOUT_MS = 30_000
# At least this much memory per sort or bitmap (the server's default is 4 MB): a search whose
# words have prefix variants gathers every match of each into a bitmap, and on a million
# memories a 4 MB bitmap turns lossy, so every row of those pages is tested again (a pack's
# feedback search: 1.6 s against 0.9 s with 16 MB). A larger setting of the server's is kept.
WORK_MEM_KIB = 16 * 1024


def is_url(location: object) -> bool:
    return isinstance(location, str) and _URL.match(location) is not None


# scheme://user:password@host...: the password is what lies between the first ":" of the
# userinfo and its "@" (the userinfo itself holds no "/", "?" or "#").
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)([^@/?#]*)@")
_PASSWORD_PARAMETER = re.compile(r"(?i)([?&]password=)[^&#]*")


def _password(url: str) -> str | None:
    match = _USERINFO.match(url)
    if match is None or ":" not in match.group(2):
        return None
    return match.group(2).split(":", 1)[1] or None


def display(url: str) -> str:
    """``url`` as it may be shown: any password replaced by ``***`` (in the userinfo and in a
    ``password=`` query parameter)."""

    def masked(match: re.Match[str]) -> str:
        user, colon, _ = match.group(2).partition(":")
        return f"{match.group(1)}{user}{':***' if colon else ''}@"

    return _PASSWORD_PARAMETER.sub(r"\1***", _USERINFO.sub(masked, url, count=1))


class Row(dict[str, Any]):
    """A row by column name, and by position like ``sqlite3.Row`` (``row[0]``).

    A name is a plain dict lookup; a position is not a key, so it reaches ``__missing__``
    (overriding ``__getitem__`` instead put a Python call in every column read: a pack reads
    hundreds of thousands)."""

    __slots__ = ()

    def __missing__(self, key: Any) -> Any:
        if isinstance(key, int):
            return list(self.values())[key]
        raise KeyError(key)


def _row_factory(cursor: Any) -> Callable[[Sequence[Any]], Row]:
    names = [c.name for c in cursor.description] if cursor.description else []

    def make(values: Sequence[Any]) -> Row:
        return Row(zip(names, values, strict=True))

    return make


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise StoreError(
            "PostgreSQL stores need the driver: pip install 'zeromem[postgres]'"
        ) from None
    return psycopg


def connect(url: str) -> Any:
    """An autocommit connection with ``Row`` rows; StoreError (password masked) if it fails."""
    psycopg = _driver()
    try:
        conn = psycopg.connect(url, autocommit=True, row_factory=_row_factory)
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to {display(url)}: {_first_line(exc, url)}") from None
    except psycopg.ProgrammingError as exc:  # a malformed URL
        raise StoreError(
            f"invalid PostgreSQL URL {display(url)}: {_first_line(exc, url)}"
        ) from None
    conn.execute(
        f"SELECT set_config('lock_timeout', '{LOCK_TIMEOUT_MS}', false), CASE WHEN "
        f"pg_size_bytes(current_setting('work_mem')) < {WORK_MEM_KIB * 1024} "
        f"THEN set_config('work_mem', '{WORK_MEM_KIB}kB', false) END"
    )
    return conn


def _first_line(exc: BaseException, url: str = "") -> str:
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    secrets = [_password(url)] if url else []
    secrets += [m.group(0).split("=", 1)[1] for m in _PASSWORD_PARAMETER.finditer(url)]
    for secret in filter(None, secrets):
        text = text.replace(secret, "***")
    return text


def is_driver_error(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("psycopg")


def map_error(exc: BaseException, where: str) -> StoreError | InvalidInputError:
    """A psycopg exception as one line the user can act on."""
    state = getattr(exc, "sqlstate", None) or ""
    text = _first_line(exc)
    if state == "42501" or "permission denied" in text or "row-level security" in text:
        return StoreError(f"permission denied on {where}: {text}")
    if state == "25006":  # a store opened read_only=True: its session is read-only
        return StoreError(f"cannot write {where}: the store was opened read-only")
    if state in ("40P01", "40001"):
        return StoreError(f"concurrent writes conflicted on {where} ({text}); try again")
    if state == "55P03":
        return StoreError(f"a row is locked by another writer on {where} (waited); try again")
    if state.startswith("08") or "connection" in text.lower() and "closed" in text.lower():
        return StoreError(f"lost the connection to {where}: {text}")
    if state == "53100":
        return StoreError(f"cannot write {where}: the database server's disk is full")
    return StoreError(f"database error on {where}: {text}")


@contextmanager
def mapped_errors(where: str) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        if is_driver_error(exc):
            raise map_error(exc, where) from None
        raise


def read(conn: Any, where: str, action: Callable[[Any], T]) -> T:
    """``action(conn)`` with its errors mapped (PostgreSQL readers never wait for writers)."""
    with mapped_errors(where):
        return action(conn)


@contextmanager
def transaction(conn: Any, where: str) -> Iterator[Any]:
    """One transaction; nested use becomes a savepoint (psycopg's ``transaction()``)."""
    try:
        with conn.transaction():
            yield conn
    except Exception as exc:
        if is_driver_error(exc):
            raise map_error(exc, where) from None
        raise


@contextmanager
def best_effort_writes(conn: Any, lock_wait_ms: int) -> Iterator[None]:
    """The operations log: its commit is not waited for on disk (``synchronous_commit``)."""
    conn.execute("SET synchronous_commit = off")
    try:
        yield
    finally:
        conn.execute("SET synchronous_commit = on")


@contextmanager
def page_cache(conn: Any, kib: int) -> Iterator[None]:
    """SQLite's page cache has no counterpart here: the server's shared buffers serve it."""
    yield
