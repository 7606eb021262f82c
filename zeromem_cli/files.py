"""Writing a file zeromem owns or was told to write (export -o, the config file, hook state,
the harness settings ``setup`` merges into): one rule for all of them.

A regular file (or a new path) is replaced atomically: a temporary file in the same folder,
flushed to disk, then renamed over it, so a reader sees the old file or the whole new one,
never half of it. A symlink to a regular file replaces the file it points at (the link, say
into a dotfiles repository, stays). Anything that is not a regular file (/dev/stdout, a FIFO,
a device, /dev/fd/N, /proc/self/fd/N, a symlink to one of them) is written straight through:
renaming over it would replace a device every process uses with a plain file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from zeromem_cli.errors import InvalidInputError, StoreError

PRIVATE = 0o600


def write_file(path: Path, write: Callable[[IO[str]], object], *, mode: int = PRIVATE) -> None:
    """Give ``path`` the text ``write(handle)`` writes, by the rule above. ``mode``: the
    permissions of the file written (a device or FIFO keeps its own). An environment failure
    (full disk, read-only folder) is a ``StoreError`` naming the path and the cause."""
    try:
        existing = path.stat().st_mode  # follows symlinks
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
    if existing is not None and (not stat.S_ISREG(existing) or _names_a_descriptor(path)):
        _write_through(path, write)
        return
    path = Path(os.path.realpath(path)) if path.is_symlink() else path
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if mode != PRIVATE:  # mkstemp made it 0600
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(exc, OSError):  # a full disk, a quota: the cause in one line
            raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def is_regular(path: Path) -> bool:
    """``path`` is (or links to) a regular file that ``write_file`` would replace: what may be
    copied to a backup first."""
    try:
        return stat.S_ISREG(path.stat().st_mode) and not _names_a_descriptor(path)
    except OSError:
        return False


def _names_a_descriptor(path: Path) -> bool:
    """True when ``path`` or a symlink it goes through is under /dev or /proc (/dev/stdout,
    /proc/self/fd/1): an open descriptor of this process, even when that is a regular file
    (``-o /dev/stdout >> log``), so it is written through, never renamed over."""
    current = os.path.abspath(path)
    for _ in range(40):
        if current.startswith(("/dev/", "/proc/")):
            return True
        if not os.path.islink(current):
            return False
        target = os.readlink(current)
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return False


def _write_through(path: Path, write: Callable[[IO[str]], object]) -> None:
    """Write to an existing non-regular file as it is (no temporary file, no rename).
    Opened to append: a descriptor's file was already truncated or not by whoever opened it
    (``> out`` or ``>> out``); for a device or a FIFO the two are the same."""
    try:
        with open(path, "a", encoding="utf-8", newline="") as handle:
            write(handle)
    except IsADirectoryError:
        raise InvalidInputError(f"{path} is a directory") from None
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
