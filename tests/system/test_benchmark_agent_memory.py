"""The agent-memory benchmark runs (quick mode) and its stored labels agree with the code."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from benchmarks import agent_memory
from benchmarks.agent_memory.data import DATA, load_store, load_stores, problems
from benchmarks.agent_memory.words import shares_word
from zeromem_cli import MemoryStore


def test_quick_benchmark_prints_both_halves_beside_plain_and_targets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert agent_memory.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "tuning half (" in out and "held-out half (" in out
    assert "plain FTS5" in out and "R@10" in out
    assert "shares a word, en" in out and "paraphrase, zh" in out
    assert "0.75" in out and "0.98" in out  # the #35 targets beside the figures


def test_stored_labels_and_gold_ids_agree_with_the_code() -> None:
    stores = load_stores()
    assert stores, "no store found under benchmarks/agent_memory"
    assert [p for store in stores for p in problems(store)] == []


def test_a_store_sits_whole_on_one_side_and_both_sides_hold_english_and_chinese() -> None:
    stores = load_stores()
    for split in ("tuning", "held_out"):
        languages = {q.language for s in stores if s.split == split for q in s.questions}
        assert {"en", "zh", "mixed"} <= languages


def test_the_set_is_large_enough_and_mostly_asked_in_other_words() -> None:
    questions = [q for store in load_stores() for q in store.questions]
    assert len(questions) >= 250
    assert sum(not q.shares_word for q in questions) >= 0.4 * len(questions)
    for store in load_stores():
        assert 40 <= len(store.memories) <= 80


def test_shares_word_follows_zeromems_normalisation() -> None:
    # Stop words do not count, stems do, and Chinese shares a bigram, not a character.
    assert not shares_word("how do I ship it?", ["deploys go through make deploy-staging"])
    assert shares_word("how do I ship to staging?", ["deploys go through make deploy-staging"])
    assert shares_word("when are the meetings?", ["standup meeting at 9:30"])
    assert shares_word("which doctors did I see", ["my doctor is Dr. Patel"])
    assert not shares_word("what is it", ["it is what it is"])
    assert not shares_word("打车", ["网约车"])
    assert shares_word("网约车到了吗", ["给她叫网约车"])


def test_a_drifted_label_is_reported(tmp_path: Path) -> None:
    raw = json.loads((DATA / "dev_web.json").read_text(encoding="utf-8"))
    raw["questions"][0]["shares_word"] = not raw["questions"][0]["shares_word"]
    path = tmp_path / "drifted.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    found = problems(load_store(path))
    assert len(found) == 1 and "shares_word" in found[0]


def test_evaluate_is_importable_and_ranks_what_a_searcher_returns() -> None:
    # A searcher that returns the gold memories (found by content) scores 1.0 at rank 1;
    # one that returns nothing scores 0: the ranks come from the searcher, by memory id.
    store = next(s for s in load_stores() if s.name == "dev_web")
    question_gold = {q.question: q.gold for q in store.questions}

    def oracle(db: MemoryStore, question: str, asked_at: datetime, limit: int) -> list[int]:
        by_content = {m.content: m.id for m in db.list(limit=None)}
        return [by_content[store.memory(g).content] for g in question_gold[question]][:1]

    results = agent_memory.evaluate([store], quick=True, searcher=oracle)
    assert len(results) == 8 and {r.store for r in results} == {"dev_web"}
    assert agent_memory.recall(results, 1) == pytest.approx(
        sum(1 / len(r.gold) for r in results) / len(results)
    )
    empty = agent_memory.evaluate([store], quick=True, searcher=lambda *_: [])
    assert agent_memory.recall(empty, 10) == 0.0
    assert agent_memory.recall(empty, 10, split="held_out") is None
