"""The write tools: memory_save (the ``add`` path), memory_forget (soft delete; a filter is
a dry run unless ``dry_run=false``), memory_ingest (the rule-based ``ingest``) and the admin
memory_restore. Writes go through ``MemoryStore.write`` / ``forget`` / ``restore`` only, so
every rule of the CLI (key upsert, duplicates, secrets, sizes) holds here too."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from zeromem_cli.errors import InvalidInputError, NotFoundError
from zeromem_cli.mcp import envelope
from zeromem_cli.mcp.budget import Rendered
from zeromem_cli.mcp.reads import TRUNCATED_NOTE
from zeromem_cli.mcp.toolbox import Toolbox, ToolOutput, ids_of, moment, tags_of
from zeromem_cli.models import Filters, Memory
from zeromem_cli.search import holding_every_word
from zeromem_cli.store import MemoryStore
from zeromem_cli.times import from_iso

_WRITTEN = ("id", "key", "category", "tags", "importance", "pinned", "created_at", "updated_at")


def _plural(count: int) -> str:
    return f"{count} memor{'y' if count == 1 else 'ies'}"


# -- memory_save ------------------------------------------------------------------------------


def save(
    box: Toolbox,
    text: str,
    key: str | None = None,
    category: str | None = None,
    tags: Sequence[str] | str | None = None,
    ttl: str | None = None,
    pinned: bool | None = None,
    importance: int | None = None,
    **scope: str | None,
) -> ToolOutput:
    """Store ``text`` as ``zeromem add`` does; says added, updated (key) or duplicate."""
    view = box.view(**scope)
    config = box.config
    result = view.write(
        text,
        category=category or None,
        default_category=config.get("add.default_category"),
        tags=list(tags_of(tags)) if tags is not None else None,
        key=key or None,
        importance=importance,
        pinned=pinned,
        ttl=ttl or config.get("add.default_ttl") or None,
    )
    memory = envelope.record(result.memory)
    similar = [{"id": number, "similarity": score} for number, score in result.similar]
    data = {
        "action": result.action,
        **{name: memory[name] for name in _WRITTEN},
        "expires_at": memory["expires_at"],
        "similar": similar,
    }
    if result.action == "duplicate":
        line = f"duplicate of #{memory['id']}: nothing added"
    elif result.action == "updated":
        line = f"updated #{memory['id']} (key {memory['key']!r}; the old text is in its history)"
    else:
        line = f"added #{memory['id']} ({memory['category']})"
    if similar:
        near = ", ".join(f"#{s['id']} ({s['similarity']:.2f})" for s in similar[:3])
        line += f"; similar to {near}"
    return ToolOutput(line + "\n", data)


# -- memory_forget ----------------------------------------------------------------------------


def _select(
    view: MemoryStore,
    ids: list[int],
    key: str | None,
    query: str | None,
    category: str | None,
    tags: tuple[str, ...],
    before: str | None,
    limit: int | None,
) -> list[Memory]:
    """What the criteria pick (all of them must hold, as in ``zeromem forget``), expired
    memories included; explicit ids must all exist."""
    cutoff = moment(before, view.now(), "before")
    filters = Filters(category=category, tags=tags, key=key, include_expired=True)
    if query:  # every content word must be held, as in `zeromem forget --query`
        found = view.search(query, limit=sys.maxsize, filters=filters)
        picked = holding_every_word(query, found)[: limit or None]
    elif ids:
        picked = [view.get(memory_id, include_expired=True) for memory_id in ids]
    else:
        picked = view.list(limit=None, filters=filters)
        if key and not picked:
            raise NotFoundError(f"no memory with key {key!r} in this scope")
    wanted = set(tags)
    return [
        m
        for m in picked
        if (not ids or m.id in ids)
        and (category is None or m.category == category)
        and wanted.issubset(m.tags)
        and (key is None or m.key == key)
        and (cutoff is None or from_iso(m.created_at) < cutoff)
    ]


def forget(
    box: Toolbox,
    ids: Sequence[int] | None = None,
    key: str | None = None,
    query: str | None = None,
    category: str | None = None,
    tags: Sequence[str] | str | None = None,
    before: str | None = None,
    limit: int | None = None,
    dry_run: bool | None = None,
    max_tokens: int | None = None,
    **scope: str | None,
) -> ToolOutput:
    """Soft-delete what the criteria select, or preview it (the default for a filter)."""
    chosen_ids = ids_of(ids)
    tag_list = tags_of(tags)
    by_filter = bool(query or category or tag_list or before)
    if not (chosen_ids or key or by_filter):
        raise InvalidInputError(
            "say what to forget: ids, key, or a filter (query, category, tags, before)"
        )
    if limit is not None and not query:
        raise InvalidInputError("limit needs query (it keeps the N best matches)")
    preview = by_filter if dry_run is None else dry_run
    view = box.view(**scope)
    budget = box.budget(max_tokens)
    selected = _select(
        view, chosen_ids, key or None, query or None, category or None, tag_list, before, limit
    )
    count = len(selected)
    if not preview and selected:
        view.forget(*[m.id for m in selected])
    if preview:
        head = f"would forget {_plural(count)} (dry run"
        head += "; call again with dry_run=false to forget them)" if count else ")"
    else:
        head = (
            f"forgot {_plural(count)} (a person can restore them)"
            if count
            else ("nothing to forget")
        )
    hits = [envelope.hit(m, query) for m in selected]

    def render(shown: list[dict[str, Any]], truncated: bool) -> Rendered:
        note = TRUNCATED_NOTE if truncated else None
        units = [envelope.hit_xml(h) for h in shown]
        text = head + "\n" + (envelope.envelope(units, note) if selected else "")
        return text, {
            "dry_run": preview,
            "count": count,
            "memories": shown,
            "truncated": truncated,
            "tokens": 0,
            "max_tokens": 0,
        }

    _, _, text, data = budget.fill(hits, envelope.hit_xml, lambda h: h, render)
    return ToolOutput(text, data)


# -- memory_ingest ----------------------------------------------------------------------------


def _messages(raw: Sequence[Any]) -> list[Any]:
    from zeromem_cli.ingest.formats import Message, content_text, normalize_role

    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise InvalidInputError("messages must be a list of {role, content} objects")
    messages = []
    for index, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"messages[{index}] must be an object with role and content")
        messages.append(
            Message(normalize_role(item.get("role")), content_text(item.get("content")), index)
        )
    return messages


def ingest(
    box: Toolbox,
    messages: Sequence[Any],
    dry_run: bool = False,
    max_tokens: int | None = None,
    **scope: str | None,
) -> ToolOutput:
    """The ``ingest`` rules over chat messages: what users ask to keep is stored."""
    from zeromem_cli.ingest import IngestReport, apply_candidates, extract_messages, load_rules

    parsed = _messages(messages)
    view = box.view(**scope)
    budget = box.budget(max_tokens)
    config = box.config
    rules = load_rules(config.extra.get("ingest"), origin=f"config {config.path}")
    roles = ("user",)
    candidates = extract_messages(parsed, rules, roles)
    mined = [m for m in parsed if m.role in roles]
    report = IngestReport(
        dry_run=dry_run,
        format="messages",
        messages=len(parsed),
        mined=len(mined),
        empty=len(mined) - len({c.message for c in candidates}),
    )
    report.items = apply_candidates(view, candidates, dry_run=dry_run)
    summary = report.summary()
    items = [_masked_item(item.to_dict()) for item in report.items]

    def unit(item: dict[str, Any]) -> str:
        pairs = [(name, item.get(name)) for name in ("action", "ids", "category", "key", "rule")]
        return envelope.element("item", pairs, item.get("content", item.get("target", "")))

    def render(chosen: list[dict[str, Any]], truncated: bool) -> Rendered:
        note = TRUNCATED_NOTE if truncated else None
        text = f"{summary}\n" + (envelope.envelope(map(unit, chosen), note) if items else "")
        data = {k: v for k, v in report.to_dict().items() if k != "items"}
        return text, {**data, "items": chosen, "truncated": truncated, "tokens": 0, "max_tokens": 0}

    _, _, text, data = budget.fill(items, unit, lambda i: i, render)
    return ToolOutput(text, data)


def _masked_item(item: dict[str, Any]) -> dict[str, Any]:
    for name in ("content", "target", "key"):
        if isinstance(item.get(name), str):
            item[name] = envelope.mask(item[name])
    for forgotten in item.get("forgotten", ()):
        forgotten["content"] = envelope.mask(forgotten["content"])
    return item


# -- memory_restore ---------------------------------------------------------------------------


def restore(box: Toolbox, id: int, **scope: str | None) -> ToolOutput:
    view = box.view(**scope)
    (number,) = ids_of([id])
    memory = envelope.record(view.restore(number))
    data = {"action": "restored", **{name: memory[name] for name in _WRITTEN}}
    return ToolOutput(f"restored #{number}\n", data)


__all__ = ["forget", "ingest", "restore", "save"]
