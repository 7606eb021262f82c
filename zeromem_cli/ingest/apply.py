"""Carrying out candidates through the normal store API, or planning them for a dry run.

Memories are written with ``MemoryStore.write`` (so key upsert, duplicate detection and every
other check of the add path apply), forget requests soft-delete with ``MemoryStore.forget``.

Forgetting is conservative: a memory is forgotten only if it holds the key the request names
("forget my timezone" -> key ``timezone``) or if nearly all the request's search terms occur in
it (``FORGET_MIN_COVERAGE``). A vague request forgets nothing rather than the wrong thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.ingest.extract import Candidate, make_key
from zeromem_cli.ingest.formats import ParsedInput
from zeromem_cli.models import Filters, Memory
from zeromem_cli.store import MemoryStore
from zeromem_cli.text.normalize import content_hash
from zeromem_cli.text.secrets import mask_secrets, refuse_secrets
from zeromem_cli.text.similarity import features

# Share of a forget request's terms that a memory must contain to be forgotten.
FORGET_MIN_COVERAGE = 0.75
_FORGET_NOISE = re.compile(
    r"\b(?:my|our|the|old|previous|former|earlier|current|about)\b|"
    r"我的|我们的|旧的|之前的|以前的|原来的|之前|以前|原来|旧|我",
    re.IGNORECASE,
)
SUMMARY_FIELDS = ("added", "updated", "duplicate", "forgotten", "skipped")


@dataclass
class IngestItem:
    """What happened to one candidate (in a dry run: what would happen)."""

    action: str  # added, updated, duplicate, forgotten, not-found, error
    candidate: Candidate
    memory_ids: list[int] = field(default_factory=list)
    forgotten: list[Memory] = field(default_factory=list)
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        record = self.candidate.to_dict()
        record["content"] = mask_secrets(record["content"])  # printed: never a secret
        record = {"action": self.action, "kind": record.pop("action"), **record}
        record["ids"] = self.memory_ids
        if self.candidate.action == "forget":
            record["target"] = record.pop("content")
            for name in ("category", "key", "importance", "ttl"):
                record.pop(name)
            record["forgotten"] = [
                {"id": m.id, "content": m.content, "category": m.category, "key": m.key}
                for m in self.forgotten
            ]
        if self.reason:
            record["reason"] = self.reason
        return record


@dataclass
class IngestReport:
    dry_run: bool
    format: str
    messages: int  # messages (or kv records) in the input
    mined: int  # of those, the ones whose role was mined
    items: list[IngestItem] = field(default_factory=list)
    empty: int = 0  # mined messages (or kv fields) that gave nothing

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(SUMMARY_FIELDS, 0)
        for item in self.items:
            if item.action == "forgotten":
                counts["forgotten"] += len(item.memory_ids)
            elif item.action in counts:
                counts[item.action] += 1
            else:
                counts["skipped"] += 1
        counts["skipped"] += self.empty
        return counts

    def summary(self) -> str:
        counts = self.counts()
        head = "ingest (dry run, nothing written)" if self.dry_run else "ingest"
        unit = "record" if self.format == "kv" else "message"
        parts = [f"{self.messages} {unit}{'' if self.messages == 1 else 's'}"]
        if self.mined != self.messages:
            parts.append(f"{self.mined} mined")
        parts += [f"{counts[name]} {name}" for name in SUMMARY_FIELDS]
        return f"{head}: " + ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "format": self.format,
            "messages": self.messages,
            "mined": self.mined,
            "summary": self.counts(),
            "items": [item.to_dict() for item in self.items],
        }


def _terms(text: str) -> set[str]:
    return set(features(text))


def forget_matches(store: MemoryStore, target: str) -> list[Memory]:
    """Live memories of the store's scope that a forget request for ``target`` clearly names."""
    core = _FORGET_NOISE.sub(" ", target).strip()
    found: dict[int, Memory] = {}
    key = make_key(core) if core else None
    if key:
        for memory in store.list(limit=None, filters=Filters(key=key)):
            found[memory.id] = memory
    wanted = _terms(core or target)
    if wanted:
        for memory in store.search(core or target, limit=50):
            have = _terms(f"{memory.content} {memory.key or ''}")
            if len(wanted & have) / len(wanted) >= FORGET_MIN_COVERAGE:
                found.setdefault(memory.id, memory)
    return sorted(found.values(), key=lambda m: m.id)


def _find_duplicate(store: MemoryStore, content: str) -> Memory | None:
    digest = content_hash(content)
    for memory in store.search(content, limit=20):
        if content_hash(memory.content) == digest:
            return memory
    return None


def _unchanged_keyed(store: MemoryStore, candidate: Candidate) -> Memory | None:
    """The live memory holding the candidate's key if it already says exactly this."""
    if candidate.key is None:
        return None
    for memory in store.list(limit=1, filters=Filters(key=candidate.key)):
        same = content_hash(memory.content) == content_hash(candidate.content)
        if same and memory.category == candidate.category:
            return memory
    return None


class _Planner:
    """Predicts a write without doing it, remembering earlier planned writes of the run."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.keys: dict[str, int] = {}
        self.hashes: set[int] = set()
        self.forgotten: set[int] = set()

    def write(self, candidate: Candidate) -> IngestItem:
        try:  # the write path would refuse a likely secret: so does the plan
            refuse_secrets({"content": candidate.content, "key": candidate.key})
        except InvalidInputError as exc:
            return IngestItem("error", candidate, reason=str(exc))
        if candidate.key is not None:
            if candidate.key in self.keys:
                return IngestItem("updated", candidate, [self.keys[candidate.key]])
            unchanged = _unchanged_keyed(self.store, candidate)
            if unchanged is not None and unchanged.id not in self.forgotten:
                self.keys[candidate.key] = unchanged.id
                return IngestItem("duplicate", candidate, [unchanged.id])
            existing = [
                m
                for m in self.store.list(limit=1, filters=Filters(key=candidate.key))
                if m.id not in self.forgotten
            ]
            if existing:
                self.keys[candidate.key] = existing[0].id
                return IngestItem("updated", candidate, [existing[0].id])
        digest = content_hash(candidate.content)
        duplicate = _find_duplicate(self.store, candidate.content)
        if digest in self.hashes or (duplicate and duplicate.id not in self.forgotten):
            return IngestItem("duplicate", candidate, [duplicate.id] if duplicate else [])
        self.hashes.add(digest)
        if candidate.key is not None:
            self.keys[candidate.key] = 0
        return IngestItem("added", candidate)


def origin_store(
    store: MemoryStore, part: ParsedInput, *, session_given: bool, project_given: bool
) -> MemoryStore:
    """Where a harness transcript's memories go: where its hooks would have written them
    during that session. Its session id is their origin session (unless ``--session`` was
    given, or the store isolates: an isolated store writes where it reads), and the project
    of its working directory their project (unless ``--project`` was given; a directory that
    is no git repository, or is gone, is no project)."""
    scope = store.scope
    session, project = scope.session, scope.project
    if part.session and not session_given and not scope.isolate:
        session = part.session
    if part.cwd and not project_given:
        from pathlib import Path

        from zeromem_cli.projects import project_of

        project = project_of(Path(part.cwd))
    if (session, project) == (scope.session, scope.project):
        return store
    return store.scoped(user=scope.user, agent=scope.agent, session=session, project=project)


def apply_candidates(
    store: MemoryStore,
    candidates: Sequence[Candidate],
    *,
    dry_run: bool = False,
    tags: Iterable[str] | None = None,
    category: str | None = None,
    ttl: str | None = None,
    source: str = "ingest",
    meta: dict[str, Any] | None = None,
    created_at: str | datetime | None = None,
    embed: bool = True,
) -> list[IngestItem]:
    """Write (or plan) every candidate in order; ``category``/``ttl`` override the rules';
    ``source`` is recorded in each memory's meta (a harness hook names its harness), beside
    the caller's own ``meta`` (the Mem0 face's ``metadata``); ``created_at`` dates new memories
    when the conversation happened; ``embed=False`` leaves their vectors to ``index``/``gc``
    (``WriteRequest``'s, both). One ``ingest`` in the store's operations log, its searches and
    writes part of it.

    Each batch of ``INGEST_BATCH`` candidates is one transaction: a killed run keeps the
    batches it committed, whole, and loses the open one, whole; running it again finds what
    landed as duplicates (or unchanged keys) and writes the rest."""
    extra = _Extra(meta, created_at, embed)
    with store.operation(None if dry_run else "ingest") as entry:
        items = _batched(store, candidates, dry_run, tags, category, ttl, source, extra)
        entry.results = len(items)
    return items


def _batched(
    store: MemoryStore,
    candidates: Sequence[Candidate],
    dry_run: bool,
    tags: Iterable[str] | None,
    category: str | None,
    ttl: str | None,
    source: str,
    extra: _Extra,
) -> list[IngestItem]:
    """``_apply`` over every candidate: one transaction per batch, not one per memory."""
    if dry_run or len(candidates) <= 1:
        return _apply(store, candidates, dry_run, tags, category, ttl, source, extra)
    # One transaction per batch, not one per memory: a commit waits for the disk (synchronous
    # FULL), which made ingest ~100 memories a second (#33; ``python -m benchmarks.ingest_speed``).
    # Batches keep the write lock from being held for a whole large file.
    items: list[IngestItem] = []
    for start in range(0, len(candidates), INGEST_BATCH):
        with store.transaction():
            items += _apply(
                store,
                candidates[start : start + INGEST_BATCH],
                False,
                tags,
                category,
                ttl,
                source,
                extra,
            )
    return items


# Candidates written per transaction by ``apply_candidates``.
INGEST_BATCH = 500


class _Extra(NamedTuple):
    """What the caller adds to every memory written: its own meta, when it was said, and
    whether its vector is computed now."""

    meta: dict[str, Any] | None
    created_at: str | datetime | None
    embed: bool


def _apply(
    store: MemoryStore,
    candidates: Sequence[Candidate],
    dry_run: bool,
    tags: Iterable[str] | None,
    category: str | None,
    ttl: str | None,
    source: str,
    extra: _Extra,
) -> list[IngestItem]:
    planner = _Planner(store) if dry_run else None
    forgotten: set[int] = set()
    items: list[IngestItem] = []
    tag_list = list(tags or [])
    for candidate in candidates:
        if category:
            candidate.category = category
        if ttl:
            candidate.ttl = ttl
        if candidate.action == "forget":
            matches = [m for m in forget_matches(store, candidate.content) if m.id not in forgotten]
            if not matches:
                items.append(IngestItem("not-found", candidate, reason="no memory clearly matches"))
                continue
            ids = [m.id for m in matches]
            if planner is not None:
                planner.forgotten.update(ids)
            else:
                store.forget(*ids)
            forgotten.update(ids)
            items.append(IngestItem("forgotten", candidate, ids, forgotten=matches))
            continue
        if planner is not None:
            items.append(planner.write(candidate))
            continue
        unchanged = _unchanged_keyed(store, candidate)
        if unchanged is not None:
            # Re-ingesting the same conversation must not pile up identical versions.
            items.append(IngestItem("duplicate", candidate, [unchanged.id]))
            continue
        try:
            result = store.write(
                candidate.content,
                category=candidate.category,
                key=candidate.key,
                importance=candidate.importance,
                ttl=candidate.ttl,
                tags=tag_list or None,
                meta={
                    **(extra.meta or {}),
                    "source": source,
                    "rule": candidate.rule,
                    "role": candidate.role,
                },
                created_at=extra.created_at,
                near=False,  # ingest lists no near-duplicates: no search per memory
                embed=extra.embed,
            )
        except InvalidInputError as exc:
            items.append(IngestItem("error", candidate, reason=str(exc)))
            continue
        items.append(IngestItem(result.action, candidate, [result.memory.id]))
    return items
