"""File changes as a plan: shown as a unified diff, or applied with a backup and an atomic write.

A change holds the file's text before and after (None: absent). Applying it to a user's file
first copies the existing file to ``<name>.zeromem-<UTC time>.bak`` next to it (a project's
files are under version control, and an uninstall leaves nothing behind: no backup there), then
writes the new text to a temporary file in the same folder and renames it over the old one,
keeping its permissions, so a crash leaves either the old file or the new one
(``files.write_file``: a settings file that is a symlink keeps its link, a device or FIFO is
written through, with no backup). A change to None (an uninstall that empties a file zeromem
created) removes the file, after the same backup.
"""

from __future__ import annotations

import difflib
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from zeromem_cli.files import is_regular, write_file


class FileChange(NamedTuple):
    path: Path
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def unified_diff(change: FileChange) -> str:
    before = (change.before or "").splitlines(keepends=True)
    after = (change.after or "").splitlines(keepends=True)
    for lines in (before, after):
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
    name = str(change.path)
    return "".join(
        difflib.unified_diff(
            before,
            after,
            fromfile=name if change.before is not None else "/dev/null",
            tofile=name if change.after is not None else "/dev/null",
        )
    )


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def backup_name(path: Path, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.name}.zeromem-{stamp}.bak")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.zeromem-{stamp}-{number}.bak")
    return candidate


def apply(change: FileChange, *, backup: bool = True) -> Path | None:
    """Carry out one change; the backup's path (None when the file did not exist, or
    ``backup`` is off: a project's files are under version control, and an uninstall must
    leave nothing behind)."""
    path = change.path
    saved = None
    mode = None
    if is_regular(path):  # a device or FIFO is neither copied nor replaced (files.write_file)
        if backup:
            saved = backup_name(path)
            shutil.copy2(path, saved)
        mode = path.stat().st_mode & 0o777
    if change.after is None:
        if mode is not None:  # only a regular file zeromem wrote is removed
            path.unlink(missing_ok=True)
        return saved
    after = change.after
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, lambda handle: handle.write(after), mode=mode or 0o644)
    return saved
