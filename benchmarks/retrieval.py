"""Retrieval quality and speed of ``MemoryStore.search``: ``python -m benchmarks.retrieval``.

Three parts, each printing a table:

- LoCoMo (../shared/datasets/locomo10.json): every turn of a conversation becomes one memory
  ("Speaker: text", the session time as created_at, the turn id in meta) in a fresh database per
  conversation; each question is searched and Recall@1/5/10/20 of its evidence turns is reported
  per category, overall for categories 1-4, and for category 5 (adversarial) on its own line.
- Chinese (../shared/datasets/zh_memory_eval.json): hit@1, hit@3 and MRR.
- Speed: in-process search latency (p50/p95) on a synthetic database of 100k memories generated
  with a fixed seed and cached under benchmarks/.cache/.

``--quick`` runs a small slice of everything (used by the test suite so the benchmark cannot
rot). A missing dataset is reported and skipped, never an error.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks.datasets import (
    CATEGORY_NAMES,
    REPO,
    Conversation,
    chinese_held_out,
    load_chinese,
    load_locomo,
    load_longmemeval,
    locomo_held_out,
)
from benchmarks.plain_fts import PlainIndex
from zeromem_cli import MemoryStore
from zeromem_cli.search import Ranking
from zeromem_cli.text.lexicon import ENGLISH_STOP_WORDS
from zeromem_cli.text.normalize import INDEX_VERSION

CACHE = REPO / "benchmarks" / ".cache"
KS = (1, 5, 10, 20)


def _fast(store: MemoryStore) -> MemoryStore:
    # Benchmark databases are throwaway: skip the fsync per write that real stores pay for.
    store.connection.execute("PRAGMA synchronous=OFF")
    return store


# -- LoCoMo ---------------------------------------------------------------------------------


def build_locomo(
    conversations: Sequence[Conversation], workdir: Path, per_session: bool = False
) -> list[MemoryStore]:
    """One fresh database per conversation, one memory per turn. ``per_session``: each LoCoMo
    session written as its own session ("D1", "D2"...) and the questions asked from a new one,
    as an agent storing each conversation would (the scope model reads them all)."""
    stores = []
    for number, conv in enumerate(conversations):
        path = workdir / f"locomo-{number}.db"
        store = _fast(MemoryStore(path))
        with store.transaction():
            for turn in conv.turns:
                store.write(
                    turn.memory_text,
                    created_at=turn.when,
                    meta={"dia_id": turn.dia_id},
                    allow_duplicate=True,
                    session=turn.dia_id.split(":")[0] if per_session else None,
                )
        if per_session:
            store.close()
            store = _fast(MemoryStore(path, session="question"))
        stores.append(store)
    return stores


def locomo_recall(
    conversations: Sequence[Conversation],
    stores: Sequence[MemoryStore],
    max_questions: int | None = None,
    ranking: Ranking | None = None,
) -> dict[int, list[dict[int, float]]]:
    """Per category, one {k: recall} per question with evidence."""
    return locomo_compare(conversations, stores, max_questions, ranking, plain=False)["zeromem"]


def locomo_compare(
    conversations: Sequence[Conversation],
    stores: Sequence[MemoryStore],
    max_questions: int | None = None,
    ranking: Ranking | None = None,
    *,
    plain: bool = True,
) -> dict[str, dict[int, list[dict[int, float]]]]:
    """{system: {category: [{k: recall, HELD: 0/1}]}} for zeromem and the plain FTS5 index
    (``benchmarks.plain_fts``) built from the same turns in the same run."""
    results: dict[str, dict[int, list[dict[int, float]]]] = {
        "zeromem": defaultdict(list),
        "plain": defaultdict(list),
    }
    for conv, store in zip(conversations, stores, strict=True):
        questions = conv.questions[:max_questions] if max_questions else conv.questions
        index = PlainIndex([t.memory_text for t in conv.turns]) if plain else None
        for question in questions:
            if not question.evidence:
                continue
            wanted = set(question.evidence)
            flag = float(locomo_held_out(conv.sample_id))
            hits = store.search(question.question, limit=max(KS), ranking=ranking)
            ranked = {"zeromem": [h.meta.get("dia_id") for h in hits]}
            if index is not None:
                ranked["plain"] = [
                    conv.turns[i].dia_id for i in index.search(question.question, max(KS))
                ]
            for system, found in ranked.items():
                row: dict[int, float] = {k: len(wanted & set(found[:k])) / len(wanted) for k in KS}
                row[HELD] = flag
                results[system][question.category].append(row)
        if index is not None:
            index.close()
    return results


HELD = -1  # key of the held-out flag in a result row
LOCOMO_TARGET_R10 = 0.72  # issue 19's floor, categories 1-4


def print_locomo(
    results: dict[int, list[dict[int, float]]],
    plain: dict[int, list[dict[int, float]]] | None = None,
) -> None:
    """Recall@k per part (tuning / held-out / all) and category, zeromem beside plain R@10
    and the target ('<' marks zeromem below plain)."""
    header = f"{'part':<9}{'category':<16}{'n':>6}" + "".join(f"{'R@' + str(k):>8}" for k in KS)
    if plain is not None:
        header += f"{'plain R@10':>12}{'target':>8}"
    print(header)
    print("-" * len(header))

    def line(part: str, name: str, categories: Sequence[int], target: str = "") -> None:
        def pick(source: dict[int, list[dict[int, float]]]) -> list[dict[int, float]]:
            return [
                r
                for c in categories
                for r in source.get(c, [])
                if part == "all" or r[HELD] == (part == "held-out")
            ]

        rows = pick(results)
        if not rows:
            return
        cells = "".join(f"{statistics.fmean(r[k] for r in rows):>8.3f}" for k in KS)
        if plain is not None:
            base = statistics.fmean(r[10] for r in pick(plain))
            mine = statistics.fmean(r[10] for r in rows)
            cells += f"{base:>10.3f}{' <' if mine < base - 1e-9 else '  '}{target:>8}"
        print(f"{part:<9}{name:<16}{len(rows):>6}{cells}")

    for part in ("tuning", "held-out", "all"):
        for category in (1, 2, 3, 4):
            line(part, f"{category} {CATEGORY_NAMES[category]}", [category])
        line(part, "overall 1-4", (1, 2, 3, 4), f"{LOCOMO_TARGET_R10:.2f}")
        line(part, f"5 {CATEGORY_NAMES[5]}", [5])


# -- Chinese --------------------------------------------------------------------------------


ZH_VARIANTS = REPO / "benchmarks" / "zh_variants_eval.json"


def chinese_scores(
    workdir: Path, path: Path | None = None, point: str | None = None, part: str = "all"
) -> dict[str, float] | None:
    """hit@1, hit@3, MRR of the Chinese set (``path``: another file of the same format;
    ``point``: only its queries testing that point; ``part``: "tuning", "held-out" or "all",
    split by query: the set is one store) for zeromem, and hit@3 of plain FTS5 beside."""
    data = load_chinese(path)
    if data is None:
        return None
    if point is not None:
        data.queries = [q for q in data.queries if q.get("point") == point]
    if part != "all":
        data.queries = [
            q for q in data.queries if chinese_held_out(str(q["q"])) == (part == "held-out")
        ]
    with _fast(MemoryStore(workdir / f"zh-{point}-{part}.db")) as store:
        ids: dict[int, str] = {}
        for memory in data.memories:
            added = store.add(
                memory["content"], category=memory["category"], meta={"id": memory["id"]}
            )
            ids[added.id] = memory["id"]
        plain = PlainIndex([str(m["content"]) for m in data.memories])
        hit1 = hit3 = reciprocal = plain3 = 0.0
        for query in data.queries:
            relevant = set(query["relevant"])  # type: ignore[call-overload]
            ranked = [ids[h.id] for h in store.search(str(query["q"]), limit=10)]
            rank = next((i for i, mid in enumerate(ranked, 1) if mid in relevant), None)
            hit1 += rank == 1
            hit3 += rank is not None and rank <= 3
            reciprocal += 1 / rank if rank else 0.0
            found = [data.memories[i]["id"] for i in plain.search(str(query["q"]), 3)]
            plain3 += bool(relevant & set(found))
        plain.close()
        n = max(len(data.queries), 1)
    return {
        "queries": len(data.queries),
        "hit@1": hit1 / n,
        "hit@3": hit3 / n,
        "MRR": reciprocal / n,
        "plain hit@3": plain3 / n,
    }


def print_chinese(scores: dict[str, float], name: str = "", header: bool = True) -> None:
    if header:
        print(
            f"{'set':<26}{'queries':>8}{'hit@1':>8}{'hit@3':>8}{'MRR':>8}{'plain hit@3':>13}"
            "   target hit@3"
        )
        print("-" * 85)
    print(
        f"{name:<26}{int(scores['queries']):>8}{scores['hit@1']:>8.3f}{scores['hit@3']:>8.3f}"
        f"{scores['MRR']:>8.3f}{scores['plain hit@3']:>13.3f}   1.00"
    )


# -- Speed ----------------------------------------------------------------------------------

_SYLLABLES = "ka ri to mo ne sa lu vi den por tal mex bri qua zon fel gar hin".split()
STOP_RANKS = 100
_HAN = "周报会议项目数据客户发送时间系统服务部署测试文档用户需求设计开发上线版本计划预算合同"


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    """Zipf ranks: English stop words first (as in real text), then invented content words."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(ENGLISH_STOP_WORDS)[:STOP_RANKS] + sorted(words)


def synthetic_db(count: int) -> Path:
    """A database of ``count`` generated memories (Zipf-like words, some Chinese), cached."""
    path = CACHE / f"synthetic-{count}-v{INDEX_VERSION}-s{STOP_RANKS}.db"
    if path.is_file():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    for leftover in CACHE.glob(partial.name + "*"):
        leftover.unlink()
    rng = random.Random(20261130)
    vocab = _vocabulary(rng, 20_000)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    categories = ["fact", "preference", "task", "project", "general"]
    with _fast(MemoryStore(partial)) as store:
        for number in range(count):
            words = rng.choices(vocab, weights, k=rng.randint(6, 30))
            if number % 10 == 0:
                words.append("".join(rng.choices(_HAN, k=rng.randint(4, 12))))
            store.write(
                " ".join(words),
                category=rng.choice(categories),
                importance=rng.randint(0, 10),
                created_at=start + timedelta(minutes=number),
                allow_duplicate=True,
            )
    shutil.move(partial, path)
    return path


def search_latency(count: int, queries: int) -> dict[str, float]:
    path = synthetic_db(count)
    rng = random.Random(7)
    vocab = _vocabulary(random.Random(20261130), 20_000)
    texts = []
    for _ in range(queries):
        # Natural-ish queries: a question with two or three content words, from the most common
        # content words (each in ~2% of memories) to rare ones, sometimes Chinese.
        words = [
            rng.choice(vocab[STOP_RANKS : STOP_RANKS + rng.choice((500, 5000, 20_000))])
            for _ in range(rng.randint(2, 3))
        ]
        if rng.random() < 0.2:
            words = ["".join(rng.choices(_HAN, k=4))]
        texts.append("what do we know about the " + " ".join(words) + "?")
    with MemoryStore(path) as store:
        for text in texts[:20]:  # warm the page cache
            store.search(text)
        timings = []
        for text in texts:
            began = time.perf_counter()
            store.search(text, limit=10)
            timings.append((time.perf_counter() - began) * 1000)
    timings.sort()
    return {
        "memories": count,
        "queries": queries,
        "p50": statistics.median(timings),
        "p95": timings[int(0.95 * (len(timings) - 1))],
    }


def print_speed(figures: dict[str, float]) -> None:
    print(f"{'memories':>10}{'queries':>9}{'p50 ms':>9}{'p95 ms':>9}")
    print("-" * 37)
    print(
        f"{int(figures['memories']):>10}{int(figures['queries']):>9}"
        f"{figures['p50']:>9.2f}{figures['p95']:>9.2f}"
    )


# -- main -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.retrieval", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="A small slice of everything.")
    parser.add_argument("--no-speed", action="store_true", help="Skip the latency benchmark.")
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="Only the ablation: each ranking factor off in turn, on the tuning half of every "
        "dataset (benchmarks/ablation.py; databases cached under benchmarks/.cache/ablation).",
    )
    parser.add_argument(
        "--dataset",
        action="append",
        choices=("locomo", "longmemeval", "chinese", "agent-memory", "dated"),
        help="With --ablation: only this dataset (repeatable).",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=1,
        help="With --ablation: every Nth question only (1: all).",
    )
    parser.add_argument(
        "--no-longmemeval", action="store_true", help="Skip LongMemEval_S (the slowest part)."
    )
    parser.add_argument(
        "--per-session",
        dest="per_session",
        action="store_true",
        default=True,
        help="LoCoMo and LongMemEval: each session stored as its own session, the questions "
        "asked from a new session of the same user (the default).",
    )
    parser.add_argument(
        "--one-session",
        dest="per_session",
        action="store_false",
        help="LoCoMo: no session; LongMemEval: every haystack session in one session scope, "
        "as first measured.",
    )
    parser.add_argument(
        "--memories", type=int, default=None, help="Size of the speed DB (100000; quick: 2000)."
    )
    args = parser.parse_args(argv)
    if args.ablation:
        from benchmarks import ablation

        ablation.run(args.dataset or ablation.DATASETS, sample=max(1, args.sample))
        return 0
    with tempfile.TemporaryDirectory(prefix="zeromem-bench-") as tmp:
        workdir = Path(tmp)
        conversations = load_locomo()
        print(
            "LoCoMo: Recall@k of evidence turns (one memory per turn, "
            + ("each session its own" if args.per_session else "no session")
            + ")"
        )
        if conversations is None:
            print("  skipped: locomo10.json not found under ../shared/datasets")
        else:
            if args.quick:
                conversations = conversations[:1]
            stores = build_locomo(conversations, workdir, args.per_session)
            try:
                compared = locomo_compare(conversations, stores, 40 if args.quick else None)
                print_locomo(compared["zeromem"], compared["plain"])
            finally:
                for store in stores:
                    store.close()
        print()
        print(
            "LongMemEval_S dev: turn recall, session hit, pack recall at 1000 tokens, "
            + (
                "each session its own, asked from a new one"
                if args.per_session
                else "one session scope"
            )
        )
        haystacks = None if args.no_longmemeval else load_longmemeval()
        if haystacks is None:
            print(
                "  skipped: longmemeval_s_dev100.json.gz not found under ../shared/datasets"
                if not args.no_longmemeval
                else "  skipped (--no-longmemeval)"
            )
        else:
            from benchmarks import longmemeval

            haystacks = haystacks[:2] if args.quick else haystacks
            longmemeval.print_table(longmemeval.evaluate(haystacks, per_session=args.per_session))
        print()
        print("Chinese / mixed memories (zh_memory_eval.json)")
        if load_chinese() is None:
            print("  skipped: zh_memory_eval.json not found under ../shared/datasets")
        else:
            for part in ("tuning", "held-out", "all"):
                split = chinese_scores(workdir, part=part)
                if split is not None:
                    print_chinese(split, f"public set, {part}", header=part == "tuning")
        for point in ("traditional", "split-word", "proper-name"):
            own = chinese_scores(workdir, ZH_VARIANTS, point)
            if own is not None and own["queries"]:
                print_chinese(own, f"variants: {point}", header=False)
    if not args.no_speed:
        print()
        count = args.memories or (2_000 if args.quick else 100_000)
        print(f"Search latency, in process, synthetic database of {count} memories")
        print_speed(search_latency(count, 50 if args.quick else 500))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
