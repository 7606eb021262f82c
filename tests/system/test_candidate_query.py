"""The structured candidate query (``storage.query``): search hands storage a ``Match`` of term
groups, never query text, and the SQLite backend compiles it into an FTS5 expression of quoted
phrases (the PostgreSQL one into a ``tsquery``: tests/postgres/test_ranking.py checks both rank
alike)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage.query import CandidateQuery, Match
from zeromem_cli.storage.sqlite.match import expression
from zeromem_cli.text.query import Term, expand_terms


def test_any_word_ors_every_term_once() -> None:
    groups = [expand_terms(["report"]), expand_terms(["reports"]), [Term("weekly")]]
    compiled = expression(Match.any_word(groups))
    assert compiled.split(" OR ").count('"report"*') == 1  # shared by two words: once
    assert compiled.startswith('"report" OR "report"*')


def test_every_word_ands_each_words_forms() -> None:
    match = Match.every_word([expand_terms(["report"]), [Term("friday")]])
    assert expression(match) == '("report" OR "report"*) AND ("friday")'
    assert match.every and match.words == (tuple(expand_terms(["report"])), (Term("friday"),))
    assert expression(match.exact()) == '("report") AND ("friday")'


def test_rare_words_or_every_common_one() -> None:
    match = Match.any_word([[Term("zebra")]]).either(
        Match.every_word([[Term("the")], [Term("report")]])
    )
    assert expression(match) == '"zebra" OR ("the" AND "report")'
    assert match.words is None and not match.every


@pytest.mark.parametrize(
    "text", ["NOT report", 'report"', "(report", "content:report", "report*", "NEAR(a b)"]
)
def test_operators_in_a_term_stay_text(text: str) -> None:
    compiled = expression(Match.phrase(text))
    assert compiled == '"' + text.replace('"', '""') + '"'


def test_a_store_answers_a_candidate_query(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.db")
    first = store.add("The weekly report goes out on Friday")
    store.add("Deploys are frozen on Friday")
    now = datetime.now(UTC)
    query = CandidateQuery(
        Match.every_word([expand_terms(["report"]), [Term("friday")]]),
        Scope(),
        Filters(),
        now,
        10,
    )
    found = store.backend.read(lambda backend: backend.candidates(query))
    assert [row["id"] for row, _ in found] == [first.id]
    assert found[0][1] < 0  # BM25, FTS5's sign
    wider = query._replace(match=Match.any_word(query.match.clauses[0]))
    assert len(store.backend.read(lambda backend: backend.candidates(wider))) == 2
    assert store.backend.read(lambda b: b.count_matches(Match.phrase("friday"), 10)) == 2
    # user text is never an operator: "NOT (" neither excludes nor breaks the expression
    assert [m.id for m in store.search("NOT (report")] == [first.id]
    store.close()
