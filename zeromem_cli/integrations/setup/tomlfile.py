"""The MCP server entry in Codex's ``config.toml``, with the file's comments and layout kept.

A new entry is appended as text (``[mcp_servers.zeromem]``, a blank line before it), so
nothing else in the file moves; an existing zeromem entry is updated in place and removed
through ``tomlkit``, the style-preserving TOML library (pure Python, no dependencies), which
keeps every comment, blank line and key order it did not touch.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from zeromem_cli.integrations.setup.jsonfile import SetupError

TABLE = "mcp_servers"


def _parse(text: str, name: str) -> Any:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise SetupError(f"{name} is not valid TOML: {exc}") from None


def _valid(text: str) -> bool:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


def _block(server: str, command: str, args: list[str], env: dict[str, str]) -> str:
    # json.dumps writes a valid TOML basic string for any text (TOML's escapes are JSON's).
    values = ", ".join(json.dumps(a, ensure_ascii=False) for a in args)
    program = json.dumps(command, ensure_ascii=False)
    block = f"[{TABLE}.{server}]\ncommand = {program}\nargs = [{values}]\n"
    if env:
        pairs = ", ".join(
            f"{json.dumps(k)} = {json.dumps(v, ensure_ascii=False)}" for k, v in env.items()
        )
        block += f"env = {{ {pairs} }}\n"
    return block


def merge_server(
    text: str | None,
    name: str,
    server: str,
    command: str,
    args: list[str],
    is_ours: Any,
    env: dict[str, str] | None = None,
) -> tuple[str, str | None]:
    """(new text, warning) with zeromem's MCP server entry in it."""
    text = text or ""
    doc = _parse(text, name)
    servers = doc.get(TABLE)
    current = servers.get(server) if hasattr(servers, "get") else None
    if current is not None:
        if not is_ours(current.get("command"), list(current.get("args", []))):
            return text, f'an MCP server named "{server}" that zeromem did not write is kept'
        if current.get("command") != command or list(current.get("args", [])) != args:
            current["command"] = command
            current["args"] = args
        if dict(current.get("env", {})) != (env or {}):
            if env:
                current["env"] = dict(env)
            elif "env" in current:
                del current["env"]
        return _parse_dump(doc), None
    base = text if not text or text.endswith("\n") else text + "\n"
    appended = (base + "\n" if base.strip() else "") + _block(server, command, args, env or {})
    if _valid(appended):
        return appended, None
    # An inline `mcp_servers = {...}` cannot be extended by a table header: edit it instead.
    import tomlkit

    if servers is None:
        doc[TABLE] = tomlkit.table(is_super_table=True)
        servers = doc[TABLE]
    servers[server] = {"command": command, "args": args, **({"env": dict(env)} if env else {})}
    return _parse_dump(doc), None


def remove_server(text: str | None, name: str, server: str, is_ours: Any) -> str | None:
    if text is None:
        return None
    doc = _parse(text, name)
    servers = doc.get(TABLE)
    current = servers.get(server) if hasattr(servers, "get") else None
    if current is None or not is_ours(current.get("command"), list(current.get("args", []))):
        return text
    del servers[server]
    if not servers:
        del doc[TABLE]
    result = re.sub(r"\n{2,}\Z", "\n", _parse_dump(doc))  # the blank line added before it
    return result if result.strip() else None


def _parse_dump(doc: Any) -> str:
    import tomlkit

    return tomlkit.dumps(doc)
