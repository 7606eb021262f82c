"""pack benchmark: LoCoMo evidence recall within token budgets, pack time, tokenizer margin.

    python -m benchmarks.pack_recall            # full run (prints a table)
    python -m benchmarks.pack_recall --quick    # 40 questions, 300 memories: a smoke test

1. LoCoMo (categories 1-4): each turn is one memory written with its session time, in its own
   LoCoMo session (``--one-session``: the whole conversation in one; ``--no-session``: none);
   for every question, asked from a new session of the same user, ``pack(question,
   budget=B)`` and the share of its evidence turns in the snippet, next to a recency baseline
   (the newest turns, same format and tokenizer, until full).
2. p50 / p90 time of ``MemoryStore.pack`` in-process on a synthetic store of 100k memories
   (fixed seed; built once into benchmarks/.cache/).
3. The approx tokenizer against o200k_base and cl100k_base on every LoCoMo turn and question
   and every text of the Chinese set: it must never count fewer (mean / max over-count ratio).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks.datasets import (
    CATEGORY_NAMES,
    Conversation,
    load_chinese,
    load_locomo,
    locomo_held_out,
)
from benchmarks.plain_fts import PlainIndex
from benchmarks.plain_pack import greedy_pack
from zeromem_cli import MemoryStore
from zeromem_cli.pack.format import Formatter, plain_content
from zeromem_cli.pack.tokens import get_tokenizer

BUDGETS = (250, 500, 1000, 2000)
CACHE = Path(__file__).resolve().parent / ".cache"
REFERENCE = {"bm25": (0.506, 0.588, 0.654, 0.724), "recency": (0.004, 0.015, 0.047, 0.101)}


def index_conversation(
    conv: Conversation, path: Path, session: str | None = "locomo", per_session: bool = False
) -> tuple[MemoryStore, dict[int, str]]:
    """A store holding one memory per turn; returns it and memory id -> dia_id.

    A session is a conversation to pack (context.py): with ``per_session`` each turn is
    written in its LoCoMo session (``D1``, ``D2``...) and the store asks from ``session``, a
    new one; otherwise every turn is written in ``session`` itself.
    """
    last = max(t.when for t in conv.turns)
    store = MemoryStore(path, session=session, clock=lambda: last + timedelta(days=1))
    ids: dict[int, str] = {}
    for turn in conv.turns:
        memory = store.write(
            turn.memory_text,
            created_at=turn.when,
            meta={"dia_id": turn.dia_id},
            allow_duplicate=True,
            category="chat",
            **({"session": turn.dia_id.split(":")[0]} if per_session else {}),
        ).memory
        ids[memory.id] = turn.dia_id
    return store, ids


def recency_baseline(store: MemoryStore, budget: int, tokenizer: str) -> set[int]:
    """Newest memories first until the budget is full (same formatter and counter as pack)."""
    counter = get_tokenizer(tokenizer)
    formatter = Formatter("text", None, plain_content)
    chosen, used = [], 0
    for memory in store.list(limit=None):
        cost = max(1, counter.count(formatter.unit(memory)) - counter.overhead)
        if used + cost <= budget:
            chosen.append(memory)
            used += cost
    while chosen and counter.count(formatter.render(chosen)) > budget:
        chosen.pop()
    return {m.id for m in chosen}


def locomo_recall(
    convs: list[Conversation],
    budgets: tuple[int, ...],
    tokenizer: str,
    max_questions: int = 0,
    session: str | None = "locomo",
    pool: int | None = None,
    per_session: bool = False,
) -> dict:
    """Evidence recall per budget of pack, of the newest turns, and of plain BM25 hits
    (``benchmarks.plain_fts``, same turns, same run) packed greedily; plus one row per
    question (category, held-out flag, recall per system at each budget) for the table."""
    pack_hits: dict[int, list[float]] = {b: [] for b in budgets}
    recent_hits: dict[int, list[float]] = {b: [] for b in budgets}
    plain_hits: dict[int, list[float]] = {b: [] for b in budgets}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as folder:
        for number, conv in enumerate(convs):
            store, dia = index_conversation(
                conv,
                Path(folder) / f"c{number}.db",
                "question" if per_session else session,
                per_session,
            )
            recent = {b: {dia[i] for i in recency_baseline(store, b, tokenizer)} for b in budgets}
            by_dia = {m.meta["dia_id"]: m for m in store.list(limit=None)}
            index = PlainIndex([t.memory_text for t in conv.turns])
            questions = conv.questions[:max_questions] if max_questions else conv.questions
            for q in questions:
                if q.category == 5 or not q.evidence:
                    continue
                wanted = set(q.evidence)
                plain_order = [by_dia[conv.turns[i].dia_id] for i in index.search(q.question, 200)]
                row: dict = {
                    "category": q.category,
                    "held_out": locomo_held_out(conv.sample_id),
                }
                for b in budgets:
                    options = {} if pool is None else {"pool": pool}
                    result = store.pack(
                        q.question, budget=b, tokenizer=tokenizer, touch=False, **options
                    )
                    got = {dia[m.id] for m in result.memories}
                    assert result.tokens <= b
                    plain_got = {dia[i] for i in greedy_pack(plain_order, b, tokenizer)}
                    row[("pack", b)] = len(got & wanted) / len(wanted)
                    row[("plain", b)] = len(plain_got & wanted) / len(wanted)
                    pack_hits[b].append(row[("pack", b)])
                    plain_hits[b].append(row[("plain", b)])
                    recent_hits[b].append(len(recent[b] & wanted) / len(wanted))
                rows.append(row)
            index.close()
            store.close()
    return {
        "questions": len(pack_hits[budgets[0]]),
        "pack": [statistics.fmean(pack_hits[b]) for b in budgets],
        "recency": [statistics.fmean(recent_hits[b]) for b in budgets],
        "plain": [statistics.fmean(plain_hits[b]) for b in budgets],
        "rows": rows,
    }


PACK_TARGET_1000 = 0.82  # issue 19's floor, categories 1-4, budget 1000


def print_categories(rows: list[dict], budget: int) -> None:
    """Pack recall at ``budget`` per part and category, beside plain BM25 packed greedily."""
    print(f"\nLoCoMo pack recall at {budget} tokens per category ('<': below plain)")
    print(f"{'part':<9}{'category':<16}{'n':>6}{'pack':>8}{'plain':>8}   target")
    for part in ("tuning", "held-out", "all"):
        for name, cats in [
            *((f"{c} {CATEGORY_NAMES[c]}", (c,)) for c in (1, 2, 3, 4)),
            ("overall 1-4", (1, 2, 3, 4)),
        ]:
            chosen = [
                r
                for r in rows
                if r["category"] in cats
                and (part == "all" or r["held_out"] == (part == "held-out"))
            ]
            if not chosen:
                continue
            mine = statistics.fmean(r[("pack", budget)] for r in chosen)
            base = statistics.fmean(r[("plain", budget)] for r in chosen)
            target = (
                f"{PACK_TARGET_1000:.2f}" if name.startswith("overall") and budget == 1000 else ""
            )
            mark = " <" if mine < base - 1e-9 else "  "
            print(f"{part:<9}{name:<16}{len(chosen):>6}{mine:>8.3f}{base:>8.3f}{mark} {target}")


_WORDS = (
    "report deploy server weekly friday meeting budget invoice client staging database "
    "backup review design release customer ticket alert latency cache token memory agent "
    "python sqlite index query migration schema user project roadmap bug fix test ci docs"
).split()


def synthetic_store(count: int, path: Path) -> MemoryStore:
    """``count`` memories of random words (seed 7), built once and reused from ``path``."""
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    if path.exists():
        return MemoryStore(path, clock=lambda: start + timedelta(days=400))
    rng = random.Random(7)
    path.parent.mkdir(parents=True, exist_ok=True)
    building = path.with_suffix(".building")
    building.unlink(missing_ok=True)
    store = MemoryStore(building)
    for number in range(count):
        words = rng.choices(_WORDS, k=rng.randint(5, 30)) + [f"item{number}"]
        store.write(
            " ".join(words),
            importance=rng.randint(0, 10),
            pinned=number % 5000 == 0,
            created_at=start + timedelta(minutes=number * 5),
            allow_duplicate=True,
        )
    store.close()
    building.rename(path)
    return MemoryStore(path, clock=lambda: start + timedelta(days=400))


def pack_times(store: MemoryStore, runs: int) -> tuple[float, float]:
    rng = random.Random(11)
    times = []
    for _ in range(runs):
        query = " ".join(rng.sample(_WORDS, 3))
        began = time.perf_counter()
        store.pack(query, budget=1000, touch=False)
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9) - 1]


def tokenizer_margin() -> dict[str, tuple[int, float, float, int]] | None:
    """Per text set: (texts, mean and max approx/o200k ratio, texts where approx < exact)."""
    try:
        exact = [get_tokenizer("o200k"), get_tokenizer("cl100k")]
    except Exception as exc:  # the optional extra is missing
        print(f"(tokenizer margin skipped: {exc})", file=sys.stderr)
        return None
    approx = get_tokenizer("approx")
    sets: dict[str, list[str]] = {}
    convs = load_locomo() or []
    sets["LoCoMo turns+questions"] = [t.memory_text for c in convs for t in c.turns] + [
        q.question for c in convs for q in c.questions
    ]
    zh = load_chinese()
    if zh is not None:
        sets["Chinese set"] = [m["content"] for m in zh.memories] + [
            str(q["q"]) for q in zh.queries
        ]
    report = {}
    for name, texts in sets.items():
        ratios, under = [], 0
        for text in texts:
            a, o, c = approx.count(text), exact[0].count(text), exact[1].count(text)
            under += a < max(o, c)
            ratios.append(a / max(o, 1))
        if texts:
            report[name] = (len(texts), statistics.fmean(ratios), max(ratios), under)
    return report


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 questions, 300 memories")
    parser.add_argument("--tokenizer", default="approx", help="counter for the budgets")
    parser.add_argument(
        "--no-session",
        action="store_true",
        help="store the turns outside a session (no conversation context)",
    )
    parser.add_argument(
        "--one-session",
        action="store_true",
        help="each conversation in one session, questions asked from it (as first measured)",
    )
    parser.add_argument(
        "--budgets",
        default=",".join(map(str, BUDGETS)),
        help="comma-separated budgets (the hooks' default prompt budget is 300)",
    )
    parser.add_argument(
        "--per-session",
        action="store_true",
        help="each LoCoMo session its own session, questions from a new one (the default)",
    )
    parser.add_argument("--pool", type=int, default=None, help="search hits pack starts from")
    args = parser.parse_args(argv)
    budgets = tuple(int(b) for b in args.budgets.split(","))
    out: dict = {}
    convs = load_locomo()
    if convs is None:
        print("LoCoMo not found (../shared/datasets/locomo10.json): recall skipped")
    else:
        convs = convs[:1] if args.quick else convs
        session = None if args.no_session else "locomo"
        per_session = not (args.no_session or args.one_session)
        recall = locomo_recall(
            convs,
            budgets,
            args.tokenizer,
            40 if args.quick else 0,
            session,
            args.pool,
            per_session,
        )
        out["recall"] = recall
        print(
            f"LoCoMo evidence recall, categories 1-4, {recall['questions']} questions, "
            f"tokenizer {args.tokenizer}, "
            + (
                "no session"
                if args.no_session
                else "each session its own, asked from a new one"
                if per_session
                else "one session per conversation"
            )
            + (f", pool {args.pool}" if args.pool else "")
        )
        print("budget   pack   plain  recency   | reference: bm25  recency")
        for i, b in enumerate(budgets):
            known = b in BUDGETS
            bm25 = f"{REFERENCE['bm25'][BUDGETS.index(b)]:.3f}" if known else "  -  "
            recent = f"{REFERENCE['recency'][BUDGETS.index(b)]:.3f}" if known else "  -  "
            print(
                f"{b:>6}  {recall['pack'][i]:.3f}  {recall['plain'][i]:.3f}    "
                f"{recall['recency'][i]:.3f}   |"
                f"            {bm25}    {recent}"
            )
        if 1000 in budgets:
            print_categories(recall["rows"], 1000)
    count = 300 if args.quick else 100_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.db" if args.quick else CACHE / f"synthetic-{count}.db"
        began = time.perf_counter()
        store = synthetic_store(count, path)
        built = time.perf_counter() - began
        p50, p90 = pack_times(store, 5 if args.quick else 50)
        store.close()
    out["time"] = (p50, p90)
    print(
        f"\npack time on {count:,} memories (budget 1000, approx, in-process): "
        f"p50 {p50:.1f} ms, p90 {p90:.1f} ms (store ready in {built:.1f} s)"
    )
    margin = tokenizer_margin()
    if margin:
        out["margin"] = margin
        print("\napprox tokenizer vs exact     texts   mean/o200k   max/o200k   under o200k|cl100k")
        for name, (n, mean, top, under) in margin.items():
            print(f"{name:<26} {n:>7}   {mean:>10.3f}   {top:>9.3f}   {under:>6}")
    return out


if __name__ == "__main__":
    main()
