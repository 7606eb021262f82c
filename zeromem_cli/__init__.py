"""zeromem: long-term memory for LLM agents where every operation costs zero tokens.

The public API is ``MemoryStore`` (open a database, add / search / update / forget) and the
records it returns. The CLI in ``zeromem_cli.cli`` is a thin layer over it.
"""

from __future__ import annotations

from zeromem_cli.errors import (
    InvalidInputError,
    NotFoundError,
    SchemaError,
    SecretDetectedError,
    StoreError,
    ZeromemError,
)
from zeromem_cli.models import HistoryEntry, Memory, Scope, WriteResult
from zeromem_cli.query import Filters
from zeromem_cli.store import MemoryStore

__version__ = "0.1.0"

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
