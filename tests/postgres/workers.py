"""Child processes of the PostgreSQL concurrency test (spawned: each its own connection)."""

from __future__ import annotations

import traceback
from typing import Any

from zeromem_cli import MemoryStore


def writer(url: str, worker: int, count: int, out: Any) -> None:
    """``count`` adds, a search every tenth; the failures, as text."""
    failures: list[str] = []
    try:
        with MemoryStore(url, user="team") as store:
            for number in range(count):
                try:
                    store.add(f"worker {worker} note {number} token w{worker}n{number}z")
                    if number % 10 == 0:
                        store.search(f"note {number} worker")
                except Exception as exc:  # noqa: BLE001 - reported to the parent
                    failures.append(f"{type(exc).__name__}: {exc}")
    except Exception:  # noqa: BLE001
        failures.append(traceback.format_exc())
    out.put(("writer", worker, failures))


def upserter(url: str, worker: int, rounds: int, keys: int, out: Any) -> None:
    """The same ``keys`` written again and again, as every other upserter does at once."""
    failures: list[str] = []
    try:
        with MemoryStore(url, user="team") as store:
            for number in range(rounds):
                try:
                    store.add(f"key value from {worker} round {number}", key=f"k{number % keys}")
                except Exception as exc:  # noqa: BLE001
                    failures.append(f"{type(exc).__name__}: {exc}")
    except Exception:  # noqa: BLE001
        failures.append(traceback.format_exc())
    out.put(("upserter", worker, failures))


def collector(url: str, rounds: int, out: Any) -> None:
    """Memories that expire at once, then gc, over and over while the others write."""
    import time

    failures: list[str] = []
    try:
        with MemoryStore(url, user="team") as store:
            for number in range(rounds):
                try:
                    for n in range(20):
                        store.add(f"short-lived {number}.{n}", ttl="1s")
                    time.sleep(2.1)  # expiry has one-second resolution
                    report = store.gc()
                    if report.expired < 20:
                        failures.append(f"gc expired {report.expired} of 20")
                except Exception as exc:  # noqa: BLE001
                    failures.append(f"{type(exc).__name__}: {exc}")
    except Exception:  # noqa: BLE001
        failures.append(traceback.format_exc())
    out.put(("gc", 0, failures))
