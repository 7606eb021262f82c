"""The question's vector, made on a thread while the lexical search runs.

A cold process pays numpy's import, the model's load and the question's embedding before a
dense hit can be ranked; a long-lived one (the MCP server) pays the embedding. None of it
needs the database, and all of it but the import waits in C with the GIL released (ctypes
calls into the engine), as SQLite does while the lexical search reads: on a thread the two
overlap, and a pack costs about the longer of them instead of their sum (``python -m
benchmarks.semantic --costs``: the prompt hook).

Started only where the dense hits are likely wanted: ``MemoryStore.pack``, whose pool is
rarely settled by words alone. ``search`` decides first (``need.settled``): a page its words
settle then imports and embeds nothing. Made beside the search in the MCP server, the
embeddings of the questions its words settle cost more CPU a call than the overlap saved
(``--costs``, the MCP rows). Imports nothing heavy itself.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zeromem_cli.semantic.switch import Semantic


class Pending:
    """One question's vector: ``start()`` begins it on a thread, ``result()`` waits for it
    (or makes it here, when not started) and gives the vector, or None when the model cannot
    load (the store is told once, as without a thread)."""

    def __init__(self, semantic: Semantic, query: str, given: bool | None = None) -> None:
        self._semantic = semantic
        self._query = query
        self._given = given
        self._thread: threading.Thread | None = None
        self._done = False
        self._vector: Any = None
        self._error: BaseException | None = None

    def start(self) -> Pending:
        if self._thread is None and not self._done:
            self._thread = threading.Thread(target=self._make, name="zeromem-embed", daemon=True)
            self._thread.start()
        return self

    def result(self) -> Any:
        """The question's vector (numpy, unit length), or None."""
        if self._thread is not None:
            self._thread.join()
        elif not self._done:
            self._make()
        if self._error is not None:
            error, self._error = self._error, None
            self._semantic.failed(error)
        return self._vector

    def _make(self) -> None:
        try:
            self._vector = self._semantic.query_vector(self._query, self._given)
        except BaseException as exc:  # told by ``result`` in the caller's thread
            self._error = exc
        finally:
            self._done = True
