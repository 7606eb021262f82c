"""``zeromem mcp`` over stdio: MCP's stdio transport and the JSON-RPC 2.0 it carries, written
here so that a start imports neither the MCP SDK nor pydantic nor anyio (building the SDK's
models is most of a second of CPU, before the first answer: ``python -m
benchmarks.mcp_latency`` times the start).

The transport, as the MCP specification has it: one JSON-RPC message per line on stdin and
stdout, UTF-8, nothing else on stdout. stdout is served from a private copy of file
descriptor 1 while 1 points at stderr, so a stray print cannot corrupt the stream (as the
SDK does). A line that is not JSON is answered with a parse error, a message that is not a
request with an invalid-request error (id null when its id cannot be read), an unknown method
with method-not-found, malformed params with invalid-params: a client always gets its answer.
A string holding a lone UTF-16 surrogate (``stdin``) is read with U+FFFD in its place.

The lifecycle and methods served: ``initialize`` (the client's protocol version when it is
one we speak, else our latest; capabilities; server info; instructions),
``notifications/initialized``, ``ping``, ``tools/list`` and ``tools/call`` (``wire``), and
``notifications/cancelled``. Tool calls run one at a time on a worker thread, in the order
they came, while the reading thread answers everything else at once; a call cancelled before
it starts never runs, and one cancelled while running is not answered, as the specification
asks. At the end of input the calls already received are answered, then the server stops.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from collections.abc import Iterable
from typing import Any, BinaryIO

from zeromem_cli import __version__
from zeromem_cli.mcp.calls import INSTRUCTIONS, NAME, TITLE, ToolCalls
from zeromem_cli.mcp.stdin import may_hold_surrogates, readable
from zeromem_cli.mcp.wire import call_tool, tool_list

# The protocol revisions this server speaks through the initialize handshake, oldest first.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[-1]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

# Served before the session is initialized (the specification allows ping at any time).
_ANY_TIME = frozenset({"initialize", "ping"})
# Methods of capabilities this server does not declare, answered empty for clients that ask
# anyway: nothing is listed.
_EMPTY_LISTS = {
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


class _Call:
    __slots__ = ("arguments", "id", "name")

    def __init__(self, request_id: str | int, name: str, arguments: dict[str, Any]) -> None:
        self.id = request_id
        self.name = name
        self.arguments = arguments


class Invalid(Exception):
    """A message answered with a JSON-RPC error instead of a result."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line of UTF-8 JSON; a string the store holds that UTF-8 cannot
    carry (a lone surrogate) goes as a JSON escape instead."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(message, separators=(",", ":")) + "\n").encode("ascii")


class Session:
    """One client's session: messages in (``receive``), answers out through ``out``."""

    def __init__(self, calls: ToolCalls, out: BinaryIO) -> None:
        self.calls = calls
        self._out = out
        self._write_lock = threading.Lock()
        self._gone = False
        self._state_lock = threading.Lock()
        self._cancelled: set[str | int] = set()
        self._pending: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._work, name="zeromem-mcp-calls")
        self._worker.start()
        self.initialized = False

    # -- output -----------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        with self._write_lock:
            if self._gone:
                return
            try:
                self._out.write(data)
                self._out.flush()
            except OSError:  # the client went away: nothing more can reach it
                self._gone = True

    def _result(self, request_id: str | int, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _error(self, request_id: str | int | None, error: Invalid) -> None:
        body: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.data is not None:
            body["data"] = error.data
        self.send({"jsonrpc": "2.0", "id": request_id, "error": body})

    # -- input ------------------------------------------------------------------------------

    def receive(self, line: str) -> None:
        """Handle one line of input: a message, or nothing (a blank line)."""
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            self._error(None, Invalid(PARSE_ERROR, "Parse error", "not a JSON line"))
            return
        if may_hold_surrogates(line):
            message = readable(message)
        request_id = message.get("id") if isinstance(message, dict) else None
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            request_id = None
        try:
            self._dispatch(message, request_id)
        except Invalid as error:
            self._error(request_id, error)

    def _dispatch(self, message: Any, request_id: str | int | None) -> None:
        if not isinstance(message, dict):
            raise Invalid(INVALID_REQUEST, "Invalid Request", "a message is one JSON object")
        if message.get("jsonrpc") != "2.0":
            raise Invalid(INVALID_REQUEST, "Invalid Request", 'jsonrpc must be "2.0"')
        method = message.get("method")
        if method is None and ("result" in message or "error" in message):
            return  # a response, and this server sends no requests: nothing to answer
        if not isinstance(method, str):
            raise Invalid(INVALID_REQUEST, "Invalid Request", "method must be a string")
        params = message.get("params")
        if params is None:
            params = {}
        if "id" not in message:
            if isinstance(params, dict):  # a notification is never answered, even malformed
                self._notified(method, params)
        elif request_id is None:
            raise Invalid(INVALID_REQUEST, "Invalid Request", "id must be a string or an integer")
        elif not isinstance(params, dict):
            raise Invalid(INVALID_PARAMS, "Invalid params", "params must be an object")
        else:
            self._requested(request_id, method, params)

    def _notified(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/initialized":
            self.initialized = True
        elif method == "notifications/cancelled":
            cancelled = params.get("requestId")
            if isinstance(cancelled, str | int) and not isinstance(cancelled, bool):
                with self._state_lock:
                    self._cancelled.add(cancelled)
        # Any other notification needs nothing from this server.

    def _requested(self, request_id: str | int, method: str, params: dict[str, Any]) -> None:
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments")
            if arguments is None:
                arguments = {}
            if not isinstance(name, str) or not isinstance(arguments, dict):
                raise Invalid(
                    INVALID_PARAMS,
                    "Invalid params",
                    "tools/call takes a tool name and an object of arguments",
                )
            self._ready(method)
            with self._state_lock:
                self._cancelled.discard(request_id)  # an id may be used again once answered
            self._pending.put(_Call(request_id, name, arguments))
        elif method == "initialize":
            self._result(request_id, self._initialize(params))
        elif method == "ping":
            self._result(request_id, {})
        elif method == "tools/list":
            self._ready(method)
            self._result(request_id, {"tools": tool_list(self.calls)})
        elif method in _EMPTY_LISTS:
            self._ready(method)
            self._result(request_id, {_EMPTY_LISTS[method]: []})
        else:
            raise Invalid(METHOD_NOT_FOUND, "Method not found", method)

    def _ready(self, method: str) -> None:
        if not self.initialized:
            raise Invalid(
                INVALID_PARAMS,
                "Invalid request parameters",
                f"{method} before initialize: the session is not initialized",
            )

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        if (
            not isinstance(asked, str)
            or not isinstance(params.get("capabilities"), dict)
            or not isinstance(params.get("clientInfo"), dict)
        ):
            raise Invalid(
                INVALID_PARAMS,
                "Invalid params",
                "initialize takes protocolVersion, capabilities and clientInfo",
            )
        # Requests are served once the client has initialized (the notification follows).
        self.initialized = True
        return {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": NAME, "title": TITLE, "version": __version__},
            "instructions": INSTRUCTIONS,
        }

    # -- tool calls, one at a time ------------------------------------------------------------

    def _work(self) -> None:
        while (call := self._pending.get()) is not None:
            if self._is_cancelled(call.id):
                continue
            result = call_tool(self.calls, call.name, call.arguments)
            if not self._is_cancelled(call.id):
                self._result(call.id, result)

    def _is_cancelled(self, request_id: str | int) -> bool:
        with self._state_lock:
            return request_id in self._cancelled

    def close(self) -> None:
        """Answer the calls already received, then stop the worker."""
        self._pending.put(None)
        self._worker.join()


def _lines(source: BinaryIO) -> Iterable[str]:
    for raw in source:
        yield raw.decode("utf-8", errors="replace")


def _private_copy(fd: int) -> int:
    """A duplicate of ``fd`` outside the standard range (0-2), not inherited by children."""
    if sys.platform == "win32":
        return os.dup(fd)
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def serve_stdio(calls: ToolCalls) -> None:
    """Serve ``calls`` on this process's stdin and stdout until the client closes stdin."""
    sys.stdout.flush()
    wire_fd = _private_copy(1)
    os.dup2(2, 1)  # a stray write to stdout lands on stderr, never in the protocol
    try:
        with os.fdopen(wire_fd, "wb", closefd=False) as out:
            session = Session(calls, out)
            try:
                for line in _lines(sys.stdin.buffer):
                    session.receive(line)
            finally:
                session.close()
    finally:
        os.dup2(wire_fd, 1)
        os.close(wire_fd)


__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "Invalid",
    "Session",
    "encode",
    "serve_stdio",
]
