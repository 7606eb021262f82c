"""Merging into JSON settings files (Claude Code, Codex ``hooks.json``, Gemini CLI) without
disturbing the rest: what did not change keeps its exact text (``jsontext``), what did is laid
out at the file's own indentation, and a file that is not plain JSON (comments, trailing
commas) is refused rather than rewritten without them.

Hooks use one shape in all three: ``{"hooks": {EVENT: [{"matcher"?, "hooks": [HANDLER...]}]}}``.
zeromem adds one group per event holding only its handler, at the end of the event's list;
running setup again updates that handler in place; uninstalling removes zeromem's handlers and
only the groups, events and tables that removal left empty.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from zeromem_cli.errors import InvalidInputError

Handler = dict[str, Any]
IsOurs = Callable[[Any], bool]


class SetupError(InvalidInputError):
    """A settings file zeromem will not merge into."""


def load(text: str | None, name: str) -> tuple[dict[str, Any], str]:
    """(document, indent) of a settings file's text; an absent or empty file is ``{}``."""
    if text is None or not text.strip():
        return {}, "  "
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SetupError(
            f"{name} is not plain JSON ({exc}); comments or trailing commas would be lost if "
            "zeromem rewrote it: add the entries `--dry-run` shows by hand"
        ) from None
    if not isinstance(data, dict):
        raise SetupError(f"{name} does not hold a JSON object")
    found = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
    return data, found.group(1) if found else "  "


def dump(data: dict[str, Any], indent: str, original: str | None) -> str | None:
    """The new text; None removes the file (an uninstall that took out all it held)."""
    if not data:
        if original is None or original.strip() in ("", "{}"):
            return original
        return None
    if original is None or not original.strip():
        text = json.dumps(data, indent=indent, ensure_ascii=False)
    else:
        from zeromem_cli.integrations.setup import jsontext

        head = original[: len(original) - len(original.lstrip())]
        text = head + jsontext.render(data, jsontext.parse(original), original, indent)
    return text + "\n" if original is None or original.endswith("\n") else text


def merge_hooks(data: dict[str, Any], wanted: dict[str, Handler], is_ours: IsOurs) -> None:
    """Put each of ``wanted`` (event -> handler) into ``data["hooks"]`` once."""
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError('"hooks" is not an object')
    for event, handler in wanted.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f'"hooks.{event}" is not a list')
        placed = False
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            for at in range(len(handlers) - 1, -1, -1):
                if is_ours(handlers[at]):
                    if placed:
                        del handlers[at]  # a second copy: one is enough
                    else:
                        handlers[at] = handler
                        placed = True
        if not placed:
            groups.append({"hooks": [handler]})
        _prune_groups(hooks, event, groups)


def remove_hooks(data: dict[str, Any], is_ours: IsOurs) -> None:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        touched = False
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(is_ours(h) for h in handlers):
                group["hooks"] = [h for h in handlers if not is_ours(h)]
                touched = True
        if touched:
            _prune_groups(hooks, event, groups)
    if not hooks:
        del data["hooks"]


def _prune_groups(hooks: dict[str, Any], event: str, groups: list[Any]) -> None:
    """Drop groups left without handlers, and the event when no group is left."""
    groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
    if not groups:
        del hooks[event]


def merge_server(
    data: dict[str, Any], name: str, entry: dict[str, Any], is_ours: IsOurs
) -> str | None:
    """Put the MCP server entry under ``mcpServers``; a warning when the name is taken."""
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise SetupError('"mcpServers" is not an object')
    current = servers.get(name)
    if current is not None and not is_ours(current):
        return f'an MCP server named "{name}" that zeromem did not write is kept as it is'
    servers[name] = entry
    return None


def remove_server(data: dict[str, Any], name: str, is_ours: IsOurs) -> None:
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and name in servers and is_ours(servers[name]):
        del servers[name]
        if not servers:
            del data["mcpServers"]
