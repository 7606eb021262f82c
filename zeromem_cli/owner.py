"""Whose memories a face reads and writes: one resolution for the CLI, the hooks, the MCP
server, the ``llm`` plugin and the entries ``zeromem setup`` writes.

What one face stores another must find: a hook storing "the API server listens on port 8080"
in a repository and the agent's MCP tools searching for it in that repository must reach the
same owner. So every face hands its given values to ``resolve_owner`` and opens the store with
what it returns, and no face has a default of its own.

Each field is, in order: the value the face was given (an option, a tool argument), else the
environment (``ZEROMEM_USER``, ``ZEROMEM_AGENT``, ``ZEROMEM_SESSION``, ``ZEROMEM_PROJECT``),
else the default. The project's default is ``auto``: the git repository around the working
directory (``projects.resolve_project``: a hook passes the harness session's ``cwd``, every
other face its own). ``none`` (or ``off``) means no project: ``ZEROMEM_PROJECT=none`` turns
projects off for every face at once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from zeromem_cli.plain import FrozenRecord
from zeromem_cli.projects import AUTO, resolve_project

ENV = {
    "user": "ZEROMEM_USER",
    "agent": "ZEROMEM_AGENT",
    "session": "ZEROMEM_SESSION",
    "project": "ZEROMEM_PROJECT",
}


class Owner(FrozenRecord):
    """The resolved scope fields: ``project`` is a name (never ``auto``) or None."""

    user: str | None
    agent: str | None
    session: str | None
    project: str | None


def _pick(value: str | None, name: str, env: Mapping[str, str]) -> str | None:
    if value is not None and value.strip():
        return value
    return env.get(ENV[name]) or None


def project_setting(
    value: str | None = None, *, env: Mapping[str, str] | None = None, default: str = AUTO
) -> str:
    """The project option before resolution: given, else ``ZEROMEM_PROJECT``, else
    ``default``."""
    env = os.environ if env is None else env
    return _pick(value, "project", env) or default


def resolve_owner(
    user: str | None = None,
    agent: str | None = None,
    session: str | None = None,
    project: str | None = None,
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    default_project: str = AUTO,
) -> Owner:
    """The owner a face works as (see the module docstring for the order)."""
    env = os.environ if env is None else env
    return Owner(
        _pick(user, "user", env),
        _pick(agent, "agent", env),
        _pick(session, "session", env),
        resolve_project(project_setting(project, env=env, default=default_project), cwd),
    )


__all__ = ["ENV", "Owner", "project_setting", "resolve_owner"]
