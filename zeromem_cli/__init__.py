"""zeromem: long-term memory for LLM agents where every operation costs zero tokens.

The public API is ``MemoryStore`` (open a database, add / search / update / forget) and the
records it returns. The CLI in ``zeromem_cli.cli`` is a thin layer over it.

The names below are loaded on first use (PEP 562): ``import zeromem_cli.cli`` runs this file
first, and a command that needs only part of the library must not pay for all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zeromem_cli.errors import (
        InvalidInputError,
        NotFoundError,
        SchemaError,
        SecretDetectedError,
        StoreError,
        ZeromemError,
    )
    from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope, WriteResult
    from zeromem_cli.store import MemoryStore

__version__ = "0.1.0"

# Public name -> the module that defines it.
_EXPORTS = {
    "Filters": "zeromem_cli.models",
    "HistoryEntry": "zeromem_cli.models",
    "InvalidInputError": "zeromem_cli.errors",
    "Memory": "zeromem_cli.models",
    "MemoryStore": "zeromem_cli.store",
    "NotFoundError": "zeromem_cli.errors",
    "SchemaError": "zeromem_cli.errors",
    "Scope": "zeromem_cli.models",
    "SecretDetectedError": "zeromem_cli.errors",
    "StoreError": "zeromem_cli.errors",
    "WriteResult": "zeromem_cli.models",
    "ZeromemError": "zeromem_cli.errors",
}

__all__ = [
    "Filters",
    "HistoryEntry",
    "InvalidInputError",
    "Memory",
    "MemoryStore",
    "NotFoundError",
    "SchemaError",
    "Scope",
    "SecretDetectedError",
    "StoreError",
    "WriteResult",
    "ZeromemError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'zeromem_cli' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
