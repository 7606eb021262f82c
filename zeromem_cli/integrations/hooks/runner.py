"""One hook run, start to finish, and the promise that it never breaks its harness.

``run_hook`` checks the off switches (``ZEROMEM_HOOKS=off``, ``hooks.enabled``, the event's
own ``hooks.<event>`` setting), starts the watchdog (``hooks.timeout_ms``), reads the payload,
then injects (session start, prompt) or captures (pre-compact, stop, session end). Whatever
fails (bad JSON, a missing, locked or damaged database, an unreadable transcript, a bad
config, a bug) ends the same way: exit 0, the harness's "nothing" answer, one line on stderr
with secrets masked. A switched-off hook prints nothing at all.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from zeromem_cli.integrations.harnesses import (
    CAPTURE_EVENTS,
    EVENTS,
    HARNESSES,
    Harness,
)
from zeromem_cli.paths import db_location

if TYPE_CHECKING:
    from zeromem_cli.integrations.hooks.payload import HookInput
    from zeromem_cli.store import MemoryStore

OFF_VALUES = frozenset({"off", "0", "false", "no", "disabled"})


class Where:
    """Database and scope of the run (the hook command's --db / --user / --agent / --session /
    --project / --isolate, and --key-file for an encrypted store). ``project`` None means
    ``auto``: the git repository of the harness session's working directory."""

    __slots__ = ("db", "user", "agent", "session", "project", "isolate", "key_file")

    def __init__(
        self,
        db: str | Path | None = None,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        project: str | None = None,
        isolate: bool | None = None,
        key_file: str | Path | None = None,
    ) -> None:
        self.db = db_location(db) if db else None
        self.key_file = Path(key_file).expanduser() if key_file else None
        self.user = user or None
        self.agent = agent or None
        self.session = session or None
        self.project = project or None
        self.isolate = isolate


def hooks_off(env: Mapping[str, str]) -> bool:
    return env.get("ZEROMEM_HOOKS", "").strip().lower() in OFF_VALUES


def say(label: str, message: str, stderr: IO[str]) -> None:
    from zeromem_cli.text.display import message_line

    stderr.write(f"zeromem hook {label}: {message_line(message)[:500]}\n")
    stderr.flush()


def _write(stdout: IO[bytes], text: str) -> None:
    if not text:
        return
    try:
        stdout.write(text.encode("utf-8"))
        stdout.flush()
    except BrokenPipeError:  # the harness stopped reading: nothing more to say to it
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())


def run_hook(
    harness_name: str,
    event: str,
    where: Where,
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    stderr: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run one hook; always returns 0 (the harness must never see zeromem fail)."""
    env = os.environ if env is None else env
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    stderr = stderr or sys.stderr
    label = f"{harness_name} {event}"
    harness = HARNESSES.get(harness_name)
    if harness is None:
        say(label, f"unknown harness {harness_name!r} (use {', '.join(HARNESSES)})", stderr)
        return 0
    if event not in EVENTS:
        say(label, f"unknown event {event!r} (use {', '.join(EVENTS)})", stderr)
        _write(stdout, harness.nothing)
        return 0
    if hooks_off(env):
        _write(stdout, harness.nothing)
        return 0
    try:
        from zeromem_cli.config import Config

        config = Config(env=env)
        enabled = config.get("hooks.enabled") and config.get("hooks." + event.replace("-", "_"))
        timeout = config.get("hooks.timeout_ms") / 1000
    except Exception as exc:  # a bad config file must not break the harness either
        say(label, str(exc), stderr)
        _write(stdout, harness.nothing)
        return 0
    if not enabled:
        _write(stdout, harness.nothing)
        return 0
    from zeromem_cli.integrations.hooks.watchdog import Watchdog

    watchdog = Watchdog(timeout, harness.nothing, label).start()
    after: Callable[[], None] | None = None
    try:
        text, after = _run(harness, event, where, config, stdin)
    except Exception as exc:
        text = harness.nothing
        say(label, _describe(exc), stderr)
    except KeyboardInterrupt:  # the harness cancelled the hook: no traceback, no answer
        text = harness.nothing
        say(label, "interrupted", stderr)
    with watchdog.answer_lock:
        _write(stdout, text)
        if after is not None:
            try:
                after()
            except Exception as exc:  # the answer is out; a lost state file costs a repeat
                say(label, _describe(exc), stderr)
        watchdog.cancel()
    return 0


def _describe(exc: BaseException) -> str:
    from zeromem_cli.errors import ZeromemError

    if isinstance(exc, ZeromemError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    return f"internal error: {type(exc).__name__}: {exc}"


def _open(
    opener: type[MemoryStore],
    path: Path | str,
    where: Where,
    payload: HookInput,
    config: Any,
    *,
    read_only: bool = False,
) -> MemoryStore:
    """The store in the hook's scope: the user (and agent) given, and the project (``auto``
    unless given: the repository of the harness session's ``cwd``), reading every earlier
    session of both unless isolated. Injection adds the user's project-less memories
    (``pack(inherit=True)``): never another project's. ``read_only``: the run only injects,
    so a database on read-only media opens read-only."""
    from zeromem_cli.owner import resolve_owner
    from zeromem_cli.requests import StoreSettings

    isolate = config.get("scope.isolate_sessions") if where.isolate is None else where.isolate
    owner = resolve_owner(
        where.user,
        where.agent,
        where.session,
        where.project,
        cwd=payload.cwd or None,
    )
    return opener(
        path,
        user=owner.user,
        agent=owner.agent,
        session=owner.session,
        project=owner.project,
        isolate=isolate,
        key_file=where.key_file,
        read_only="auto" if read_only else False,
        # Hooks log nothing: the operations log is for what a person or agent asked.
        # Injecting reads with semantic recall; capturing writes in one transaction without
        # vectors, then embeds what it wrote within a share of its time limit
        # (``_embed_captured``): a long transcript's rest waits for ``index`` or ``gc``.
        settings=StoreSettings.from_config(config, log=False)._replace(
            semantic=config.get("search.semantic") if read_only else "off"
        ),
    )


# Share of ``hooks.timeout_ms`` (the watchdog's CPU limit) after which a capture starts no
# more embedding: what is left is embedded by ``index`` or ``gc``, and the watchdog never
# ends a capture whose memories are stored (``python -m benchmarks.semantic --costs``
# measures the model's load and a memory's embedding).
EMBED_SHARE = 0.6


def _embed_captured(store: MemoryStore, memory_ids: list[int], config: Any) -> None:
    """Embed the memories a capture just stored (committed, the transcript cursor saved),
    while the run is within ``EMBED_SHARE`` of its time limit, so the next session finds
    them in other words too. Nothing happens with semantic recall off or not installed."""
    import time

    from zeromem_cli.semantic.switch import Semantic

    limit = config.get("hooks.timeout_ms") / 1000 * EMBED_SHARE
    semantic = Semantic(config.get("search.semantic"), config.get("search.semantic_model") or None)
    if not memory_ids or not semantic.wanted() or time.process_time() >= limit:
        return
    embedder = semantic.embedder()
    if embedder is None:
        return
    store.embed_written(memory_ids, embedder, lambda: time.process_time() < limit)


def _origin(store: MemoryStore, where: Where, payload: HookInput) -> MemoryStore:
    """Where captured memories are written: the harness session is their origin session
    (unless --session names one), so the conversation context of a later pack can follow
    them. An isolated store keeps its own session, which is all it reads."""
    scope = store.scope
    if where.session is not None or scope.isolate or not payload.session_id:
        return store
    return store.scoped(
        user=scope.user, agent=scope.agent, session=payload.session_id, project=scope.project
    )


def _run(
    harness: Harness, event: str, where: Where, config: Any, stdin: IO[bytes]
) -> tuple[str, Callable[[], None] | None]:
    """(the answer, what to do once it is printed)."""
    from zeromem_cli.errors import StoreError
    from zeromem_cli.integrations.hooks.output import answer
    from zeromem_cli.integrations.hooks.payload import MAX_PAYLOAD_BYTES, parse_payload
    from zeromem_cli.integrations.hooks.state import SessionState, prune
    from zeromem_cli.paths import default_db_path
    from zeromem_cli.store import MemoryStore

    payload = parse_payload(stdin.read(MAX_PAYLOAD_BYTES + 1))
    db_path = where.db or default_db_path()
    capturing = event in CAPTURE_EVENTS
    if not capturing:
        budget = config.get(
            "hooks.session_start_budget" if event == "session-start" else "hooks.prompt_budget"
        )
        if budget == 0 or (event == "user-prompt" and not payload.prompt):
            return harness.nothing, None
        # A hook that only reads never creates a database (a server store is there or not).
        if isinstance(db_path, Path) and not db_path.exists():
            raise StoreError(f"no database at {db_path} yet: nothing to inject")
    identity = str(db_path.resolve()) if isinstance(db_path, Path) else db_path
    state = SessionState.load(harness.name, payload.session_id, identity)
    store = _open(MemoryStore, db_path, where, payload, config, read_only=not capturing)
    with store:
        if capturing:
            from zeromem_cli.integrations.hooks.capture import capture, session_lock

            origin = _origin(store, where, payload)
            written: list[int] = []
            with session_lock(state):
                state = SessionState.load(harness.name, payload.session_id, state.db)
                capture(origin, harness, payload, state, config, written)
                state.save()
            _embed_captured(origin, written, config)
            return harness.nothing, None
        from zeromem_cli.integrations.hooks.inject import injection

        if event == "session-start":
            prune(harness.name, config.get("hooks.state_days"))
            if payload.source in ("clear", "compact"):
                state.injected = []  # the context was cleared or summarised: start again
        text, ids = injection(
            store,
            event,
            payload.prompt if event == "user-prompt" else None,
            budget=budget,
            exclude=state.injected,
        )
    if not ids:
        return harness.nothing, None
    state.remember(ids)
    return answer(harness, event, text), state.save
