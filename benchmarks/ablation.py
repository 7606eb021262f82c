"""Ablation of every ranking factor on the TUNING half of every dataset.

    python -m benchmarks.retrieval --ablation                     # every dataset
    python -m benchmarks.retrieval --ablation --dataset locomo    # one (run them apart: long)

Each factor of ``zeromem_cli.ranking.factors.FACTORS`` is switched off in turn (its tuning
values set as its ``off`` says) and each dataset's search and pack figures are printed beside
those with every factor on, and with every factor off (BM25 over the same index). Only the
tuning halves are read: a ranking decision is made there, never on the held-out halves.

- LoCoMo: the five tuning conversations, each session its own, asked from a new session a day
  after the last turn:
  R@10 of evidence turns (categories 1-4) and pack recall at 1000 tokens.
- LongMemEval_S dev: the tuning haystacks: turn R@10 and pack recall at 1000 tokens.
- Chinese (zh_memory_eval.json): its tuning queries (one store: split by query): MRR.
- Agent memory (benchmarks/agent_memory): its tuning stores: R@10 and pack recall at 1000.
- Dated (benchmarks/dated_memories): a small hand-written set of dated agent memories whose
  questions name a period ("last week", "in February"): MRR (a page of ten holds most of it).

The databases are built once into ``benchmarks/.cache/ablation/`` and reused (delete the folder
after an index change; its name carries the index version).
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from benchmarks.datasets import (
    REPO,
    chinese_held_out,
    load_chinese,
    load_locomo,
    load_longmemeval,
    locomo_held_out,
    longmemeval_held_out,
)
from zeromem_cli import MemoryStore
from zeromem_cli.ranking.factors import FACTORS, without
from zeromem_cli.ranking.tuning import DEFAULT_TUNING, Tuning
from zeromem_cli.text.normalize import INDEX_VERSION

CACHE = REPO / "benchmarks" / ".cache" / "ablation" / f"v{INDEX_VERSION}"
CACHE_ENV = "ZEROMEM_ABLATION_CACHE"  # another folder for the databases (the test suite's)


def cache() -> Path:
    """Where the databases are built and reused."""
    import os

    return Path(os.environ.get(CACHE_ENV) or CACHE)


BUDGET = 1000
DEPTH = 10
DATASETS = ("locomo", "longmemeval", "chinese", "agent-memory", "dated")


class Case(NamedTuple):
    """One question of a tuning half: the database, how to open it, what is asked, what is
    wanted (stored ``meta["ref"]`` values), and when it is asked."""

    path: Path
    session: str | None
    question: str
    wanted: frozenset[str]
    asked: datetime | None


def _every_off(tuning: Tuning) -> Tuning:
    for factor in FACTORS:
        tuning = without(tuning, factor)
    return tuning


def variants() -> list[tuple[str, Tuning]]:
    """Every factor on, each off in turn, every one off."""
    found = [("every factor", DEFAULT_TUNING)]
    found += [(f"- {factor.name}", without(DEFAULT_TUNING, factor)) for factor in FACTORS]
    found.append(("BM25 only (every factor off)", _every_off(DEFAULT_TUNING)))
    return found


def _build(path: Path, write: Callable[[MemoryStore], None]) -> Path:
    """The database at ``path``, written by ``write`` unless a complete one is there."""
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    for leftover in path.parent.glob(partial.name + "*"):
        leftover.unlink()
    with MemoryStore(partial) as store:
        store.connection.execute("PRAGMA synchronous=OFF")  # throwaway: rebuilt when absent
        with store.transaction():
            write(store)
    partial.rename(path)
    return path


def locomo_cases(limit: int | None = None) -> list[Case]:
    """The tuning conversations' questions (the first ``limit`` conversations only)."""
    conversations = [c for c in load_locomo() or [] if not locomo_held_out(c.sample_id)]
    cases = []
    for conv in conversations[:limit]:

        def write(store: MemoryStore, conv: Any = conv) -> None:
            for turn in conv.turns:
                store.write(
                    turn.memory_text,
                    created_at=turn.when,
                    meta={"ref": turn.dia_id},
                    allow_duplicate=True,
                    session=turn.dia_id.split(":")[0],
                )

        path = _build(cache() / "locomo" / f"{conv.sample_id}.db", write)
        # Asked a day after the conversation's last turn, as ``pack_recall`` asks and as
        # LongMemEval's questions carry their date: at the wall clock, years later, pack's
        # recency weight is flat and the ablation measured a pack nobody gets.
        asked = max(turn.when for turn in conv.turns) + timedelta(days=1)
        for question in conv.questions:
            if question.category in (1, 2, 3, 4) and question.evidence:
                cases.append(
                    Case(path, "question", question.question, frozenset(question.evidence), asked)
                )
    return cases


def longmemeval_cases(limit: int | None = None) -> list[Case]:
    """The tuning haystacks' questions (the first ``limit`` haystacks only)."""
    stacks = [s for s in load_longmemeval() or [] if not longmemeval_held_out(s.question_id)]
    cases = []
    for stack in stacks[:limit]:

        def write(store: MemoryStore, stack: Any = stack) -> None:
            for number, turn in enumerate(stack.turns):
                store.write(
                    turn.memory_text,
                    created_at=turn.when,
                    session=turn.session_id,
                    meta={"ref": str(number)},
                    allow_duplicate=True,
                    category="chat",
                    allow_secret=True,  # a test set, not a user's data
                )

        path = _build(cache() / "longmemeval" / f"{stack.question_id}.db", write)
        wanted = frozenset(str(i) for i, t in enumerate(stack.turns) if t.has_answer)
        cases.append(Case(path, "question", stack.question, wanted, stack.asked))
    return cases


def chinese_cases() -> list[Case]:
    data = load_chinese()
    if data is None:
        return []

    def write(store: MemoryStore) -> None:
        for memory in data.memories:
            store.write(memory["content"], category=memory["category"], meta={"ref": memory["id"]})

    path = _build(cache() / "chinese" / "zh.db", write)
    return [
        Case(path, None, str(q["q"]), frozenset(map(str, q["relevant"])), None)  # type: ignore[call-overload]
        for q in data.queries
        if not chinese_held_out(str(q["q"]))
    ]


def agent_memory_cases(directory: Path | None = None) -> list[Case]:
    """The tuning stores of the agent-memory set (or of another folder of stores in its
    format: ``dated_cases``)."""
    try:
        from benchmarks.agent_memory.data import DATA, load_stores
        from benchmarks.agent_memory.run import QUESTION_SESSION, _asked_at
    except ImportError:
        return []
    cases = []
    for store in load_stores(directory or DATA):
        if store.split != "tuning":
            continue

        def write(db: MemoryStore, store: Any = store) -> None:
            for memory in sorted(store.memories, key=lambda m: m.created_at):
                db.write(
                    memory.content,
                    category=memory.category,
                    key=memory.key,
                    tags=list(memory.tags) or None,
                    session=memory.session,
                    created_at=memory.created_at,
                    meta={"ref": memory.id},
                    allow_duplicate=True,
                )

        folder = "agent-memory" if directory is None else directory.name
        path = _build(cache() / folder / f"{store.name}.db", write)
        asked = _asked_at(store)
        cases += [
            Case(path, QUESTION_SESSION, q.question, frozenset(q.gold), asked)
            for q in store.questions
        ]
    return cases


def dated_cases() -> list[Case]:
    """A small hand-written set of dated agent memories whose questions name a period
    (``benchmarks/dated_memories``): the general case of the date factor, which the
    conversation sets barely ask and the agent-memory set hardly at all."""
    return agent_memory_cases(REPO / "benchmarks" / "dated_memories")


CASES: dict[str, Callable[[], list[Case]]] = {
    "locomo": locomo_cases,
    "longmemeval": longmemeval_cases,
    "chinese": chinese_cases,
    "agent-memory": agent_memory_cases,
    "dated": dated_cases,
}
# The figures each dataset reports: (name, uses pack).
METRICS = {
    "locomo": (("R@10", False), ("pack@1000", True)),
    "longmemeval": (("R@10", False), ("pack@1000", True)),
    "chinese": (("MRR", False),),
    "agent-memory": (("R@10", False), ("pack@1000", True)),
    # 26 memories: every one fits a page of ten and a pack of 1000 tokens, so only the
    # order can tell the variants apart.
    "dated": (("MRR", False),),
}


@contextmanager
def _opened(cases: Sequence[Case]) -> Iterator[dict[tuple[Path, str | None], MemoryStore]]:
    stores: dict[tuple[Path, str | None], MemoryStore] = {}
    try:
        for case in cases:
            if (case.path, case.session) not in stores:
                stores[case.path, case.session] = MemoryStore(case.path, session=case.session)
        yield stores
    finally:
        for store in stores.values():
            store.close()


def measure(dataset: str, cases: Sequence[Case], tuning: Tuning) -> dict[str, float]:
    """The dataset's figures (``METRICS``) with ``tuning``, means over its cases."""
    figures: dict[str, list[float]] = {name: [] for name, _ in METRICS[dataset]}
    with _opened(cases) as stores:
        for case in cases:
            store = stores[case.path, case.session]
            hits = store.search(case.question, limit=DEPTH, ranking=tuning, as_of=case.asked)
            refs = [str(h.meta.get("ref")) for h in hits]
            for name, packs in METRICS[dataset]:
                if name == "MRR":
                    rank = next((i for i, r in enumerate(refs, 1) if r in case.wanted), None)
                    figures[name].append(1 / rank if rank else 0.0)
                elif not packs:
                    figures[name].append(len(case.wanted & set(refs)) / len(case.wanted))
                else:
                    packed = store.pack(
                        case.question, budget=BUDGET, touch=False, ranking=tuning, as_of=case.asked
                    ).memories
                    got = {str(m.meta.get("ref")) for m in packed}
                    figures[name].append(len(case.wanted & got) / len(case.wanted))
    return {name: statistics.fmean(values) if values else 0.0 for name, values in figures.items()}


def run(
    datasets: Sequence[str], out: Callable[[str], None] = print, sample: int = 1
) -> dict[str, Any]:
    """Print one table per dataset: each variant's figures and their change from every
    factor on ('+' a factor's removal helps: it does not earn its place there). ``sample``:
    every ``sample``-th question only (a shared machine's budget)."""
    report: dict[str, Any] = {}
    for dataset in datasets:
        began = datetime.now()
        cases = CASES[dataset]()[::sample]
        if not cases:
            out(f"{dataset}: skipped (dataset not found)")
            continue
        names = [name for name, _ in METRICS[dataset]]
        every = f", every {sample}th question" if sample > 1 else ""
        out(f"{dataset}: tuning half, {len(cases)} questions{every}")
        header = f"{'variant':<34}" + "".join(f"{n:>11}{'change':>9}" for n in names)
        out(header)
        out("-" * len(header))
        baseline: dict[str, float] = {}
        rows = {}
        for label, tuning in variants():
            figures = measure(dataset, cases, tuning)
            baseline = baseline or figures
            rows[label] = figures
            cells = "".join(f"{figures[n]:>11.3f}{figures[n] - baseline[n]:>+9.3f}" for n in names)
            out(f"{label:<34}{cells}")
            sys.stdout.flush()
        seconds = (datetime.now() - began) / timedelta(seconds=1)
        out(f"({seconds:.0f} s)\n")
        report[dataset] = rows
    return report


__all__ = ["CASES", "DATASETS", "run", "variants"]
