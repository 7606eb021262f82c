"""The storage interface (``zeromem_cli.storage.base.Backend``): both backends implement every
method of it with its parameters (the interface writes once what differs only by dialect, and
each backend's package has every function it calls), the policy modules call a backend and
never a driver connection or a backend's own modules, and a SQLite store never loads the
PostgreSQL side."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.postgres.backend import PostgresBackend
from zeromem_cli.storage.sqlite.backend import SqliteBackend

PACKAGE = Path(__file__).resolve().parents[2] / "zeromem_cli"
INTERFACE = sorted(
    name
    for name, member in vars(Backend).items()
    if not name.startswith("_") and (callable(member) or isinstance(member, property))
)
# What each backend writes itself (the rest is written once, in the interface).
OWN = sorted(
    name for name, member in vars(Backend).items() if getattr(member, "__isabstractmethod__", False)
)


def _parameters(function: object) -> list[tuple[str, object, object]]:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def test_the_interface_is_what_the_policy_modules_need() -> None:
    assert len(INTERFACE) >= 50
    assert {"read", "transaction", "find_row", "history_rows", "candidates", "insert"} <= set(
        INTERFACE
    )
    # Semantic recall's vectors are backend methods too (both backends implement them below).
    vectors = {"owner_blocks", "save_block", "place_vectors", "unplace_vectors", "visible_rows"}
    assert vectors | {"unembedded", "vector_coverage", "vector_model", "vector_bytes"} <= set(
        INTERFACE
    )


@pytest.mark.parametrize("backend", [SqliteBackend, PostgresBackend])
def test_each_backend_implements_every_method(backend: type[Backend]) -> None:
    assert not getattr(backend, "__abstractmethods__", None)
    assert {"read", "candidates", "expression_candidates", "member_user"} <= set(OWN)
    assert all(name in vars(backend) for name in OWN)


def _forwards() -> list[tuple[str, str, str, ast.Call]]:
    """(method, module, function, call) of each ``self._module("module").function(...)`` call
    in the interface's methods."""
    tree = ast.parse((PACKAGE / "storage" / "base.py").read_text(encoding="utf-8"))
    interface = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Backend")
    found = []
    for method in interface.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Call)
                and ast.unparse(node.func.value.func) == "self._module"
            ):
                module = ast.literal_eval(node.func.value.args[0])
                found.append((method.name, module, node.func.attr, node))
    return found


def test_the_interface_writes_the_dialect_free_methods_once() -> None:
    forwarded = {method for method, *_ in _forwards()}
    assert len(forwarded) >= 50
    assert not forwarded & set(OWN)


@pytest.mark.parametrize("backend", [SqliteBackend, PostgresBackend])
def test_each_backend_package_has_every_function_the_interface_calls(
    backend: type[Backend],
) -> None:
    """Each call would bind: the function is there, taking the connection (or the store's
    name) and then the arguments the interface passes, in that order and with those keywords."""
    for method, module, function, call in _forwards():
        target = getattr(importlib.import_module(f"{backend.package}.{module}"), function, None)
        assert target is not None, f"{backend.__name__}.{method}: no {module}.{function}"
        positional = [object()] * len(call.args)
        keywords = {k.arg: object() for k in call.keywords if k.arg is not None}
        inspect.signature(target).bind(*positional, **keywords)  # TypeError when it would not


@pytest.mark.parametrize("backend", [SqliteBackend, PostgresBackend])
@pytest.mark.parametrize("name", INTERFACE)
def test_with_the_interface_parameters(backend: type[Backend], name: str) -> None:
    member = getattr(backend, name)
    if isinstance(member, property):
        return
    assert _parameters(member) == _parameters(getattr(Backend, name))


def _policy_modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "storage" not in p.relative_to(PACKAGE).parts]


def test_policy_code_never_imports_a_backends_modules() -> None:
    """Above storage, only the interface (``storage.base``), the shared records and query
    (``storage.records``, ``storage.query``) and the opening (``storage.db``) are imported:
    never ``storage.sqlite`` or ``storage.postgres``, which only their backends call."""
    allowed = {"base", "records", "query", "db", "uids", "convert", "cipher"}
    # Faces that administer one backend's own features (encryption at rest, server roles).
    own = {"encryption.py", "admin.py", "render_info.py", "info.py"}
    offenders = []
    for path in _policy_modules():
        if path.name in own:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "zeromem_cli.storage"
            ):
                parts = (node.module or "").split(".")
                names = [a.name for a in node.names] if len(parts) == 2 else [parts[2]]
                if any(name not in allowed for name in names):
                    offenders.append(f"{path.relative_to(PACKAGE)}: {node.module}")
    assert offenders == []


def _names_sqlite_connection(path: Path) -> bool:
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == "Connection"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sqlite3"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
    )


def test_no_policy_code_is_typed_with_a_driver_connection() -> None:
    """Code a psycopg connection could reach is never typed ``sqlite3.Connection`` (the
    encryption face and the hook watchdog hold SQLite files of their own)."""
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in _policy_modules()
        if path.name not in {"encryption.py", "watchdog.py"} and _names_sqlite_connection(path)
    ]
    assert offenders == []


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


_SQLITE_SEARCH = {
    f"zeromem_cli.storage.sqlite.{name}"
    for name in ("fts", "match", "candidates", "window", "migrations", "db", "backend")
}


def test_the_postgres_backend_runs_no_fts5() -> None:
    """The PostgreSQL backend runs no FTS5: it imports neither ``sqlite3`` nor the SQLite
    backend's search, index or schema modules (the index is cut by ``text.tokens``, ``--fts``
    is read by the server). A shared constant (the vectors' block size) may come from there."""
    offenders = []
    for path in sorted((PACKAGE / "storage" / "postgres").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [
                f"{path.name}: {name}"
                for name in names
                if name == "sqlite3" or name in _SQLITE_SEARCH
            ]
    assert offenders == []
