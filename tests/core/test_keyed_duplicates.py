"""A keyed write of text already stored (#33): the key lands on the existing memory, so the
next write of that key updates it instead of adding a second memory."""

from __future__ import annotations

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore


def test_the_key_lands_on_the_existing_memory(store: MemoryStore) -> None:
    first = store.add("the team standup is at 9:30")
    keyed = store.write("The team standup is at 9:30", key="standup")
    assert keyed.memory.id == first.id and keyed.memory.key == "standup"
    moved = store.add("the team standup is at 10:00", key="standup")
    assert moved.id == first.id
    assert [m.content for m in store.list()] == ["the team standup is at 10:00"]
    assert [v.change for v in store.history(first.id)][:1] == ["key-update"]


def test_the_same_text_under_another_key_is_a_memory_of_its_own(store: MemoryStore) -> None:
    home = store.add("Paris", key="home_city")
    birth = store.add("Paris", key="birth_city")
    assert birth.id != home.id
    assert store.add("Lyon", key="home_city").id == home.id
    assert {m.key: m.content for m in store.list()} == {"home_city": "Lyon", "birth_city": "Paris"}


def test_a_keyed_repeat_of_a_keyed_memory_is_a_duplicate(store: MemoryStore) -> None:
    first = store.add("the build uses make", key="build")
    again = store.write("the build uses make", key="build")
    assert (again.memory.id, again.action) == (first.id, "duplicate")


def test_through_the_cli(cli: Run) -> None:
    plain = as_json(cli("add", "coffee machine is on floor 3", "--json"))
    keyed = cli("add", "coffee machine is on floor 3", "--key", "coffee")
    assert keyed.exit_code == 0 and "nothing added" not in keyed.output
    assert (
        as_json(cli("add", "coffee machine is on floor 4", "--key", "coffee", "--json"))["id"]
        == plain["id"]
    )
    assert len(as_json(cli("list", "--json"))) == 1
