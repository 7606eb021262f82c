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

# The PostgreSQL half is ``slow`` too: the fast loop runs the core on SQLite (tests/postgres keeps
# a few PostgreSQL tests in it), the whole suite on both.
POSTGRESQL = pytest.param("postgresql", marks=[pytest.mark.postgres, pytest.mark.slow])


@pytest.fixture(params=["sqlite", POSTGRESQL])
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "sqlite":
        return tmp_path / "memories.db"
    # Asked for here, not as an argument: the SQLite half neither starts the server nor is
    # marked ``postgres`` (tests/conftest.py marks the tests that use ``pg_server``).
    pg_server: pgcluster.Cluster | None = request.getfixturevalue("pg_server")
    if pg_server is None:
        pytest.skip(f"no PostgreSQL server: {pgcluster.Cluster.why_not}")
    return pg_server.fresh_store()
