"""From "what should this harness have" to file changes: the heart of ``zeromem setup``.

The wanted state says which of zeromem's parts a harness gets: hooks, the MCP server entry, the
instruction block. Setup makes the files match it, so running it twice changes nothing the
second time, switching a part off (``--no-hooks``, ``--no-mcp``) takes that part out, and an
uninstall is the state with every part off. A file whose content would not change is left
exactly as it is, byte for byte.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from zeromem_cli.integrations.harnesses import EVENTS
from zeromem_cli.integrations.setup import instructions, jsonfile, tomlfile
from zeromem_cli.integrations.setup.entries import (
    Scope,
    hook_command,
    is_hook_command,
    is_mcp_entry,
    mcp_entry,
)
from zeromem_cli.integrations.setup.plan import FileChange, read_text
from zeromem_cli.integrations.setup.targets import SERVER, handlers, server_entry, target


class Wanted(NamedTuple):
    hooks: bool
    mcp: bool
    instructions: bool


NOTHING = Wanted(False, False, False)


Edit = Callable[[str | None], str | None]


def _json_edit(mutate: Callable[[dict[str, Any]], None], name: str) -> Edit:
    def edit(text: str | None) -> str | None:
        data, indent = jsonfile.load(text, name)
        before = copy.deepcopy(data)
        mutate(data)
        return text if data == before else jsonfile.dump(data, indent, text)

    return edit


def plan(
    harness: str,
    project: Path | None,
    wanted: Wanted,
    *,
    program: list[str],
    scope: Scope,
    timeout_ms: int,
) -> tuple[list[FileChange], list[str]]:
    """The changes that give ``harness`` the ``wanted`` parts, and any warnings."""
    files = target(harness, project)
    originals: dict[Path, str | None] = {}
    current: dict[Path, str | None] = {}
    warnings: list[str] = []

    def edit(path: Path, change: Callable[[str | None], str | None]) -> None:
        if path not in current:
            originals[path] = current[path] = read_text(path)
        current[path] = change(current[path])

    def ours(handler: Any) -> bool:
        return isinstance(handler, dict) and is_hook_command(handler.get("command"), harness)

    commands = {event: hook_command(program, harness, event, scope) for event in EVENTS}
    wanted_handlers = handlers(harness, commands, timeout_ms) if files.hooks is not None else {}

    def hooks(data: dict[str, Any]) -> None:
        if wanted.hooks:
            jsonfile.merge_hooks(data, wanted_handlers, ours)
        else:
            jsonfile.remove_hooks(data, ours)

    if files.hooks is not None:
        edit(files.hooks, _json_edit(hooks, str(files.hooks)))

    command, args = mcp_entry(program, scope)

    def server_ours(entry: Any) -> bool:
        return isinstance(entry, dict) and is_mcp_entry(entry.get("command"), entry.get("args"))

    if files.mcp_format == "json":

        def servers(data: dict[str, Any]) -> None:
            if wanted.mcp:
                warning = jsonfile.merge_server(
                    data, SERVER, server_entry(harness, command, args, scope.env()), server_ours
                )
                if warning:
                    warnings.append(f"{files.mcp}: {warning}")
            else:
                jsonfile.remove_server(data, SERVER, server_ours)

        edit(files.mcp, _json_edit(servers, str(files.mcp)))
    else:

        def toml(text: str | None) -> str | None:
            if not wanted.mcp:
                return tomlfile.remove_server(text, str(files.mcp), SERVER, is_mcp_entry)
            result, warning = tomlfile.merge_server(
                text, str(files.mcp), SERVER, command, args, is_mcp_entry, scope.env()
            )
            if warning:
                warnings.append(f"{files.mcp}: {warning}")
            return result

        edit(files.mcp, toml)

    if files.instructions is not None:
        edit(
            files.instructions,
            instructions.merge if wanted.instructions else instructions.remove,
        )
    changes = [FileChange(path, originals[path], current[path]) for path in current]
    return [change for change in changes if change.changed], warnings
