"""Which server a ``zeromem mcp`` process runs: stdio without the SDK (``stdio``), or the
SDK's streamable HTTP server (``server``), each over the same tools (``calls``)."""

from __future__ import annotations

from collections.abc import Callable

from zeromem_cli.mcp.calls import ServerOptions, ToolCalls, settle_collector
from zeromem_cli.mcp.scope import describe
from zeromem_cli.mcp.toolbox import Toolbox


def serve(
    box: Toolbox,
    options: ServerOptions,
    http: tuple[str, int] | None = None,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Run until the client goes away (stdio) or the process is interrupted (HTTP).
    ``announce`` gets one line saying what is served (the CLI prints it on stderr)."""
    if http is not None:
        from zeromem_cli.mcp.server import serve_http

        serve_http(box, options, *http, announce=announce)
        return
    from zeromem_cli.mcp.stdio import serve_stdio

    calls = ToolCalls(box, options)
    settle_collector()
    if announce is not None:
        what = f"{describe(box.store.scope)} of {box.store.path} ({len(calls.tools)} tools)"
        announce(f"serving {what} over stdio")
    serve_stdio(calls)


__all__ = ["ServerOptions", "serve"]
