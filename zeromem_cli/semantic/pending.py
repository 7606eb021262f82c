"""The question's vector, made only when a dense hit could change the result.

A cold process pays numpy's import, the model's load and the question's embedding before a
dense hit can be ranked (``python -m benchmarks.semantic --costs``). ``search`` and ``pack``
hand this to ``recall.joined``, which asks for the vector only once the lexical hits leave
room for a dense one (``ranking.factors.semantic_settled``): a page or a pack pool that the
question's words settle imports and embeds nothing.

Made on a thread beside the lexical search, it saved no CPU on the prompt hook's critical
path: numpy's import holds the GIL, so the lexical search waited for it (measured with
per-thread CPU clocks, issue #35's cost round); and in the MCP server it embedded the
questions the words settle, for nothing. Imports nothing heavy itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zeromem_cli.semantic.switch import Semantic


class Pending:
    """One question's vector, made on the first ``result()``: None when the model cannot load
    (the store is told once, in one line) or semantic recall is off for the call."""

    def __init__(self, semantic: Semantic, query: str, given: bool | None = None) -> None:
        self._semantic = semantic
        self._query = query
        self._given = given
        self._done = False
        self._vector: Any = None

    def result(self) -> Any:
        """The question's vector (numpy, unit length), or None."""
        if not self._done:
            self._done = True
            try:
                self._vector = self._semantic.query_vector(self._query, self._given)
            except BaseException as exc:
                self._semantic.failed(exc)  # raises what is not "the model cannot load"
        return self._vector
