"""Connections (interface; see ``storage.backend``): opening a store at a location (a SQLite
file path or a ``postgresql://`` URL), reads, transactions and error mapping for either.

The SQLite side (plain ``sqlite3`` or SQLCipher for an encrypted store, read-only opens, the
location checks) is ``storage.sqlite.db``'s; its ``ERRORS`` grow when SQLCipher loads, so they
are read from there at the moment an exception is caught, never copied here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from zeromem_cli.errors import StoreError
from zeromem_cli.storage.backend import forwarded, is_postgres
from zeromem_cli.storage.sqlite import db as _sqlite

if TYPE_CHECKING:
    from zeromem_cli.keys import Key

T = TypeVar("T")
BUSY_TIMEOUT_SECONDS = _sqlite.BUSY_TIMEOUT_SECONDS


def is_url(location: object) -> bool:
    """A ``postgresql://`` (or ``postgres://``) URL, as text."""
    text = str(location)
    return text[:11].lower() == "postgresql:" or text[:9].lower() == "postgres:"


def location(given: str | Path) -> str | Path:
    """A store location as given: a URL as text, anything else as a path. A URL that went
    through ``Path`` lost a "/" of its "//" and is refused rather than guessed back."""
    if not is_url(given):
        return Path(given)
    if isinstance(given, Path) or "://" not in given:
        raise StoreError(f"{display(str(given))} is not a valid URL: give postgresql://...")
    return given


def display(location: str | Path) -> str:
    """How a location is named in messages: a URL with any password masked."""
    if is_url(location):
        from zeromem_cli.storage.postgres.db import display as masked

        return masked(str(location))
    return str(location)


def can_write(location: str | Path) -> bool:
    """Whether this process can write the store: a file's permissions (``storage.sqlite.db``);
    a server store counts as writable, its grants decide at the first write."""
    if is_url(location):
        return True
    return _sqlite.can_write(Path(location))


def open_store(
    location: str | Path,
    notice: Callable[[str], None] | None = None,
    *,
    key: Key | None = None,
    read_only: bool = False,
) -> Any:
    """A connection to the store at ``location``, its schema and index brought up to date;
    ``read_only``: never written (SQLite ``mode=ro``; PostgreSQL read-only transactions), and a
    schema that needs an upgrade is refused rather than upgraded."""
    if is_url(location):
        return _open_server(str(location), notice, key=key, read_only=read_only)
    from zeromem_cli.storage.sqlite import fts, migrations

    path = Path(location)
    conn = _sqlite.connect(path, key, read_only=read_only)
    try:
        if read_only:
            _sqlite.retry_busy(lambda: migrations.check_current(conn, path))
        else:
            # Opening races other processes creating or checkpointing the same file:
            # retried while SQLite reports busy without waiting (see db.retry_busy).
            _sqlite.retry_busy(lambda: migrations.migrate(conn, notice))
            _sqlite.retry_busy(lambda: fts.ensure_index_version(conn, path, notice))
            _sqlite.remove_stale_copy(path.expanduser())
    except _sqlite.ERRORS as exc:
        conn.close()
        raise _sqlite.map_error(exc, path) from None
    except BaseException:
        conn.close()
        raise
    return conn


def open_empty() -> Any:
    """An empty store in memory (schema and index current), nothing written to disk."""
    from zeromem_cli.storage.sqlite import fts, migrations

    conn = _sqlite.connect_empty()
    migrations.migrate(conn)
    fts.ensure_index_version(conn, Path(":memory:"))
    return conn


def is_missing(location: str | Path) -> bool:
    """No database at ``location`` yet (a server store is there or not: never missing); a
    location zeromem does not serve is refused here, as on opening."""
    if is_url(location):
        return False
    _sqlite.check_location(location)
    return not Path(location).expanduser().exists()


class MissingStore:
    """The connection of a store that is not there: its first statement raises ``error``
    (closing it does nothing). A command checks its own arguments first, so a usage error
    is still reported as one, and nothing is created."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def close(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        raise self.error


def _open_server(
    url: str, notice: Callable[[str], None] | None, *, key: Key | None, read_only: bool
) -> Any:
    """A PostgreSQL store. Encryption at rest is the SQLite file's (SQLCipher): a key given
    for a server store is refused rather than silently ignored."""
    from zeromem_cli.storage.postgres import db as pg
    from zeromem_cli.storage.postgres import fts as pg_fts
    from zeromem_cli.storage.postgres import migrations as pg_migrations

    if key is not None:
        raise StoreError(
            f"a key is configured ({key.source}), but {pg.display(url)} is a PostgreSQL store: "
            "encryption at rest is for SQLite files (the server's own encryption covers a "
            "server store); unset the key"
        )
    conn = pg.connect(url)
    try:
        with pg.mapped_errors(pg.display(url)):
            if read_only:
                pg_migrations.check_current(conn, pg.display(url))
                conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            else:
                pg_migrations.migrate(conn, notice)
                pg_fts.ensure_index_version(conn, pg.display(url), notice)
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def mapped_errors(path: Path | str) -> Iterator[None]:
    """Inside the block, a database exception (either driver) becomes a ``StoreError``."""
    try:
        yield
    except _sqlite.ERRORS as exc:
        raise _sqlite.map_error(exc, path) from None
    except Exception as exc:
        if type(exc).__module__.startswith("psycopg"):
            from zeromem_cli.storage.postgres.db import map_error

            raise map_error(exc, display(path)) from None
        raise


def read(conn: Any, path: Path | str, action: Callable[[Any], T]) -> T:
    """``action(conn)`` as a read runs: retried while SQLite is busy, errors mapped."""
    if not is_postgres(conn):
        return _sqlite.read(conn, path, action)
    from zeromem_cli.storage.postgres import db as pg

    return pg.read(conn, display(path), action)


def transaction(conn: Any, path: Path | str) -> AbstractContextManager[Any]:
    """One write transaction (nested: a savepoint)."""
    if not is_postgres(conn):
        return _sqlite.transaction(conn, path)
    from zeromem_cli.storage.postgres import db as pg

    return pg.transaction(conn, display(path))


best_effort_writes = forwarded("db", _sqlite.best_effort_writes)
page_cache = forwarded("db", _sqlite.page_cache)


def member_user(conn: Any) -> str | None:
    """A team store member's own ``user`` scope, from its connection (its PostgreSQL role);
    None for a file store and for the owner of a server store."""
    if not is_postgres(conn):
        return None
    from zeromem_cli.storage.postgres.admin import member_user as role_of

    return role_of(conn)
