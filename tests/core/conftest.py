"""The contract suite runs against both backends: ``db_path`` (and so the ``store`` fixture) is
a SQLite file, then a fresh schema on a real PostgreSQL server started for the session.

The PostgreSQL half skips, with the reason, when psycopg is not installed or no server can be
started here (see ``tests.pgcluster``). Tests that do not take ``db_path`` run once: they are
pure (text, times, records) or about SQLite files themselves (a directory or a non-SQLite file
given as the database, file permissions), which a server store does not have. The PostgreSQL
half is marked ``postgres`` (``-m 'not postgres'`` runs the SQLite half alone); docs/backends.md
lists the tests that run on SQLite only, and why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import pgcluster


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_path(
    request: pytest.FixtureRequest, tmp_path: Path, pg_server: pgcluster.Cluster | None
) -> Path | str:
    if request.param == "sqlite":
        return tmp_path / "memories.db"
    if pg_server is None:
        pytest.skip(f"no PostgreSQL server: {pgcluster.Cluster.why_not}")
    return pg_server.fresh_store()
