"""A pytest plugin that runs LangGraph's own store tests against ``ZeromemStore``, their files
untouched (tests/frameworks/test_langgraph_conformance.py fetches them and runs pytest with
``-p zeromem_langgraph_plugin``).

LangGraph's tests build the store under test by name: ``InMemoryStore(...)``,
``SqliteStore.from_conn_string(...)``, ``AsyncSqliteStore.from_conn_string(...)``. Once a test
module is imported, those names in it are rebound to the classes below, which open a
``ZeromemStore``: nothing else in their tests changes. The tests that cannot apply are listed,
with the reason, in ``not_applicable.toml``: each is expected to fail (strict), so one that
starts passing fails the run, as does an unlisted test that fails or a listed one no longer
there.

The stores live under ``ZEROMEM_HOME``; with ``ZEROMEM_LANGGRAPH_PG`` (a PostgreSQL URL) each
store is a new schema of that database instead.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from zeromem_cli.langgraph import ZeromemStore

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).parent
EXPECTATIONS = HERE / "not_applicable.toml"
_opened: dict[str, str] = {}


def _fresh_location() -> str:
    """A new, empty zeromem store: a database file, or a PostgreSQL schema."""
    name = uuid.uuid4().hex[:16]  # never a store an earlier run left
    base = os.environ.get("ZEROMEM_LANGGRAPH_PG")
    if base:
        import psycopg

        schema = f"lg_{name}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        separator = "&" if "?" in base else "?"
        return f"{base}{separator}options=-csearch_path%3D{schema}"
    home = Path(os.environ["ZEROMEM_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return str(home / f"langgraph-{name}.db")


def _location(conn_string: str) -> str:
    """The zeromem store of one of LangGraph's connection strings: ``:memory:`` is a new store
    each time; a file names the same store each time it is opened."""
    if conn_string == ":memory:":
        return _fresh_location()
    if not os.environ.get("ZEROMEM_LANGGRAPH_PG"):
        return conn_string
    return _opened.setdefault(conn_string, _fresh_location())


class ZeromemInMemoryStore(ZeromemStore):
    """``InMemoryStore(index=..., ttl=...)`` of LangGraph's base tests: a new store."""

    def __init__(self, *, index: Any = None, ttl: Any = None) -> None:
        super().__init__(_fresh_location(), index=index, ttl=ttl)


class ZeromemSqliteStore(ZeromemStore):
    """``SqliteStore``'s constructor as LangGraph's SQLite tests call it."""

    @classmethod
    @contextmanager
    def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None
    ) -> Iterator[ZeromemSqliteStore]:
        with cls(_location(conn_string), index=index, ttl=ttl) as store:
            yield store

    def setup(self) -> None:
        """zeromem migrates a store when it opens it."""


class ZeromemAsyncSqliteStore(ZeromemStore):
    """``AsyncSqliteStore``: the same store, with the TTL methods as coroutines, as there."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None
    ) -> AsyncIterator[ZeromemAsyncSqliteStore]:
        with cls(_location(conn_string), index=index, ttl=ttl) as store:
            yield store

    async def setup(self) -> None:  # type: ignore[override]
        """zeromem migrates a store when it opens it."""

    async def sweep_ttl(self) -> int:  # type: ignore[override]
        return super().sweep_ttl()

    async def start_ttl_sweeper(  # type: ignore[override]
        self, sweep_interval_minutes: float | None = None
    ) -> asyncio.Task[None]:
        super().start_ttl_sweeper(sweep_interval_minutes)

        async def idle() -> None:  # the sweeper is a thread; the task stands for it
            return None

        return asyncio.ensure_future(idle())

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:  # type: ignore[override]
        return await asyncio.to_thread(super().stop_ttl_sweeper, timeout)


SUBSTITUTES: dict[str, type[ZeromemStore]] = {
    "InMemoryStore": ZeromemInMemoryStore,
    "SqliteStore": ZeromemSqliteStore,
    "AsyncSqliteStore": ZeromemAsyncSqliteStore,
}


# -- pytest hooks -------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--zeromem-package",
        required=True,
        help="the LangGraph distribution whose tests run (a section of not_applicable.toml)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Markers of LangGraph's test set-up (pytest-asyncio, pytest-retry): anyio runs the
    # coroutine tests (anyio_mode = auto), and a test either passes or does not.
    config.addinivalue_line("markers", "asyncio: a coroutine test (run by anyio here)")
    config.addinivalue_line("markers", "flaky(retries): retried in LangGraph's CI, not here")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Rebind the store classes a LangGraph test module constructs to ZeromemStore's."""
    if isinstance(collector, pytest.Module):
        for name, substitute in SUBSTITUTES.items():
            if hasattr(collector.obj, name):
                setattr(collector.obj, name, substitute)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A listed test of a store is expected to fail, strictly; a listed test of LangGraph's own
    code (no store) is skipped; a listed name no test has is an error."""
    package = config.getoption("--zeromem-package")
    with EXPECTATIONS.open("rb") as handle:
        listed = tomllib.load(handle).get(package, {})
    fails: dict[str, str] = listed.get("fails", {})
    no_store: dict[str, str] = listed.get("no_store", {})
    seen: set[str] = set()
    for item in items:
        for name in (item.nodeid, item.nodeid.split("[", 1)[0]):
            if name in fails:
                item.add_marker(pytest.mark.xfail(reason=fails[name], strict=True))
            elif name in no_store:
                item.add_marker(pytest.mark.skip(reason=f"no store under test: {no_store[name]}"))
            else:
                continue
            seen.add(name)
            break
    stale = sorted((set(fails) | set(no_store)) - seen)
    if stale:
        raise pytest.UsageError(f"not_applicable.toml lists tests {package} lacks: {stale}")
