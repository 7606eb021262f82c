"""The framework faces load nothing heavy: ``zeromem_cli.mem0`` is zeromem's own modules plus
the standard library, and ``zeromem_cli.langgraph`` loads LangGraph only because it subclasses
LangGraph's ``BaseStore``."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("langgraph", "langchain_core", "pydantic", "rich", "typer", "mcp", "sqlite_utils", "llm")


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; import json; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in json.loads(done.stdout)}


def test_mem0_face_imports_nothing_heavy() -> None:
    assert not loaded_after("import zeromem_cli.mem0") & set(HEAVY)


def test_zeromem_itself_never_loads_langgraph() -> None:
    loaded = loaded_after("import zeromem_cli, zeromem_cli.store, zeromem_cli.mem0")
    assert "langgraph" not in loaded and "langchain_core" not in loaded


def test_langgraph_face_loads_langgraph_only_for_its_base_class() -> None:
    loaded = loaded_after("import zeromem_cli.langgraph")
    assert "langgraph" in loaded
    assert not loaded & {"rich", "typer", "mcp", "sqlite_utils", "llm", "langmem"}


def test_mem0_face_adds_only_zeromem_and_the_standard_library() -> None:
    """Over what ``MemoryStore`` itself loads, ``import zeromem_cli.mem0`` adds zeromem's own
    modules and standard-library ones, nothing installed from elsewhere."""
    base = loaded_after("import zeromem_cli.store")
    added = loaded_after("import zeromem_cli.store, zeromem_cli.mem0") - base
    foreign = sorted(n for n in added if n != "zeromem_cli" and n not in sys.stdlib_module_names)
    assert foreign == []
