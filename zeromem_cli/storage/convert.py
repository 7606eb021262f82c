"""Encrypt, decrypt or rekey a store file, atomically: copy, check, swap.

1. The store must be used by no other process (on Linux, /proc tells which have the file, its
   -wal or -shm open; an idle connection holds no lock SQLite could report). Its WAL is
   checkpointed, the file switched to rollback journalling, then locked exclusively for the
   rest of the run, so no write can slip in and be lost.
2. ``sqlcipher_export`` writes a copy beside it (``NAME.zeromem-convert``, 0600) under the new
   key (or none).
3. The copy is checked on its own connection: ``PRAGMA integrity_check``, the row count of
   every table, and one full-text search returning the same rows as the original.
4. ``os.replace`` swaps it in (one rename: a kill at any moment leaves the old file or the new
   one), then the directory is synced and the old file's first page overwritten: a process
   that opened it meanwhile and waits for the lock gets "not a database", not a write into a
   file no longer there.

A kill before step 4 leaves the old store whole (in rollback-journal mode, which the next open
turns back to WAL) and a stale copy (0600) that the next open of the store, or the next run,
removes: after ``decrypt`` it holds the memories in plain text.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from zeromem_cli.errors import StoreError
from zeromem_cli.storage import cipher
from zeromem_cli.storage.sqlite import db

if TYPE_CHECKING:
    from zeromem_cli.keys import Key

IN_USE_WAIT_SECONDS = 2.0
SUFFIX = db.CONVERT_SUFFIX
# Tests stop a run at a named step (then SIGKILL it) to prove each interruption is safe.
STOP_ENV = "ZEROMEM_TEST_CONVERT_STOP"


class Converted(NamedTuple):
    rows: int
    tables: int


def convert(path: Path, old: Key | None, new: Key | None) -> Converted:
    """Rewrite the store at ``path`` from key ``old`` (None: plain) to ``new`` (None: plain)."""
    path = path.expanduser()
    copy = path.with_name(path.name + SUFFIX)
    journal = copy.with_name(copy.name + "-journal")
    _refuse_if_in_use(path)
    source = _open(path, old, IN_USE_WAIT_SECONDS)
    old_file = os.open(path, os.O_RDWR)
    try:
        with db.mapped_errors(path):
            _take_alone(source, path)
            _stop_point("locked")
            _remove(copy)
            _remove(journal)
            fd = os.open(copy, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            os.close(fd)
            literal = new.pragma_literal() if new is not None else "''"  # '': plain
            source.execute(f"ATTACH DATABASE ? AS converted KEY {literal}", (str(copy),))
            if new is not None:
                cipher.own_settings(source, "converted")
            source.execute("SELECT sqlcipher_export('converted')")
            version = int(source.execute("PRAGMA main.user_version").fetchone()[0])
            source.execute(f"PRAGMA converted.user_version = {version}")
            source.execute("DETACH DATABASE converted")
            _stop_point("exported")
            counts = _table_counts(source)
            probe = _search_probe(source)
        checked = _open(copy, new, db.BUSY_TIMEOUT_SECONDS)
        try:
            with db.mapped_errors(copy):
                _verify(checked, copy, counts, probe)
        finally:
            checked.close()
        _stop_point("verified")
        _fsync(copy)
        os.replace(copy, path)
        _fsync(path.parent)
        _stop_point("swapped")
        os.pwrite(old_file, bytes(4096), 0)
    except BaseException:
        for unfinished in (copy, journal):  # a failed copy holds no disk space (a full disk)
            _remove(unfinished)
        raise
    finally:
        os.close(old_file)
        source.close()
    return Converted(rows=sum(counts.values()), tables=len(counts))


def _open(path: Path, key: Key | None, timeout: float) -> Any:
    if key is not None:
        return cipher.open_encrypted(path, key, timeout)
    return cipher.raw_connect(path, timeout)


def _take_alone(conn: Any, path: Path) -> None:
    """Checkpoint, leave WAL and hold an exclusive lock until the connection closes."""
    busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    mode = None
    if not busy:
        try:
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        except db.OPERATIONAL:
            mode = None
    if mode != "delete":
        raise _in_use(path)
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("COMMIT")


def _in_use(path: Path, pids: list[int] | None = None) -> StoreError:
    who = f" by another process ({', '.join(map(str, pids))})" if pids else ""
    return StoreError(
        f"{path} is in use{who}: stop it (a running `zeromem mcp`, hook or "
        "script?) and try again; nothing was changed"
    )


def _refuse_if_in_use(path: Path) -> None:
    """Refuse while any process, this one included, has the store's files open (Linux only:
    elsewhere the journal-mode switch in ``_take_alone`` is the only check)."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return
    targets = set()
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            info = name.stat()
        except OSError:
            continue
        targets.add((info.st_dev, info.st_ino))
    pids: list[int] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue  # gone, or another user's (which cannot open our 0600 file anyway)
        for fd in fds:
            try:
                info = fd.stat()
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in targets:
                pids.append(int(entry.name))
                break
    if pids:
        raise _in_use(path, sorted(pids))


def _table_counts(conn: Any) -> dict[str, int]:
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"
        )
    ]
    return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}


def _search_probe(conn: Any) -> tuple[str, list[int]] | None:
    """One indexed term and the rows a full-text search for it returns (None: empty index)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'memories_fts'").fetchone():
        return None
    conn.execute("CREATE VIRTUAL TABLE temp.zeromem_vocab USING fts5vocab(main, memories_fts, row)")
    try:
        row = conn.execute("SELECT term FROM temp.zeromem_vocab LIMIT 1").fetchone()
    finally:
        conn.execute("DROP TABLE temp.zeromem_vocab")
    if row is None:
        return None
    query = '"' + str(row[0]).replace('"', '""') + '"'
    return query, _search(conn, query)


def _search(conn: Any, query: str) -> list[int]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid", (query,)
        )
    ]


def _verify(
    conn: Any, path: Path, counts: dict[str, int], probe: tuple[str, list[int]] | None
) -> None:
    result = conn.execute("PRAGMA integrity_check").fetchone()[0]
    if result != "ok":
        raise StoreError(f"the converted copy {path} failed its integrity check; nothing changed")
    if _table_counts(conn) != counts:
        raise StoreError(f"the converted copy {path} lost rows; nothing was changed")
    if probe is not None and _search(conn, probe[0]) != probe[1]:
        raise StoreError(f"the converted copy {path} searches differently; nothing was changed")


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _stop_point(step: str) -> None:
    if os.environ.get(STOP_ENV) == step:
        print(f"zeromem: stopped at {step}", file=sys.stderr, flush=True)
        time.sleep(600)
