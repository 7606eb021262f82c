"""Opening a store: a location (a SQLite file path or a ``postgresql://`` URL) becomes the
``storage.base.Backend`` that serves it, chosen here once (``open_backend``).

The SQLite side (plain ``sqlite3`` or SQLCipher for an encrypted store, read-only opens, the
location checks) is ``storage.sqlite.db``'s; the PostgreSQL side (and psycopg) is imported only
for a URL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zeromem_cli.errors import StoreError
from zeromem_cli.storage.sqlite import db as _sqlite

if TYPE_CHECKING:
    from zeromem_cli.keys import Key
    from zeromem_cli.storage.base import Backend


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


def open_backend(
    location: str | Path,
    notice: Callable[[str], None] | None = None,
    *,
    key: Key | None = None,
    read_only: bool = False,
) -> Backend:
    """The backend of the store at ``location``, its schema and index brought up to date;
    ``read_only``: never written (SQLite ``mode=ro``; PostgreSQL read-only transactions), and a
    schema that needs an upgrade is refused rather than upgraded."""
    if is_url(location):
        return _open_server(str(location), notice, key=key, read_only=read_only)
    from zeromem_cli.storage.sqlite import schema
    from zeromem_cli.storage.sqlite.backend import SqliteBackend

    path = Path(location)
    conn = _sqlite.connect(path, key, read_only=read_only)
    try:
        if read_only:
            _sqlite.retry_busy(lambda: schema.check_current(conn, path))
        else:
            # Opening races other processes creating or checkpointing the same file:
            # retried while SQLite reports busy without waiting (see db.retry_busy).
            if not _sqlite.retry_busy(lambda: schema.is_current(conn)):
                from zeromem_cli.storage.sqlite import fts, migrations

                _sqlite.retry_busy(lambda: migrations.migrate(conn, notice))
                _sqlite.retry_busy(lambda: fts.ensure_index_version(conn, path, notice))
            _sqlite.remove_stale_copy(path.expanduser())
    except _sqlite.ERRORS as exc:
        conn.close()
        raise _sqlite.map_error(exc, path) from None
    except BaseException:
        conn.close()
        raise
    return SqliteBackend(conn, path)


def open_empty() -> Backend:
    """An empty store in memory (schema and index current), nothing written to disk."""
    from zeromem_cli.storage.sqlite import fts, migrations
    from zeromem_cli.storage.sqlite.backend import SqliteBackend

    conn = _sqlite.connect_empty()
    migrations.migrate(conn)
    fts.ensure_index_version(conn, Path(":memory:"))
    return SqliteBackend(conn, Path(":memory:"))


def is_missing(location: str | Path) -> bool:
    """No database at ``location`` yet (a server store is there or not: never missing); a
    location zeromem does not serve is refused here, as on opening."""
    if is_url(location):
        return False
    _sqlite.check_location(location)
    return not Path(location).expanduser().exists()


class MissingStore:
    """The backend of a store that is not there: its first use raises ``error`` (closing it
    does nothing; it has no team member). A command checks its own arguments first, so a
    usage error is still reported as one, and nothing is created."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def close(self) -> None:
        return None

    def member_user(self) -> str | None:
        return None

    def __getattr__(self, name: str) -> Any:
        raise self.error


def _open_server(
    url: str, notice: Callable[[str], None] | None, *, key: Key | None, read_only: bool
) -> Backend:
    """A PostgreSQL store. Encryption at rest is the SQLite file's (SQLCipher): a key given
    for a server store is refused rather than silently ignored."""
    from zeromem_cli.storage.postgres import db as pg
    from zeromem_cli.storage.postgres import fts as pg_fts
    from zeromem_cli.storage.postgres import migrations as pg_migrations
    from zeromem_cli.storage.postgres.backend import PostgresBackend

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
    return PostgresBackend(conn, pg.display(url))
