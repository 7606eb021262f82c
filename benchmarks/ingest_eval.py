"""Precision and recall of the built-in ingest rules on a labelled set of messages.

    python -m benchmarks.ingest_eval              # the table
    python -m benchmarks.ingest_eval --errors     # also every false positive and miss
    python -m benchmarks.ingest_eval --data benchmarks/project_facts_eval.jsonl

``project_facts_eval.jsonl`` is a second set, of coding-session statements (EN and ZH): plain
facts of how a project works ("we use pnpm in this repo", "数据库迁移放在 db/migrations"),
which should be stored, beside coding chatter (requests, questions, status) that must not.

The set is ``benchmarks/ingest_eval.jsonl`` (written for zeromem, half English, half Chinese,
most of it chatter that must not be stored). Each line: ``text``, ``lang``, ``family`` (the
rule family a reader expects, or ``chatter``), ``split`` (``dev``: written before the rules;
``heldout``: written after them and never tuned on) and ``expect``: the memories that should
come out, each with ``contains`` (a substring of the stored text), ``category`` (one or a list
of acceptable ones), optionally ``key``, and ``action: forget`` for forget requests.

A candidate is correct if it matches an expected memory of its message (same action, the
substring, an accepted category, the key when given). Precision: correct candidates / all
candidates. Recall: expected memories found / all expected memories.
"""

from __future__ import annotations

import argparse
import json
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

from zeromem_cli.ingest import builtin_rules, extract_text
from zeromem_cli.ingest.extract import Candidate

DATA = Path(__file__).resolve().parent / "ingest_eval.jsonl"


def load(path: Path = DATA) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _matches(candidate: Candidate, expected: dict[str, Any]) -> bool:
    if candidate.action != expected.get("action", "store"):
        return False
    if _norm(expected["contains"]) not in _norm(candidate.content):
        return False
    if candidate.action == "store":
        accepted = expected["category"]
        accepted = [accepted] if isinstance(accepted, str) else accepted
        if candidate.category not in accepted:
            return False
        if "key" in expected and candidate.key != expected["key"]:
            return False
    return True


class Tally:
    def __init__(self) -> None:
        self.candidates = 0
        self.correct = 0
        self.expected = 0
        self.found = 0

    @property
    def precision(self) -> float:
        return self.correct / self.candidates if self.candidates else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0


def evaluate(rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Run the built-in rules over the set; tallies by group, plus the errors."""
    rows = load() if rows is None else rows
    rules = builtin_rules()
    tallies: dict[str, Tally] = defaultdict(Tally)
    errors: list[str] = []
    messages: dict[str, int] = defaultdict(int)
    for row in rows:
        candidates = extract_text(row["text"], rules)
        expected = row["expect"]
        groups = ["all", f"lang:{row['lang']}", f"split:{row['split']}"]
        for group in groups:
            messages[group] += 1
        hit = [any(_matches(c, e) for c in candidates) for e in expected]
        for group in [*groups, f"family:{row['family']}"]:
            tallies[group].expected += len(expected)
            tallies[group].found += sum(hit)
        for candidate in candidates:
            ok = any(_matches(candidate, e) for e in expected)
            family = candidate.family
            for group in [*groups, f"rule family:{family}"]:
                tallies[group].candidates += 1
                tallies[group].correct += ok
            if not ok:
                errors.append(
                    f"FP {row['id']}: {row['text']!r} -> {candidate.category}/{candidate.key} "
                    f"{candidate.content!r} ({candidate.rule})"
                )
        for found, item in zip(hit, expected, strict=True):
            if not found:
                got = [f"{c.category}/{c.key}:{c.content!r}" for c in candidates]
                errors.append(f"FN {row['id']}: {row['text']!r} expected {item} got {got}")
    return {"tallies": dict(tallies), "messages": dict(messages), "errors": errors}


def locomo_firing_rate() -> tuple[int, int] | None:
    """How often the rules fire on real chatter: (turns, memories), None without the data."""
    from benchmarks.datasets import load_locomo

    conversations = load_locomo()
    if conversations is None:
        return None
    rules = builtin_rules()
    turns = [turn.text for conversation in conversations for turn in conversation.turns]
    return len(turns), sum(len(extract_text(text, rules)) for text in turns)


def _order(name: str) -> tuple[int, str]:
    prefixes = ("all", "lang:", "split:", "family:", "rule family:")
    return next(i for i, p in enumerate(prefixes) if name.startswith(p)), name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="List false positives and misses.")
    parser.add_argument("--data", type=Path, default=DATA, help="The labelled set (JSON lines).")
    args = parser.parse_args(argv)
    result = evaluate(load(args.data))
    header = ("group", "messages", "stored", "precision", "expected", "recall")
    print(f"{header[0]:<26} " + " ".join(f"{h:>9}" for h in header[1:]))
    for name in sorted(result["tallies"], key=_order):
        tally = result["tallies"][name]
        count = result["messages"].get(name, "")
        # Precision is by the rule that fired, recall by the family a reader expects.
        stored, precision = f"{tally.candidates}", f"{tally.precision:.3f}"
        expected, recall = f"{tally.expected}", f"{tally.recall:.3f}"
        if name.startswith("family:"):
            stored = precision = "-"
        if name.startswith("rule family:"):
            expected = recall = "-"
        print(f"{name:<26} {count!s:>9} {stored:>9} {precision:>9} {expected:>9} {recall:>9}")
    locomo = locomo_firing_rate() if args.data == DATA else None
    if locomo is not None:
        turns, stored = locomo
        print(
            f"\nLoCoMo (unlabelled two-person chat, every turn as a user message): "
            f"{stored} memories from {turns} turns ({stored / turns:.1%})"
        )
    if args.errors:
        print()
        for line in result["errors"]:
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
