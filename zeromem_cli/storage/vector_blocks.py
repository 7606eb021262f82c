"""What the SQLite and PostgreSQL vector tables share (``storage.<backend>.vectors`` hold
their SQL): the block size and the model's key, the steps around a block's statements, and
the log of the blocks a connection wrote, which lets a long-lived process's cache of vectors
read again only the blocks its own writes changed (``semantic.recall``).

Layout: vectors live in ``vector_blocks``, up to ``BLOCK_SIZE`` per row, one owner (user,
project) per block, as three blobs (memory ids as int64, one float32 scale each, the int8
components: ``semantic.blocks`` builds the arrays, storage moves bytes); ``memory_vectors``
says which block holds a memory's vector and of which content; ``store_meta[MODEL_KEY]``
names the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from zeromem_cli.storage.base import VECTOR_BLOCK_SIZE

# Vectors per block: an add rewrites its owner's last block (this many vectors at most,
# ~100 KB), and a cold search reads 100k vectors in a few hundred rows
# (``python -m benchmarks.semantic --costs``).
BLOCK_SIZE = VECTOR_BLOCK_SIZE
MODEL_KEY = "vector_model"


class Block(NamedTuple):
    """One block's bytes as read: its id and the three blobs."""

    id: int
    ids: bytes
    scales: bytes
    vectors: bytes


def owner_blocks(
    select: Callable[[str, str], Iterable[Any]], owners: Sequence[tuple[str, str]]
) -> list[Block]:
    """Every block of these owners, ``select(user, project)`` giving one owner's rows."""
    return [
        Block(int(row["id"]), bytes(row["ids"]), bytes(row["scales"]), bytes(row["vectors"]))
        for user, project in dict.fromkeys(owners)
        for row in select(user, project)
    ]


def save_block(
    block_id: int | None,
    size: int,
    delete: Callable[[int], object],
    insert: Callable[[], int],
    update: Callable[[int], object],
) -> int:
    """Write a block through the backend's statements: a new one when ``block_id`` is None,
    an emptied one deleted; its id."""
    if block_id is not None and size == 0:
        delete(block_id)
        return block_id
    if block_id is None:
        return insert()
    update(block_id)
    return block_id


def set_model(
    current: str | None, name: str, clear: Callable[[], object], record: Callable[[], object]
) -> None:
    """Record ``name`` as the vectors' model; another model's vectors are dropped first."""
    if current == name:
        return
    clear()
    record()


def by_block(pairs: Iterable[tuple[int, int]]) -> dict[int, list[int]]:
    """{block id: its memory ids} of (memory id, block id) pairs."""
    found: dict[int, list[int]] = {}
    for memory_id, block_id in pairs:
        found.setdefault(int(block_id), []).append(int(memory_id))
    return found


# Blocks a log remembers before it starts over (its readers then read every block again):
# a long-lived process's log stays small whatever it writes.
_LOG_LIMIT = 4096


class WriteLog:
    """The blocks written through each open connection (by ``id``), in order: what tells a
    process's cache of vectors that its own connection changed them, and which. A block
    written in a transaction later rolled back is in it too (read again for nothing)."""

    def __init__(self) -> None:
        self._logs: dict[int, list[int]] = {}
        self._eras: dict[int, int] = {}

    def wrote(self, conn: object, block_ids: Iterable[int] = ()) -> None:
        """Blocks written (none named: every block may have changed)."""
        key = id(conn)
        log = self._logs.setdefault(key, [])
        named = list(block_ids)
        if not named or len(log) + len(named) > _LOG_LIMIT:
            self._logs[key] = []
            self._eras[key] = self._eras.get(key, 0) + 1
            if not named:
                return
            log = self._logs[key]
        log.extend(named)

    def forget(self, conn: object) -> None:
        """A closed connection's log (its ``id`` may be another's next)."""
        self._logs.pop(id(conn), None)
        self._eras.pop(id(conn), None)

    def mark(self, conn: object) -> tuple[int, int]:
        """Where this connection's log stands."""
        key = id(conn)
        return self._eras.get(key, 0), len(self._logs.get(key, ()))

    def since(self, conn: object, mark: tuple[int, int]) -> set[int] | None:
        """The blocks written since ``mark``; None when the log started over meanwhile."""
        key = id(conn)
        era, length = mark
        if era != self._eras.get(key, 0):
            return None
        return set(self._logs.get(key, ())[length:])
