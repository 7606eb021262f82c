"""The MCP server on an encrypted store (real client over stdio): saving and searching work, the
file never holds the text, and a wrong key fails the call in one line without the key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.helpers import McpClient

pytestmark = pytest.mark.slow  # see docs/development.md

pytest.importorskip("sqlcipher3")

KEY = "mcp test passphrase"
CANARY = "canary-mcp-5b1e platypus"


def test_the_server_works_on_an_encrypted_store(tmp_path: Path) -> None:
    db = tmp_path / "memories.db"
    with McpClient(db, home=tmp_path / "home", env={"ZEROMEM_KEY": KEY}) as client:
        client.ok("memory_save", text=f"The {CANARY} hunts by electroreception")
        client.ok("memory_save", text="鸭嘴兽用电感受捕猎")
        found = client.ok("memory_search", q="platypus electroreception", k=3)
        assert [m["content"] for m in found["memories"]] == [
            f"The {CANARY} hunts by electroreception"
        ]
        assert client.ok("memory_search", q="鸭嘴兽", k=3)["memories"]
        for path in db.parent.glob("memories.db*"):
            assert b"canary-mcp" not in path.read_bytes(), path
    # A wrong key: the server refuses to start, in one line that does not repeat the key.
    refused = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "mcp", "--db", str(db)],
        env={**os.environ, "ZEROMEM_HOME": str(tmp_path / "home"), "ZEROMEM_KEY": "not-it"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "wrong key" in refused.stderr, refused.stderr
    assert "not-it" not in refused.stderr
