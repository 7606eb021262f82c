"""The WHERE clauses every PostgreSQL read shares: the scope and a ``Filters`` value over the
``memories m`` alias, with named parameters (``s_*`` scope, ``f_*`` filters), as in
``storage.sqlite.sql``. Column lists leave out the index vector (never read back)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from zeromem_cli.models import Filters, Scope
from zeromem_cli.times import to_iso

# As ``storage.sqlite.sql``: a store reads its owner's memories (user and project) from every
# origin (agent, session); an isolated store reads exactly its own scope; a project's pack may
# add the user's project-less memories. Row-level security filters under this, by role.
OWNER_SQL = 'm."user" = %(s_user)s AND m.project = %(s_project)s'
EXACT_SQL = f"{OWNER_SQL} AND m.agent = %(s_agent)s AND m.session = %(s_session)s"
WITH_USER_SQL = "m.\"user\" = %(s_user)s AND m.project IN (%(s_project)s, '')"
MEMORY_COLUMNS = (
    "id", "uid", "content", "content_hash", "category", "tags", "key", "user", "agent",
    "session", "importance", "pinned", "meta", "created_at", "updated_at", "expires_at",
    "last_accessed_at", "access_count", "deleted_at", "deleted_reason", "project",
)  # fmt: skip
M_COLUMNS = ", ".join(f'm."{c}"' for c in MEMORY_COLUMNS)
COLUMNS = ", ".join(f'"{c}"' for c in MEMORY_COLUMNS)


def scope_params(scope: Scope) -> dict[str, str]:
    user, agent, session, project = scope.as_columns()
    params = {"s_user": user, "s_project": project}
    if scope.isolate:
        params.update(s_agent=agent, s_session=session)
    return params


def scope_sql(scope: Scope) -> str:
    """The clause (over ``memories m``) selecting what ``scope`` reads: ``scope_params``'s."""
    if scope.isolate:
        return EXACT_SQL
    return WITH_USER_SQL if scope.with_user else OWNER_SQL


def scope_clause(scope: Scope | None) -> tuple[str, dict[str, Any]]:
    if scope is None:
        return "TRUE", {}
    return scope_sql(scope), scope_params(scope)


def filter_clause(filters: Filters, now: datetime) -> tuple[str, dict[str, Any]]:
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if not filters.include_deleted:
        clauses.append("m.deleted_at IS NULL")
    if not filters.include_expired:
        clauses.append("(m.expires_at IS NULL OR m.expires_at > %(f_now)s)")
        params["f_now"] = to_iso(now)
    if filters.category is not None:
        clauses.append("m.category = %(f_category)s")
        params["f_category"] = filters.category
    for number, tag in enumerate(dict.fromkeys(filters.tags)):
        clauses.append(f"m.tags::jsonb ? %(f_tag{number})s")
        params[f"f_tag{number}"] = tag
    if filters.key is not None:
        clauses.append("m.key = %(f_key)s")
        params["f_key"] = filters.key
    if filters.since is not None:
        clauses.append("m.created_at >= %(f_since)s")
        params["f_since"] = to_iso(filters.since)
    if filters.until is not None:
        clauses.append("m.created_at <= %(f_until)s")
        params["f_until"] = to_iso(filters.until)
    return (" AND ".join(clauses) or "TRUE"), params
