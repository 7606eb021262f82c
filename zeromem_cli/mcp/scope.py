"""Whose memories a tool call reaches: the server's scope, fixed when it starts.

A model must not widen its own access by naming another user (the complaint about memory
servers that take a ``user_id`` argument from the model). A call that names a user, agent or
session other than the server's is refused, saying why, unless the server was started with
``--allow-scope-override``; even then it may only move among the agents and sessions of the
configured user and project (a call has no way to name a project, and a server started without
a user stays on the unscoped memories). Moving among sessions matters only to an isolated
server (``--isolate``): otherwise every session of the user and project is already read, and
naming one sets the origin of what the call writes.
"""

from __future__ import annotations

from typing import NamedTuple

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Scope


class ScopeRefusedError(InvalidInputError):
    """A tool call named a scope the server does not serve; nothing was read or written."""


def describe(scope: Scope) -> str:
    parts = [
        f"{name} {value!r}"
        for name, value in (
            ("user", scope.user),
            ("agent", scope.agent),
            ("session", scope.session),
            ("project", scope.project),
        )
        if value is not None
    ]
    return " / ".join(parts) if parts else "the unscoped memories"


class ScopePolicy(NamedTuple):
    """The server's scope and whether a call may move within its user."""

    scope: Scope
    allow_override: bool = False

    def resolve(
        self, user: str | None = None, agent: str | None = None, session: str | None = None
    ) -> Scope:
        """The scope a call works on. ``None`` means "not named": the server's value."""
        named = {"user": user, "agent": agent, "session": session}
        asked = Scope(
            self.scope.user if user is None else user,
            self.scope.agent if agent is None else agent,
            self.scope.session if session is None else session,
            self.scope.project,  # never named by a call: the server's
            isolate=self.scope.isolate,
        )
        if asked == self.scope:
            return asked
        if asked.user != self.scope.user:
            where = f"user {self.scope.user!r}" if self.scope.user else "no user"
            if self.allow_override:
                raise ScopeRefusedError(
                    f"scope refused: this server reaches agents and sessions within {where} "
                    f"only, not user {asked.user!r}; nothing was read or written"
                )
            raise ScopeRefusedError(
                f"scope refused: this server serves {describe(self.scope)} only (set when it "
                f"started), so a call cannot name user {asked.user!r}; nothing was read or "
                "written"
            )
        if not self.allow_override:
            field = next(
                n for n in ("agent", "session") if getattr(asked, n) != getattr(self.scope, n)
            )
            raise ScopeRefusedError(
                f"scope refused: this server serves {describe(self.scope)} only (set when it "
                f"started; --allow-scope-override lets calls name another agent or session), so "
                f"a call cannot name {field} {named[field]!r}; nothing was read or written"
            )
        return asked


__all__ = ["ScopePolicy", "ScopeRefusedError", "describe"]
