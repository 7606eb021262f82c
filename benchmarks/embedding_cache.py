"""Passage vectors kept on disk between benchmark runs, keyed by (model id, text hash).

Embedding is the slow part of every semantic benchmark (tens of memories a second on 2
cores), and the datasets repeat themselves: LongMemEval_S haystacks are drawn from one pool
of sessions, so most turns of a question's haystack were embedded for another question
already. ``DiskCached`` wraps an ``Embedder`` and answers ``passages`` from a SQLite file
under the user's cache directory (``$XDG_CACHE_HOME/zeromem/benchmarks``, or
``~/.cache/...``; ``ZEROMEM_BENCH_CACHE`` overrides the folder), writing each new batch as
soon as it is embedded: a run killed half-way keeps what it embedded.

Benchmark code only: the product stores vectors in the memory store itself.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from zeromem_cli.semantic.embedder import Embedder


def cache_dir() -> Path:
    """Where benchmark caches live: the user's cache directory, not the repository."""
    chosen = os.environ.get("ZEROMEM_BENCH_CACHE")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "zeromem" / "benchmarks"


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class DiskCached:
    """An ``Embedder`` whose passage vectors come from disk when the same model embedded the
    same text before (float16 on disk, float32 out). Queries are embedded afresh."""

    def __init__(self, inner: Embedder, path: Path | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.path = path or cache_dir() / "embeddings.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL, "
            "vector BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID"
        )
        self.hits = 0
        self.embedded = 0

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.queries(texts)

    def _known(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(
                f"SELECT hash, vector FROM vectors WHERE model = ? AND hash IN ({marks})",
                (self.name, *part),
            ):
                found[key] = np.frombuffer(blob, dtype=np.float16)
        return found

    def put(self, pairs: Iterable[tuple[str, np.ndarray]]) -> None:
        """Store (text hash, vector) pairs of this model, in one transaction."""
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                ((self.name, key, np.asarray(v, dtype=np.float16).tobytes()) for key, v in pairs),
            )

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        known = self._known(keys)
        missing = list(dict.fromkeys(k for k in keys if k not in known))
        if missing:
            by_key = dict(zip(keys, texts, strict=True))
            fresh = self.inner.passages([by_key[k] for k in missing])
            self.put(zip(missing, fresh, strict=True))
            known.update(
                (k, np.asarray(v, dtype=np.float16)) for k, v in zip(missing, fresh, strict=True)
            )
            self.embedded += len(missing)
        self.hits += len(keys) - len(missing)
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([known[k].astype(np.float32) for k in keys])

    def seed_from_npz(self, path: Path) -> int:
        """Take the vectors of an earlier run's ``.npz`` cache (keys: sha1 of the text, as
        here) for this model; the number taken."""
        data = np.load(path)
        keys = data["keys"].tolist()
        self.put(zip(keys, data["vectors"], strict=True))
        return len(keys)

    def close(self) -> None:
        self._db.close()
