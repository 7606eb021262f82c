"""The hand-written agent-memory stores: one JSON file per store, read into plain records.

Each store is a haystack: its memories go into one fresh database and all of its questions
are asked of it, and the whole store sits on one side of the tuning / held-out split.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks.agent_memory.words import shares_word
from zeromem_cli.text.normalize import has_cjk, latin_words

DATA = Path(__file__).resolve().parent
SPLITS = ("tuning", "held_out")
LANGUAGES = ("en", "zh", "mixed")


@dataclass(frozen=True)
class Memory:
    id: str
    content: str
    category: str
    key: str | None
    tags: tuple[str, ...]
    session: str
    created_at: str
    supersedes: str | None

    def texts(self) -> list[str]:
        """Every field the search index holds for this memory."""
        return [self.content, self.key or "", self.category, *self.tags]


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold: tuple[str, ...]
    language: str
    shares_word: bool
    note: str | None


@dataclass(frozen=True)
class Store:
    name: str
    title: str
    split: str
    language: str
    memories: tuple[Memory, ...]
    questions: tuple[Question, ...]

    def memory(self, memory_id: str) -> Memory:
        return next(m for m in self.memories if m.id == memory_id)


def _memory(raw: dict[str, object]) -> Memory:
    tags = raw.get("tags") or []
    assert isinstance(tags, list)
    return Memory(
        id=str(raw["id"]),
        content=str(raw["content"]),
        category=str(raw["category"]),
        key=str(raw["key"]) if raw.get("key") else None,
        tags=tuple(str(t) for t in tags),
        session=str(raw["session"]),
        created_at=str(raw["created_at"]),
        supersedes=str(raw["supersedes"]) if raw.get("supersedes") else None,
    )


def _question(raw: dict[str, object]) -> Question:
    gold = raw["gold"]
    assert isinstance(gold, list)
    return Question(
        id=str(raw["id"]),
        question=str(raw["question"]),
        gold=tuple(str(g) for g in gold),
        language=str(raw["language"]),
        shares_word=bool(raw["shares_word"]),
        note=str(raw["note"]) if raw.get("note") else None,
    )


def load_store(path: Path) -> Store:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Store(
        name=raw["store"],
        title=raw["title"],
        split=raw["split"],
        language=raw["language"],
        memories=tuple(_memory(m) for m in raw["memories"]),
        questions=tuple(_question(q) for q in raw["questions"]),
    )


def load_stores(directory: Path = DATA) -> list[Store]:
    """Every store under ``directory``, in name order."""
    return [load_store(path) for path in sorted(directory.glob("*.json"))]


def computed_label(store: Store, question: Question) -> bool:
    """``shares_word`` as the code computes it: with any of the question's gold memories."""
    return any(shares_word(question.question, store.memory(g).texts()) for g in question.gold)


def computed_language(store: Store, question: Question) -> str:
    """``mixed`` when the question mixes Chinese with English words or is asked in the other
    language than a gold memory's (a memory with any Chinese is Chinese); else ``en``/``zh``."""
    asked = "zh" if has_cjk(question.question) else "en"
    if asked == "zh" and latin_words(question.question):
        return "mixed"
    written = {"zh" if has_cjk(store.memory(g).content) else "en" for g in question.gold}
    return asked if written == {asked} else "mixed"


def problems(store: Store) -> list[str]:
    """What is wrong with a store's data: a stored label the code disagrees with, a gold id
    that names no memory, a key used twice (a second write would update the first), an
    unknown split or language."""
    found: list[str] = []
    ids = [m.id for m in store.memories]
    keys = [m.key for m in store.memories if m.key]
    if len(set(ids)) != len(ids):
        found.append(f"{store.name}: duplicate memory id")
    if len(set(keys)) != len(keys):
        found.append(f"{store.name}: a key is used by two memories")
    if store.split not in SPLITS:
        found.append(f"{store.name}: unknown split {store.split!r}")
    for memory in store.memories:
        if memory.supersedes and memory.supersedes not in ids:
            found.append(f"{store.name}/{memory.id}: supersedes an unknown memory")
    for question in store.questions:
        where = f"{store.name}/{question.id}"
        if question.language not in LANGUAGES:
            found.append(f"{where}: unknown language {question.language!r}")
        if not question.gold or any(g not in ids for g in question.gold):
            found.append(f"{where}: gold names no memory")
            continue
        superseded = {m.supersedes for m in store.memories if m.supersedes}
        newer = {m.supersedes: m.id for m in store.memories if m.supersedes}
        if any(g in superseded and newer[g] not in question.gold for g in question.gold):
            found.append(f"{where}: gold is a superseded memory without the newer one")
        if computed_language(store, question) != question.language:
            found.append(f"{where}: language is {question.language!r}, the code says otherwise")
        if computed_label(store, question) != question.shares_word:
            found.append(f"{where}: shares_word is {question.shares_word}, the code says otherwise")
    return found
