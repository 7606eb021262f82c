"""Property tests: no query text, however strange, raises or changes the store.

System layer (fuzz): "changes nothing" is checked against a checksum of the SQLite tables and
the FTS5 index data, read through the store's connection. The backend-neutral form of the
promise (tests/core/test_query.py) checks what the public API shows.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zeromem_cli import Filters, InvalidInputError, MemoryStore

SEED_MEMORIES = [
    "Weekly report goes out Fridays 17:00",
    "周报发送时间改为每周五下午五点",
    "推荐系统使用 Python 和 PyTorch",
    "Café Zürich opens at 8",
    "明日の会議は10時から",
    "내일 회의는 10시",
]

# Text that stresses the query processor: any Unicode plus FTS5 syntax and CJK pieces.
QUERIES = st.one_of(
    st.text(max_size=80),
    st.text(
        alphabet=st.sampled_from(list("\"*^:()-+ANDORNOTNEAR{} '周报会議회의éZ09_.,?？")),
        max_size=40,
    ),
)


def checksum(store: MemoryStore) -> str:
    digest = hashlib.sha256()
    conn = store.connection
    for table in ("memories", "memory_history", "store_meta"):
        for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):
            digest.update(repr(tuple(row)).encode())
    for row in conn.execute("SELECT * FROM memories_fts_data ORDER BY id"):
        digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> MemoryStore:
    path: Path = tmp_path_factory.mktemp("props") / "p.db"
    store = MemoryStore(path)
    for text in SEED_MEMORIES:
        store.add(text, tags=["t"], category="fact")
    return store


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=QUERIES)
def test_any_query_returns_a_list_and_changes_nothing(seeded: MemoryStore, query: str) -> None:
    before = checksum(seeded)
    hits = seeded.search(query, limit=5)
    assert isinstance(hits, list) and all(h.score is not None for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    filtered = seeded.search(query, limit=5, filters=Filters(category="fact", tags=["t"]))
    assert len(filtered) <= 5
    assert checksum(seeded) == before


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=QUERIES)
def test_raw_fts_either_works_or_is_a_usage_error(seeded: MemoryStore, query: str) -> None:
    before = checksum(seeded)
    try:
        seeded.search(query, limit=5, fts=True)
    except InvalidInputError as exc:
        assert str(exc).startswith("invalid FTS5 expression")
    assert checksum(seeded) == before
