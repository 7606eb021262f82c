"""PostgreSQL ranks as SQLite does: the same memories in both backends give the same search
results with the same scores. The server computes FTS5's BM25 (column weights, prefix terms,
repeated words, document lengths), so this fails if any of those drifts from ``bm25()``."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")

from zeromem_cli import MemoryStore  # noqa: E402

MEMORIES = [
    ("The weekly report goes to Alice every Friday", {"category": "task"}),
    ("Report report report: the deploy report is late again", {}),
    ("Deployments run from the staging server after review", {"tags": ["infra", "deploy"]}),
    ("Bob prefers tea; Alice prefers coffee in the morning meeting", {"category": "preference"}),
    ("A very long note " + "about nothing in particular " * 40 + "and the report", {}),
    ("Deploying on Friday is forbidden by the release policy", {"key": "deploy-policy"}),
    ("The budget review meeting moved to Tuesday", {"category": "report", "tags": ["report"]}),
    ("周报每周五发送给张三，抄送李四", {"tags": ["周报"]}),
    ("张三负责发布计划和周报", {}),
    ("Reporting lines changed: Carol reports to Dave now", {"importance": 8}),
    ("Staging runs PostgreSQL 16; production is on 15 until the migration", {}),
    ("The server reboot is scheduled; reporters were told", {"tags": ["report", "infra"]}),
]
QUERIES = [
    "report",
    "weekly report friday",
    "deploy",
    "who prefers coffee",
    "staging server deploy review",
    "周报",
    "张三 周报",
    "report meeting budget",
    "reporting to dave",
    "postgresql migration",
]
# (FTS5 syntax for SQLite, PostgreSQL's tsquery syntax): the same question in each.
FTS_QUERIES = [
    ('"report"', "report"),
    ('"deploy"* OR "staging"', "deploy:* | staging"),
    ('"report" NOT "weekly"', "report & !weekly"),
    ('"周报"', "周报"),
]


def _fill(location: Path | str) -> MemoryStore:
    store = MemoryStore(location)
    for number, (content, extra) in enumerate(MEMORIES):
        store.write(
            content, created_at=f"2024-03-{number + 1:02d}T10:00:00Z", allow_duplicate=True, **extra
        )  # type: ignore[arg-type]
    return store


def _results(store: MemoryStore, query: str, fts: bool = False) -> list[tuple[str, float]]:
    return [(m.content, m.score or 0.0) for m in store.search(query, limit=20, fts=fts)]


@pytest.fixture
def stores(tmp_path: Path, pg_url: str) -> tuple[MemoryStore, MemoryStore]:
    return _fill(tmp_path / "memories.db"), _fill(pg_url)


@pytest.mark.parametrize("query", QUERIES)
def test_search_scores_match_sqlite(stores: tuple[MemoryStore, MemoryStore], query: str) -> None:
    sqlite, postgres = stores
    expected, got = _results(sqlite, query), _results(postgres, query)
    assert expected, f"{query!r} should match something"
    assert [c for c, _ in got] == [c for c, _ in expected]
    for (_, a), (_, b) in zip(got, expected, strict=True):
        assert a == pytest.approx(b, rel=1e-9)


@pytest.mark.parametrize(("fts5", "tsquery"), FTS_QUERIES)
def test_fts_expression_scores_match_sqlite(
    stores: tuple[MemoryStore, MemoryStore], fts5: str, tsquery: str
) -> None:
    sqlite, postgres = stores
    expected, got = _results(sqlite, fts5, fts=True), _results(postgres, tsquery, fts=True)
    assert expected
    assert [c for c, _ in got] == [c for c, _ in expected]
    for (_, a), (_, b) in zip(got, expected, strict=True):
        assert a == pytest.approx(b, rel=1e-9)
