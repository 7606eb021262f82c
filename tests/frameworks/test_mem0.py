"""The Mem0 face (``zeromem_cli.mem0``): Mem0's shapes and rules over a real zeromem database."""

from __future__ import annotations

import asyncio
import uuid
import warnings
from pathlib import Path

import pytest

from tests.frameworks.backends import either_backend  # noqa: F401  (db_path: both backends)
from zeromem_cli import MemoryStore
from zeromem_cli.errors import SecretDetectedError
from zeromem_cli.mem0 import AsyncMemory, Memory, MemoryNotFoundError

ITEM_KEYS = {"id", "memory", "hash", "metadata", "created_at", "updated_at"}


@pytest.fixture
def m(db_path: Path) -> Memory:
    memory = Memory({"zeromem": {"path": str(db_path)}})
    yield memory  # type: ignore[misc]
    memory.close()


def test_infer_extracts_with_zeromem_rules(m: Memory) -> None:
    messages = [
        {"role": "user", "content": "Hi! My name is Alice and I live in Berlin. How are you?"},
        {"role": "assistant", "content": "I live in the cloud, Alice."},
    ]
    added = m.add(messages, user_id="alice")["results"]
    assert [(r["memory"], r["event"]) for r in added] == [
        ("My name is Alice", "ADD"),
        ("I live in Berlin", "ADD"),
    ]
    # The rules keep a key per fact: a new home updates the old one, in place.
    moved = m.add("Actually I live in Paris now", user_id="alice")["results"]
    assert [(r["memory"], r["event"]) for r in moved] == [("I live in Paris now", "UPDATE")]
    assert moved[0]["id"] == added[1]["id"]
    assert m.add("I live in Paris now", user_id="alice")["results"][0]["event"] == "NONE"
    forgot = m.add("Please forget that I live in Paris", user_id="alice")["results"]
    assert [(r["id"], r["event"]) for r in forgot] == [(added[1]["id"], "DELETE")]
    assert [r["memory"] for r in m.get_all(filters={"user_id": "alice"})["results"]] == [
        "My name is Alice"
    ]


def test_infer_stores_no_chatter_from_a_conversation(m: Memory) -> None:
    chat = [{"role": "user", "content": "What's the weather like?"}]
    assert m.add(chat, user_id="alice") == {"results": []}
    assert m.get_all(filters={"user_id": "alice"}) == {"results": []}


def test_infer_false_stores_each_message_as_given(m: Memory) -> None:
    chat = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "What's the weather like?", "name": "al"},
        {"role": "assistant", "content": "Sunny."},
        "not a message",
    ]
    added = m.add(chat, user_id="alice", infer=False)["results"]
    assert [(r["memory"], r["role"], r["actor_id"], r["event"]) for r in added] == [
        ("What's the weather like?", "user", "al", "ADD"),
        ("Sunny.", "assistant", None, "ADD"),
    ]
    got = m.get(added[0]["id"])
    assert got is not None
    assert (got["role"], got["actor_id"], got["metadata"]) == ("user", "al", None)


def test_ids_are_zeromem_uids_and_other_faces_see_them(m: Memory, db_path: Path) -> None:
    result = m.add("I prefer tea over coffee", user_id="alice", agent_id="bot", run_id="r1")
    memory_id = result["results"][0]["id"]
    assert str(uuid.UUID(memory_id)) == memory_id
    with MemoryStore(db_path, user="alice") as store:
        [found] = store.search("tea")
    assert (found.uid, found.user, found.agent, found.session) == (memory_id, "alice", "bot", "r1")
    item = m.get(memory_id)
    assert item is not None
    assert ITEM_KEYS <= set(item)
    assert (item["user_id"], item["agent_id"], item["run_id"]) == ("alice", "bot", "r1")


def test_scopes_read_like_mem0(m: Memory) -> None:
    m.add("alice likes tea from bot one", user_id="alice", agent_id="one", run_id="a", infer=False)
    m.add("alice likes tea from bot two", user_id="alice", agent_id="two", run_id="b", infer=False)
    m.add("bob likes tea too", user_id="bob", infer=False)
    m.add("the agent likes tea alone", agent_id="one", infer=False)

    def found(**filters: str) -> list[str]:
        return sorted(r["memory"] for r in m.search("tea", filters=filters)["results"])

    assert found(user_id="alice") == [
        "alice likes tea from bot one",
        "alice likes tea from bot two",
    ]
    assert found(user_id="alice", agent_id="two") == ["alice likes tea from bot two"]
    assert found(user_id="alice", run_id="a") == ["alice likes tea from bot one"]
    assert found(user_id="alice", agent_id="one", run_id="b") == []
    assert found(user_id="bob") == ["bob likes tea too"]
    assert found(user_id="carol") == []
    # Without a user, the memories written without one: an owner is never crossed.
    assert found(agent_id="one") == ["the agent likes tea alone"]
    with pytest.raises(ValueError, match="user_id"):
        m.search("tea")
    with pytest.raises(ValueError, match="whitespace"):
        m.search("tea", filters={"user_id": "a b"})


def test_metadata_filters_and_limits(m: Memory) -> None:
    for n in range(8):
        m.add(
            f"note {n} about gardening",
            user_id="u",
            metadata={"n": n, "kind": "odd" if n % 2 else "even"},
            infer=False,
        )
    hits = m.search("gardening", filters={"user_id": "u", "kind": "odd"}, top_k=3)["results"]
    assert len(hits) == 3 and all(h["metadata"]["kind"] == "odd" for h in hits)
    ranged = m.get_all(filters={"user_id": "u", "n": {"gte": 2, "lt": 5}}, top_k=10)["results"]
    assert sorted(h["metadata"]["n"] for h in ranged) == [2, 3, 4]
    either = m.get_all(filters={"user_id": "u", "OR": [{"n": 1}, {"n": {"in": [6, 7]}}]})
    assert sorted(h["metadata"]["n"] for h in either["results"]) == [1, 6, 7]
    assert len(m.get_all(filters={"user_id": "u", "NOT": [{"kind": "odd"}]})["results"]) == 4
    assert len(m.get_all(filters={"user_id": "u", "kind": {"icontains": "OD"}})["results"]) == 4
    assert len(m.get_all(filters={"user_id": "u"}, top_k=5)["results"]) == 5
    assert m.search("gardening", filters={"user_id": "u"}, top_k=0) == {"results": []}
    assert "score" not in m.get_all(filters={"user_id": "u"})["results"][0]


def test_threshold_is_on_zeromem_scores(m: Memory) -> None:
    m.add("I keep bees in the garden", user_id="u", infer=False)
    [hit] = m.search("bees", filters={"user_id": "u"})["results"]
    assert hit["score"] > 0
    # Scores carry recency, so they drift a little between calls.
    kept = m.search("bees", filters={"user_id": "u"}, threshold=hit["score"] * 0.9)
    assert len(kept["results"]) == 1
    assert m.search("bees", filters={"user_id": "u"}, threshold=hit["score"] * 2) == {"results": []}


def test_update_delete_history(m: Memory) -> None:
    memory_id = m.add("I drive a red car", user_id="u", metadata={"topic": "car"}, infer=False)[
        "results"
    ][0]["id"]
    assert m.update(memory_id, text="I drive a blue car", metadata={"colour": "blue"}) == {
        "message": "Memory updated successfully!"
    }
    item = m.get(memory_id)
    assert item is not None
    assert (item["memory"], item["metadata"]) == (
        "I drive a blue car",
        {"colour": "blue", "topic": "car"},
    )
    assert m.delete(memory_id) == {"message": "Memory deleted successfully!"}
    history = m.history(memory_id)
    assert [(h["event"], h["old_memory"], h["new_memory"], h["is_deleted"]) for h in history] == [
        ("ADD", None, "I drive a red car", False),
        ("UPDATE", "I drive a red car", "I drive a blue car", False),
        ("DELETE", "I drive a blue car", None, True),
    ]
    assert {h["memory_id"] for h in history} == {memory_id}
    with pytest.raises(ValueError, match="not found"):
        m.delete(memory_id)
    with pytest.raises(MemoryNotFoundError):
        m.update(str(uuid.uuid4()), text="x")
    assert m.get("not-an-id") is None
    assert m.history(str(uuid.uuid4())) == []


def test_delete_all_and_reset(m: Memory, db_path: Path) -> None:
    m.add("alice one", user_id="alice", agent_id="a", infer=False)
    m.add("alice two", user_id="alice", agent_id="b", infer=False)
    m.add("bob one", user_id="bob", infer=False)
    assert m.delete_all(user_id="alice", agent_id="a") == {
        "message": "Memories deleted successfully!"
    }
    assert [r["memory"] for r in m.get_all(filters={"user_id": "alice"})["results"]] == [
        "alice two"
    ]
    with pytest.raises(ValueError, match="reset"):
        m.delete_all()
    m.reset()
    assert m.get_all(filters={"user_id": "alice"}) == {"results": []}
    assert m.get_all(filters={"user_id": "bob"}) == {"results": []}
    # Forgotten, not destroyed: zeromem keeps deleted memories in its trash until gc.
    with MemoryStore(db_path, user="bob") as store:
        assert store.count() == 0
        assert [x.content for x in store.list(filters=_trash())] == ["bob one"]


def _trash():  # type: ignore[no-untyped-def]
    from zeromem_cli.models import Filters

    return Filters(include_deleted=True)


def test_expiration_date(m: Memory) -> None:
    gone = m.add("old promo code season", user_id="u", expiration_date="2000-01-01", infer=False)
    kept = m.add("next year's plan", user_id="u", expiration_date="2999-01-01", infer=False)
    assert m.get(gone["results"][0]["id"]) is None
    item = m.get(kept["results"][0]["id"])
    assert item is not None and item["expiration_date"] == "2999-01-01"
    assert [r["memory"] for r in m.get_all(filters={"user_id": "u"})["results"]] == [
        "next year's plan"
    ]


def test_from_config_ignores_services_with_one_warning(db_path: Path) -> None:
    config = {
        "llm": {"provider": "openai", "config": {"model": "gpt-4o-mini", "api_key": "sk-x"}},
        "embedder": {"provider": "openai"},
        "vector_store": {"provider": "qdrant", "config": {"path": "/tmp/q"}},
        "version": "v1.1",
        "zeromem": {"path": str(db_path)},
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        memory = Memory.from_config(config)
    assert len(caught) == 1
    assert "embedder, llm, vector_store, version" in str(caught[0].message)
    assert "sk-x" not in str(caught[0].message)
    memory.add("I like chess", user_id="u", infer=False)
    assert memory.store.path == db_path
    memory.close()
    assert Memory.from_config(str(db_path)).get_all(filters={"user_id": "u"})["results"]


def test_bad_input_is_a_value_error(m: Memory) -> None:
    with pytest.raises(ValueError, match="user_id"):
        m.add("text")
    with pytest.raises(ValueError):
        m.add(42, user_id="u")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        m.search("   ", filters={"user_id": "u"})
    with pytest.raises(ValueError, match="top_k"):
        m.get_all(filters={"user_id": "u"}, top_k=-1)
    with pytest.raises(ValueError, match="procedural"):
        m.add("x", agent_id="a", memory_type="procedural_memory")
    with pytest.raises(SecretDetectedError):
        m.add("my key is AKIAIOSFODNN7EXAMPLE", user_id="u", infer=False)
    assert m.get_all(filters={"user_id": "u"}) == {"results": []}


def test_identity_keys_in_metadata_do_not_move_a_memory(m: Memory) -> None:
    with pytest.warns(UserWarning, match="user_id"):
        m.add("I like jazz", user_id="alice", metadata={"user_id": "bob"}, infer=False)
    assert m.get_all(filters={"user_id": "bob"}) == {"results": []}
    assert len(m.get_all(filters={"user_id": "alice"})["results"]) == 1


def test_async_memory(db_path: Path) -> None:
    async def scenario() -> list[str]:
        memory = AsyncMemory(str(db_path))
        await memory.add("I collect vinyl records", user_id="u")
        found = await memory.search("vinyl", filters={"user_id": "u"}, top_k=3)
        memory.close()
        return [r["memory"] for r in found["results"]]

    assert asyncio.run(scenario()) == ["I collect vinyl records"]


def test_timestamp_dates_a_new_memory(m: Memory) -> None:
    given = m.add("We moved the launch to March", user_id="u", timestamp=1_700_000_000)
    inferred = m.add(
        "Remember that the venue is Hall B", user_id="u", timestamp="2024-05-01T10:00:00Z"
    )
    for result, when in ((given, "2023-11-14T22:13:20Z"), (inferred, "2024-05-01T10:00:00Z")):
        item = m.get(result["results"][0]["id"])
        assert item is not None and item["created_at"] == when
