"""LongMemEval_S dev: zeromem beside a plain FTS5 index on long haystacks.

Each question is its own store of one user (~500 turns, one memory per turn, each written
with its session's date), searched as of the question's date (the store's clock). Measured:
turn Recall@k of the ``has_answer`` turns; session hit@k (sessions ranked by their best
turn, a question found when any answer session is in the top k); pack evidence recall at a
token budget. The plain baseline is built in the same run from the same texts.

By default (``per_session=True``, issue 19's targets) each haystack session is stored under its
own session id and the question is asked from a new session of the same user, which reads
every earlier session (the scope model); the conversation context follows each hit's own
session. ``per_session=False`` stores every haystack session in one session scope
("haystack"), as the issue first measured.
"""

from __future__ import annotations

import statistics
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from benchmarks.datasets import Haystack, longmemeval_held_out
from benchmarks.plain_fts import PlainIndex
from benchmarks.plain_pack import greedy_pack
from zeromem_cli import MemoryStore
from zeromem_cli.models import Memory
from zeromem_cli.search import Ranking

TURN_KS = (1, 5, 10, 20)
SESSION_KS = (1, 5, 10)
SEARCH_DEPTH = 200  # hits read to rank sessions by their best turn
PACK_BUDGET = 1000
# Floors from issue 19.
TARGETS = {"turn R@10": 0.90, "session hit@5": 0.98, "pack@1000": 0.80}


def _session_hits(sessions: list[str], wanted: set[str]) -> dict[int, float]:
    ranked = list(dict.fromkeys(sessions))
    return {k: float(bool(wanted & set(ranked[:k]))) for k in SESSION_KS}


def evaluate(
    haystacks: Sequence[Haystack],
    *,
    per_session: bool = True,
    tokenizer: str = "approx",
    rankings: dict[str, Ranking] | None = None,
) -> dict[str, dict[str, list[dict[str, float]]]]:
    """{system: {question type: [metrics of one question]}}; each metrics dict also carries
    ``held_out`` (1.0 or 0.0)."""
    out: dict[str, dict[str, list[dict[str, float]]]] = {
        "zeromem": defaultdict(list),
        "plain": defaultdict(list),
    }
    with tempfile.TemporaryDirectory(prefix="zeromem-lme-") as folder:
        for number, stack in enumerate(haystacks):
            path = Path(folder) / f"h{number}.db"
            asked = stack.asked
            writer = MemoryStore(path, session=None if per_session else "haystack")
            writer.connection.execute("PRAGMA synchronous=OFF")
            memories: list[Memory] = []
            with writer.transaction():
                for turn in stack.turns:
                    memories.append(
                        writer.write(
                            turn.memory_text,
                            created_at=turn.when,
                            session=turn.session_id if per_session else "haystack",
                            allow_duplicate=True,
                            category="chat",
                            allow_secret=True,  # a test set, not a user's data
                        ).memory
                    )
            writer.close()
            position = {m.id: i for i, m in enumerate(memories)}
            answers = {i for i, t in enumerate(stack.turns) if t.has_answer}
            session_of = [t.session_id for t in stack.turns]
            store = MemoryStore(
                path,
                session="question" if per_session else "haystack",
                clock=lambda asked=asked: asked,
            )
            plain = PlainIndex([t.memory_text for t in stack.turns])
            try:
                for name, ranking in (rankings or {}).items():
                    found = [
                        position[m.id]
                        for m in store.search(stack.question, limit=SEARCH_DEPTH, ranking=ranking)
                        if m.id in position
                    ]
                    extra = {
                        f"turn R@{k}": len(answers & set(found[:k])) / len(answers) for k in TURN_KS
                    }
                    extra.update(
                        {
                            f"session hit@{k}": v
                            for k, v in _session_hits(
                                [session_of[i] for i in found], stack.answer_sessions
                            ).items()
                        }
                    )
                    extra["pack@1000"] = 0.0
                    extra["held_out"] = float(longmemeval_held_out(stack.question_id))
                    out.setdefault(name, defaultdict(list))[stack.question_type].append(extra)
                zm_ranked = [
                    position[m.id]
                    for m in store.search(stack.question, limit=SEARCH_DEPTH)
                    if m.id in position
                ]
                zm_pack = store.pack(
                    stack.question, budget=PACK_BUDGET, tokenizer=tokenizer, touch=False
                )
                zm_packed = {position[m.id] for m in zm_pack.memories if m.id in position}
                plain_ranked = plain.search(stack.question, SEARCH_DEPTH)
                plain_packed_ids = greedy_pack(
                    (memories[i] for i in plain_ranked), PACK_BUDGET, tokenizer
                )
                plain_packed = {position[i] for i in plain_packed_ids}
            finally:
                store.close()
                plain.close()
            flag = float(longmemeval_held_out(stack.question_id))
            for system, ranked, packed in (
                ("zeromem", zm_ranked, zm_packed),
                ("plain", plain_ranked, plain_packed),
            ):
                row = {
                    f"turn R@{k}": len(answers & set(ranked[:k])) / len(answers) for k in TURN_KS
                }
                hits = _session_hits([session_of[i] for i in ranked], stack.answer_sessions)
                row.update({f"session hit@{k}": v for k, v in hits.items()})
                row["pack@1000"] = len(answers & packed) / len(answers)
                row["held_out"] = flag
                out[system][stack.question_type].append(row)
    return out


COLUMNS = ("turn R@5", "turn R@10", "session hit@5", "pack@1000")


def print_table(results: dict[str, dict[str, list[dict[str, float]]]]) -> None:
    """Per part (tuning / held-out / all) and question type: zeromem, plain, target."""
    types = sorted(results["zeromem"])
    head = f"{'part':<9}{'question type':<27}{'n':>4}"
    for column in COLUMNS:
        head += f"  {column + ' zm/plain':>22}"
    print(head)
    print("-" * len(head))
    for part in ("tuning", "held-out", "all"):
        for name in [*types, "overall"]:
            chosen = types if name == "overall" else [name]

            def rows(
                system: str, chosen: list[str] = chosen, part: str = part
            ) -> list[dict[str, float]]:
                return [
                    r
                    for t in chosen
                    for r in results[system].get(t, [])
                    if part == "all" or r["held_out"] == (part == "held-out")
                ]

            zm, plain = rows("zeromem"), rows("plain")
            if not zm:
                continue
            line = f"{part:<9}{name:<27}{len(zm):>4}"
            for column in COLUMNS:
                a = statistics.fmean(r[column] for r in zm)
                b = statistics.fmean(r[column] for r in plain)
                mark = "" if a >= b - 1e-9 else " <"
                line += f"  {f'{a:.3f}/{b:.3f}{mark}':>22}"
            print(line)
    print(
        "targets (overall): "
        + ", ".join(f"{name} >= {value:.2f}" for name, value in TARGETS.items())
        + "   ('<' marks zeromem below plain)"
    )
