"""What a capture event does: the part of the transcript added since the last run, through the
rule-based ingest, into the store.

Only the user's messages are mined (the rules' default), so an assistant's "I prefer" is never
taken for the user's. Text in ``<private>`` spans never reaches the rules (the transcript
readers drop it) and a likely secret is refused by the store's write path, as on every write.
All writes of one run are one transaction; the transcript cursor is saved after it commits, so
a run cut short re-reads those lines next time and the duplicate check absorbs them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zeromem_cli.errors import InvalidInputError

if TYPE_CHECKING:
    from zeromem_cli.config import Config
    from zeromem_cli.integrations.harnesses import Harness
    from zeromem_cli.integrations.hooks.payload import HookInput
    from zeromem_cli.integrations.hooks.state import SessionState
    from zeromem_cli.store import MemoryStore


@contextlib.contextmanager
def session_lock(state: SessionState) -> Iterator[None]:
    """One capture at a time per harness session (harnesses may run hooks concurrently); the
    watchdog bounds the wait."""
    if state.path is None:
        yield
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the store's transaction still holds
        yield
        return
    state.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock_path = state.path.with_name(state.path.name + ".lock")
    with open(lock_path, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield


def capture(
    store: MemoryStore,
    harness: Harness,
    hook_input: HookInput,
    state: SessionState,
    config: Config,
    written: list[int] | None = None,
) -> dict[str, int]:
    """Ingest what the harness session said since the last capture; the summary counts.
    ``written`` is given the ids of the memories added or updated."""
    written = [] if written is None else written
    from zeromem_cli.ingest import apply_candidates, extract_messages, load_rules
    from zeromem_cli.ingest.formats import Message
    from zeromem_cli.integrations.private import strip_private
    from zeromem_cli.integrations.transcripts import read_new

    cursor: dict[str, Any] | None = None
    if hook_input.transcript_path:
        path = Path(hook_input.transcript_path).expanduser()
        if not path.is_file():
            raise InvalidInputError(f"transcript {path} is not a readable file")
        messages, cursor = read_new(harness.transcript, path, state.transcript)
    elif hook_input.prompt:  # Gemini CLI's AfterAgent carries the turn's prompt
        messages = [Message("user", strip_private(hook_input.prompt), 0)]
    else:
        return {"messages": 0}
    rules = load_rules(config.extra.get("ingest"), origin=f"config {config.path}")
    candidates = extract_messages(messages, rules, ("user",))
    counts = {"messages": len(messages)}
    if candidates:
        with store.transaction():
            items = apply_candidates(store, candidates, source=harness.name)
        for item in items:
            counts[item.action] = counts.get(item.action, 0) + 1
            if item.action in ("added", "updated"):
                written.extend(item.memory_ids)
    if cursor is not None:
        state.transcript = cursor
    return counts
