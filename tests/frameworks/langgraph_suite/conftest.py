"""What LangGraph's store tests expect from their fixtures, for ``ZeromemStore``: a fresh store
per call (each its own database under the test's isolated ZEROMEM_HOME), the ``store``
fixture, fake embeddings (never called: zeromem searches its own index) and anyio for the
async tests."""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from zeromem_cli.langgraph import ZeromemStore

_numbers = itertools.count()


def new_store(**options: Any) -> ZeromemStore:
    """A ZeromemStore on a database of its own (``index``/``ttl`` as LangGraph's stores take)."""
    home = Path(os.environ["ZEROMEM_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return ZeromemStore(home / f"langgraph-{next(_numbers)}.db", **options)


class CharacterEmbeddings(DeterministicFakeEmbedding):
    """LangGraph's tests read ``dims`` off their fake embeddings."""

    @property
    def dims(self) -> int:
        return self.size


@pytest.fixture
def store() -> Iterator[ZeromemStore]:
    with new_store() as opened:
        yield opened


@pytest.fixture
def fake_embeddings() -> CharacterEmbeddings:
    return CharacterEmbeddings(size=500)


@pytest.fixture(params=["memory", "file"])
def conn_string(request: pytest.FixtureRequest) -> str:
    """SQLite's connection kinds: every ZeromemStore is a file (this only names the case)."""
    return str(request.param)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def create_vector_store(
    fake_embeddings: CharacterEmbeddings,
    text_fields: list[str] | None = None,
    distance_type: str = "cosine",
    conn_type: str = "memory",
) -> Iterator[ZeromemStore]:
    """LangGraph's SQLite tests' indexed store: ``text_fields`` are the paths indexed."""
    index = {"dims": fake_embeddings.dims, "embed": fake_embeddings, "text_fields": text_fields}
    with new_store(index=index) as opened:
        yield opened


@asynccontextmanager
async def acreate_vector_store(
    fake_embeddings: CharacterEmbeddings,
    text_fields: list[str] | None = None,
    distance_type: str = "cosine",
    conn_type: str = "memory",
    conn_string: str = ":memory:",
) -> AsyncIterator[ZeromemStore]:
    with create_vector_store(fake_embeddings, text_fields) as opened:
        yield opened
