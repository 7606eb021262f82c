"""The read tools: memory_context (pack), memory_search, memory_get, and the admin reads
memory_history, memory_stats and memory_export. Each result fits its token budget in both
forms and says ``truncated`` when something was left out for it (``budget``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zeromem_cli.errors import InvalidInputError, NotFoundError
from zeromem_cli.mcp import envelope
from zeromem_cli.mcp.budget import Budget, Rendered, shorten_to_fit
from zeromem_cli.mcp.toolbox import (
    MAX_GET_ITEMS,
    Toolbox,
    ToolOutput,
    filters_of,
    ids_of,
    limit_of,
    tags_of,
)
from zeromem_cli.models import Filters, Memory

TRUNCATED_NOTE = "(truncated: more than max_tokens holds; raise max_tokens or narrow the call)"


def _notes(chosen: Sequence[Any], truncated: bool, empty: str) -> str | None:
    if truncated:
        return TRUNCATED_NOTE
    return None if chosen else empty


# -- memory_context ---------------------------------------------------------------------------


def context(
    box: Toolbox,
    query: str | None = None,
    max_tokens: int | None = None,
    category: str | None = None,
    tags: Sequence[str] | str | None = None,
    **scope: str | None,
) -> ToolOutput:
    """``pack`` for the agent: pinned core memory plus what ``query`` needs, in the envelope."""
    from zeromem_cli.pack.format import Formatter, masked_content
    from zeromem_cli.pack.select import Weights
    from zeromem_cli.requests import PackRequest

    view = box.view(**scope)
    budget = box.budget(max_tokens)
    config = box.config

    def render(memories: list[Memory], text: str, truncated: bool) -> Rendered:
        if not memories:  # nothing to put in context: no envelope, a short note
            text = ""
        shown = text or ("(no memories fit max_tokens)\n" if truncated else "(no memories)\n")
        return shown, {
            "context": text,
            "ids": [m.id for m in memories],
            "count": len(memories),
            "truncated": truncated,
            "tokens": 0,
            "max_tokens": 0,
        }

    # What the structured form adds to the packed text: its keys, and escaping the text as a
    # JSON string (quotes and line breaks); pack gets the rest of the budget, and memories are
    # dropped from the end below when the escaping of their text costs more than that.
    reserve = budget.data_tokens(budget.stamp(*render([], "", True))[1])
    request = PackRequest(
        budget=max(1, budget.max_tokens - reserve),
        tokenizer=config.get("pack.tokenizer"),
        format="xml",
        header=envelope.HEADER,
        weights=Weights.from_config(config),
        filters=filters_of(view, category=category, tags=tags),
        touch=False,
        inherit=config.get("pack.inherit"),
        pinned_share=config.get("pack.pinned_share"),
    )
    result = view.pack(query, request)
    memories = list(result.memories)
    left_out = any(c.status.startswith(("over budget", "dropped")) for c in result.candidates)
    formatter = Formatter("xml", envelope.HEADER, masked_content, mask_labels=True)
    text = result.text
    while True:
        text, data = budget.stamp(*render(memories, text, left_out))
        if budget.fits(data) or not memories:
            break
        memories.pop()
        left_out = True
        text = formatter.render(memories)
    if memories:
        view.touch(m.id for m in memories)
    return ToolOutput(text, data)


# -- memory_search ----------------------------------------------------------------------------


def search(
    box: Toolbox,
    query: str,
    limit: int | None = None,
    max_tokens: int | None = None,
    category: str | None = None,
    tags: Sequence[str] | str | None = None,
    key: str | None = None,
    since: str | None = None,
    until: str | None = None,
    **scope: str | None,
) -> ToolOutput:
    """Compact hits, best first, within the budget."""
    view = box.view(**scope)
    budget = box.budget(max_tokens)
    found = view.search(
        query,
        limit=limit_of(limit, box.config.get("search.limit")),
        filters=filters_of(view, category=category, tags=tags, key=key, since=since, until=until),
    )
    hits = [envelope.hit(memory, query) for memory in found]

    def render(chosen: list[dict[str, Any]], truncated: bool) -> Rendered:
        note = _notes(chosen, truncated, "(no memory matched)")
        text = envelope.envelope([envelope.hit_xml(h) for h in chosen], note)
        return text, {
            "memories": chosen,
            "count": len(chosen),
            "truncated": truncated,
            "tokens": 0,
            "max_tokens": 0,
        }

    chosen, _, text, data = budget.fill(hits, envelope.hit_xml, lambda h: h, render)
    return ToolOutput(text, data)


# -- memory_get, memory_export ------------------------------------------------------------------


def _records_output(
    budget: Budget,
    records: list[dict[str, Any]],
    extra: dict[str, Any],
    empty: str,
    more: bool = False,
) -> ToolOutput:
    """Full records within the budget; a first record too large on its own is cut. ``more``:
    records were left out before these (the budget bounded how many were read)."""

    def render(chosen: list[dict[str, Any]], truncated: bool) -> Rendered:
        truncated = truncated or more
        text = envelope.envelope(
            [envelope.record_xml(r) for r in chosen], _notes(chosen, truncated, empty)
        )
        return text, {
            "memories": chosen,
            "count": len(chosen),
            **extra,
            "truncated": truncated,
            "tokens": 0,
            "max_tokens": 0,
        }

    chosen, truncated, text, data = budget.fill(records, envelope.record_xml, lambda r: r, render)
    if records and not chosen:
        first = {**records[0], "history": []} if "history" in records[0] else dict(records[0])

        def build(content: str, cut: bool) -> Rendered:
            return render([{**first, "content": content, "content_truncated": cut}], True)

        shortened = shorten_to_fit(budget, first["content"], build)
        if shortened is not None:
            text, data = shortened
    return ToolOutput(text, data)


def get(
    box: Toolbox,
    ids: Sequence[int] | None = None,
    keys: Sequence[str] | None = None,
    history: bool = False,
    max_tokens: int | None = None,
    **scope: str | None,
) -> ToolOutput:
    """Full records by id and/or key; the ones not found are listed in ``not_found``."""
    named = len(ids or ()) + len(tags_of(keys))
    if named > MAX_GET_ITEMS:
        raise InvalidInputError(
            f"memory_get takes at most {MAX_GET_ITEMS} ids and keys per call, not {named}: "
            "ask for fewer (memory_search finds the ones that matter)"
        )
    view = box.view(**scope)
    budget = box.budget(max_tokens)
    wanted_ids, wanted_keys = ids_of(ids), list(dict.fromkeys(tags_of(keys)))
    if not wanted_ids and not wanted_keys:
        raise InvalidInputError("give ids or keys of the memories to get")
    found: dict[int, Memory] = {}
    missing: list[int | str] = []
    first_error: NotFoundError | None = None
    for memory_id in wanted_ids:
        try:
            found.setdefault(memory_id, view.get(memory_id))
        except NotFoundError as exc:
            missing.append(memory_id)
            first_error = first_error or exc
    for key in wanted_keys:
        keyed = view.list(limit=1, filters=Filters(key=key))
        if keyed:
            found.setdefault(keyed[0].id, keyed[0])
        else:
            missing.append(key)
            first_error = first_error or NotFoundError(f"no memory with key {key!r} in this scope")
    if not found and first_error is not None:
        raise first_error
    records = []
    for memory in found.values():
        data = {**envelope.record(memory), "content_truncated": False}
        if history:
            data["history"] = [envelope.version(e) for e in view.history(memory.id)[:-1]]
        records.append(data)
    return _records_output(budget, records, {"not_found": missing}, "(no memories)")


def export(
    box: Toolbox,
    limit: int | None = None,
    max_tokens: int | None = None,
    category: str | None = None,
    tags: Sequence[str] | str | None = None,
    since: str | None = None,
    until: str | None = None,
    include_expired: bool = False,
    **scope: str | None,
) -> ToolOutput:
    """Export records of this scope, newest first, within the budget."""
    view = box.view(**scope)
    budget = box.budget(max_tokens)
    # No record costs fewer than ~20 tokens as JSON: more than this cannot fit the budget.
    most = budget.max_tokens // 20 + 1
    memories = view.list(
        limit=min(limit, most + 1) if limit else most + 1,
        filters=filters_of(
            view,
            category=category,
            tags=tags,
            since=since,
            until=until,
            include_expired=include_expired,
        ),
    )
    more = len(memories) > most
    records = [{**envelope.record(m), "content_truncated": False} for m in memories[:most]]
    return _records_output(budget, records, {}, "(no memories)", more)


# -- memory_history, memory_stats ---------------------------------------------------------------


def history(
    box: Toolbox, id: int, max_tokens: int | None = None, **scope: str | None
) -> ToolOutput:
    """Every version of one memory, newest first (the current one is first)."""
    view = box.view(**scope)
    budget = box.budget(max_tokens)
    (number,) = ids_of([id])
    versions = [envelope.version(e) for e in reversed(view.history(number))]

    def unit(entry: dict[str, Any]) -> str:
        return envelope.version_xml(number, entry)

    def render(chosen: list[dict[str, Any]], truncated: bool) -> Rendered:
        text = envelope.envelope([unit(v) for v in chosen], _notes(chosen, truncated, ""))
        return text, {
            "id": number,
            "versions": chosen,
            "count": len(chosen),
            "truncated": truncated,
            "tokens": 0,
            "max_tokens": 0,
        }

    _, _, text, data = budget.fill(versions, unit, lambda v: v, render)
    return ToolOutput(text, data)


def stats(box: Toolbox, max_tokens: int | None = None, **scope: str | None) -> ToolOutput:
    """This scope's counts as ``zeromem stats --json`` gives them, under ``stats``; the
    categories (largest first), then the counts per scope and per operation are cut to the
    budget."""
    view = box.view(**scope)
    budget = box.budget(max_tokens)
    report = view.stats().to_dict()
    categories = list(report["by_category"].items())
    truncated = False
    while True:
        report["by_category"] = dict(categories)
        counts = report["memories"]
        lines = [
            f"{counts['live']} live, {counts['expired']} expired, {counts['trash']} in the "
            f"trash, {counts['pinned']} pinned, {counts['with_keys']} with keys",
            "by category: "
            + (", ".join(f"{name} {number}" for name, number in categories) or "none"),
            f"stored tokens {report['tokens']['stored']}, database {report['database_bytes']} "
            "bytes",
        ]
        if truncated:
            lines.append(TRUNCATED_NOTE)
        text = "\n".join(lines) + "\n"
        text, data = budget.stamp(
            text, {"stats": report, "truncated": truncated, "tokens": 0, "max_tokens": 0}
        )
        if budget.fits(data):
            return ToolOutput(text, data)
        if categories:
            categories.pop()
        elif report.get("by_scope"):
            report["by_scope"] = report["by_scope"][:-1]  # the counts per scope, last first
        elif report.get("operations"):
            report["operations"] = {}
        elif report.get("vectors"):
            report["vectors"] = {}
        else:
            # Nothing left to cut: what fits of a budget this small is nothing, said so.
            text, data = budget.stamp(
                TRUNCATED_NOTE + "\n",
                {"stats": {}, "truncated": True, "tokens": 0, "max_tokens": 0},
            )
            return ToolOutput(text, data)
        truncated = True


__all__ = ["context", "export", "get", "history", "search", "stats"]
