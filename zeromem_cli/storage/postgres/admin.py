"""Setting up a team store: the schema created by its owner, table privileges granted to the
members' roles, and who a connection is (a member's ``user`` scope is its role's name)."""

from __future__ import annotations

from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.storage.postgres import db, fts, migrations

_TABLES = ("memories", "memory_history", "operations_log")


def initialize(url: str, members: tuple[str, ...] = ()) -> dict[str, Any]:
    """Migrate the store at ``url`` to the latest schema and grant ``members`` the use of its
    tables; what was done."""
    conn = db.connect(url)
    where = db.display(url)
    try:
        with db.mapped_errors(where):
            applied = migrations.migrate(conn)
            fts.ensure_index_version(conn, where)
            granted = []
            for role in members:
                exists = conn.execute(
                    "SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)
                ).fetchone()
                if exists is None:
                    raise InvalidInputError(f"no PostgreSQL role {role!r}: create it first")
                quoted = '"' + role.replace('"', '""') + '"'
                with conn.transaction():
                    conn.execute(
                        f"GRANT SELECT, INSERT, UPDATE, DELETE ON {', '.join(_TABLES)} TO {quoted}"
                    )
                    conn.execute(
                        f"GRANT SELECT ON store_meta, zeromem_schema, fts_totals TO {quoted}"
                    )
                    conn.execute(  # semantic recall's vectors (row security as memories')
                        "GRANT SELECT, INSERT, UPDATE, DELETE ON vector_blocks, memory_vectors "
                        f"TO {quoted}"
                    )
                    sequence = conn.execute(
                        "SELECT pg_get_serial_sequence('vector_blocks', 'id') AS s"
                    ).fetchone()["s"]
                    conn.execute(f"GRANT USAGE ON SEQUENCE {sequence} TO {quoted}")
                    for table in _TABLES:
                        sequence = conn.execute(
                            "SELECT pg_get_serial_sequence(%s, 'id') AS s", (table,)
                        ).fetchone()["s"]
                        conn.execute(f"GRANT USAGE ON SEQUENCE {sequence} TO {quoted}")
                    schema = conn.execute("SELECT current_schema() AS s").fetchone()["s"]
                    conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {quoted}')
                granted.append(role)
            version = migrations.schema_version(conn)
            indexed = members_use_the_index(conn)
    finally:
        conn.close()
    return {
        "database": where,
        "applied": applied,
        "version": version,
        "granted": granted,
        "members_use_the_index": indexed,
    }


LEAKPROOF_SQL = "ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF"


def members_use_the_index(conn: Any) -> bool:
    """Whether a member's search can use the search index: row-level security lets the
    planner test a query's condition inside an index scan, before the policies, only when
    its function is leakproof, and PostgreSQL does not mark the text-search match
    (``ts_match_vq``, the ``@@`` operator) so. Without it every search of a member reads the
    whole table (about a second at 1M memories); a superuser may mark it (``LEAKPROOF_SQL``,
    docs/team.md)."""
    row = conn.execute(
        "SELECT proleakproof AS leakproof FROM pg_proc "
        "WHERE oid = 'ts_match_vq(tsvector, tsquery)'::regprocedure"
    ).fetchone()
    return bool(row is not None and row["leakproof"])


def member_user(conn: Any) -> str | None:
    """The role's name when this connection is a member of a team store (not its owner):
    its ``user`` scope. None for the owner, who sees every scope as given."""
    row = conn.execute(
        "SELECT current_user AS me, pg_has_role(c.relowner, 'USAGE') AS owner "
        "FROM pg_class c WHERE c.oid = to_regclass('memories')"
    ).fetchone()
    if row is None or row["owner"]:
        return None
    return str(row["me"])
