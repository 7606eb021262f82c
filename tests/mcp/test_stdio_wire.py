"""The stdio transport by hand: stdout carries JSON-RPC and nothing else, through good calls,
bad ones and the end of the session; messages and logs go to stderr."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("mcp")

pytestmark = pytest.mark.slow  # see docs/development.md


def _request(number: int, method: str, params: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params})


_INITIALIZE = _request(
    1,
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    },
)
_INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


def _converse(
    tmp_path: Path, calls: list[tuple[str, dict[str, object]]]
) -> tuple[dict[int, dict[str, object]], str, str]:
    """Initialize, list the tools (id 2), make ``calls`` (ids 10, 11...) over a raw pipe, read
    a reply to each request, then hang up: (replies by id, everything on stdout, stderr)."""
    lines = [
        _INITIALIZE,
        _INITIALIZED,
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
        cwd=tmp_path,
        env={"ZEROMEM_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("\n".join(lines) + "\n")
    process.stdin.flush()
    expected = {1, 2, *range(10, 10 + len(calls))}
    replies: list[dict[str, object]] = []
    out: list[str] = []
    received: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    try:
        while {r.get("id") for r in replies} < expected:  # a reply per request, then hang up
            # Read in a thread, so a request left unanswered fails the test instead of hanging it.
            threading.Thread(target=lambda: received.put(stdout.readline()), daemon=True).start()
            try:
                line = received.get(timeout=60)
            except queue.Empty:
                answered = {r.get("id") for r in replies}
                pytest.fail(f"no reply to request(s) {expected - answered} in 60 s")
            assert line, "the server closed stdout early"
            out.append(line)
            replies.append(json.loads(line))  # every line is one JSON-RPC message
        rest, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    out.append(rest)
    assert process.returncode == 0, stderr
    assert rest == ""
    assert all(reply.get("jsonrpc") == "2.0" for reply in replies)
    by_id = {int(str(reply["id"])): reply for reply in replies if "id" in reply}
    assert set(by_id) == expected
    return by_id, "".join(out), stderr


def _result(reply: dict[str, object]) -> dict[str, object]:
    result = reply["result"]
    assert isinstance(result, dict)
    return result


def test_stdout_holds_only_protocol_messages(tmp_path: Path) -> None:
    calls: list[tuple[str, dict[str, object]]] = [
        ("memory_save", {"text": "The tapir sleeps by the pond"}),
        ("memory_save", {"text": "password=Tapir-Secret-77z"}),  # refused
        ("memory_search", {"query": "tapir"}),
        ("memory_search", {}),  # invalid
        ("memory_context", {"query": "tapir"}),
        ("memory_get", {"ids": [12345]}),  # not found
        ("no_such_tool", {}),
    ]
    by_id, out, stderr = _converse(tmp_path, calls)
    errors = [_result(by_id[10 + n]).get("isError", False) for n in range(len(calls))]
    assert errors == [False, True, False, True, False, True, True]
    assert "Tapir-Secret-77z" not in out + stderr


def test_a_call_holding_a_lone_surrogate_is_answered(tmp_path: Path) -> None:
    """JSON may escape half of a surrogate pair (JavaScript writes one for a string cut inside
    an emoji); the SDK's parser refuses such a line and would never answer it. Each call gets
    its reply, the lone half read as U+FFFD, and the session goes on."""
    calls: list[tuple[str, dict[str, object]]] = [
        ("memory_save", {"text": "The tapir naps at noon \ud83d", "key": "tapir_nap"}),
        ("memory_search", {"query": "\udc00tapir"}),
        ("memory_get", {"keys": ["tapir_nap"]}),
        ("memory_search", {"query": "tapir 🦛 pond"}),  # a whole pair stays one character
        ("memory_search", {"query": "\ud800"}),
    ]
    by_id, out, _ = _converse(tmp_path, calls)
    assert [_result(by_id[10 + n]).get("isError", False) for n in range(len(calls))] == [
        False
    ] * len(calls)
    got = _result(by_id[12])["structuredContent"]
    assert isinstance(got, dict)
    assert got["memories"][0]["content"] == "The tapir naps at noon \ufffd"
    found = _result(by_id[11])["structuredContent"]
    assert isinstance(found, dict) and found["count"] == 1
    assert _result(by_id[14])["structuredContent"]["count"] == 0  # type: ignore[index]
