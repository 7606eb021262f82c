"""A child process for the concurrency and crash tests (run as ``python stress_worker.py MODE``).

Modes (DB is the database path):
- ``cli-add DB WORKER COUNT``: COUNT separate ``zeromem add`` invocations through the real CLI
  entry point (a fresh connection each, as a shell loop would do), after a start barrier.
- ``cli-loop DB -- ARGS...``: run ``zeromem ARGS --db DB`` until the parent says stop (a reader
  searching, or later a ``gc``), after the start barrier.
- ``bulk-add DB COUNT``: the library adding COUNT memories in ONE transaction; prints ``mid``
  halfway and, with ``--block``, waits on stdin there, so a SIGKILL lands mid-transaction.
- ``bulk-forget DB``: forget every live memory in one transaction, same ``mid``/``--block``.
- ``cli-mid DB -- ARGS...``: print ``mid``, then run ``zeromem ARGS --db DB`` once (an import
  or a bulk forget through the real CLI, for the parent to kill at an arbitrary point).
Every CLI failure is written to stderr and makes the exit code non-zero.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any


def control_dir(db: Path) -> Path:
    """Barrier files live beside the db's folder, which may not exist yet."""
    return Path(f"{db.parent}.ctl")


def _barrier(db: Path) -> None:
    """Say we are ready, then wait for the parent's go, so all workers hit a new db at once."""
    (control_dir(db) / f"ready.{time.monotonic_ns()}").touch()
    go = control_dir(db) / "go"
    while not go.exists():
        time.sleep(0.002)


_COMMAND: Any = None


def _cli(args: list[str]) -> int:
    """One ``zeromem ARGS`` invocation through the real entry point and error handler (the
    Click command is built once: that part is start-up cost, not what is under test)."""
    global _COMMAND
    if _COMMAND is None:
        import typer.main

        from zeromem_cli.cli import app

        _COMMAND = typer.main.get_command(app)
    code = _COMMAND.main(args, prog_name="zeromem", standalone_mode=False)
    return int(code or 0)


def cli_add(db: Path, worker: str, count: int) -> int:
    _cli(["--version"])  # load everything before the barrier, so all start together
    _barrier(db)
    failures = 0
    for number in range(count):
        text = f"worker {worker} memory {number} token w{worker}n{number}z"
        if _cli(["add", text, "--db", str(db)]) != 0:
            failures += 1
    return 1 if failures else 0


def cli_loop(db: Path, args: list[str]) -> int:
    _cli(["--version"])
    _barrier(db)
    stop = control_dir(db) / "stop"
    runs = failures = 0
    while not stop.exists() or runs == 0:
        runs += 1
        existed = db.exists()
        if _cli([*args, "--db", str(db)]) != 0 and existed:
            # A read of a --db no writer has created yet is refused (#33: reads create
            # nothing); once the file exists every read must succeed.
            failures += 1
    print(f"runs {runs} failures {failures}", file=sys.stderr)
    return 1 if failures else 0


def _mid(block: bool) -> None:
    print("mid", flush=True)
    if block:
        sys.stdin.read()  # the parent kills us here, inside the open transaction


def bulk_add(db: Path, count: int, block: bool) -> int:
    from zeromem_cli import MemoryStore

    store = MemoryStore(db)
    with store.transaction():
        for number in range(count):
            store.add(f"bulk memory {number} token b{number}z", allow_duplicate=True)
            if number == count // 2:
                _mid(block)
    print("done", flush=True)
    return 0


def bulk_forget(db: Path, block: bool) -> int:
    from zeromem_cli import MemoryStore

    store = MemoryStore(db)
    ids = [m.id for m in store.list(limit=None)]
    half = len(ids) // 2
    with store.transaction():
        store.forget(*ids[:half])
        _mid(block)
        store.forget(*ids[half:])
    print("done", flush=True)
    return 0


def cli_mid(db: Path, args: list[str]) -> int:
    _mid(block=False)
    return _cli([*args, "--db", str(db)])


def main(argv: list[str]) -> int:
    mode, db = argv[0], Path(argv[1])
    block = "--block" in argv
    if mode == "cli-add":
        return cli_add(db, argv[2], int(argv[3]))
    if mode == "cli-loop":
        return cli_loop(db, argv[argv.index("--") + 1 :])
    if mode == "cli-mid":
        return cli_mid(db, argv[argv.index("--") + 1 :])
    if mode == "bulk-add":
        return bulk_add(db, int(argv[2]), block)
    if mode == "bulk-forget":
        return bulk_forget(db, block)
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
