"""The ``setup`` command: zeromem's hooks and MCP server entry written into an agent harness's
settings, merged with what is there (``zeromem_cli/integrations/setup``)."""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import settings
from zeromem_cli.errors import InvalidInputError

if TYPE_CHECKING:
    from zeromem_cli.integrations.setup.entries import Scope


def _project_root(start: Path) -> Path:
    """The nearest folder holding ``.git`` (a repository or a worktree), else ``start``."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def _scope(
    db: Optional[Path], user: Optional[str], agent: Optional[str], *, project: bool, uninstall: bool
) -> "Scope":
    """The options the entries carry. A user's entries carry the ``ZEROMEM_HOME`` and
    ``ZEROMEM_DB`` setup runs with (the harness's environment may not have them); a
    project's never do: they are one machine's paths, in files a team commits."""
    import os

    from zeromem_cli.integrations.setup.entries import Scope

    home, env_db = os.environ.get("ZEROMEM_HOME"), os.environ.get("ZEROMEM_DB")
    given = str(db.expanduser().resolve()) if db else None
    if project:
        if (home or (env_db and not given)) and not uninstall:
            render.warning(
                "ZEROMEM_HOME/ZEROMEM_DB are set but not written into project files (one "
                "machine's paths in files a team commits): set them where the harness runs, "
                "or give --db"
            )
        return Scope(given, user, agent)
    if not given and env_db:
        given = env_db if "://" in env_db else str(Path(env_db).expanduser().resolve())
    return Scope(given, user, agent, str(Path(home).expanduser().resolve()) if home else None)


@app.command()
def setup(
    harness: Annotated[
        str, typer.Argument(help="claude-code, codex, gemini, or cursor (MCP server only).")
    ],
    project: Annotated[
        bool, typer.Option("--project", help="Write the project's files (see --dir).")
    ] = False,
    user_level: Annotated[
        bool, typer.Option("--user", help="Write your user files (the default).")
    ] = False,
    directory: Annotated[
        Optional[Path],
        typer.Option(
            "--dir",
            help="Project folder for --project [default: the git repository around the "
            "current folder, else the current folder].",
            show_default=False,
            file_okay=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the changes as a diff; write nothing.")
    ] = False,
    uninstall: Annotated[
        bool, typer.Option("--uninstall", help="Remove exactly what setup added.")
    ] = False,
    no_hooks: Annotated[
        bool,
        typer.Option(
            "--no-hooks",
            help="No hooks: the MCP server and an instruction block (CLAUDE.md, AGENTS.md, "
            "GEMINI.md) instead.",
        ),
    ] = False,
    no_mcp: Annotated[bool, typer.Option("--no-mcp", help="No MCP server entry.")] = False,
    command: Annotated[
        Optional[str],
        typer.Option(
            "--command",
            help="How the harness runs zeromem [default: this zeromem's absolute path; "
            "`zeromem` from PATH in a project's files].",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        Optional[Path],
        typer.Option("--db", help="Database the entries use [default: zeromem's default]."),
    ] = None,
    memory_user: Annotated[
        Optional[str], typer.Option("--memory-user", help="User scope the entries use.")
    ] = None,
    memory_agent: Annotated[
        Optional[str], typer.Option("--memory-agent", help="Agent scope the entries use.")
    ] = None,
) -> None:
    """Set up zeromem in an agent harness: hooks that inject memories at session start and
    per prompt and ingest the transcript by rules, plus the `zeromem mcp` server entry."""
    from zeromem_cli.integrations.harnesses import HARNESSES
    from zeromem_cli.integrations.setup.entries import program
    from zeromem_cli.integrations.setup.plan import apply, unified_diff
    from zeromem_cli.integrations.setup.planner import NOTHING, Wanted, plan
    from zeromem_cli.integrations.setup.targets import MCP_ONLY

    if harness not in HARNESSES and harness not in MCP_ONLY:
        names = ", ".join([*HARNESSES, *MCP_ONLY])
        raise InvalidInputError(f"unknown harness {harness!r} (use {names})")
    if harness in MCP_ONLY and (no_mcp or no_hooks) and not uninstall:
        raise InvalidInputError(f"{harness} takes only the MCP server: no --no-mcp or --no-hooks")
    if project and user_level:
        raise InvalidInputError("give --project or --user, not both")
    if no_hooks and no_mcp and not uninstall:
        raise InvalidInputError("--no-hooks and --no-mcp together leave nothing to set up")
    root = None
    if project or directory is not None:
        root = (directory or _project_root(Path.cwd())).resolve()
    wanted = NOTHING if uninstall else Wanted(not no_hooks, not no_mcp, no_hooks)
    scope = _scope(db, memory_user, memory_agent, project=root is not None, uninstall=uninstall)
    changes, warnings = plan(
        harness,
        root,
        wanted,
        program=program(command) if command or root is None else ["zeromem"],
        scope=scope,
        timeout_ms=settings().get("hooks.timeout_ms"),
    )
    for warning in warnings:
        render.warning(warning)
    where = f"{harness} ({'project ' + str(root) if root else 'user'})"
    if not changes:
        render.message(f"setup: nothing to change for {where}")
        return
    if dry_run:
        sys.stdout.write("".join(unified_diff(change) for change in changes))
        render.message(f"setup (dry run, nothing written): {len(changes)} file(s) would change")
        return
    for change in changes:
        backup = apply(change, backup=root is None and not uninstall)
        verb = "updated" if change.before is not None else "created"
        verb = "removed" if change.after is None else verb
        saved = f" (backup: {backup})" if backup else ""
        render.message(f"setup: {verb} {change.path}{saved}")
    if not uninstall and not no_hooks and harness == "codex":
        render.message("setup: Codex runs new hooks only once you trust them: open /hooks in Codex")
