"""``python -m benchmarks [NAME ...] [-- ARGS]``: run every benchmark, or the ones named.

Each benchmark is also runnable alone (``python -m benchmarks.speed --quick``); arguments after
``--`` are passed to each benchmark run (``python -m benchmarks speed -- --quick``).
"""

from __future__ import annotations

import importlib
import sys
import time

BENCHMARKS = {
    "retrieval": "search quality (LoCoMo, Chinese) and latency",
    "pack_recall": "pack evidence recall per token budget, pack latency",
    "ingest_eval": "rule-based ingest precision / recall",
    "ingest_speed": "ingest lines/s at 10k/50k/100k lines beside import",
    "transfer_speed": "export / import throughput on LoCoMo turns",
    "speed": "start-up, latency at 10k/100k/1M, writes, footprint, gc, import time",
    "mcp_latency": "zeromem mcp tool-call round trips at 10k/100k, server start-up",
    "hook_latency": "cold `zeromem hook claude-code user-prompt` at 10k/100k beside search",
    "agent_memory": "hand-written agent-memory stores: shared-word vs paraphrase recall",
    "encryption": "encrypted vs plain store: cold search/add, in-process search/pack at 100k",
}


def main(argv: list[str]) -> int:
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        for name, what in BENCHMARKS.items():
            print(f"  {name:<15} {what}")
        return 0
    unknown = [name for name in argv if name not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
        return 2
    for name in argv or list(BENCHMARKS):
        print(f"== {name}: {BENCHMARKS[name]} ==")
        began = time.perf_counter()
        module = importlib.import_module(f"benchmarks.{name}")
        saved = sys.argv
        sys.argv = [f"benchmarks.{name}", *extra]  # transfer_speed reads sys.argv itself
        try:
            module.main(extra) if name != "transfer_speed" else module.main()
        finally:
            sys.argv = saved
        print(f"({name}: {time.perf_counter() - began:.0f} s)\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
