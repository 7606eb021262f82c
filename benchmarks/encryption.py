"""``python -m benchmarks.encryption``: what encryption at rest costs, plain vs encrypted side by
side in one interleaved run on the same synthetic store.

1. Cold processes: median wall time of ``zeromem search`` and ``zeromem add`` (target: within
   1.2x of plain).
2. In-process: p50 of ``store.search`` and ``store.pack`` through the library (target: within
   1.3x of plain).

The encrypted copy is made with ``zeromem encrypt``'s own code, under a raw 256-bit key in a
key file (what ``zeromem key new`` writes); ``--passphrase`` measures a passphrase instead
(SQLCipher then runs PBKDF2 on every open).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import synthetic
from benchmarks.speed import (
    compile_package,
    fresh_copy,
    percentile,
    tier_label,
    timed_run,
    zeromem_command,
)
from zeromem_cli import MemoryStore

COLD_TARGET = 1.2
IN_PROCESS_TARGET = 1.3


def _encrypted_copy(plain: Path, folder: Path, key_text: str) -> tuple[Path, Path]:
    from zeromem_cli.keys import Key
    from zeromem_cli.storage.convert import convert

    folder.mkdir()
    db = fresh_copy(plain, folder)
    key_file = folder / "store.key"
    key_file.write_text(key_text + "\n", encoding="utf-8")
    key_file.chmod(0o600)
    convert(db, None, Key(key_text, "benchmark"))
    return db, key_file


def cold(variants: dict[str, tuple[Path, dict[str, str]]], runs: int) -> dict[str, float]:
    zeromem = zeromem_command()
    words = synthetic.queries(runs, seed=99)
    timings: dict[str, list[float]] = {}
    for run in range(runs):
        for name, (db, env) in variants.items():  # interleaved: load spikes hit both alike
            commands = {
                "search": [*zeromem, "search", words[run], "--db", str(db)],
                "add": [*zeromem, "add", f"benchmark note {run}: {words[run]}", "--db", str(db)],
            }
            for command, argv in commands.items():
                wall, _ = timed_run(argv, env)
                timings.setdefault(f"{command} {name}", []).append(wall * 1000)
    return {name: statistics.median(values) for name, values in timings.items()}


def in_process(variants: dict[str, tuple[Path, str | None]], queries: int) -> dict[str, float]:
    texts = synthetic.queries(queries)
    stores = {name: MemoryStore(db, key=key) for name, (db, key) in variants.items()}
    timings: dict[str, list[float]] = {}
    try:
        for store in stores.values():
            for text in texts[:10]:  # warm the page cache
                store.search(text)
        for text in texts:
            for name, store in stores.items():
                for op, call in (
                    ("search", lambda s, t: s.search(t, limit=10)),
                    ("pack", lambda s, t: s.pack(t, budget=1000, touch=False)),
                ):
                    began = time.perf_counter()
                    call(store, text)
                    timings.setdefault(f"{op} {name}", []).append(
                        (time.perf_counter() - began) * 1000
                    )
    finally:
        for store in stores.values():
            store.close()
    out = {f"{k} p50": statistics.median(v) for k, v in timings.items()}
    out.update({f"{k} p95": percentile(v, 0.95) for k, v in timings.items()})
    return out


def _row(label: str, plain: float, encrypted: float, target: float) -> str:
    ratio = encrypted / plain
    verdict = "ok" if ratio <= target else "OVER"
    return f"{label:<26}{plain:>10.2f}{encrypted:>12.2f}{ratio:>8.2f}x{target:>8.1f}x  {verdict}"


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.encryption")
    parser.add_argument("--count", type=int, default=100_000, help="memories (default 100k)")
    parser.add_argument("--runs", type=int, default=10, help="cold runs per command")
    parser.add_argument("--queries", type=int, default=200, help="in-process queries")
    parser.add_argument("--quick", action="store_true", help="10k memories, 5 runs, 50 queries")
    parser.add_argument("--passphrase", action="store_true", help="a passphrase, not a raw key")
    args = parser.parse_args(argv)
    if args.quick:
        args.count, args.runs, args.queries = 10_000, 5, 50
    compile_package()
    plain_source = synthetic.cached_database(args.count)
    key_text = "correct horse battery staple" if args.passphrase else os.urandom(32).hex()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "plain").mkdir()
        plain = fresh_copy(plain_source, folder / "plain")
        encrypted, key_file = _encrypted_copy(plain_source, folder / "encrypted", key_text)
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("ZEROMEM_KEY")}
        base_env["ZEROMEM_HOME"] = str(folder / "home")
        cold_figures = cold(
            {
                "plain": (plain, base_env),
                "encrypted": (encrypted, {**base_env, "ZEROMEM_KEY_FILE": str(key_file)}),
            },
            args.runs,
        )
        warm = in_process(
            {"plain": (plain, None), "encrypted": (encrypted, key_text)}, args.queries
        )
    kind = "passphrase (PBKDF2)" if args.passphrase else "raw 256-bit key"
    print(
        f"Encryption at rest, {tier_label(args.count)} memories, SQLCipher with a {kind}; "
        f"cold: median of {args.runs} runs, in-process: {args.queries} queries"
    )
    print(f"{'ms':<26}{'plain':>10}{'encrypted':>12}{'ratio':>9}{'target':>9}")
    print("-" * 70)
    for op in ("search", "add"):
        print(
            _row(
                f"cold zeromem {op}",
                cold_figures[f"{op} plain"],
                cold_figures[f"{op} encrypted"],
                COLD_TARGET,
            )
        )
    for op in ("search", "pack"):
        for stat in ("p50", "p95"):
            print(
                _row(
                    f"in-process {op} {stat}",
                    warm[f"{op} plain {stat}"],
                    warm[f"{op} encrypted {stat}"],
                    IN_PROCESS_TARGET,
                )
            )
    sys.stdout.flush()
    return {"cold": cold_figures, "in_process": warm}


if __name__ == "__main__":
    main(sys.argv[1:])
