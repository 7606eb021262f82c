"""The WHERE clauses every read shares: what a store's scope reads and a ``Filters`` value, over the
``memories m`` alias, with named parameters only (``s_*`` for the scope, ``f_*`` for filters)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from zeromem_cli.models import Filters, Scope
from zeromem_cli.times import to_iso

# A store reads its owner's memories (user and project), from every origin (agent, session);
# an isolated store (``Scope.isolate``) reads exactly its own scope. Both are plain equality on
# the scope indexes.
OWNER_SQL = "m.user = :s_user AND m.project = :s_project"
EXACT_SQL = f"{OWNER_SQL} AND m.agent = :s_agent AND m.session = :s_session"
# The origin index holds only memories with an agent or a session (m011); a read naming one
# says so in these words, the only form in which SQLite sees that the index holds its rows.
ORIGIN_SQL = "(m.agent != '' OR m.session != '')"
# A project's pack with the user's own memories (``Scope.with_user``): one read, not two.
WITH_USER_SQL = "m.user = :s_user AND m.project IN (:s_project, '')"


def id_list(ids: Iterable[int]) -> str:
    """Ids as the JSON array ``json_each(?)`` reads, written without the ``json`` module (a
    search need not load it): ``[1,2,3]``."""
    return "[" + ",".join([str(int(i)) for i in ids]) + "]"


def scope_params(scope: Scope) -> dict[str, str]:
    user, agent, session, project = scope.as_columns()
    params = {"s_user": user, "s_project": project}
    if scope.isolate:
        params.update(s_agent=agent, s_session=session)
    return params


def scope_sql(scope: Scope) -> str:
    """The clause (over ``memories m``) selecting what ``scope`` reads: ``scope_params``'s."""
    if scope.isolate:
        return f"{EXACT_SQL} AND {ORIGIN_SQL}" if scope.agent or scope.session else EXACT_SQL
    return WITH_USER_SQL if scope.with_user else OWNER_SQL


def scope_clause(scope: Scope | None) -> tuple[str, dict[str, Any]]:
    """The clause selecting what ``scope`` reads (None: every scope), and its parameters."""
    if scope is None:
        return "1", {}
    return scope_sql(scope), scope_params(scope)


def filter_clause(filters: Filters, now: datetime) -> tuple[str, dict[str, Any]]:
    """The clause selecting what ``filters`` admit at ``now``, and its parameters."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if not filters.include_deleted:
        clauses.append("m.deleted_at IS NULL")
    if not filters.include_expired:
        clauses.append("(m.expires_at IS NULL OR m.expires_at > :f_now)")
        params["f_now"] = to_iso(now)
    if filters.category is not None:
        clauses.append("m.category = :f_category")
        params["f_category"] = filters.category
    for number, tag in enumerate(dict.fromkeys(filters.tags)):
        clauses.append(
            f"EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = :f_tag{number})"
        )
        params[f"f_tag{number}"] = tag
    if filters.key is not None:
        clauses.append("m.key = :f_key")
        params["f_key"] = filters.key
    if filters.since is not None:
        clauses.append("m.created_at >= :f_since")
        params["f_since"] = to_iso(filters.since)
    if filters.until is not None:
        clauses.append("m.created_at <= :f_until")
        params["f_until"] = to_iso(filters.until)
    return (" AND ".join(clauses) or "1"), params
