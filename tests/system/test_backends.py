"""The storage interface (``zeromem_cli.storage.backend``): every function the core calls is
implemented by both backends with the same parameters, and a SQLite store never loads the
PostgreSQL side."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest

from zeromem_cli.storage import backend, bulk, candidates, db, fts, memories, oplog, vectors

MODULES = {"bulk": bulk, "candidates": candidates, "db": db, "fts": fts,
           "memories": memories, "oplog": oplog, "vectors": vectors}  # fmt: skip


def _parameters(function: object) -> list[tuple[str, object, bool]]:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    return [
        (p.name, p.kind, p.default is inspect.Parameter.empty)
        for p in signature.parameters.values()
    ]


def test_the_interface_is_every_forwarded_function() -> None:
    assert set(backend.INTERFACE) == {
        "bulk", "candidates", "db", "fts", "memories", "oplog", "vectors"
    }  # fmt: skip
    assert sum(len(names) for names in backend.INTERFACE.values()) >= 40


@pytest.mark.parametrize(
    ("module", "name"),
    [(module, name) for module, names in backend.INTERFACE.items() for name in names],
)
def test_postgres_implements_it_with_the_same_parameters(module: str, name: str) -> None:
    sqlite = getattr(importlib.import_module(f"zeromem_cli.storage.sqlite.{module}"), name)
    postgres = getattr(importlib.import_module(f"zeromem_cli.storage.postgres.{module}"), name)
    assert _parameters(postgres) == _parameters(sqlite)
    assert getattr(MODULES[module], name).__wrapped__ is sqlite


def test_a_sqlite_store_never_loads_the_postgres_side(tmp_path: object) -> None:
    code = (
        "import sys\n"
        "from zeromem_cli import MemoryStore\n"
        f"s = MemoryStore({str(tmp_path)!r} + '/m.db')\n"
        "s.add('hello'); s.search('hello'); s.pack('hello'); s.close()\n"
        "print(sorted(m for m in sys.modules if 'postgres' in m or 'psycopg' in m))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
