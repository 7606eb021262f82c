"""``python -m benchmarks.encryption``: what encryption at rest costs, plain vs encrypted side by
side in one interleaved run on the same synthetic store.

1. Cold processes: median wall and CPU time of ``zeromem search`` and ``zeromem add`` (target:
   within 1.2x of plain). On a shared machine the CPU column is the steadier one.
2. In-process: p50 / p95 of ``store.search`` and ``store.pack`` through the library (target:
   within 1.3x of plain).

``--callgrind`` adds the instruction counts of one cold ``search`` and ``add`` each under
valgrind's callgrind, which machine load does not move. They overstate the cost of the page
HMAC: valgrind hides the SHA instructions, so OpenSSL falls back to its AVX2 SHA-256 there.

The encrypted copy is made with ``zeromem encrypt``'s own code, under a raw 256-bit key in a
key file (what ``zeromem key new`` writes); ``--passphrase`` measures a passphrase instead
(SQLCipher then runs PBKDF2 on every open).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
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


def _commands(db: Path, word: str, run: int) -> dict[str, list[str]]:
    zeromem = zeromem_command()
    return {
        "search": [*zeromem, "search", word, "--db", str(db)],
        "add": [*zeromem, "add", f"benchmark note {run}: {word}", "--db", str(db)],
    }


def cold(
    variants: dict[str, tuple[Path, dict[str, str]]], runs: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU ms of each cold command, plain and encrypted interleaved."""
    words = synthetic.queries(runs, seed=99)
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    for run in range(runs):
        for name, (db, env) in variants.items():  # interleaved: load spikes hit both alike
            for command, argv in _commands(db, words[run], run).items():
                wall, cpu = timed_run(argv, env)
                walls.setdefault(f"{command} {name}", []).append(wall * 1000)
                cpus.setdefault(f"{command} {name}", []).append(cpu * 1000)
    median = statistics.median
    return {k: median(v) for k, v in walls.items()}, {k: median(v) for k, v in cpus.items()}


_COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(variants: dict[str, tuple[Path, dict[str, str]]]) -> dict[str, float]:
    """Millions of instructions of one cold run of each command under callgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--callgrind needs valgrind on PATH")
    word = synthetic.queries(1, seed=99)[0]
    counts: dict[str, float] = {}
    for name, (db, env) in variants.items():
        for command, argv in _commands(db, word, 0).items():
            done = subprocess.run(
                [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            match = _COLLECTED.search(done.stderr)
            if match is None:
                raise SystemExit(f"callgrind printed no count for {command} {name}")
            counts[f"{command} {name}"] = int(match.group(1)) / 1e6
    return counts


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


def _drivers() -> str:
    """Which SQLite the plain store runs on, and which SQLCipher the encrypted one."""
    import sqlite3

    from zeromem_cli.storage import cipher

    conn = cipher.driver().connect(":memory:")
    try:
        conn.execute("PRAGMA key = 'x'")
        version = conn.execute("PRAGMA cipher_version").fetchone()[0]
        under = conn.execute("SELECT sqlite_version()").fetchone()[0]
    finally:
        conn.close()
    return f"plain on SQLite {sqlite3.sqlite_version}, SQLCipher {version} on SQLite {under}"


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
    parser.add_argument(
        "--callgrind", action="store_true", help="also count cold instructions (valgrind)"
    )
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
        variants = {
            "plain": (plain, base_env),
            "encrypted": (encrypted, {**base_env, "ZEROMEM_KEY_FILE": str(key_file)}),
        }
        cold_figures, cold_cpu = cold(variants, args.runs)
        counted = instructions(variants) if args.callgrind else {}
        warm = in_process(
            {"plain": (plain, None), "encrypted": (encrypted, key_text)}, args.queries
        )
    kind = "passphrase (PBKDF2)" if args.passphrase else "raw 256-bit key"
    print(
        f"Encryption at rest, {tier_label(args.count)} memories, {_drivers()} with a {kind}; "
        f"cold: median of {args.runs} runs, in-process: {args.queries} queries"
    )
    print(f"{'ms (M instr: millions)':<26}{'plain':>10}{'encrypted':>12}{'ratio':>9}{'target':>9}")
    print("-" * 70)
    for op in ("search", "add"):
        for label, figures in (("wall", cold_figures), ("CPU", cold_cpu), ("M instr", counted)):
            if figures:
                print(
                    _row(
                        f"cold {op} {label}",
                        figures[f"{op} plain"],
                        figures[f"{op} encrypted"],
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
    return {"cold": cold_figures, "cold_cpu": cold_cpu, "instructions": counted, "in_process": warm}


if __name__ == "__main__":
    main(sys.argv[1:])
