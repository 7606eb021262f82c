"""Ask every question of its store: zeromem (``MemoryStore.search``) and plain FTS5 side by side.

Each store is written into a fresh database through the public ``MemoryStore`` API with the
memory's own created_at, session, category, key and tags; the questions are then asked from a
new session, a day after the last memory was written, as an agent starting a new session would.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.agent_memory.data import Store, load_stores
from benchmarks.plain_fts import PlainIndex
from zeromem_cli import MemoryStore

DEPTH = 10  # the deepest rank reported (R@10)
QUESTION_SESSION = "new-session"
QUICK_QUESTIONS = 8  # per store in --quick


@dataclass(frozen=True)
class QuestionResult:
    """One question's outcome: where each gold memory came, 1-based (None: not in the top
    ``DEPTH``), for zeromem and for plain FTS5."""

    store: str
    split: str
    question_id: str
    question: str
    language: str
    shares_word: bool
    gold: tuple[str, ...]
    zeromem_ranks: tuple[int | None, ...]
    plain_ranks: tuple[int | None, ...]

    def recall(self, k: int, system: str = "zeromem") -> float:
        """The share of the gold memories found in the top ``k``."""
        ranks = self.zeromem_ranks if system == "zeromem" else self.plain_ranks
        return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def _ranks(found: Sequence[str], gold: Sequence[str]) -> tuple[int | None, ...]:
    position = {memory_id: place for place, memory_id in enumerate(found, 1)}
    return tuple(position.get(g) for g in gold)


def _load(store: Store, path: Path) -> dict[int, str]:
    """Write the store's memories in created_at order; the zeromem id of each memory id."""
    ids: dict[int, str] = {}
    with MemoryStore(path) as db:
        db.connection.execute("PRAGMA synchronous=OFF")  # a throwaway database
        for memory in sorted(store.memories, key=lambda m: m.created_at):
            result = db.write(
                memory.content,
                category=memory.category,
                key=memory.key,
                tags=list(memory.tags) or None,
                session=memory.session,
                created_at=memory.created_at,
                allow_duplicate=True,
            )
            ids[result.memory.id] = memory.id
    return ids


def _asked_at(store: Store) -> datetime:
    last = max(datetime.fromisoformat(m.created_at.replace("Z", "+00:00")) for m in store.memories)
    return last + timedelta(days=1)


SearchOptions = Mapping[str, Any]
# A retriever under test: (store opened in the question's session, question, when it is asked,
# how many) -> zeromem memory ids, best first. The default is ``MemoryStore.search``.
Searcher = Callable[[MemoryStore, str, datetime, int], Sequence[int]]


def zeromem_searcher(options: SearchOptions | None = None) -> Searcher:
    """``MemoryStore.search`` with ``options`` (keyword arguments: a ranking variant...)."""

    def search(db: MemoryStore, question: str, asked_at: datetime, limit: int) -> list[int]:
        hits = db.search(question, limit=limit, as_of=asked_at, **(options or {}))
        return [hit.id for hit in hits]

    return search


def evaluate(
    stores: Sequence[Store] | None = None,
    *,
    quick: bool = False,
    search_options: SearchOptions | None = None,
    searcher: Searcher | None = None,
    workdir: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[QuestionResult]:
    """Every question's result, store by store (default: every store shipped here).

    ``quick``: the first ``QUICK_QUESTIONS`` questions of each store. ``search_options`` go to
    ``MemoryStore.search`` as keyword arguments (a ranking variant, for an ablation);
    ``searcher`` replaces ``MemoryStore.search`` altogether (another retriever)."""
    search = searcher or zeromem_searcher(search_options)
    chosen = list(stores) if stores is not None else load_stores()
    results: list[QuestionResult] = []
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for store in chosen:
            if progress:
                progress(store.name)
            path = Path(tmp) / f"{store.name}.db"
            ids = _load(store, path)
            plain_order = [m.id for m in store.memories]
            plain = PlainIndex([" ".join(m.texts()) for m in store.memories])
            questions = store.questions[:QUICK_QUESTIONS] if quick else store.questions
            asked_at = _asked_at(store)
            with MemoryStore(path, session=QUESTION_SESSION) as db:
                for question in questions:
                    found = [ids[i] for i in search(db, question.question, asked_at, DEPTH)]
                    plain_found = [plain_order[i] for i in plain.search(question.question, DEPTH)]
                    results.append(
                        QuestionResult(
                            store=store.name,
                            split=store.split,
                            question_id=question.id,
                            question=question.question,
                            language=question.language,
                            shares_word=question.shares_word,
                            gold=question.gold,
                            zeromem_ranks=_ranks(found, question.gold),
                            plain_ranks=_ranks(plain_found, question.gold),
                        )
                    )
            plain.close()
    return results


def recall(
    results: Sequence[QuestionResult],
    k: int = DEPTH,
    *,
    system: str = "zeromem",
    split: str | None = None,
    shares_word: bool | None = None,
    language: str | None = None,
) -> float | None:
    """Mean R@k over the results matching the filters given; None when none match."""
    chosen = [
        r
        for r in results
        if (split is None or r.split == split)
        and (shares_word is None or r.shares_word is shares_word)
        and (language is None or r.language == language)
    ]
    return sum(r.recall(k, system) for r in chosen) / len(chosen) if chosen else None
