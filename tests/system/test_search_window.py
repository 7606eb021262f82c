"""Bounded ranking on large match sets (``zeromem_cli.storage.sqlite.window``), shown on a small
store by lowering the threshold: only the newest matches and every match of a rare word are ranked,
and the search falls back to ranking everything when too few of those are visible.

System layer: the window is a SQLite FTS5 strategy (``find_window`` on the store's connection,
``LARGE`` patched); its effects are shown through ``MemoryStore.search``."""

from __future__ import annotations

from pathlib import Path

import pytest

from zeromem_cli import Filters, MemoryStore
from zeromem_cli.search import Ranking
from zeromem_cli.storage.sqlite import window
from zeromem_cli.text.query import expand_terms

EXACT = Ranking(pool=0)  # no re-scoring pool: the window alone decides what is ranked


@pytest.fixture(params=["plain", "encrypted"])
def store(request: pytest.FixtureRequest, db_path: Path) -> MemoryStore:
    """Each test on a plain store and on an encrypted one (SQLCipher bundles a newer SQLite,
    whose planner once refused the window's MATCH)."""
    key = None
    if request.param == "encrypted":
        pytest.importorskip("sqlcipher3")
        key = "5a" * 32
    with MemoryStore(db_path, key=key) as opened:
        yield opened  # type: ignore[misc]


@pytest.fixture
def crowded(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """The oldest memory is the shortest "report" (the best BM25 match for it) and the only
    one with "zebra"; twelve newer, longer ones also mention reports."""
    store.add("report", category="old", allow_duplicate=True)
    store.add("zebra crossing report draft", category="old", allow_duplicate=True)
    for number in range(12):
        store.add(
            f"the weekly status report number {number} went out to the whole team today",
            allow_duplicate=True,
        )
    monkeypatch.setattr(window, "LARGE", 5)
    return store


def test_small_match_sets_rank_every_match(store: MemoryStore) -> None:
    store.add("report", allow_duplicate=True)
    store.add("the weekly status report went out", allow_duplicate=True)
    assert [m.id for m in store.search("report", limit=1, ranking=EXACT)] == [1]


def test_large_match_sets_rank_only_the_newest(crowded: MemoryStore) -> None:
    # Thirteen matches, more than LARGE=5: the short old "report" is outside the window.
    hits = crowded.search("report", limit=3, ranking=EXACT)
    assert [m.id for m in hits] and all(m.id > 14 - 5 for m in hits)


def test_a_rare_word_is_found_however_old(crowded: MemoryStore) -> None:
    # "zebra" matches one memory, the second oldest: it is ranked whatever the window holds.
    hits = crowded.search("zebra weekly", limit=1, ranking=EXACT)
    assert [m.id for m in hits] == [2]


def test_too_few_visible_in_the_window_ranks_everything(crowded: MemoryStore) -> None:
    # Only the two oldest memories have category "old": the window holds none of them, so
    # every match is ranked and the best one is found.
    hits = crowded.search("report", limit=1, filters=Filters(category="old"), ranking=EXACT)
    assert [m.id for m in hits] == [1]


def test_the_window_counts_only_what_it_ranks(crowded: MemoryStore) -> None:
    conn = crowded.connection
    zebra, report = expand_terms(["zebra"]), expand_terms(["report"])
    assert window.find_window(conn, [zebra]) is None  # one match: rank it
    bounds = window.find_window(conn, [zebra, report])
    assert bounds is not None
    # "report" is common: its exact form only, newest five; every "zebra" match (#2) too.
    assert bounds.match == '("zebra" OR "zebra"*) OR ("report")'
    assert bounds.after == 14 - 5 and bounds.rare_ids == (2,)
    # Every word must be common for the all-words pass to need a window.
    assert window.find_window(conn, [zebra, report], every=True) is None


def test_a_word_common_only_through_its_prefix_is_not_kept_whole(
    crowded: MemoryStore,
) -> None:
    # "repo" alone is in no memory, but "repo"* covers every "report": common after all, so
    # only the window's newest matches are ranked, not the oldest few LIMIT returned.
    for number in range(3):
        crowded.add(f"zebra sighting {number}", allow_duplicate=True)
    words = [expand_terms(["zebra"]), expand_terms(["report"]), expand_terms(["repo"])]
    bounds = window.find_window(crowded.connection, words)
    assert bounds is not None and bounds.after == 12 and bounds.rare_ids == (2,)


# -- the all-words pass (search.run_search) ----------------------------------------------------

BM25_ONLY = Ranking(pool=0, coverage=0.0, importance=0.0, pinned=0.0)


@pytest.fixture
def lopsided(store: MemoryStore) -> MemoryStore:
    """The memory "quokka" alone is the best BM25 match for "quokka habitat" (the short one
    holding the rarer word); three longer memories hold both words; "habitat" is everywhere."""
    for number in range(20):
        store.add(f"habitat loss report number {number}", allow_duplicate=True)
    store.add("quokka", allow_duplicate=True)
    for place in ("island", "forest", "coast"):
        store.add(
            f"the quokka habitat on the {place} is mapped in this long survey note",
            allow_duplicate=True,
        )
    return store


def test_enough_memories_holding_every_word_are_ranked_first(lopsided: MemoryStore) -> None:
    best = lopsided.search("quokka habitat", limit=2, ranking=BM25_ONLY)
    assert [hit.content.split()[:3] for hit in best] == [["the", "quokka", "habitat"]] * 2
    whole = Ranking(pool=0, coverage=0.0, all_words_first=False)
    assert lopsided.search("quokka habitat", limit=1, ranking=whole)[0].content == "quokka"


def test_too_few_holding_every_word_ranks_every_match(lopsided: MemoryStore) -> None:
    # Four candidates asked, three hold both words: every match is ranked, BM25 order.
    hits = lopsided.search("quokka habitat", limit=4, ranking=BM25_ONLY)
    assert len(hits) == 4 and hits[0].content == "quokka"


# -- more of the window: exact forms, CJK, every word, the clause, scopes -----------------------


def test_a_word_is_probed_in_its_exact_forms_and_a_lone_cjk_character_as_a_prefix() -> None:
    assert window.any_of(expand_terms(["report"]), exact=True) == '"report"'
    assert window.any_of(expand_terms(["report"]), exact=False) == '"report" OR "report"*'
    assert window.any_of(expand_terms(["go"]), exact=True) == '"go" OR "went" OR "gone"'
    # A lone CJK character is indexed only inside grams: its prefix is its exact form.
    assert window.any_of(expand_terms(["猫"]), exact=True) == '"猫"*'


@pytest.fixture
def cats(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """Twelve memories holding 猫 and "number"; the oldest alone holds "zebra"."""
    store.add("zebra 我的猫 number", allow_duplicate=True)
    for number in range(11):
        store.add(f"我的猫 number {number} 报告", allow_duplicate=True)
    monkeypatch.setattr(window, "LARGE", 5)
    return store


def test_a_common_cjk_character_gets_a_window_of_its_newest_matches(cats: MemoryStore) -> None:
    bounds = window.find_window(cats.connection, [expand_terms(["猫"])])
    assert bounds == window.Window('("猫"*)', 12 - 5)
    hits = cats.search("猫", limit=3, ranking=EXACT)
    assert len(hits) == 3 and all(m.id > 12 - 5 for m in hits)  # from the window's five only
    # Asking for more than the window holds ranks every match (too few visible in it).
    assert len(cats.search("猫", limit=20, ranking=EXACT)) == 12


def test_every_word_common_gives_an_all_words_window(cats: MemoryStore) -> None:
    words = [expand_terms(["猫"]), expand_terms(["number"])]
    assert window.find_window(cats.connection, words, every=True) == window.Window(
        '("猫"*) AND ("number")', 12 - 5
    )
    # A rare word among them: few memories can hold every word, so no window is needed.
    words.append(expand_terms(["zebra"]))
    assert window.find_window(cats.connection, words, every=True) is None


def test_the_clause_selects_the_window_and_the_rare_matches(cats: MemoryStore) -> None:
    conn = cats.connection
    words = [expand_terms(["zebra"]), expand_terms(["number"])]
    bounds = window.find_window(conn, words)
    assert bounds is not None and bounds.rare_ids == (1,)
    for shown in (bounds, window.Window(bounds.match, bounds.after)):
        where, params = shown.clause()
        rows = conn.execute(
            f"SELECT rowid FROM memories_fts WHERE memories_fts MATCH :m AND {where}",
            {"m": bounds.match, **params},
        )
        expected = set(range(bounds.after + 1, 13)) | set(shown.rare_ids)
        assert {r[0] for r in rows} == expected


def test_another_scope_filling_the_window_does_not_hide_a_scope_s_best(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryStore(db_path, user="alice") as alice:
        best = alice.add("report", allow_duplicate=True)
        alice.add("a long report about the quarterly figures", allow_duplicate=True)
    with MemoryStore(db_path, user="bob") as bob:
        for number in range(12):
            bob.add(f"the weekly status report number {number} for bob", allow_duplicate=True)
    monkeypatch.setattr(window, "LARGE", 5)
    with MemoryStore(db_path, user="alice") as alice:
        hits = alice.search("report", limit=1, ranking=EXACT)
    assert [m.id for m in hits] == [best.id]  # bob's newer matches fill the window: all ranked
