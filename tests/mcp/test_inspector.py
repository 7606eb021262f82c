"""A second client no one here wrote: the MCP Inspector's command-line mode lists and calls
the tools (``--strict`` also reports tool-schema portability problems). Skips when the
Inspector is not installed; point ZEROMEM_MCP_INSPECTOR at its binary to use a given one
(``npm install @modelcontextprotocol/inspector`` provides ``node_modules/.bin/mcp-inspector``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from zeromem_cli import MemoryStore  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _inspector() -> list[str] | None:
    given = os.environ.get("ZEROMEM_MCP_INSPECTOR")
    if given:
        return [given]
    installed = shutil.which("mcp-inspector")
    if installed:
        return [installed]
    npx = shutil.which("npx")
    if npx is None:
        return None
    command = [npx, "--no-install", "@modelcontextprotocol/inspector"]  # never downloads
    try:
        probe = subprocess.run([*command, "--cli", "--help"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return command if probe.returncode == 0 else None


INSPECTOR = _inspector()
pytestmark = [
    pytest.mark.slow,  # Node.js and the Inspector's own start; the SDK client covers the fast loop
    pytest.mark.skipif(INSPECTOR is None, reason="MCP Inspector not installed"),
]


def _run(tmp_path: Path, db: Path, *method: str) -> dict[str, object]:
    assert INSPECTOR is not None
    server = [sys.executable, "-m", "zeromem_cli", "mcp", "--db", str(db), "--user", "insp"]
    result = subprocess.run(
        [*INSPECTOR, "--cli", *server, *method],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={
            **os.environ,
            "ZEROMEM_HOME": str(tmp_path / "home"),
            "MCP_CATALOG_PATH": str(tmp_path / "inspector-catalog.json"),
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_the_inspector_lists_and_calls_the_tools(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    listed = _run(tmp_path, db, "--method", "tools/list")
    tools = listed["tools"]
    assert isinstance(tools, list) and len(tools) == 6
    assert all("outputSchema" in tool and "annotations" in tool for tool in tools)
    saved = _run(
        tmp_path, db, "--method", "tools/call", "--tool-name", "memory_save",
        "--tool-arg", "text=The Inspector saw a pangolin", "category=fact",
    )  # fmt: skip
    assert saved["isError"] is False
    assert saved["structuredContent"]["action"] == "added"  # type: ignore[index]
    found = _run(
        tmp_path, db, "--method", "tools/call", "--tool-name", "memory_search",
        "--tool-arg", "query=pangolin", "limit=3",
    )  # fmt: skip
    hits = found["structuredContent"]["memories"]  # type: ignore[index]
    assert [h["content"] for h in hits] == ["The Inspector saw a pangolin"]
    with MemoryStore(db, user="insp") as store:
        assert [m.category for m in store.list()] == ["fact"]
