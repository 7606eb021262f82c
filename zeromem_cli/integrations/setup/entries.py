"""The entries zeromem writes into a harness's files, and how it recognises them again.

A hook entry runs ``<zeromem> hook <harness> <event>`` with the scope options given to setup;
the MCP server entry runs ``<zeromem> mcp`` with the same options. In a user's files
``<zeromem>`` is the absolute path of the running console script (a harness started from a
desktop may not share the shell's PATH), else ``zeromem``; in a project's files, which a team
commits, it is ``zeromem`` from PATH (no machine's path); ``--command`` overrides both. An entry
is zeromem's when its command runs a program named ``zeromem`` (or ``python -m zeromem_cli``)
whose next arguments are ``hook <harness>`` or ``mcp``: that, not the exact text, is what an
update replaces and an uninstall removes, so a moved install or a changed scope is still
recognised.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import NamedTuple

_PROGRAMS = {"zeromem", "zeromem.exe"}


class Scope(NamedTuple):
    """The store options every entry passes on, and ``home``: the ``ZEROMEM_HOME`` setup ran
    with, carried into a user's entries (as an environment variable) so that the harness's
    zeromem finds the same config and database."""

    db: str | None = None
    user: str | None = None
    agent: str | None = None
    home: str | None = None

    def env(self) -> dict[str, str]:
        return {"ZEROMEM_HOME": self.home} if self.home else {}

    def args(self) -> list[str]:
        found: list[str] = []
        for option, value in (("--db", self.db), ("--user", self.user), ("--agent", self.agent)):
            if value:
                found += [option, value]
        return found


def program(override: str | None = None) -> list[str]:
    """The command that runs zeromem, as argv."""
    if override:
        return shlex.split(override)
    script = Path(sys.argv[0])
    if script.name in _PROGRAMS and script.is_file():
        return [str(script.resolve())]
    found = shutil.which("zeromem")
    return [str(Path(found).resolve())] if found else ["zeromem"]


def hook_command(base: list[str], harness: str, event: str, scope: Scope) -> str:
    """The hook's shell command; ``env NAME=value`` first when the scope carries a home
    (``env`` works whether the harness runs it through a shell or directly)."""
    prefix = ["env", *(f"{k}={v}" for k, v in scope.env().items())] if scope.env() else []
    return shlex.join([*prefix, *base, "hook", harness, event, *scope.args()])


def mcp_entry(base: list[str], scope: Scope) -> tuple[str, list[str]]:
    """(command, args) of the MCP server entry."""
    return base[0], [*base[1:], "mcp", *scope.args()]


def _zeromem_args(argv: list[str]) -> list[str] | None:
    """The arguments after the zeromem program in ``argv``, or None if it runs no zeromem."""
    for at, word in enumerate(argv):
        name = Path(word).name
        if name in _PROGRAMS:
            return argv[at + 1 :]
        if word == "-m" and argv[at + 1 : at + 2] == ["zeromem_cli"]:
            return argv[at + 2 :]
    return None


def is_hook_command(command: object, harness: str) -> bool:
    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    rest = _zeromem_args(argv)
    return rest is not None and rest[:2] == ["hook", harness]


def is_mcp_entry(command: object, args: object) -> bool:
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    rest = _zeromem_args([command, *(str(a) for a in args)])  # an executable, not shell text
    return rest is not None and rest[:1] == ["mcp"]
