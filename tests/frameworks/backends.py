"""The framework faces' tests run on both backends: import ``either_backend`` (the
``db_path`` fixture) from here into a test module, and each of its tests runs on a SQLite file
and on a new PostgreSQL store (a schema of the throwaway server, tests/pgcluster.py; marked
``postgres``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(
    name="db_path", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def either_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A SQLite file's path, or an empty PostgreSQL store's URL."""
    if request.param == "sqlite":
        return tmp_path / "memories.db"
    return str(request.getfixturevalue("pg_url"))
