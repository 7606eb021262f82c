"""What a hook remembers about one harness session, in a small file outside the memory store.

``<data dir>/hooks/<harness>/<session id>.json`` holds the ids of the memories this session was
given (so a prompt never gets them again) and the transcript cursor (so a capture reads only
what was added since the last one). It is not memory: losing it costs one repeated injection
or a re-read that the store's duplicate check absorbs. Written atomically (a temporary file
renamed over it), mode 0600 in a 0700 folder; files untouched for ``hooks.state_days`` are
removed when a session starts.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

VERSION = 1
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,120}")


def state_dir(harness: str) -> Path:
    from zeromem_cli.paths import data_dir

    return data_dir() / "hooks" / harness


def file_name(session_id: str) -> str:
    """A file name for any session id: itself when it is plainly safe, else its hash."""
    if _SAFE_ID.fullmatch(session_id) and not session_id.startswith("."):
        return f"{session_id}.json"
    import hashlib  # only for an unusual id: hashlib costs milliseconds to import

    return "id-" + hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()[:32] + ".json"


class SessionState:
    """The state of one harness session for one database."""

    def __init__(self, path: Path | None, db: str, data: dict[str, Any] | None = None) -> None:
        self.path = path
        self.db = db
        data = data if data and data.get("version") == VERSION and data.get("db") == db else {}
        self.injected: list[int] = [i for i in data.get("injected", []) if isinstance(i, int)]
        self.transcript: dict[str, Any] = dict(data.get("transcript") or {})

    @classmethod
    def load(cls, harness: str, session_id: str | None, db: str) -> SessionState:
        if not session_id:
            return cls(None, db)  # nothing to key it by: every run starts afresh
        path = state_dir(harness) / file_name(session_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None  # none yet, or damaged: start afresh
        return cls(path, db, data if isinstance(data, dict) else None)

    def remember(self, memory_ids: list[int]) -> None:
        known = set(self.injected)
        self.injected.extend(i for i in memory_ids if i not in known)

    def save(self) -> None:
        if self.path is None:
            return
        data = {
            "version": VERSION,
            "db": self.db,
            "injected": self.injected,
            "transcript": self.transcript,
        }
        from zeromem_cli.files import write_file

        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_file(self.path, lambda handle: json.dump(data, handle, separators=(",", ":")))


def prune(harness: str, max_age_days: int, now: float | None = None) -> int:
    """Remove state files (and stray temporary files) older than ``max_age_days``."""
    folder = state_dir(harness)
    cutoff = (now if now is not None else time.time()) - max_age_days * 86400
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.is_file() and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed
