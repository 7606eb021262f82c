"""The library's shape: ``MemoryStore`` owns the connection and the operations log, request
records keep signatures narrow, and the public API is the documented ``__all__``."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import zeromem_cli
from zeromem_cli import MemoryStore

PACKAGE = Path(zeromem_cli.__file__).resolve().parent
DOCS = PACKAGE.parent / "docs" / "python-api.md"
# The faces: parse, call MemoryStore, render. They never log operations themselves.
FACES = ("cli", "mcp", "integrations", "mem0.py", "langgraph.py")
MOST_PARAMETERS = 11


def _modules() -> list[tuple[str, ast.Module]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        found.append((relative, ast.parse(path.read_text(encoding="utf-8"), relative)))
    return found


def _is_face(relative: str) -> bool:
    return any(relative == face or relative.startswith(face + "/") for face in FACES)


def test_only_the_store_and_storage_touch_the_connection() -> None:
    readers = [
        f"{relative}:{node.lineno}"
        for relative, tree in _modules()
        if relative != "store.py" and not relative.startswith("storage/")
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "connection"
    ]
    assert not readers, f"read the connection outside store.py and storage/: {readers}"


def test_no_face_writes_the_operations_log() -> None:
    callers = []
    for relative, tree in _modules():
        if not _is_face(relative):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "zeromem_cli.oplog":
                callers.append(f"{relative}:{node.lineno} imports the oplog")
            if isinstance(node, ast.ImportFrom) and node.module == "zeromem_cli":
                if any(alias.name == "oplog" for alias in node.names):
                    callers.append(f"{relative}:{node.lineno} imports the oplog")
            if isinstance(node, ast.Attribute) and node.attr == "operation":
                callers.append(f"{relative}:{node.lineno} opens a logged operation")
    assert not callers, callers


def test_no_library_function_takes_a_dozen_parameters() -> None:
    """Faces build request records (``PackRequest``, ``WriteRequest``...) once; below them no
    signature copies a stack of keywords. ``cli/`` (Typer declares options as parameters) and
    ``plain.py`` (the generated constructors of the records themselves) are exempt."""
    wide = []
    for relative, tree in _modules():
        if relative.startswith("cli/") or relative == "plain.py":
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
            count = len(names) + bool(a.vararg) + bool(a.kwarg)
            if names and names[0].arg in ("self", "cls"):
                count -= 1
            if count > MOST_PARAMETERS:
                wide.append(f"{relative}:{node.lineno} {node.name} ({count})")
    assert not wide, wide


def test_the_public_api_is_all_and_documented() -> None:
    page = DOCS.read_text(encoding="utf-8")
    for name in zeromem_cli.__all__:
        if name == "__version__":
            continue
        assert getattr(zeromem_cli, name) is not None
        assert f"`{name}`" in page, f"{name} is in __all__ but not in docs/python-api.md"
    methods = [
        name
        for name, member in inspect.getmembers(MemoryStore)
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
    ]
    for name in methods:
        assert f"`{name}" in page, f"MemoryStore.{name} is not in docs/python-api.md"
    # What only tests called left the public API.
    assert "pack_candidates" not in methods and "neighbours" not in methods
