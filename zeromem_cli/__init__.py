"""zeromem: long-term memory for LLM agents where every operation costs zero tokens.

The public API is ``MemoryStore`` (open a database; add, search, pack, update, forget,
restore, purge, gc, stats, export, import), the request records a call takes and the records
it returns, and the errors it raises: everything in ``__all__``, documented in
docs/python-api.md. The CLI in ``zeromem_cli.cli`` and the other faces are thin layers over it.

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
    from zeromem_cli.lifecycle import GcPolicy, GcReport, PurgeResult, Selection
    from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope, WriteResult
    from zeromem_cli.oplog import OperationSummary
    from zeromem_cli.pack.select import PackResult
    from zeromem_cli.requests import ImportRequest, PackRequest, StoreSettings, WriteRequest
    from zeromem_cli.stats import Stats
    from zeromem_cli.store import LoggedOperation, MemoryStore
    from zeromem_cli.transfer.imports import ImportReport, InvalidRecordsError

__version__ = "0.1.0"

# Public name -> the module that defines it.
_EXPORTS = {
    "Filters": "zeromem_cli.models",
    "GcPolicy": "zeromem_cli.lifecycle",
    "GcReport": "zeromem_cli.lifecycle",
    "HistoryEntry": "zeromem_cli.models",
    "ImportReport": "zeromem_cli.transfer.imports",
    "ImportRequest": "zeromem_cli.requests",
    "InvalidInputError": "zeromem_cli.errors",
    "InvalidRecordsError": "zeromem_cli.transfer.imports",
    "LoggedOperation": "zeromem_cli.store",
    "Memory": "zeromem_cli.models",
    "MemoryStore": "zeromem_cli.store",
    "NotFoundError": "zeromem_cli.errors",
    "OperationSummary": "zeromem_cli.oplog",
    "PackRequest": "zeromem_cli.requests",
    "PackResult": "zeromem_cli.pack.select",
    "PurgeResult": "zeromem_cli.lifecycle",
    "SchemaError": "zeromem_cli.errors",
    "Scope": "zeromem_cli.models",
    "SecretDetectedError": "zeromem_cli.errors",
    "Selection": "zeromem_cli.lifecycle",
    "Stats": "zeromem_cli.stats",
    "StoreError": "zeromem_cli.errors",
    "StoreSettings": "zeromem_cli.requests",
    "WriteRequest": "zeromem_cli.requests",
    "WriteResult": "zeromem_cli.models",
    "ZeromemError": "zeromem_cli.errors",
}

__all__ = [
    "Filters",
    "GcPolicy",
    "GcReport",
    "HistoryEntry",
    "ImportReport",
    "ImportRequest",
    "InvalidInputError",
    "InvalidRecordsError",
    "LoggedOperation",
    "Memory",
    "MemoryStore",
    "NotFoundError",
    "OperationSummary",
    "PackRequest",
    "PackResult",
    "PurgeResult",
    "SchemaError",
    "Scope",
    "SecretDetectedError",
    "Selection",
    "Stats",
    "StoreError",
    "StoreSettings",
    "WriteRequest",
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
