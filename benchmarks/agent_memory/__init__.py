"""An agent-memory benchmark written by hand: stores of the memories agents keep, in English
and Chinese, with questions asked in a new session, some in the memory's words and some not.

``python -m benchmarks.agent_memory [--quick]`` prints R@1/5/10 for questions that share a
content word with their memory and for paraphrases, by language, zeromem beside plain FTS5,
the tuning and held-out halves apart (split by store). Other benchmarks import ``evaluate``
(one ``QuestionResult`` per question) and ``recall`` (R@k of a slice). The data format is in
README.md here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from benchmarks.agent_memory.data import Question, Store, load_stores, problems
from benchmarks.agent_memory.run import QuestionResult, Searcher, evaluate, recall
from benchmarks.agent_memory.table import print_table

__all__ = [
    "Question",
    "QuestionResult",
    "Searcher",
    "Store",
    "evaluate",
    "load_stores",
    "main",
    "problems",
    "recall",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agent_memory")
    parser.add_argument(
        "--quick", action="store_true", help="the first questions of each store only"
    )
    args = parser.parse_args(list(argv) if argv is not None else sys.argv[1:])
    stores = load_stores()
    wrong = [p for store in stores for p in problems(store)]
    if wrong:
        print("agent-memory data is inconsistent: " + "; ".join(wrong[:5]), file=sys.stderr)
        return 1
    print_table(evaluate(stores, quick=args.quick))
    return 0
