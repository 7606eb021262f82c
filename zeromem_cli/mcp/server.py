"""The MCP server for ``--http``: zeromem's tools (``catalog``) on the SDK's ``MCPServer``,
over streamable HTTP (stdio is served without the SDK: ``stdio``).

The SDK owns the protocol here (handshake, listing, argument validation against the declared
types, output-schema checks, the transport). What a model meets around it is shared with the
stdio server (``calls``): aliases turned into the declared names, a call naming another scope
refused, unknown or malformed arguments answered in one line, and every failure an
``isError`` result with zeromem's message: a call never kills the server. Each catalog
parameter becomes the annotated signature the SDK builds its schema from; a test holds what
it lists equal to what the stdio server lists.

Store calls run in worker threads one at a time: one SQLite connection per process, and other
processes on the same file wait on SQLite's own lock, within its busy timeout.
"""

import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from zeromem_cli import __version__
from zeromem_cli.errors import ZeromemError
from zeromem_cli.mcp import schemas
from zeromem_cli.mcp.calls import (
    INSTRUCTIONS,
    NAME,
    TITLE,
    ServerOptions,
    ToolCalls,
    internal_error,
    logger,
    message_of,
    settle_collector,
)
from zeromem_cli.mcp.catalog import REQUIRED, Param
from zeromem_cli.mcp.scope import describe
from zeromem_cli.mcp.toolbox import Toolbox, ToolOutput

_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "boolean": bool,
    "array of string": list[str],
    "array of integer": list[int],
    "array of object": list[dict[str, Any]],
}


def annotation(param: Param) -> Any:
    """The parameter as the annotated type the SDK builds its schema and check from."""
    kind = f"array of {param.items or 'string'}" if param.kind == "array" else param.kind
    python = _TYPES[kind]
    if param.nullable:
        python = python | None
    return Annotated[
        python, Field(description=param.description, ge=param.minimum, le=param.maximum)
    ]


def error_result(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _validation_message(tool: str, exc: ValidationError) -> str:
    """Pydantic's errors as one line, naming each argument and never echoing its value."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        parts.append(f"{where}: {error['msg']}")
    return f"invalid arguments for {tool}: " + "; ".join(parts)


# What the SDK's ``MCPServer`` imports to log through rich when rich is installed (as the CLI
# has it): ~50 ms of imports and terminal probing at every start, for log lines on stderr.
RICH_LOGGING = ("rich.console", "rich.logging")


@contextmanager
def plain_logging() -> Iterator[None]:
    """While the SDK builds the server, rich's logging modules cannot be imported, so the SDK
    takes its own fallback: a plain ``logging.StreamHandler`` on stderr. A process that
    already loaded rich keeps it."""
    blocked = [name for name in RICH_LOGGING if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        yield
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]


class ZeromemServer(MCPServer[Any]):
    """``MCPServer`` with zeromem's tools (``calls.ToolCalls``) over one open store."""

    def __init__(self, box: Toolbox, options: ServerOptions = ServerOptions()) -> None:
        auth: dict[str, Any] = {}
        if options.token is not None:
            from zeromem_cli.mcp.auth import bearer_auth

            auth = bearer_auth(options.token, options.issuer)
        with plain_logging():
            super().__init__(
                NAME,
                title=TITLE,
                instructions=INSTRUCTIONS,
                version=__version__,
                log_level="WARNING",
                **auth,
            )
        self.box = box
        self.calls = ToolCalls(box, options)
        for name in self.calls.tools:
            self._register(name)

    @property
    def tool_names(self) -> list[str]:
        return list(self.calls.tools)

    def _register(self, name: str) -> None:
        calls = self.calls
        spec, params = calls.tools[name]

        async def call(**arguments: Any) -> CallToolResult:
            return await self.run_store_call(lambda: calls.run(name, arguments))

        signature = inspect.Signature(
            [
                inspect.Parameter(
                    p.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=annotation(p),
                    default=inspect.Parameter.empty if p.default is REQUIRED else p.default,
                )
                for p in params
            ],
            return_annotation=Annotated[CallToolResult, schemas.MODELS[spec.output]],
        )
        call.__signature__ = signature  # type: ignore[attr-defined]
        call.__annotations__ = {
            **{p.name: annotation(p) for p in params},
            "return": signature.return_annotation,
        }
        call.__name__ = name
        self.add_tool(
            call,
            name=name,
            title=spec.title,
            description=spec.description,
            annotations=ToolAnnotations.model_validate({**spec.annotations, "title": spec.title}),
        )

    async def run_store_call(self, work: Callable[[], ToolOutput]) -> CallToolResult:
        """Run one tool's work in a worker thread (``calls.run`` takes them one at a time);
        failures become results."""
        try:
            output = await anyio.to_thread.run_sync(work)
        except ZeromemError as exc:
            return error_result(message_of(exc))
        except Exception as exc:  # a bug: the server stays up, the caller learns of it
            return error_result(internal_error(exc))
        return CallToolResult(
            content=[TextContent(type="text", text=output.text)], structured_content=output.data
        )

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if name not in self.calls.tools:
            return error_result(self.calls.unknown_tool(name))
        try:
            given = self.calls.arguments(name, arguments)
        except ZeromemError as exc:
            return error_result(message_of(exc))
        try:
            return await super().call_tool(name, given, context)
        except UnexpectedToolError as exc:  # a bug (a result off its schema): said, not fatal
            logger.exception("zeromem tool failed")
            return error_result(f"internal error in {name}: {type(exc.__cause__).__name__}")
        except ToolError as exc:  # the arguments do not fit the declared types
            if isinstance(exc.__cause__, ValidationError):
                return error_result(_validation_message(name, exc.__cause__))
            return error_result(" ".join(str(exc).split()))


def serve_http(
    box: Toolbox,
    options: ServerOptions,
    host: str,
    port: int,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until the process is interrupted.
    ``announce`` gets one line saying what is served (the CLI prints it on stderr)."""
    server = ZeromemServer(box, options)
    settle_collector()
    what = f"{describe(box.store.scope)} of {box.store.path} ({len(server.tool_names)} tools)"
    shown = f"[{host}]" if ":" in host else host
    from zeromem_cli.mcp.listen import check_port

    check_port(host, port)
    if announce is not None:
        auth = "bearer token required" if options.token else "no token: loopback only"
        announce(f"serving {what} over streamable HTTP at http://{shown}:{port}/mcp ({auth})")
    server.run("streamable-http", host=host, port=port)


__all__ = [
    "ServerOptions",
    "ZeromemServer",
    "annotation",
    "error_result",
    "message_of",
    "serve_http",
]
