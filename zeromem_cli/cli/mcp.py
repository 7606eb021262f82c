"""The ``mcp`` command: serve the store to AI agents over the Model Context Protocol.

The server lives in ``zeromem_cli.mcp``; this module checks the options, opens the store in
the scope the usual options select and hands both over. Stdio is served by zeromem's own
code; only ``--http`` needs the optional extra ``zeromem[mcp]`` (the MCP SDK).
"""

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import StoreOptions, settings, store_options
from zeromem_cli.errors import InvalidInputError, ZeromemError


class ToolSet(str, Enum):
    default = "default"
    all = "all"


class MissingExtraError(ZeromemError):
    exit_code = 1


@app.command("mcp")
@store_options
def serve_mcp(
    where: StoreOptions,
    http: Annotated[
        Optional[str],
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio; a "
            "non-loopback HOST needs --token-file.",
            show_default=False,
        ),
    ] = None,
    token_file: Annotated[
        Optional[Path],
        typer.Option(
            "--token-file",
            help="File holding the bearer token every HTTP request must send (mode 600).",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    tools: Annotated[
        ToolSet,
        typer.Option(
            "--tools",
            help="default: the six memory tools; all: also history, restore, stats, export.",
            case_sensitive=False,
        ),
    ] = ToolSet.default,
    allow_scope_override: Annotated[
        bool,
        typer.Option(
            "--allow-scope-override",
            help="Let tool calls name another agent or session of the configured user.",
        ),
    ] = False,
) -> None:
    """Serve this memory to AI agents over MCP (stdio by default, or --http)."""
    from zeromem_cli.mcp.listen import is_loopback, parse_address, read_token

    address = parse_address(http) if http is not None else None
    if token_file is not None and address is None:
        raise InvalidInputError("--token-file is for --http: stdio needs no token")
    if address is not None and token_file is None and not is_loopback(address[0]):
        raise InvalidInputError(
            f"--http {http}: not a loopback address, so clients must authenticate: give "
            "--token-file FILE (a bearer token every request must send)"
        )
    token = read_token(token_file) if token_file is not None else None
    _require_sdk(http=address is not None)
    from zeromem_cli.mcp.scope import ScopePolicy
    from zeromem_cli.mcp.serving import ServerOptions, serve
    from zeromem_cli.mcp.toolbox import Toolbox

    config = settings()
    with where.open() as store:
        box = Toolbox(store, config, ScopePolicy(store.scope, allow_scope_override))
        options = ServerOptions(
            all_tools=tools is ToolSet.all,
            allow_scope_override=allow_scope_override,
            token=token,
            issuer=_issuer(address),
        )
        serve(box, options, address, announce=lambda line: render.message(f"zeromem mcp: {line}"))


def _issuer(address: Optional[tuple[str, int]]) -> str:
    """The server's own URL (the issuer the SDK's bearer check names)."""
    if address is None:
        return "http://127.0.0.1"
    host, port = address
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _require_sdk(http: bool) -> None:
    """``--http`` without the MCP SDK installed: one line naming the extra, exit 1. Stdio
    needs nothing beyond zeromem itself (its server is plain code), so a plain install serves
    it."""
    if not http:
        return
    from zeromem_cli.mcp import EXTRA

    try:
        import zeromem_cli.mcp.server  # noqa: F401
    except ImportError as exc:
        if (exc.name or "").startswith("zeromem_cli"):
            raise
        raise MissingExtraError(
            f"`zeromem mcp --http` needs the MCP SDK: pip install '{EXTRA}'"
        ) from None
