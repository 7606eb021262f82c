"""The CJK index layout: bigrams plus each run's last character, so every character of a run
starts exactly one gram and a one-character search (a prefix) finds each occurrence once."""

from __future__ import annotations

from zeromem_cli import MemoryStore
from zeromem_cli.text.normalize import index_text
from zeromem_cli.text.query import build_match


def test_a_run_is_indexed_as_its_bigrams_and_its_last_character() -> None:
    assert index_text("周报发送") == "周报 报发 发送 送"
    assert index_text("猫") == "猫"
    assert index_text("我的猫 cat") == "我的 的猫 猫 cat"


def test_a_lone_character_is_searched_as_a_prefix() -> None:
    assert build_match("猫") == '"猫"*'
    assert build_match("周报") == '"周报"'


def test_a_character_is_found_at_the_start_middle_and_end_of_a_run(store: MemoryStore) -> None:
    first = store.add("猫很可爱").id
    middle = store.add("我的猫很听话").id
    last = store.add("这是我的猫").id
    store.add("狗很听话")
    assert {m.id for m in store.search("猫")} == {first, middle, last}


def test_each_occurrence_counts_once(store: MemoryStore) -> None:
    # Twice the character (once mid-run, once at the end) outranks once, as with words.
    twice = store.add("猫吃鱼，我的猫").id
    once = store.add("狗吃肉，我的猫").id
    assert [m.id for m in store.search("猫")] == [twice, once]
