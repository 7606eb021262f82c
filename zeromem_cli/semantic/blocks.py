"""Vectors as stored: int8 components with one float32 scale each, in blocks per owner.

A unit vector of 384 float32 (1,536 bytes) is kept as 384 int8 and a scale (388 bytes, plus
8 for its id): its largest component maps to 127. Ranking by the quantised dot product keeps
the float ranking of e5's vectors to within noise (``python -m benchmarks.semantic --costs``
shows footprint and recall side by side). The backend keeps the bytes (``Backend.save_block``
and its neighbours); this module builds and edits the arrays, always inside the caller's
transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from zeromem_cli.storage.base import VECTOR_BLOCK_SIZE, Backend

# Rows multiplied at a time: small enough that OpenBLAS stays on one thread (spawning its
# threads for a large product cost more than the product on a busy 2-core machine) and the
# float32 copy of the chunk stays in cache.
CHUNK = 1024


def quantised(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(scales float32, int8 components) of unit row vectors."""
    matrix = np.asarray(matrix, dtype=np.float32)
    peak = np.abs(matrix).max(axis=1)
    peak[peak == 0] = 1.0
    scales = (peak / 127.0).astype(np.float32)
    components = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
    return scales, components


# One block's arrays: its owner's place among the owners read, ids, scales, int8 components.
Part = tuple[int, np.ndarray, np.ndarray, np.ndarray]


class Vectors:
    """An owner's vectors read from the store: ids and scales in one array each, the int8
    components as one array per block (views on the bytes read: joining 100k vectors into
    one array cost a cold search more than ranking them, ``python -m benchmarks.semantic
    --costs``). Kept by block, so that a long-lived process reads again only the blocks its
    own writes changed (``refreshed``)."""

    def __init__(self, by_block: dict[int, Part], dim: int) -> None:
        self.by_block = by_block
        self.dim = dim
        order = sorted(by_block, key=lambda block_id: (by_block[block_id][0], block_id))
        parts = [by_block[block_id] for block_id in order]
        self.ids = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
        self.scales = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.float32)
        self.parts = [p[3] for p in parts]

    def __len__(self) -> int:
        return len(self.ids)

    def similarities(self, query: np.ndarray) -> np.ndarray:
        """Cosine similarity of each vector with the unit ``query`` vector."""
        query = np.asarray(query, dtype=np.float32)
        out = np.empty(len(self.ids), dtype=np.float32)
        at = 0
        for part in self.parts:
            for start in range(0, len(part), CHUNK):
                rows = part[start : start + CHUNK]
                np.matmul(rows.astype(np.float32), query, out=out[at : at + len(rows)])
                at += len(rows)
        return out * self.scales


def _part(owner: int, ids: bytes, scales: bytes, vectors: bytes, dim: int) -> Part | None:
    """A block's arrays; None when its vectors are not ``dim`` wide (another model's)."""
    if len(vectors) != len(ids) // 8 * dim:
        return None
    return (
        owner,
        np.frombuffer(ids, dtype="<i8"),
        np.frombuffer(scales, dtype="<f4"),
        np.frombuffer(vectors, dtype=np.int8).reshape(-1, dim),
    )


def read(backend: Backend, owners: Sequence[tuple[str, str]], dim: int) -> Vectors:
    """Every vector of these owners (a few rows per 1,000 memories)."""
    places = {owner: n for n, owner in enumerate(dict.fromkeys(owners))}
    by_block: dict[int, Part] = {}
    for owner, found in _by_owner(backend, list(places)):
        for block in found:
            part = _part(places[owner], block.ids, block.scales, block.vectors, dim)
            if part is None:  # another model's size
                return Vectors({}, dim)
            by_block[block.id] = part
    return Vectors(by_block, dim)


def _by_owner(backend: Backend, owners: list[tuple[str, str]]) -> list[tuple[Any, list[Any]]]:
    return [(owner, backend.owner_blocks([owner])) for owner in owners]


def refreshed(
    vectors: Vectors, backend: Backend, owners: Sequence[tuple[str, str]], changed: set[int]
) -> Vectors:
    """``vectors`` with the ``changed`` blocks read again (gone, rewritten, new, or another
    owner's: left out): what this process's own writes changed, without reading the rest."""
    places = {owner: n for n, owner in enumerate(dict.fromkeys(owners))}
    by_block = dict(vectors.by_block)
    for block_id in changed:
        by_block.pop(block_id, None)
        row = backend.vector_block(block_id)
        if row is None or (row["user"], row["project"]) not in places:
            continue
        ids, scales, comps = _blobs_of(row)
        part = _part(places[(row["user"], row["project"])], ids, scales, comps, vectors.dim)
        if part is None:
            return read(backend, owners, vectors.dim)
        by_block[block_id] = part
    return Vectors(by_block, vectors.dim)


def _blobs_of(row: Any) -> tuple[bytes, bytes, bytes]:
    return bytes(row["ids"]), bytes(row["scales"]), bytes(row["vectors"])


def _arrays(row: object, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = np.frombuffer(bytes(row["ids"]), dtype="<i8")  # type: ignore[index]
    scales = np.frombuffer(bytes(row["scales"]), dtype="<f4")  # type: ignore[index]
    comps = np.frombuffer(bytes(row["vectors"]), dtype=np.int8).reshape(len(ids), dim)  # type: ignore[index]
    return ids, scales, comps


def _blobs(ids: np.ndarray, scales: np.ndarray, comps: np.ndarray) -> tuple[bytes, bytes, bytes]:
    return (
        np.asarray(ids, dtype="<i8").tobytes(),
        np.asarray(scales, dtype="<f4").tobytes(),
        np.ascontiguousarray(comps, dtype=np.int8).tobytes(),
    )


def remove(backend: Backend, memory_ids: Sequence[int], dim: int | None = None) -> None:
    """Drop the vectors of ``memory_ids``: their blocks are rewritten without them (the
    freed bytes are zeroed by ``secure_delete``)."""
    for block_id, gone in backend.unplace_vectors(list(memory_ids)).items():
        row = backend.vector_block(block_id)
        if row is None:
            continue
        width = dim or len(bytes(row["vectors"])) // max(int(row["size"]), 1)
        ids, scales, comps = _arrays(row, width)
        keep = ~np.isin(ids, np.asarray(gone, dtype=np.int64))
        backend.save_block(
            block_id,
            (row["user"], row["project"]),
            int(keep.sum()),
            _blobs(ids[keep], scales[keep], comps[keep]),
        )


def put(
    backend: Backend,
    model: str,
    entries: Sequence[tuple[int, int, tuple[str, str]]],
    matrix: np.ndarray,
) -> None:
    """Store the vectors of (memory id, content hash, owner) ``entries``, one row of
    ``matrix`` each, replacing any earlier vector of those memories. Inside a transaction."""
    if not entries:
        return
    backend.set_vector_model(model)
    dim = int(matrix.shape[1])
    remove(backend, [memory_id for memory_id, _, _ in entries], dim)
    scales, comps = quantised(matrix)
    by_owner: dict[tuple[str, str], list[int]] = {}
    for row_number, (_, _, owner) in enumerate(entries):
        by_owner.setdefault(owner, []).append(row_number)
    placed: list[tuple[int, int, int]] = []
    for owner, rows in by_owner.items():
        at = 0
        while at < len(rows):
            current = backend.open_block(*owner)
            if current is not None:
                ids, sc, cp = _arrays(current, dim)
                block_id: int | None = int(current["id"])
            else:
                ids = np.zeros(0, np.int64)
                sc = np.zeros(0, np.float32)
                cp = np.zeros((0, dim), np.int8)
                block_id = None
            take = rows[at : at + VECTOR_BLOCK_SIZE - len(ids)]
            at += len(take)
            new_ids = np.asarray([entries[r][0] for r in take], dtype=np.int64)
            ids = np.concatenate([ids, new_ids])
            sc = np.concatenate([sc, scales[take]])
            cp = np.concatenate([cp, comps[take]])
            block_id = backend.save_block(block_id, owner, len(ids), _blobs(ids, sc, cp))
            placed.extend((entries[r][0], block_id, entries[r][1]) for r in take)
    backend.place_vectors(placed)
