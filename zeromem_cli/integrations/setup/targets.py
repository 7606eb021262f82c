"""Which files each harness reads, at user or project level, and zeromem's entries in them.

- Claude Code: hooks in ``~/.claude/settings.json``, the MCP server in ``~/.claude.json``
  (``mcpServers``), instructions in ``~/.claude/CLAUDE.md``; for a project
  ``.claude/settings.json``, ``.mcp.json`` and ``CLAUDE.md``.
- Codex CLI: ``~/.codex/hooks.json``, ``~/.codex/config.toml`` (``[mcp_servers]``),
  ``~/.codex/AGENTS.md``; for a project ``.codex/hooks.json``, ``.codex/config.toml``,
  ``AGENTS.md``.
- Gemini CLI: hooks and MCP server both in ``~/.gemini/settings.json``, instructions in
  ``~/.gemini/GEMINI.md``; for a project ``.gemini/settings.json`` and ``GEMINI.md``.
- Cursor: the MCP server only, in ``~/.cursor/mcp.json`` or a project's ``.cursor/mcp.json``
  (``mcpServers``: command, args, env, as Cursor's MCP documentation gives them).

``CLAUDE_CONFIG_DIR`` moves Claude Code's user files, ``CODEX_HOME`` Codex's, as those tools do.
Hook timeouts leave the hook's own limits (``hooks.timeout_ms`` of CPU, two seconds more of
wall time) room to end first; Codex clamps a ``SessionEnd`` hook to 3 s, so that one is
written as 3 (the Stop hook has captured each turn before it). Gemini CLI counts timeouts in
milliseconds, the others in seconds.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, NamedTuple

from zeromem_cli.integrations.harnesses import EVENTS, HARNESSES

SERVER = "zeromem"


# Harnesses setup knows that take only the MCP server (no hooks, no instruction file).
MCP_ONLY = ("cursor",)


class Target(NamedTuple):
    hooks: Path | None  # None: the harness takes no hooks
    mcp: Path
    mcp_format: str  # json or toml
    instructions: Path | None


def _home() -> Path:
    return Path.home()


def target(harness: str, project: Path | None) -> Target:
    """The files of ``harness``: the user's (``project`` None) or a project's."""
    if harness == "claude-code":
        if project is not None:
            return Target(
                project / ".claude" / "settings.json",
                project / ".mcp.json",
                "json",
                project / "CLAUDE.md",
            )
        config = os.environ.get("CLAUDE_CONFIG_DIR")
        folder = Path(config).expanduser() if config else _home() / ".claude"
        mcp = folder / ".claude.json" if config else _home() / ".claude.json"
        return Target(folder / "settings.json", mcp, "json", folder / "CLAUDE.md")
    if harness == "codex":
        if project is not None:
            folder = project / ".codex"
            return Target(
                folder / "hooks.json", folder / "config.toml", "toml", project / "AGENTS.md"
            )
        home = os.environ.get("CODEX_HOME")
        folder = Path(home).expanduser() if home else _home() / ".codex"
        return Target(folder / "hooks.json", folder / "config.toml", "toml", folder / "AGENTS.md")
    if harness == "cursor":
        base = project if project is not None else _home()
        return Target(None, base / ".cursor" / "mcp.json", "json", None)
    if harness == "gemini":
        base = project if project is not None else _home()
        settings = base / ".gemini" / "settings.json"
        notes = project / "GEMINI.md" if project is not None else base / ".gemini" / "GEMINI.md"
        return Target(settings, settings, "json", notes)
    raise KeyError(harness)


def handlers(harness: str, commands: dict[str, str], timeout_ms: int) -> dict[str, Any]:
    """Harness event name -> zeromem's handler for it."""
    # Room past the hook's own limits (its CPU limit, and the wall time the watchdog allows
    # past it, hooks.watchdog.WALL_GRACE) so that the hook always ends first.
    seconds = math.ceil(timeout_ms / 1000) + 3
    found: dict[str, Any] = {}
    for event in EVENTS:
        name = HARNESSES[harness].event_name(event)
        handler: dict[str, Any] = {"type": "command", "command": commands[event]}
        if harness == "gemini":
            handler = {**handler, "name": f"zeromem-{event}", "timeout": timeout_ms + 3000}
        elif harness == "codex" and event == "session-end":
            handler["timeout"] = min(seconds, 3)
        else:
            handler["timeout"] = seconds
        found[name] = handler
    return found


def server_entry(
    harness: str, command: str, args: list[str], env: dict[str, str] | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": command, "args": args}
    if harness == "claude-code":
        entry = {"type": "stdio", **entry}
    if env:
        entry["env"] = dict(env)
    return entry
