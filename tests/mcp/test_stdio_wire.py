"""The stdio transport by hand: stdout carries JSON-RPC and nothing else, through good calls,
bad ones and the end of the session; messages and logs go to stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.mcp.helpers import REPO  # noqa: E402


def _request(number: int, method: str, params: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params})


def test_stdout_holds_only_protocol_messages(tmp_path: Path) -> None:
    calls = [
        ("memory_save", {"text": "The tapir sleeps by the pond"}),
        ("memory_save", {"text": "password=Tapir-Secret-77z"}),  # refused
        ("memory_search", {"query": "tapir"}),
        ("memory_search", {}),  # invalid
        ("memory_context", {"query": "tapir"}),
        ("memory_get", {"ids": [12345]}),  # not found
        ("no_such_tool", {}),
    ]
    lines = [
        _request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _request(2, "tools/list", {}),
        *(
            _request(10 + n, "tools/call", {"name": name, "arguments": arguments})
            for n, (name, arguments) in enumerate(calls)
        ),
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "zeromem_cli", "mcp", "--db", str(tmp_path / "m.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={"ZEROMEM_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("\n".join(lines) + "\n")
    process.stdin.flush()
    expected = {1, 2, *range(10, 10 + len(calls))}
    replies, out = [], []
    while {r.get("id") for r in replies} < expected:  # a reply per request, then hang up
        line = process.stdout.readline()
        assert line, "the server closed stdout early"
        out.append(line)
        replies.append(json.loads(line))  # every line is one JSON-RPC message
    rest, stderr = process.communicate(timeout=30)
    out.append(rest)
    assert process.returncode == 0, stderr
    assert rest == ""
    assert all(reply.get("jsonrpc") == "2.0" for reply in replies)
    by_id = {reply["id"]: reply for reply in replies if "id" in reply}
    assert set(by_id) == {1, 2, *range(10, 10 + len(calls))}
    errors = [by_id[10 + n]["result"].get("isError", False) for n in range(len(calls))]
    assert errors == [False, True, False, True, False, True, True]
    assert "Tapir-Secret-77z" not in "".join(out) + stderr
