"""The other faces on a PostgreSQL store, unchanged: the MCP server (through the SDK's own
client over stdio) and a coding-agent hook (through its stdin/stdout contract)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")
pytest.importorskip("mcp", reason="the MCP SDK is not installed (zeromem[mcp])")

from tests.hooks.conftest import HOOK_LIMIT_MS  # noqa: E402
from tests.mcp.helpers import McpClient, text_of  # noqa: E402
from zeromem_cli import MemoryStore  # noqa: E402


def test_the_mcp_server_saves_and_searches_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    with McpClient(pg_url, "--user", "alice", home=tmp_path / "home") as client:  # type: ignore[arg-type]
        saved = client.ok("memory_save", text="The quokkas are fed at 14:00", key="quokka")
        assert saved
        assert "14:00" in text_of(client.call("memory_search", query="when are quokkas fed"))
    with MemoryStore(pg_url, user="alice") as store:
        assert [m.key for m in store.list()] == ["quokka"]


def test_a_hook_injects_memories_from_postgresql(pg_url: str, tmp_path: Path) -> None:
    with MemoryStore(pg_url) as store:
        store.add("The staging database is restored every Sunday night")
    payload = json.dumps({"session_id": "s1", "prompt": "when is staging restored?"})
    env = {**os.environ, "ZEROMEM_HOME": str(tmp_path / "home")}
    env["ZEROMEM_HOOKS_TIMEOUT_MS"] = HOOK_LIMIT_MS  # a loaded machine must not drop it
    done = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "hook", "claude-code", "user-prompt", "--db", pg_url],
        input=payload, capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "restored every Sunday" in done.stdout
