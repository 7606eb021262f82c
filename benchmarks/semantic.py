"""Semantic recall (the zeromem[semantic] extra): quality beside lexical-only, and its costs.

    python -m benchmarks.semantic                 # agent-memory set, every split
    python -m benchmarks.semantic --ablation      # merge settings tried on the TUNING stores
    python -m benchmarks.semantic --locomo        # LoCoMo halves, semantic off and on
    python -m benchmarks.semantic --costs [--tier 100000]

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
import os
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
    ) -> None:
        self.group = group  # (split, language, shares a word)
        self.gold = gold
        self.lexical = lexical
        self.dense = dense
        self.words = words
        self.key = key
        self.packed: dict[bool, float] = {}  # pack@1000 recall, semantic off / on

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
                row for row, _ in semantic_merge(self.lexical[:k], self.dense[:k], k, held, tuning)
            ]
        found = {self.key(row) for row in order}
        return len(self.gold & found) / len(self.gold)


def _candidates(
    store: MemoryStore, question: str, asked_at: Any
) -> tuple[list[tuple[Any, float]], list[tuple[Any, float]], list[str]]:
    """(lexical pairs, dense pairs, content words) as ``MemoryStore.search`` computes them."""
    from zeromem_cli.search import run_search

    parsed = parse_query(question)
    vector = store.query_vector(question, True)
    now = store.now()

    def run(backend: Any) -> tuple[list[tuple[Any, float]], list[tuple[Any, float]]]:
        lexical = run_search(
            backend, store.scope, now, parsed, limit=POOL, filters=Filters(), as_of=asked_at
        )
        dense = (
            [] if vector is None else nearest(backend, store.scope, now, Filters(), vector, POOL)
        )
        return lexical, dense

    lexical, dense = store.backend.read(run)
    return lexical, dense, list(parsed.content)


def agent_memory(stores: Sequence[Store], workdir: Path) -> list[Asked]:
    asked: list[Asked] = []
    for store in stores:
        path = workdir / f"{store.name}.db"
        ids = _load(store, path)
        when = _asked_at(store)
        with MemoryStore(
            path, session=QUESTION_SESSION, settings=StoreSettings(semantic="on")
        ) as db:
            for question in store.questions:
                lexical, dense, words = _candidates(db, question.question, when)
                asked.append(
                    Asked(
                        (store.split, question.language, question.shares_word),
                        set(question.gold),
                        lexical,
                        dense,
                        words,
                        lambda row, ids=ids: ids[row["id"]],
                    )
                )
    return asked


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


def locomo(workdir: Path, max_conversations: int | None = None) -> list[Asked]:
    from benchmarks.datasets import load_locomo, locomo_held_out
    from benchmarks.retrieval import build_locomo

    conversations = load_locomo()
    if conversations is None:
        print("LoCoMo not found: skipped")
        return []
    conversations = conversations[:max_conversations] if max_conversations else conversations
    model = load()
    cached = Cached(model, CACHE / f"semantic-locomo-{model.name.replace('/', '_')}.npz")
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
            cached.save()
            print(
                f"  LoCoMo {number + 1}/{len(conversations)} embedded "
                f"({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
            )
            for question in conv.questions:
                if not question.evidence or question.category == 5:
                    continue
                half = "held_out" if locomo_held_out(conv.sample_id) else "tuning"
                lexical, dense, words = _candidates(store, question.question, None)
                item = Asked(
                    (half, "en", True),
                    set(question.evidence),
                    lexical,
                    dense,
                    words,
                    lambda row: _dia(row),
                )
                for on in (False, True):
                    result = store.pack(question.question, budget=1000, touch=False, semantic=on)
                    got = {m.meta.get("dia_id") for m in result.memories}
                    item.packed[on] = len(item.gold & got) / len(item.gold)
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


def costs(tier: int, workdir: Path) -> None:
    from zeromem_cli.semantic import blocks

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
    sample = model.passages(texts[:128])
    rate = 128 / (time.perf_counter() - started)
    rows.append(("embed throughput (batches of 128)", f"{rate:.0f} memories/s", ""))

    # add: in-process, semantic off vs on (vector in the same transaction).
    for mode in ("off", "on"):
        path = workdir / f"add-{mode}.db"
        with MemoryStore(path, settings=StoreSettings(semantic=mode)) as store:
            store.add("warm up the model and the database")
            times = []
            for text in texts[:40]:
                started = time.perf_counter()
                store.add(text)
                times.append(time.perf_counter() - started)
        rows.append(
            (
                f"add p50, semantic {mode}",
                f"{statistics.median(times) * 1000:.1f} ms",
                "+<= 50 ms" if mode == "on" else "",
            )
        )
    with MemoryStore(workdir / "add-on.db") as store:
        per = store.connection.execute(
            "SELECT sum(length(ids) + length(scales) + length(vectors)) * 1.0 / sum(size) "
            "FROM vector_blocks"
        ).fetchone()[0]
    rows.append(("vector bytes per memory", f"{per:.0f} B", "<= 1 KB"))

    # The tier: 2,000 real vectors copied with noise; memories written in bulk.
    path = workdir / f"tier-{tier}.db"
    base = np.concatenate([sample, model.passages(texts[128:512])])
    with MemoryStore(path, settings=StoreSettings(semantic="off")) as store:
        store.connection.execute("PRAGMA synchronous=OFF")
        with store.transaction():
            for n in range(tier):
                store.write(texts[n % len(texts)] + f" {n}", allow_duplicate=True)
        size_before = (path.stat().st_size, 0)
        rng = np.random.default_rng(3)
        with store.transaction() as conn:
            for start in range(0, tier, 4096):
                ids = list(range(start + 1, min(tier, start + 4096) + 1))
                rows_ = store.connection.execute(
                    "SELECT id, content_hash FROM memories WHERE id BETWEEN ? AND ?",
                    (ids[0], ids[-1]),
                ).fetchall()
                matrix = base[np.arange(len(rows_)) % len(base)] + rng.normal(
                    0, 0.01, (len(rows_), base.shape[1])
                ).astype(np.float32)
                matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
                blocks.put(conn, model.name, [(r[0], r[1], ("", "")) for r in rows_], matrix)
        store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    grown = path.stat().st_size - size_before[0]
    rows.append((f"database growth per memory at {tier:,}", f"{grown / tier:.0f} B", "<= 1 KB"))

    env = {**os.environ}
    for mode in ("off", "on"):
        env["ZEROMEM_SEARCH_SEMANTIC"] = mode
        cold = _median_run(
            [
                sys.executable,
                "-m",
                "zeromem_cli",
                "search",
                "how do I ship to staging",
                "--db",
                str(path),
            ],
            5,
            env,
        )
        rows.append(
            (
                f"cold `zeromem search` at {tier:,}, semantic {mode}",
                f"{cold * 1000:.0f} ms",
                "<= 300 ms" if mode == "on" else "",
            )
        )
    for mode in ("off", "on"):
        with MemoryStore(path, settings=StoreSettings(semantic=mode)) as store:
            store.search("warm up")
            times = []
            for text in queries:
                started = time.perf_counter()
                store.search(text)
                times.append(time.perf_counter() - started)
        rows.append(
            (
                f"in-process search p50 at {tier:,}, semantic {mode}",
                f"{statistics.median(times) * 1000:.1f} ms",
                "MCP p50 <= 40 ms" if mode == "on" else "",
            )
        )
    print(f"\nCosts (2 cores; load average {os.getloadavg()[0]:.1f})")
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>14}  {target}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.semantic", description=__doc__)
    parser.add_argument("--ablation", action="store_true", help="Merge settings, tuning only.")
    parser.add_argument("--locomo", action="store_true", help="LoCoMo halves, off and on.")
    parser.add_argument("--conversations", type=int, default=None, help="LoCoMo: the first N.")
    parser.add_argument("--costs", action="store_true", help="Load, query, add, footprint.")
    parser.add_argument("--tier", type=int, default=100_000, help="Memories for --costs.")
    parser.add_argument("--quick", action="store_true", help="One tuning store; tier 2,000.")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        stores = load_stores()
        if args.quick:
            stores = [s for s in stores if s.split == "tuning"][:1]
        asked = agent_memory(stores, workdir)
        print_agent_memory(asked)
        loc = locomo(workdir, args.conversations) if args.locomo else []
        if loc:
            print_locomo(loc)
        if args.ablation:
            print_ablation(asked, loc)
        if args.costs:
            costs(2000 if args.quick else args.tier, workdir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
