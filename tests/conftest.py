"""Shared fixtures: every test gets its own ZEROMEM_HOME under tmp_path and a CLI runner."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from tests import pgcluster
from zeromem_cli import MemoryStore
from zeromem_cli.cli import app

# Semantic recall (installed by the test extra) is off for the whole run, module- and
# session-scoped fixtures included (they are built before ``isolated_home`` runs); tests marked
# ``semantic`` turn it back on (``isolated_home``).
os.environ["ZEROMEM_SEARCH_SEMANTIC"] = "off"

SCOPE_ENV = (
    "ZEROMEM_DB",
    "ZEROMEM_USER",
    "ZEROMEM_AGENT",
    "ZEROMEM_SESSION",
    "ZEROMEM_PROJECT",
    "NO_COLOR",
)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Path:
    """No test ever touches the real user data dir or inherits scope from the environment,
    nor a project from the repository the suite runs in (``--project`` defaults to the git
    repository of the working directory): each test starts in its own empty folder.

    Semantic recall (installed by the test extra) is off, through the environment every face
    honours, except in tests marked ``semantic``: the rest of the suite checks the lexical
    behaviour, exactly as without the extra."""
    home = tmp_path / "zeromem-home"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZEROMEM_HOME", str(home))
    for name in SCOPE_ENV:
        monkeypatch.delenv(name, raising=False)
    if request.node.get_closest_marker("semantic") is None:
        monkeypatch.setenv("ZEROMEM_SEARCH_SEMANTIC", "off")
    else:
        monkeypatch.delenv("ZEROMEM_SEARCH_SEMANTIC", raising=False)
    return home


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memories.db"


@pytest.fixture
def store(db_path: Path) -> MemoryStore:
    with MemoryStore(db_path) as opened:
        yield opened  # type: ignore[misc]


Run = Callable[..., Result]


@pytest.fixture
def cli(db_path: Path) -> Run:
    """Invoke the CLI on the test database: ``cli("add", "text")``; input= feeds stdin."""
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None, db: bool = True, **kw: Any) -> Result:
        argv = list(args)
        if db:  # before a "--" separator, else at the end
            at = argv.index("--") if "--" in argv else len(argv)
            argv[at:at] = ["--db", str(db_path)]
        return runner.invoke(app, argv, input=input, **kw)

    return run


def as_json(result: Result) -> Any:
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def stored(cli: Run) -> Any:
    """The memories of the test store, as ``list --json`` gives them: none when no store was
    created (a refused write creates none, and a read of a named store that is not there is
    an error naming it, not an empty list)."""
    result = cli("list", "--json")
    if result.exit_code == 1 and "no store at" in result.stderr:
        return []
    return as_json(result)


def index_names(path: Path) -> set[str]:
    """The names of the indexes of the database at ``path`` (migration tests)."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    finally:
        conn.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test on the PostgreSQL server is marked ``postgres`` by the fixture it uses, so
    ``-m "not postgres"`` skips them without a mark on each."""
    for item in items:
        if "pg_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)


# -- PostgreSQL: one throwaway server per test session (tests.pgcluster) ----------------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pgcluster.Cluster | None]:
    """A running server, or None (``pgcluster.Cluster.why_not`` says why)."""
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


@pytest.fixture
def cluster(pg_server: pgcluster.Cluster | None) -> pgcluster.Cluster:
    """The session's server; the test skips, with the reason, when there is none."""
    if pg_server is None:
        pytest.skip(f"no PostgreSQL server: {pgcluster.Cluster.why_not}")
    return pg_server


@pytest.fixture
def pg_url(cluster: pgcluster.Cluster) -> str:
    """An empty PostgreSQL store's URL."""
    return cluster.fresh_store()
