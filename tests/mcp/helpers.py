"""A real MCP client for the tests: the SDK's own ClientSession over stdio_client, talking to
a ``python -m zeromem_cli mcp`` subprocess, driven synchronously from a test (its event loop
runs in an anyio portal thread, so hypothesis and plain threads can use it)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import jsonschema
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, Tool

from zeromem_cli.pack.tokens import count_tokens

REPO = Path(__file__).resolve().parents[2]
DEFAULT_TOOLS = {
    "memory_context",
    "memory_search",
    "memory_get",
    "memory_save",
    "memory_forget",
    "memory_ingest",
}
ADMIN_TOOLS = {"memory_history", "memory_restore", "memory_stats", "memory_export"}


def _semantic_env() -> dict[str, str]:
    """The test's semantic switch (off unless the test is marked ``semantic``): the server
    gets no other environment from the test process."""
    import os

    value = os.environ.get("ZEROMEM_SEARCH_SEMANTIC")
    return {} if value is None else {"ZEROMEM_SEARCH_SEMANTIC": value}


class McpClient:
    """One ``zeromem mcp`` server process and an initialized client session to it."""

    def __init__(
        self,
        db: Path,
        *options: str,
        home: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.errlog_path = home / "server-stderr.log"
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "zeromem_cli", "mcp", "--db", str(db), *options],
            env={"ZEROMEM_HOME": str(home), **_semantic_env(), **(env or {})},
            cwd=str(home),  # outside any repository: the server serves no project
        )
        self._stack = ExitStack()
        try:
            self.portal = self._stack.enter_context(start_blocking_portal())
            errlog = self._stack.enter_context(self.errlog_path.open("a", encoding="utf-8"))
            self.session: ClientSession = self._stack.enter_context(
                self.portal.wrap_async_context_manager(_connect(params, errlog))
            )
        except BaseException:
            self._stack.close()
            raise
        self.initialize = self.session.initialize_result
        self._tools: dict[str, Tool] | None = None

    def list_tools(self) -> list[Tool]:
        tools = self.portal.call(self.session.list_tools).tools
        self._tools = {tool.name: tool for tool in tools}
        return tools

    def tool(self, name: str) -> Tool:
        if self._tools is None:
            self.list_tools()
        assert self._tools is not None
        return self._tools[name]

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(self.session.call_tool, name, arguments)

    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        """The structured content of a successful call, checked against the tool's declared
        outputSchema (the SDK client checks it too)."""
        result = self.call(name, **arguments)
        assert not result.is_error, text_of(result)
        data = result.structured_content
        assert isinstance(data, dict)
        jsonschema.validate(data, self.tool(name).output_schema or {})
        return data

    def error(self, name: str, **arguments: Any) -> str:
        """The one-line message of a call that must fail."""
        result = self.call(name, **arguments)
        assert result.is_error, text_of(result)
        message = text_of(result)
        assert "\n" not in message.strip(), message
        return message

    def stderr(self) -> str:
        return self.errlog_path.read_text(encoding="utf-8")

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> McpClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@asynccontextmanager
async def _connect(params: StdioServerParameters, errlog: Any) -> AsyncIterator[ClientSession]:
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text_of(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def wire_tokens(data: dict[str, Any]) -> int:
    """Tokens of a structured result as the protocol carries it (compact JSON)."""
    return count_tokens(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def within_budget(result: CallToolResult) -> tuple[int, int, int]:
    """(text tokens, structured tokens, max_tokens) of a successful read."""
    data = result.structured_content
    assert isinstance(data, dict)
    return count_tokens(text_of(result)), wire_tokens(data), int(data["max_tokens"])
