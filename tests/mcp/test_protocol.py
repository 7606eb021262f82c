"""The stdio server's protocol: the lifecycle through the SDK's own client, and by hand every
kind of message a client may get wrong, each answered with its JSON-RPC error; cancellation
and the order of answers on a live session."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION  # noqa: E402

from tests.mcp.helpers import McpClient  # noqa: E402
from zeromem_cli import MemoryStore, __version__  # noqa: E402
from zeromem_cli.config import Config  # noqa: E402
from zeromem_cli.mcp.calls import ServerOptions, ToolCalls  # noqa: E402
from zeromem_cli.mcp.scope import ScopePolicy  # noqa: E402
from zeromem_cli.mcp.stdio import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, Session  # noqa: E402
from zeromem_cli.mcp.toolbox import Toolbox  # noqa: E402


def _initialize(number: int = 1, version: Any = "2025-06-18") -> dict[str, Any]:
    return _request(
        number,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"},
        },
    )


def _request(number: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        message["params"] = params
    return message


_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _exchange(tmp_path: Path, lines: list[Any]) -> list[dict[str, Any]]:
    """Send ``lines`` (messages, or raw strings as they are), hang up, and read every answer
    (the server answers what it received, then stops)."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    result = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "mcp", "--db", str(tmp_path / "m.db")],
        input=text,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"ZEROMEM_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_the_sdk_client_meets_a_whole_lifecycle(tmp_path: Path) -> None:
    with McpClient(tmp_path / "m.db", home=tmp_path / "home") as client:
        init = client.initialize
        assert init is not None
        assert init.protocol_version == LATEST_HANDSHAKE_VERSION
        assert init.server_info.name == "zeromem" and init.server_info.version == __version__
        assert init.server_info.title == "zeromem memory"
        assert init.instructions and "memory_context" in init.instructions
        assert init.capabilities.tools is not None
        client.portal.call(client.session.send_ping)
        assert client.ok("memory_save", text="The lynx hunts at night")["action"] == "added"
        client.portal.call(client.session.send_ping)
        assert client.ok("memory_search", query="lynx")["count"] == 1


def test_every_version_spoken_is_one_the_sdk_knows_and_its_latest_among_them() -> None:
    assert set(PROTOCOL_VERSIONS) <= set(HANDSHAKE_PROTOCOL_VERSIONS)
    assert LATEST_HANDSHAKE_VERSION == LATEST_PROTOCOL_VERSION


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        *((version, version) for version in PROTOCOL_VERSIONS),
        ("1999-01-01", LATEST_PROTOCOL_VERSION),
        ("2099-12-31", LATEST_PROTOCOL_VERSION),
    ],
)
def test_initialize_answers_the_clients_version_when_spoken_else_the_latest(
    tmp_path: Path, asked: str, answered: str
) -> None:
    (reply,) = _exchange(tmp_path, [_initialize(1, asked)])
    assert reply["id"] == 1 and reply["result"]["protocolVersion"] == answered


def _error(reply: dict[str, Any]) -> tuple[Any, int]:
    assert "result" not in reply, reply
    return reply["id"], reply["error"]["code"]


def test_every_malformed_message_gets_its_json_rpc_error(tmp_path: Path) -> None:
    replies = _exchange(
        tmp_path,
        [
            _request(1, "tools/list"),  # before initialize
            _initialize(2),
            _INITIALIZED,
            "{not json",
            "[1, 2]",
            json.dumps([_request(3, "ping")]),  # a batch: not in MCP
            {"id": 4, "method": "ping"},  # no jsonrpc
            {"jsonrpc": "1.0", "id": 5, "method": "ping"},
            {"jsonrpc": "2.0", "id": 6},  # no method
            {"jsonrpc": "2.0", "id": None, "method": "ping"},  # MCP ids are never null
            {"jsonrpc": "2.0", "id": 7.5, "method": "ping"},
            _request(8, "no/such/method"),
            _request(9, "tools/call", {"arguments": {}}),  # no tool name
            _request(10, "tools/call", {"name": "memory_search", "arguments": "query=x"}),
            _request(11, "tools/list", ["positional"]),
            _request(12, "initialize", {"protocolVersion": 2025}),
            _request(13, "logging/setLevel", {"level": "debug"}),
            "",  # blank lines are skipped
            {"jsonrpc": "2.0", "id": 99, "result": {}},  # a response: this server asked nothing
            {"jsonrpc": "2.0", "method": "notifications/unknown"},  # no answer to a notification
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]},  # even bad
            _request("last", "ping"),
        ],
    )
    assert _error(replies[0]) == (1, -32602)
    assert replies[1]["id"] == 2 and "serverInfo" in replies[1]["result"]
    assert [_error(reply) for reply in replies[2:-1]] == [
        (None, -32700),
        (None, -32600),
        (None, -32600),
        (4, -32600),
        (5, -32600),
        (6, -32600),
        (None, -32600),
        (None, -32600),
        (8, -32601),
        (9, -32602),
        (10, -32602),
        (11, -32602),
        (12, -32602),
        (13, -32601),
    ]
    assert replies[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}
    assert replies[10]["error"]["data"] == "no/such/method"


def test_empty_lists_for_capabilities_not_offered(tmp_path: Path) -> None:
    replies = _exchange(
        tmp_path,
        [
            _initialize(1),
            _INITIALIZED,
            _request(2, "resources/list"),
            _request(3, "resources/templates/list"),
            _request(4, "prompts/list"),
        ],
    )
    assert [reply["result"] for reply in replies[1:]] == [
        {"resources": []},
        {"resourceTemplates": []},
        {"prompts": []},
    ]


def _call(number: Any, name: str, **arguments: Any) -> str:
    return json.dumps(_request(number, "tools/call", {"name": name, "arguments": arguments}))


class _Wire(io.BytesIO):
    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.getvalue().splitlines()]


@pytest.fixture
def calls(tmp_path: Path) -> Any:
    with MemoryStore(tmp_path / "m.db") as store:
        store.add("The marten climbs the pine")
        box = Toolbox(store, Config(), ScopePolicy(store.scope))
        yield ToolCalls(box, ServerOptions())


def test_a_cancelled_call_is_not_answered_and_other_requests_are_not_held_up(
    calls: ToolCalls,
) -> None:
    """While a store call runs (here: waits for the store), pings and listings are answered;
    a call cancelled while it waits never runs, one cancelled while running is not answered,
    and the calls after them are answered in order."""
    wire = _Wire()
    session = Session(calls, wire)
    session.receive(json.dumps(_initialize(1)))
    with calls.store_lock:  # the store is busy: every call waits
        session.receive(_call(10, "memory_search", query="marten"))  # will run, cancelled
        session.receive(_call(11, "memory_save", text="The marten sleeps in a hollow"))
        session.receive(_call(12, "memory_search", query="marten"))
        session.receive(json.dumps(_request(2, "ping")))
        session.receive(json.dumps(_request(3, "tools/list")))
        for cancelled in (10, 11):
            session.receive(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": cancelled, "reason": "user gave up"},
                    }
                )
            )
        answered_while_busy = [m["id"] for m in wire.messages()]
    session.close()
    assert answered_while_busy == [1, 2, 3]
    replies = wire.messages()
    assert [m["id"] for m in replies] == [1, 2, 3, 12]
    found = replies[-1]["result"]["structuredContent"]
    assert [hit["content"] for hit in found["memories"]] == ["The marten climbs the pine"]
