"""The newest matches through the id blocks (``storage.postgres.recent``): every vector written
carries its words' block lexemes, and a window found in the newest blocks is the window found
in the whole store, also when those blocks hold too few matches."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")

from tests.postgres.conftest import Team, _roles  # noqa: E402
from zeromem_cli import MemoryStore  # noqa: E402
from zeromem_cli.storage.postgres import candidates, db, index, migrations, recent  # noqa: E402
from zeromem_cli.storage.postgres.admin import LEAKPROOF_SQL as ADMIN_LEAKPROOF  # noqa: E402
from zeromem_cli.storage.query import Match  # noqa: E402
from zeromem_cli.transfer.imports import import_text  # noqa: E402

# Both words are common (more than LARGE memories each), so an all-words search ranks a window.
OLD, NEW = 1_600, 6_000
FAR = 400_000  # the newest memories' first id: their blocks hold none of the old ones


def _lexemes(store: MemoryStore, memory_id: int) -> tuple[set[str], set[str]]:
    """A memory's words as indexed, and its block lexemes."""
    row = store.connection.execute(
        "SELECT tsvector_to_array(fts) AS lexemes FROM memories WHERE id = %s", (memory_id,)
    ).fetchone()
    words = {w for w in row["lexemes"] if not w.startswith("~")}
    return words, set(row["lexemes"]) - words


def test_every_vector_carries_its_words_in_its_block(pg_url: str) -> None:
    with MemoryStore(pg_url) as store:
        first = store.add("the weekly report")
        words, blocks = _lexemes(store, first.id)
        assert {"report", "weekli"} <= words
        assert blocks == {f"~0~{w}" for w in words}
        store.connection.execute(f"ALTER TABLE memories ALTER COLUMN id RESTART WITH {FAR}")
        far = store.add("deploy on friday")
        block = FAR >> recent.SHIFT
        words, blocks = _lexemes(store, far.id)
        assert {"deploi", "fridai"} <= words
        assert blocks == {f"~{block}~{w}" for w in words}
        store.update(far.id, content="the staging server")
        words, blocks = _lexemes(store, far.id)
        assert {"server", "stage"} <= words and "deploi" not in words
        assert blocks == {f"~{block}~{w}" for w in words}
        # No query reaches a block lexeme: a prefix matches the word only, counted once.
        found = store.search("serv:*", fts=True)
        assert [m.id for m in found] == [far.id]


def test_migration_5_gives_existing_vectors_their_block_lexemes(pg_url: str) -> None:
    conn = db.connect(pg_url)
    migrations.migrate(conn, upto=4)
    fields = {"content": "the weekly report", "tags": "[]", "category": "general", "key": None}
    with conn.transaction():
        conn.execute(
            "INSERT INTO memories (id, uid, content, content_hash, created_at, updated_at, fts, "
            "fts_len) VALUES (%s, %s, %s, 1, %s, %s, %s::tsvector, %s)",
            (FAR, bytes(range(16)), fields["content"], "2025-01-01T00:00:00Z",
             "2025-01-01T00:00:00Z", *index.vectors([fields])[0]),
        )  # fmt: skip
    conn.close()
    with MemoryStore(pg_url) as store:
        words, blocks = _lexemes(store, FAR)
        assert "report" in words
        assert blocks == {f"~{FAR >> recent.SHIFT}~{w}" for w in words}
        assert [m.id for m in store.search("weekly report")] == [FAR]


def _records(words: list[str], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        json.dumps({"content": " ".join(rng.sample(words, 3)) + f" n{seed}x{n}"})
        for n in range(count)
    ]


@pytest.fixture
def spread(pg_url: str) -> Iterator[MemoryStore]:
    """Old memories in the first block; newer ones from id ``FAR`` on."""
    store = MemoryStore(pg_url)
    import_text(store, "\n".join(_records(["alpha", "beta", "gamma", "delta"], OLD, 1)), "jsonl")
    store.connection.execute(f"ALTER TABLE memories ALTER COLUMN id RESTART WITH {FAR - 1}")
    store.add("the newer memories begin here")  # an import numbers on from the newest id
    words = ["alpha", "gamma", "delta", "omega", "sigma", "kappa"]
    import_text(store, "\n".join(_records(words, NEW, 2)), "jsonl")
    store.connection.execute("ANALYZE memories")
    yield store
    store.close()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[recent.Blocks | None]:
    """What each ``recent.choose`` of the test's searches returned: the newest blocks tried,
    or None when they were not."""
    found: list[recent.Blocks | None] = []
    choose = recent.choose

    def watched(*args: object, **kwargs: object) -> recent.Blocks | None:
        found.append(choose(*args, **kwargs))  # type: ignore[arg-type]
        return found[-1]

    monkeypatch.setattr(recent, "choose", watched)
    return found


def _whole_store(monkeypatch: pytest.MonkeyPatch, store: MemoryStore, query: str) -> list[int]:
    with monkeypatch.context() as patched:
        patched.setattr(recent, "MOST", 0.0)  # never the newest blocks alone
        return [m.id for m in store.search(query, limit=20)]


@pytest.mark.parametrize(
    ("query", "in_newest_blocks"),
    [
        ("alpha gamma", True),  # in a fifth of the newest memories: they fill the window
        ("alpha beta", False),  # beta is old: the newest blocks hold none, the whole store does
    ],
)
def test_a_window_in_the_newest_blocks_is_the_whole_stores(
    spread: MemoryStore,
    monkeypatch: pytest.MonkeyPatch,
    calls: list[recent.Blocks | None],
    query: str,
    in_newest_blocks: bool,
) -> None:
    # Two given words are in a fifth of the newest memories: more than a window.
    assert candidates.WINDOW < NEW // 5
    got = [m.id for m in spread.search(query, limit=20)]
    assert len(got) == 20, query
    assert calls and calls[0] is not None, "the newest blocks were not tried"
    assert all(i >= FAR for i in got) == in_newest_blocks
    assert got == _whole_store(monkeypatch, spread, query)


def _true_count(store: MemoryStore, word: str) -> int:
    row = store.connection.execute(
        "SELECT count(*) AS n FROM memories WHERE fts @@ %s::tsquery", (word,)
    ).fetchone()
    return int(row["n"])


@pytest.mark.parametrize(
    ("word", "cap", "from_blocks"),
    [
        ("alpha", 1_001, True),  # in half the newest memories: their blocks hold the cap
        ("omega", 1_001, True),
        ("beta", 1_001, False),  # common, but old: the newest blocks hold none, it is counted
        ("beta", 5_000, None),  # fewer than the cap in all (the statistics say so): counted
    ],
)
def test_counting_a_common_word_stops_in_its_newest_blocks(
    spread: MemoryStore,
    pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
    word: str,
    cap: int,
    from_blocks: bool | None,
) -> None:
    chosen: list[bool] = []  # whether blocks were chosen, each time they were looked for
    held: list[bool] = []  # whether they held the count, each time one was asked about
    newest_hold, restriction = candidates._newest_hold, recent.restriction

    def choose(*args: object, **kwargs: object) -> str | None:
        found = restriction(*args, **kwargs)  # type: ignore[arg-type]
        chosen.append(found is not None)
        return found

    def hold(*args: object) -> bool:
        held.append(newest_hold(*args))  # type: ignore[arg-type]
        return held[-1]

    monkeypatch.setattr(recent, "restriction", choose)
    monkeypatch.setattr(candidates, "_newest_hold", hold)
    store = MemoryStore(pg_url)  # a new connection: nothing it read before the import
    truth = _true_count(store, word)
    backend = store.backend
    assert backend.count_matches(Match.phrase(word), cap) == min(truth, cap)
    assert backend.holds_at_least(Match.phrase(word), cap) == (truth >= cap)
    assert not backend.holds_at_least(Match.phrase("nothing"), cap)
    assert backend.holds_at_least(Match.phrase(word), cap) == (truth >= cap)
    assert len(held) == 4
    if from_blocks is None:
        assert chosen == [] and held == [False] * 4  # the statistics say too few: counted
    else:
        assert chosen == [True, True, True], "the newest blocks were not tried"
        # count, holds, then holds of "nothing" (no such word: no blocks) and of the word
        assert held == [from_blocks, from_blocks, False, from_blocks]
    with monkeypatch.context() as patched:  # the same answer without the newest blocks
        patched.setattr(recent, "MOST", 0.0)
        assert backend.count_matches(Match.phrase(word), cap) == min(truth, cap)
    store.close()


def test_fts_conjunctions_use_the_newest_blocks_too(
    spread: MemoryStore, monkeypatch: pytest.MonkeyPatch, calls: list[recent.Blocks | None]
) -> None:
    for expression, in_newest_blocks in [("alpha & gamma", True), ("alpha & beta", False)]:
        calls.clear()
        got = [m.id for m in spread.search(expression, limit=20, fts=True)]
        assert len(got) == 20 and calls and calls[0] is not None, expression
        assert all(i >= FAR for i in got) == in_newest_blocks
        with monkeypatch.context() as patched:
            patched.setattr(recent, "MOST", 0.0)
            assert got == [m.id for m in spread.search(expression, limit=20, fts=True)]
    calls.clear()
    spread.search("alpha | gamma", fts=True)  # an OR: no word is required
    spread.search("alpha & !gamma", fts=True)
    assert calls == []


@pytest.mark.parametrize("leakproof", [True, False])
def test_a_member_without_statistics_finds_its_window_in_the_newest_blocks(
    team: Team, monkeypatch: pytest.MonkeyPatch, leakproof: bool
) -> None:
    # Row-level security hides the planner's statistics from a member (pg_stats), so the
    # newest blocks are guessed, then widened by the matches found there; unless its searches
    # cannot use the index at all (the text-search match not leakproof: this database only).
    roles = _roles(team)
    if leakproof:
        team.cluster.psql(ADMIN_LEAKPROOF, dbname=team.name)
    with MemoryStore(team.url(roles["owner"]), user=roles["alice"]) as owner:  # alice's rows
        import_text(owner, "\n".join(_records(["alpha", "beta", "gamma"], OLD, 1)), "jsonl")
        owner.connection.execute(f"ALTER TABLE memories ALTER COLUMN id RESTART WITH {FAR - 1}")
        owner.add("the newer memories begin here")  # an import numbers on from the newest id
        words = ["alpha", "gamma", "delta", "omega", "sigma", "kappa"]
        import_text(owner, "\n".join(_records(words, NEW, 2)), "jsonl")
        owner.connection.execute("ANALYZE memories")
    guesses: list[recent.Blocks | None] = []
    widened: list[recent.Blocks | None] = []
    guess, wider = recent.guess, recent.wider

    def watched_guess(*args: object) -> recent.Blocks | None:
        guesses.append(guess(*args))  # type: ignore[arg-type]
        return guesses[-1]

    def watched_wider(*args: object) -> recent.Blocks | None:
        widened.append(wider(*args))  # type: ignore[arg-type]
        return widened[-1]

    monkeypatch.setattr(recent, "guess", watched_guess)
    monkeypatch.setattr(recent, "wider", watched_wider)
    # Taken as barely common, the words would need more blocks than this, as on a large store.
    monkeypatch.setattr(recent, "MOST_BLOCKS", 2)
    with MemoryStore(team.url(roles["alice"])) as alice:
        assert candidates._common_lexemes(alice.connection) == {}  # hidden from a member
        for query, in_newest_blocks in [("alpha gamma", True), ("alpha beta", False)]:
            guesses.clear()
            got = [m.id for m in alice.search(query, limit=20)]
            assert len(got) == 20, query
            if not leakproof:
                assert guesses == []  # no blocks: every statement reads the table anyway
                continue
            assert guesses and guesses[0] is not None, query
            assert all(i >= FAR for i in got) == in_newest_blocks
            with monkeypatch.context() as patched:
                patched.setattr(recent, "MOST", 0.0)
                assert got == [m.id for m in alice.search(query, limit=20)], query
    assert widened == ([None] if leakproof else [])  # beta: none in the newest block


def test_blocks_widen_by_the_matches_found() -> None:
    word = [index.Phrase(("report",))]
    newest = 10 * (1 << recent.SHIFT) + 100
    first = recent.guess([word], newest)
    assert first is not None and first.span == (1 << recent.SHIFT) + 100
    assert first.tsquery == "('~10~report' | '~9~report')"
    wide = recent.wider([word], first, newest, found=100, window=500)
    assert wide is not None and wide.span >= recent.MARGIN * first.span * 5
    blocks = wide.tsquery.count("~report")  # from block 10 down to the first one it needs
    assert wide.span == newest - ((10 - blocks + 1) << recent.SHIFT)
    assert recent.wider([word], first, newest, found=0, window=500) is None
    assert recent.wider([word], first, newest, found=1, window=500) is None  # most of it
