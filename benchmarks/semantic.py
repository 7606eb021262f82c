"""Semantic recall (the zeromem[semantic] extra): quality beside lexical-only, and its costs.

    python -m benchmarks.semantic                 # agent-memory set, every split
    python -m benchmarks.semantic --ablation      # merge settings tried on the TUNING stores
    python -m benchmarks.semantic --locomo        # LoCoMo halves, semantic off and on
    python -m benchmarks.semantic --agent-pack    # agent-memory pack@300, every split
    python -m benchmarks.semantic --longmemeval 6 # LongMemEval_S, 6 questions a half, off and on
    python -m benchmarks.semantic --costs [--tier 100000] [--runs 5]   # the costs alone

Agent-memory set (benchmarks/agent_memory): each store is written through ``MemoryStore``
with semantic recall on, so every vector is stored by the real write path; each question is
asked from a new session, and R@10 is reported for the questions that share a content word
with their memory and for those that say it in other words (paraphrase), by split and
language (mixed: asked in one language of a memory written in the other).

LoCoMo: the stores are built as ``benchmarks.retrieval`` builds them, then embedded by
``semantic.indexer`` (vectors cached under benchmarks/.cache, so a second run embeds nothing),
and each question is searched with semantic recall off and on.

Costs: model load in a fresh process, query time, embedding throughput, bytes per memory,
``add`` with and without, and cold ``zeromem search`` / in-process search at ``--tier``
memories. Embedding 100k memories on 2 cores takes hours, so the costs tier holds 2,000
embedded memories' vectors copied with noise to the tier size: search cost depends on the
count, not on which vectors they are.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.agent_memory.data import Store, load_stores
from benchmarks.agent_memory.run import QUESTION_SESSION, _asked_at, _load
from benchmarks.datasets import REPO
from zeromem_cli import MemoryStore, StoreSettings
from zeromem_cli.models import Filters
from zeromem_cli.ranking.factors import semantic_merge
from zeromem_cli.ranking.tuning import DEFAULT_TUNING, Tuning
from zeromem_cli.search import present
from zeromem_cli.semantic.embedder import Embedder, load
from zeromem_cli.semantic.recall import nearest
from zeromem_cli.text.query import parse_query

CACHE = REPO / "benchmarks" / ".cache"

# How dense hits may enter pack (``--pack-variants``, judged on the TUNING halves only):
# pack@budget with semantic on under each, beside semantic off.
PACK_VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "no lift": {"semantic_pack_lift": False},
    "share 0.3": {"semantic_pack_share": 0.3},
    "share 0.7": {"semantic_pack_share": 0.7},
    "share 1.0": {"semantic_pack_share": 1.0},
    "pack hits 1": {"semantic_pack_hits": 1},
    "pack hits 5": {"semantic_pack_hits": 5},
    "pack hits 10": {"semantic_pack_hits": 10},
    "below every lexical hit (sure 0.01)": {"semantic_sure": 0.01},
    "share 0.7, hits 5": {"semantic_pack_share": 0.7, "semantic_pack_hits": 5},
    "share 1.0, hits 5": {"semantic_pack_share": 1.0, "semantic_pack_hits": 5},
    "share 1.0, hits 7": {"semantic_pack_share": 1.0, "semantic_pack_hits": 7},
    "room 0.1": {"semantic_pack_room": 0.1},
    "room 0.15": {"semantic_pack_room": 0.15},
    "room 0.2": {"semantic_pack_room": 0.2},
    "room 0.25": {"semantic_pack_room": 0.25},
    "room 0.3": {"semantic_pack_room": 0.3},
    "room 0.35": {"semantic_pack_room": 0.35},
    "room 0.5": {"semantic_pack_room": 0.5},
    "room none": {"semantic_pack_room": 100.0},
}
AGENT_PACK_BUDGET = 300  # the prompt hook's default budget
DEPTH = 10
POOL = 50  # lexical and dense candidates kept per question for the offline merges


# -- per question: the lexical and dense candidates, merged offline ---------------------------


class Asked:
    """One question's candidates: merges are replayed on them without searching again."""

    def __init__(
        self,
        group: tuple[str, str, bool],
        gold: set[Any],
        lexical: list[tuple[Any, float]],
        dense: list[tuple[Any, float]],
        words: list[str],
        key: Callable[[Any], Any],
        near: dict[int, float | None] | None = None,
    ) -> None:
        self.group = group  # (split, language, shares a word)
        self.gold = gold
        self.lexical = lexical
        self.dense = dense
        self.words = words
        self.key = key
        self.near = near or {}  # {memory id: similarity} of the lexical candidates
        self.packed: dict[bool, float] = {}  # pack@1000 recall, semantic off / on
        self.variants: dict[str, float] = {}  # pack recall, semantic on, per PACK_VARIANTS

    def recall(self, merge: Tuning | None, system: str = "merged", k: int = DEPTH) -> float:
        if system == "lexical":
            order = [row for row, _ in self.lexical[:k]]
        elif system == "dense":
            order = [row for row, _ in self.dense[:k]]
        else:
            words = self.words

            def held(row: Any) -> float:
                found = present(words, row) if words else []
                return sum(found) / len(found) if found else 0.0

            tuning = merge or DEFAULT_TUNING
            order = [
                row
                for row, _ in semantic_merge(
                    self.lexical[:k],
                    self.dense[:k],
                    k,
                    held,
                    tuning,
                    lambda row: self.near.get(row["id"]),
                )
            ]
        found = {self.key(row) for row in order}
        return len(self.gold & found) / len(self.gold)


def _candidates(
    store: MemoryStore, question: str, asked_at: Any
) -> tuple[list[tuple[Any, float]], list[tuple[Any, float]], list[str], dict[int, float | None]]:
    """(lexical pairs, dense pairs, content words, {lexical id: similarity}) as
    ``MemoryStore.search`` computes them."""
    from zeromem_cli.search import run_search

    parsed = parse_query(question)
    vector = store.query_vector(question, True)
    now = store.now()

    def run(backend: Any) -> tuple[list[tuple[Any, float]], list[tuple[Any, float]]]:
        lexical = run_search(
            backend, store.scope, now, parsed, limit=POOL, filters=Filters(), as_of=asked_at
        )
        near.update(dict.fromkeys([row["id"] for row, _ in lexical]))
        dense = (
            []
            if vector is None
            else nearest(backend, store.scope, now, Filters(), vector, POOL, None, near)
        )
        return lexical, dense

    near: dict[int, float | None] = {}
    lexical, dense = store.backend.read(run)
    return lexical, dense, list(parsed.content), near


def agent_memory(
    stores: Sequence[Store], workdir: Path, variants: bool = False, packs: bool = False
) -> list[Asked]:
    asked: list[Asked] = []
    for store in stores:
        path = workdir / f"{store.name}.db"
        ids = _load(store, path)
        when = _asked_at(store)
        with MemoryStore(
            path, session=QUESTION_SESSION, settings=StoreSettings(semantic="on")
        ) as db:
            for question in store.questions:
                lexical, dense, words, near = _candidates(db, question.question, when)
                item = Asked(
                    (store.split, question.language, question.shares_word),
                    set(question.gold),
                    lexical,
                    dense,
                    words,
                    lambda row, ids=ids: ids[row["id"]],
                    near,
                )
                if packs:  # pack@300 (the prompt hook's budget), semantic off and on
                    for on in (False, True):
                        result = db.pack(
                            question.question,
                            budget=AGENT_PACK_BUDGET,
                            touch=False,
                            semantic=on,
                            as_of=when,
                        )
                        got = {ids[m.id] for m in result.memories}
                        item.packed[on] = len(item.gold & got) / len(item.gold)
                if variants and store.split == "tuning":
                    _pack_variants(
                        db,
                        item,
                        question.question,
                        AGENT_PACK_BUDGET,
                        when,
                        lambda m, ids=ids: ids[m.id],
                    )
                asked.append(item)
    return asked


def _pack_variants(
    db: MemoryStore,
    item: Asked,
    question: str,
    budget: int,
    when: Any,
    key: Callable[[Any], Any],
) -> None:
    """pack@budget recall, semantic off and on under each of ``PACK_VARIANTS``."""
    from zeromem_cli.ranking.tuning import DEFAULT_TUNING as base

    def packed(on: bool, tuning: Tuning) -> float:
        result = db.pack(
            question, budget=budget, touch=False, semantic=on, ranking=tuning, as_of=when
        )
        got = {key(m) for m in result.memories}
        return len(item.gold & got) / len(item.gold)

    item.packed[False] = packed(False, base)
    for name, change in PACK_VARIANTS.items():
        item.variants[name] = packed(True, base._replace(**change))


def print_pack_variants(asked: Sequence[Asked], title: str) -> None:
    """The TUNING half's pack recall under each variant (held-out items are never passed)."""
    items = [a for a in asked if a.variants and a.group[0] == "tuning"]
    if not items:
        return
    off = _mean([a.packed[False] for a in items])
    print(f"\n{title}: pack recall, TUNING only (semantic off: {off:.3f})")
    groups = sorted({(a.group[2]) for a in items}, reverse=True)
    print(
        f"{'variant':<36} {'all':>6} "
        + " ".join(f"{('shares a word' if g else 'other words'):>14}" for g in groups)
    )
    for name in PACK_VARIANTS:
        row = [_mean([a.variants[name] for a in items])]
        row += [_mean([a.variants[name] for a in items if a.group[2] == g]) for g in groups]
        print(f"{name:<36} {row[0]:>6.3f} " + " ".join(f"{v:>14.3f}" for v in row[1:]))
    off = [_mean([a.packed[False] for a in items if a.group[2] == g]) for g in groups]
    print(
        f"{'semantic off':<36} {_mean([a.packed[False] for a in items]):>6.3f} "
        + " ".join(f"{v:>14.3f}" for v in off)
    )


def print_agent_packs(asked: Sequence[Asked]) -> None:
    """pack@300 recall per split and question kind, semantic off and on."""
    print(f"\nAgent-memory set, pack@{AGENT_PACK_BUDGET} (the prompt hook's budget)")
    print(f"{'split':<9} {'questions':<12} {'n':>4} {'off':>6} {'on':>6}")
    for split in ("tuning", "held_out"):
        for kind, shares in (("shared-word", True), ("paraphrase", False)):
            items = [a for a in asked if a.group[0] == split and a.group[2] == shares and a.packed]
            print(
                f"{split:<9} {kind:<12} {len(items):>4} "
                f"{_mean([a.packed[False] for a in items]):>6.3f} "
                f"{_mean([a.packed[True] for a in items]):>6.3f}"
            )


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def print_agent_memory(asked: Sequence[Asked], merge: Tuning = DEFAULT_TUNING) -> None:
    groups: dict[tuple[str, str, str], list[Asked]] = defaultdict(list)
    for each in asked:
        split, language, shares = each.group
        kind = "shared-word" if shares else "paraphrase"
        groups[(split, language, kind)].append(each)
        groups[(split, "all", kind)].append(each)
    print("\nAgent-memory set, R@10 (floors: paraphrase >= 0.75, shared-word >= 0.98)")
    print(
        f"{'split':<9} {'lang':<6} {'questions':<12} {'n':>4} {'lexical':>8} "
        f"{'dense':>6} {'semantic on':>12}"
    )
    for (split, language, kind), items in sorted(groups.items()):
        print(
            f"{split:<9} {language:<6} {kind:<12} {len(items):>4} "
            f"{_mean([a.recall(None, 'lexical') for a in items]):>8.3f} "
            f"{_mean([a.recall(None, 'dense') for a in items]):>6.3f} "
            f"{_mean([a.recall(merge) for a in items]):>12.3f}"
        )


_T = DEFAULT_TUNING
ABLATION = {
    "default": _T,
    "issue anchor: lexical top 8, then 2 dense": _T._replace(
        semantic_sure=-1.0, semantic_tail=2, semantic_floor=0.0, semantic_spread=1.0
    ),
    "dense only in empty slots": _T._replace(
        semantic_sure=-1.0, semantic_tail=0, semantic_floor=0.0, semantic_spread=1.0
    ),
    "no floor": _T._replace(semantic_floor=0.0),
    "floor 0.80": _T._replace(semantic_floor=0.80),
    "floor 0.82": _T._replace(semantic_floor=0.82),
    "tail 0": _T._replace(semantic_tail=0),
    "tail 2": _T._replace(semantic_tail=2),
    "tail 3": _T._replace(semantic_tail=3),
    "tail 5": _T._replace(semantic_tail=5),
    "sure 0.34": _T._replace(semantic_sure=0.34),
    "sure 0.67": _T._replace(semantic_sure=0.67),
    "sure 1.0": _T._replace(semantic_sure=1.0),
    "spread 0.03": _T._replace(semantic_spread=0.03),
    "spread 0.10": _T._replace(semantic_spread=0.10),
    "spread 1 (no spread)": _T._replace(semantic_spread=1.0),
    "push margin off (always push)": _T._replace(semantic_push_margin=-1.0),
    "push margin 0": _T._replace(semantic_push_margin=0.0),
    "push margin 0.015": _T._replace(semantic_push_margin=0.015),
    "push margin 0.02": _T._replace(semantic_push_margin=0.02),
    "push margin 0.03": _T._replace(semantic_push_margin=0.03),
    "push margin 0.04": _T._replace(semantic_push_margin=0.04),
    "push margin 0.06": _T._replace(semantic_push_margin=0.06),
    "push margin 0.1": _T._replace(semantic_push_margin=0.1),
}


def print_ablation(asked: Sequence[Asked], locomo: Sequence[Asked] = ()) -> None:
    tuning = [a for a in asked if a.group[0] == "tuning"]
    para = [a for a in tuning if not a.group[2]]
    shared = [a for a in tuning if a.group[2]]
    loc = [a for a in locomo if a.group[0] == "tuning"]
    print("\nMerge ablation, TUNING stores only, R@10")
    head = f"{'variant':<44} {'paraphrase':>10} {'shared-word':>11}"
    print(head + (f" {'LoCoMo':>7}" if loc else ""))
    print(
        f"{'lexical only':<44} {_mean([a.recall(None, 'lexical') for a in para]):>10.3f} "
        f"{_mean([a.recall(None, 'lexical') for a in shared]):>11.3f}"
        + (f" {_mean([a.recall(None, 'lexical') for a in loc]):>7.3f}" if loc else "")
    )
    for name, merge in ABLATION.items():
        print(
            f"{name:<44} {_mean([a.recall(merge) for a in para]):>10.3f} "
            f"{_mean([a.recall(merge) for a in shared]):>11.3f}"
            + (f" {_mean([a.recall(merge) for a in loc]):>7.3f}" if loc else "")
        )


# -- LoCoMo -------------------------------------------------------------------------------------


class Cached:
    """An ``Embedder`` that keeps passage vectors on disk by text: the benchmark embeds a
    dataset once. Queries are embedded afresh."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.path = path
        self.store: dict[str, np.ndarray] = {}
        if path.is_file():
            data = np.load(path)
            self.store = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.queries(texts)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in self.store]
        if missing:
            for text, vector in zip(missing, self.inner.passages(missing), strict=True):
                self.store[hashlib.sha1(text.encode()).hexdigest()] = vector.astype(np.float16)
        return np.stack([self.store[k].astype(np.float32) for k in keys])

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.store)
        np.savez(self.path, keys=np.array(keys), vectors=np.stack([self.store[k] for k in keys]))


def locomo(
    workdir: Path,
    max_conversations: int | None = None,
    halves: Sequence[str] = ("tuning", "held_out"),
    variants: bool = False,
) -> list[Asked]:
    from benchmarks.datasets import load_locomo, locomo_held_out
    from benchmarks.retrieval import build_locomo

    conversations = load_locomo()
    if conversations is None:
        print("LoCoMo not found: skipped")
        return []
    conversations = conversations[:max_conversations] if max_conversations else conversations
    conversations = [
        c
        for c in conversations
        if ("held_out" if locomo_held_out(c.sample_id) else "tuning") in halves
    ]
    from benchmarks.embedding_cache import DiskCached

    cached = DiskCached(load())
    os.environ["ZEROMEM_SEARCH_SEMANTIC"] = "off"  # built lexically, then indexed
    try:
        stores = build_locomo(conversations, workdir)
    finally:
        os.environ.pop("ZEROMEM_SEARCH_SEMANTIC", None)
    asked: list[Asked] = []
    try:
        for number, (conv, store) in enumerate(zip(conversations, stores, strict=True)):
            started = time.perf_counter()
            store.index(embedder=cached)
            print(
                f"  LoCoMo {number + 1}/{len(conversations)} embedded "
                f"({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
            )
            for question in conv.questions:
                if not question.evidence or question.category == 5:
                    continue
                half = "held_out" if locomo_held_out(conv.sample_id) else "tuning"
                lexical, dense, words, near = _candidates(store, question.question, None)
                item = Asked(
                    (half, "en", True),
                    set(question.evidence),
                    lexical,
                    dense,
                    words,
                    lambda row: _dia(row),
                    near,
                )
                for on in (False, True):
                    result = store.pack(question.question, budget=1000, touch=False, semantic=on)
                    got = {m.meta.get("dia_id") for m in result.memories}
                    item.packed[on] = len(item.gold & got) / len(item.gold)
                if variants and half == "tuning":
                    _pack_variants(
                        store, item, question.question, 1000, None, lambda m: m.meta.get("dia_id")
                    )
                asked.append(item)
    finally:
        for store in stores:
            store.close()
    return asked


def _dia(row: Any) -> Any:
    import json

    return json.loads(row["meta"]).get("dia_id")


def print_locomo(asked: Sequence[Asked], merge: Tuning = DEFAULT_TUNING) -> None:
    print("\nLoCoMo categories 1-4 (floor: no lower than lexical-only)")
    print(
        f"{'half':<9} {'n':>5} {'R@10 lexical':>12} {'dense':>6} {'semantic on':>12} "
        f"{'pack@1000 off':>14} {'on':>6}"
    )
    for half in ("tuning", "held_out"):
        items = [a for a in asked if a.group[0] == half]
        print(
            f"{half:<9} {len(items):>5} "
            f"{_mean([a.recall(None, 'lexical') for a in items]):>12.3f} "
            f"{_mean([a.recall(None, 'dense') for a in items]):>6.3f} "
            f"{_mean([a.recall(merge) for a in items]):>12.3f} "
            f"{_mean([a.packed[False] for a in items if a.packed]):>14.3f} "
            f"{_mean([a.packed[True] for a in items if a.packed]):>6.3f}"
        )


# -- LongMemEval ---------------------------------------------------------------------------------


def longmemeval(per_half: int, variants: bool = False) -> dict[str, list[dict[str, float]]]:
    """The first ``per_half`` haystacks of each half (~500 turns each), as
    ``benchmarks.longmemeval`` builds them; turn R@10 and pack@1000 with semantic off and on.
    {half: [metrics of one question]}. Vectors come from the on-disk cache
    (``benchmarks.embedding_cache``: a second run embeds nothing); the halves are taken in
    turn, and each question's row is printed to stderr as it is done, so a run cut short
    still has both halves. ``variants``: the TUNING half alone, with pack@1000 under each of
    ``PACK_VARIANTS`` too."""
    from benchmarks.datasets import load_longmemeval, longmemeval_held_out
    from benchmarks.embedding_cache import DiskCached

    haystacks = load_longmemeval()
    if haystacks is None:
        print("LongMemEval not found: skipped")
        return {}
    chosen: dict[str, list[Any]] = {"tuning": [], "held_out": []}
    for stack in haystacks:
        half = "held_out" if longmemeval_held_out(stack.question_id) else "tuning"
        if len(chosen[half]) < per_half and not (variants and half == "held_out"):
            chosen[half].append(stack)
    turns = [
        (half, number, stack)
        for number in range(per_half)
        for half, stacks in chosen.items()
        if number < len(stacks)
        for stack in [stacks[number]]
    ]
    cached = DiskCached(load())
    out: dict[str, list[dict[str, float]]] = {"tuning": [], "held_out": []}
    with tempfile.TemporaryDirectory(prefix="zeromem-lme-sem-") as folder:
        for half, number, stack in turns:
            path = Path(folder) / f"{half}-{number}.db"
            with MemoryStore(path, session=None, settings=StoreSettings(semantic="off")) as writer:
                writer.connection.execute("PRAGMA synchronous=OFF")
                with writer.transaction():
                    ids = [
                        writer.write(
                            turn.memory_text,
                            created_at=turn.when,
                            session=turn.session_id,
                            allow_duplicate=True,
                            category="chat",
                            allow_secret=True,
                        ).memory.id
                        for turn in stack.turns
                    ]
                started = time.perf_counter()
                writer.index(embedder=cached)
                spent = time.perf_counter() - started
            answers = {ids[i] for i, t in enumerate(stack.turns) if t.has_answer}
            asked = stack.asked
            row: dict[str, float] = {}
            with MemoryStore(path, session="question", clock=lambda a=asked: a) as store:
                for on in (False, True):
                    mode = "on" if on else "off"
                    found = [m.id for m in store.search(stack.question, 10, semantic=on)]
                    row[f"R@10 {mode}"] = len(answers & set(found)) / len(answers)
                    packed = store.pack(stack.question, budget=1000, touch=False, semantic=on)
                    got = {m.id for m in packed.memories}
                    row[f"pack@1000 {mode}"] = len(answers & got) / len(answers)
                for name, change in PACK_VARIANTS.items() if variants else ():
                    ranking = DEFAULT_TUNING._replace(**change)
                    packed = store.pack(
                        stack.question, budget=1000, touch=False, semantic=True, ranking=ranking
                    )
                    got = {m.id for m in packed.memories}
                    row[f"variant {name}"] = len(answers & got) / len(answers)
            out[half].append(row)
            print(
                f"  LongMemEval {half} {number + 1}/{len(chosen[half])}: embedded in "
                f"{spent:.0f} s ({cached.hits} cached, {cached.embedded} embedded so far) "
                + json.dumps(row),
                file=sys.stderr,
                flush=True,
            )
    cached.close()
    return out


def print_longmemeval(results: dict[str, list[dict[str, float]]]) -> None:
    tuning = results.get("tuning", [])
    if tuning and any(name.startswith("variant ") for name in tuning[0]):
        print(f"\nLongMemEval_S, pack@1000, TUNING only ({len(tuning)} questions)")
        print(f"{'variant':<36} {'pack@1000':>9}")
        for name in PACK_VARIANTS:
            print(f"{name:<36} {_mean([r['variant ' + name] for r in tuning]):>9.3f}")
        print(f"{'semantic off':<36} {_mean([r['pack@1000 off'] for r in tuning]):>9.3f}")
    print("\nLongMemEval_S, first questions of each half (floor: no lower than lexical-only)")
    print(f"{'half':<9} {'n':>4} {'R@10 off':>9} {'on':>6} {'pack@1000 off':>14} {'on':>6}")
    for half, rows in [(h, r) for h, r in results.items() if r]:
        cells = [
            _mean([r[name] for r in rows])
            for name in ("R@10 off", "R@10 on", "pack@1000 off", "pack@1000 on")
        ]
        print(
            f"{half:<9} {len(rows):>4} {cells[0]:>9.3f} {cells[1]:>6.3f} "
            f"{cells[2]:>14.3f} {cells[3]:>6.3f}"
        )


# -- costs --------------------------------------------------------------------------------------

_LOAD_PROBE = (
    "import time; t = time.perf_counter()\n"
    "from zeromem_cli.semantic.embedder import load\n"
    "m = load(); m.queries(['warm up'])\n"
    "print(time.perf_counter() - t)\n"
)


def _median_run(args: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _texts(count: int) -> list[str]:
    rng = np.random.default_rng(7)
    words = (
        "deploy staging branch review release database backup editor shell python "
        "meeting doctor dentist school budget invoice client travel flight hotel "
        "报销 打车 会议 医生 孩子 学校 预算 客户 发票 出差"
    ).split()
    return [
        " ".join(rng.choice(words, size=int(rng.integers(6, 20))).tolist()) + f" #{n}"
        for n in range(count)
    ]


def _timed(command: Sequence[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process (CPU: the steadier figure on a busy machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, input=stdin, capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.decode()[:300]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _tier(tier: int, model: Embedder, workdir: Path) -> Path:
    """The synthetic store of ``tier`` memories (``benchmarks.synthetic``), every memory moved
    to the default owner (a search then ranks all ``tier`` vectors: the worst case), with a
    vector each: 512 of its memories embedded, copied with noise to the rest (search cost
    depends on the count, not on which vectors they are). Cached under benchmarks/.cache."""
    from benchmarks import synthetic
    from benchmarks.speed import fresh_copy
    from zeromem_cli.semantic import blocks

    # Named after the synthetic store it is built from (its schema version too): a tier of an
    # older schema was migrated by the first cold process that opened it.
    cached = CACHE / f"semantic-tier-{synthetic.cached_database(tier).stem}.db"
    if not cached.is_file():
        building = fresh_copy(synthetic.cached_database(tier), workdir)
        with MemoryStore(building, settings=StoreSettings(semantic="off")) as store:
            conn = store.connection
            conn.execute("PRAGMA synchronous=OFF")
            with store.transaction():
                conn.execute("UPDATE memories SET user = '', project = ''")
            texts = [r[0] for r in conn.execute("SELECT content FROM memories LIMIT 512")]
            embedder = Cached(model, CACHE / "semantic-tier-vectors.npz")
            base = embedder.passages(texts)
            embedder.save()
            rng = np.random.default_rng(3)
            rows = conn.execute("SELECT id, content_hash FROM memories ORDER BY id").fetchall()
            with store.transaction() as tx:
                for start in range(0, len(rows), 4096):
                    part = rows[start : start + 4096]
                    matrix = base[np.arange(start, start + len(part)) % len(base)]
                    matrix = matrix + rng.normal(0, 0.01, matrix.shape).astype(np.float32)
                    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
                    entries = [(int(r[0]), int(r[1]), ("", "")) for r in part]
                    blocks.put(tx, model.name, entries, matrix)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        os.replace(building, cached)
    return fresh_copy(cached, workdir)


async def _mcp_reads(
    db: Path, home: Path, mode: str, queries: Sequence[str]
) -> tuple[list[float], float | None, list[float]]:
    """(wall seconds of each ``memory_search`` through a real MCP client after a warm-up,
    the server's CPU seconds per call over them, wall seconds of a search right after a
    ``memory_save``: the server's vectors follow its own write without reading all again)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from benchmarks.mcp_latency import _server_cpu

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "zeromem_cli", "mcp", "--db", str(db)],
        env={"ZEROMEM_HOME": str(home), "ZEROMEM_SEARCH_SEMANTIC": mode},
        cwd=str(REPO),
    )
    times = []
    with (home / f"mcp-{mode}.log").open("w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for query in queries[:5]:
                    await session.call_tool("memory_search", {"query": query})
                before = _server_cpu()
                for query in queries:
                    started = time.perf_counter()
                    result = await session.call_tool("memory_search", {"query": query})
                    times.append(time.perf_counter() - started)
                    if result.is_error:
                        raise RuntimeError(f"memory_search failed: {result.content}")
                after = _server_cpu()
                saved = []
                for n, query in enumerate(queries[:10]):
                    await session.call_tool(
                        "memory_save", {"text": f"Benchmark note {n}: {mode} {time.time_ns()}"}
                    )
                    started = time.perf_counter()
                    await session.call_tool("memory_search", {"query": query})
                    saved.append(time.perf_counter() - started)
    spent = None if before is None or after is None else (after - before) / len(queries)
    return times, spent, saved


# Questions for the cold rows: the synthetic store's own (they share words with its
# memories), and questions in other words, which a lexical page never settles.
OTHER_WORDS = [
    "how do I ship my branch to the test environment?",
    "打车的钱能报吗？",
    "who looks after my teeth?",
]


def costs(tier: int, workdir: Path, runs: int = 5, script: str | None = None) -> None:
    """The cost table. ``script``: the ``zeromem`` console script of a regular install to
    time the cold commands with (an editable install's import hook adds its own start-up to
    every process, as ``benchmarks.startup_compare`` says); default this interpreter's
    ``-m zeromem_cli``."""
    import asyncio

    from benchmarks import synthetic

    rows: list[tuple[str, str, str]] = []
    load_time = statistics.median(
        float(
            subprocess.run(
                [sys.executable, "-c", _LOAD_PROBE], check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(3)
    )
    rows.append(("fresh process to first vector", f"{load_time * 1000:.0f} ms", ""))
    model = load()
    queries = ["how do I ship to staging?", "我的牙医是谁", "which database do we use"] * 7
    times = []
    for text in queries:
        started = time.perf_counter()
        model.queries([text])
        times.append(time.perf_counter() - started)
    rows.append(("query embedding p50", f"{statistics.median(times) * 1000:.1f} ms", ""))
    texts = _texts(2000)
    started = time.perf_counter()
    model.passages(texts[:32])
    rate = 32 / (time.perf_counter() - started)
    rows.append(("embed throughput (a batch of 32)", f"{rate:.0f} memories/s", ""))

    # add: in-process, semantic off vs on (vector in the same transaction).
    for mode in ("off", "on"):
        path = workdir / f"add-{mode}.db"
        with MemoryStore(path, settings=StoreSettings(semantic=mode)) as store:
            store.add("warm up the model and the database")
            times, cpu = [], []
            for text in texts[:40]:
                started, spent = time.perf_counter(), time.process_time()
                store.add(text)
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - spent)
        rows.append(
            (
                f"add p50 wall / CPU, semantic {mode}",
                f"{statistics.median(times) * 1000:.1f} / {statistics.median(cpu) * 1000:.1f} ms",
                "+<= 50 ms" if mode == "on" else "",
            )
        )
    with MemoryStore(workdir / "add-on.db") as store:
        per = store.connection.execute(
            "SELECT sum(length(ids) + length(scales) + length(vectors)) * 1.0 / sum(size) "
            "FROM vector_blocks"
        ).fetchone()[0]
    rows.append(("vector bytes per memory", f"{per:.0f} B", "<= 1 KB"))

    plain = fresh_copy_of(synthetic.cached_database(tier), workdir / "plain")
    path = _tier(tier, model, workdir)
    grown = path.stat().st_size - plain.stat().st_size
    rows.append((f"database growth per memory at {tier:,}", f"{grown / tier:.0f} B", "<= 1 KB"))

    # Cold processes, interleaved so load spikes hit every row alike.
    env = {**os.environ, "XDG_CONFIG_HOME": str(workdir), "XDG_DATA_HOME": str(workdir)}
    # PYTHONDONTWRITEBYTECODE (set in some shells and CI) made every cold process compile
    # zeromem's modules again; an installed package has its bytecode (pip writes it).
    for name in ("ZEROMEM_HOME", "ZEROMEM_DB", "ZEROMEM_HOOKS", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "zeromem_cli")], env=env)
    words = synthetic.queries(runs, seed=7)
    zeromem = [script] if script else [sys.executable, "-m", "zeromem_cli"]
    cold: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for run in range(runs):
        other = OTHER_WORDS[run % len(OTHER_WORDS)]
        for mode in ("off", "on"):
            env["ZEROMEM_SEARCH_SEMANTIC"] = mode
            prompt = json.dumps(
                {
                    "session_id": f"bench-{run}-{mode}-{time.time_ns()}",
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": other,
                }
            ).encode()
            commands = {
                "`zeromem search`, a question sharing words": (
                    [*zeromem, "search", words[run], "--db", str(path)],
                    b"",
                ),
                "`zeromem search`, a question in other words": (
                    [*zeromem, "search", other, "--db", str(path)],
                    b"",
                ),
                "prompt hook (claude-code user-prompt), other words": (
                    [*zeromem, "hook", "claude-code", "user-prompt", "--db", str(path)],
                    prompt,
                ),
            }
            for label, (command, stdin) in commands.items():
                cold[f"{label}, semantic {mode}"].append(_timed(command, stdin, env))
    # The stop hook capturing a turn's four memories (each run its own session and texts),
    # into a copy of the tier per mode: what the "on" copy leaves without a vector is counted.
    captures = {mode: fresh_copy_of(path, workdir / f"capture-{mode}") for mode in ("off", "on")}
    for run in range(runs):
        for mode in ("off", "on"):
            env["ZEROMEM_SEARCH_SEMANTIC"] = mode
            transcript = workdir / f"transcript-{run}-{mode}.jsonl"
            said = (
                f"From now on, always use tabs in file {run}{mode}. I prefer rye bread {run}{mode}."
                f" My timezone is UTC+{run}. Remember that the build box is ci-{run}-{mode}."
            )
            transcript.write_text(
                json.dumps({"type": "user", "message": {"role": "user", "content": said}}) + "\n"
            )
            stop = json.dumps(
                {
                    "session_id": f"capture-{run}-{mode}-{time.time_ns()}",
                    "hook_event_name": "Stop",
                    "transcript_path": str(transcript),
                }
            ).encode()
            command = [*zeromem, "hook", "claude-code", "stop", "--db", str(captures[mode])]
            cold[f"stop hook capturing a turn, semantic {mode}"].append(_timed(command, stop, env))
    with MemoryStore(captures["on"], settings=StoreSettings(semantic="off")) as store:
        captured, bare = store.connection.execute(
            "SELECT count(*), sum(NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE "
            "v.memory_id = m.id AND v.content_hash = m.content_hash)) "
            "FROM memories m WHERE m.id > ? AND m.deleted_at IS NULL",
            (tier,),
        ).fetchone()
    rows.append(
        (
            "captured by the stop hook (semantic on) / left without a vector",
            f"{captured} / {bare}",
            "",
        )
    )
    for label, values in cold.items():
        wall = statistics.median(w for w, _ in values) * 1000
        cpu = statistics.median(c for _, c in values) * 1000
        target = "<= 300 ms" if label.endswith("on") and "stop" not in label else ""
        rows.append((f"cold {label} at {tier:,}", f"{wall:.0f} / {cpu:.0f} ms", target))

    mixed = [
        q
        for pair in zip(synthetic.queries(20, seed=11), OTHER_WORDS * 7, strict=False)
        for q in pair
    ]
    for mode in ("off", "on"):
        home = workdir / f"home-{mode}"
        home.mkdir(exist_ok=True)
        times, spent, saved = asyncio.run(_mcp_reads(fresh_copy_of(path, home), home, mode, mixed))
        cpu = "" if spent is None else f" / {spent * 1000:.1f}"
        rows.append(
            (
                f"MCP memory_search p50 wall / server CPU a call at {tier:,}, semantic {mode}",
                f"{statistics.median(times) * 1000:.1f}{cpu} ms",
                "p50 <= 40 ms" if mode == "on" else "",
            )
        )
        rows.append(
            (
                f"MCP memory_search right after a memory_save, p50 wall, semantic {mode}",
                f"{statistics.median(saved) * 1000:.1f} ms",
                "",
            )
        )
    print(
        f"\nCosts (tier {tier:,}; {os.cpu_count()} cores; load average "
        f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; cold rows: median "
        f"wall / CPU of {runs} runs of {' '.join(zeromem)})"
    )
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>16}  {target}")


def fresh_copy_of(source: Path, folder: Path) -> Path:
    from benchmarks.speed import fresh_copy

    folder.mkdir(parents=True, exist_ok=True)
    return fresh_copy(source, folder)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.semantic", description=__doc__)
    parser.add_argument("--ablation", action="store_true", help="Merge settings, tuning only.")
    parser.add_argument("--locomo", action="store_true", help="LoCoMo halves, off and on.")
    parser.add_argument("--conversations", type=int, default=None, help="LoCoMo: the first N.")
    parser.add_argument("--costs", action="store_true", help="Load, query, add, footprint.")
    parser.add_argument("--tier", type=int, default=100_000, help="Memories for --costs.")
    parser.add_argument(
        "--pack-variants",
        action="store_true",
        help="How dense hits enter pack: variants on the TUNING halves only (LoCoMo: tuning).",
    )
    parser.add_argument(
        "--agent-pack",
        action="store_true",
        help="Agent-memory set: pack@300 per split, semantic off and on.",
    )
    parser.add_argument(
        "--variants",
        default="",
        help="With --pack-variants: only these (names separated by ';'; 'default' always runs).",
    )
    parser.add_argument(
        "--longmemeval",
        type=int,
        default=0,
        metavar="N",
        help="LongMemEval_S alone: the first N questions of each half, semantic off and on.",
    )
    parser.add_argument("--runs", type=int, default=5, help="Cold runs per row of --costs.")
    parser.add_argument(
        "--zeromem",
        default=None,
        metavar="SCRIPT",
        help="--costs: time cold commands with this zeromem script (a regular install's).",
    )
    parser.add_argument("--quick", action="store_true", help="One tuning store; tier 2,000.")
    args = parser.parse_args(argv)
    if args.variants:
        wanted = {"default", *(name.strip() for name in args.variants.split(";"))}
        for name in [n for n in PACK_VARIANTS if n not in wanted]:
            del PACK_VARIANTS[name]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if args.longmemeval:  # LongMemEval alone
            print_longmemeval(longmemeval(args.longmemeval, args.pack_variants))
            return 0
        if args.costs and not (args.ablation or args.locomo):  # the costs alone
            costs(2000 if args.quick else args.tier, workdir, args.runs, args.zeromem)
            return 0
        stores = load_stores()
        if args.quick:
            stores = [s for s in stores if s.split == "tuning"][:1]
        if args.pack_variants:  # decided on the tuning stores alone
            stores = [s for s in stores if s.split == "tuning"]
        halves = ("tuning",) if args.pack_variants else ("tuning", "held_out")
        asked = agent_memory(stores, workdir, args.pack_variants, args.agent_pack)
        print_agent_memory(asked)
        if args.agent_pack:
            print_agent_packs(asked)
        loc = locomo(workdir, args.conversations, halves, args.pack_variants) if args.locomo else []
        if loc:
            print_locomo(loc)
        if args.pack_variants:
            print_pack_variants(asked, f"Agent-memory set, pack@{AGENT_PACK_BUDGET}")
            print_pack_variants(loc, "LoCoMo, pack@1000")
        if args.ablation:
            print_ablation(asked, loc)
        if args.costs:
            costs(2000 if args.quick else args.tier, workdir, args.runs, args.zeromem)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
