"""The contract suite runs against both backends: ``db_path`` (and so the ``store`` fixture) is
a SQLite file, then a fresh schema on a real PostgreSQL server started for the session.

The PostgreSQL half skips, with the reason, when psycopg is not installed or no server can be
started here (see ``tests.pgcluster``). Tests that do not take ``db_path`` run once: they are
pure (text, times, records) or about SQLite files themselves (a directory or a non-SQLite file
given as the database, file permissions), which a server store does not have.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import pgcluster

_schemas = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pgcluster.Cluster | None]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pgcluster.Cluster.why_not = "psycopg is not installed (pip install 'zeromem[postgres]')"
        yield None
        return
    cluster = pgcluster.start({"max_connections": "300"})
    try:
        yield cluster
    finally:
        if cluster is not None:
            cluster.stop()


def fresh_pg_store(cluster: pgcluster.Cluster) -> str:
    """The URL of an empty store: a new schema, made the connection's search path."""
    schema = f"t{next(_schemas)}"
    cluster.psql(f"CREATE SCHEMA {schema}")
    return cluster.url(options=f"-csearch_path%3D{schema}")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_path(
    request: pytest.FixtureRequest, tmp_path: Path, pg_server: pgcluster.Cluster | None
) -> Path | str:
    if request.param == "sqlite":
        return tmp_path / "memories.db"
    if pg_server is None:
        pytest.skip(f"no PostgreSQL server: {pgcluster.Cluster.why_not}")
    return fresh_pg_store(pg_server)
