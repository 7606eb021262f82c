"""Every print of zeromem lives here: tables (rich, on a terminal), plain lines, JSON.

Data goes to stdout, messages to stderr. rich is imported only when a table is drawn, so
piped and scripted use never pays for it. NO_COLOR is honoured (rich reads it; plain output
never has colour).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TextIO

if TYPE_CHECKING:
    from zeromem_cli.models import HistoryEntry, Memory


class OutputFormat:
    """The output formats (``--format``), as text: the option offers them through
    ``FORMATS``, a ``Literal``; an ``Enum`` class cost every start of a command more than
    the rest of this module (``python -m benchmarks.startup_compare --callgrind``)."""

    table = "table"
    plain = "plain"
    json = "json"
    jsonl = "jsonl"
    ids = "ids"


FORMATS = Literal["table", "plain", "json", "jsonl", "ids"]


def resolve_format(fmt: str | None, as_json: bool) -> str:
    """--json wins; no choice means a table on a terminal and plain lines in a pipe."""
    if as_json:
        return OutputFormat.json
    if fmt is not None:
        return fmt
    return OutputFormat.table if sys.stdout.isatty() else OutputFormat.plain


def message(text: str, *, file: TextIO | None = None) -> None:
    """A human message: always stderr, never styled."""
    print(text, file=file or sys.stderr)


def error(text: str) -> None:
    """One line on stderr. Messages quote input (a bad value, a file name): likely secrets are
    masked, long values cut and control characters made visible here, on every error path at
    once (``text.display.message_line``)."""
    print(f"zeromem: error: {_message(text)}", file=sys.stderr)


def warning(text: str) -> None:
    print(f"zeromem: warning: {_message(text)}", file=sys.stderr)


def _message(text: str) -> str:
    from zeromem_cli.text.display import message_line

    return message_line(text)


def dumps(data: Any, *, indent: int | None = 2) -> str:
    import json  # JSON output only: plain and table output never load it

    return json.dumps(data, ensure_ascii=False, indent=indent)


def _one_line(text: str) -> str:
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ⏎ ")


def _masked(text: str) -> str:
    from zeromem_cli.text.secrets import mask_secrets

    return mask_secrets(text)


def shown(text: str) -> str:
    """A stored field as a person sees it in table and plain form: likely secrets masked,
    control and bidi characters made visible (``text.display``). JSON prints fields whole."""
    from zeromem_cli.text.display import shown as display

    return display(text)


def _console() -> Any:
    from rich.console import Console

    return Console(no_color=bool(os.environ.get("NO_COLOR")) or None, highlight=False)


def _score(score: float | None, digits: int = 4) -> str:
    """Significant digits, not decimals: BM25 clamps a word held by half of a tiny store to
    ~1e-6, which four decimals printed as a meaningless 0.0000."""
    return f"{score or 0.0:.{digits}g}"


def memories(items: Sequence[Memory], fmt: str, *, scores: bool = False) -> None:
    """A list of memories (list, search)."""
    if fmt == OutputFormat.json:
        print(dumps([m.to_dict() for m in items]))
    elif fmt == OutputFormat.jsonl:
        for m in items:
            print(dumps(m.to_dict(), indent=None))
    elif fmt == OutputFormat.ids:
        for m in items:
            print(m.id)
    elif fmt == OutputFormat.plain:
        for m in items:
            cells = [str(m.id)]
            if scores:
                cells.append(_score(m.score))
            cells += [shown(m.category), _one_line(shown(m.content))]
            print("\t".join(cells))
    else:
        if not items:
            message("no memories")
            return
        from zeromem_cli.cli import tables

        columns = [tables.Column("id", style="cyan", justify="right")]
        if scores:
            columns.append(tables.Column("score", drop=2, justify="right"))
        columns += [
            tables.Column("category", drop=1, style="magenta"),
            tables.Column("content", content=True),
            tables.Column("tags", drop=4, style="green", wrap=True),
            tables.Column(f"updated ({tables.zone()})", drop=3, style="dim"),
        ]
        rows = []
        for m in items:
            row = [str(m.id)]
            if scores:
                row.append(_score(m.score, digits=3))
            pin = "📌 " if m.pinned else ""
            row += [
                shown(m.category),
                pin + tables.cut(shown(m.content)),
                shown(tables.tag_list(m.tags)),
                tables.local_time(m.updated_at),
            ]
            rows.append(row)
        tables.draw(columns, rows, _console())


def _escape(cells: list[str]) -> list[Any]:
    """Memory text is data, not rich markup: wrap it in Text so '[red]' prints as written."""
    from rich.text import Text

    return [Text(c) for c in cells]


def changed(action: str, ids: Sequence[int], **extra: Any) -> None:
    """What a command that changes memories did, for scripts (``--json``): the action, how
    many and which ids (forget, purge, restore)."""
    print(dumps({"action": action, "count": len(ids), "ids": list(ids), **extra}))


def preview(items: Sequence[Memory], most: int, what: str) -> None:
    """What a bulk action selected (``what``: "selected 12 memories") and its first ``most``
    memories, one line each, on stderr, before it asks."""
    message(f"{what}:")
    for m in items[:most]:
        text = _one_line(shown(m.content))
        cut = text if len(text) <= 70 else text[:69] + "…"
        message(f"  #{m.id} [{shown(m.category)}] {cut}")
    if len(items) > most:
        message(f"  ... and {len(items) - most} more (--dry-run lists them all)")


def memory(item: Memory, fmt: str) -> None:
    """One memory (show, add --json, update)."""
    if fmt in (OutputFormat.json, OutputFormat.jsonl):
        print(dumps(item.to_dict(), indent=2 if fmt == OutputFormat.json else None))
    elif fmt == OutputFormat.ids:
        print(item.id)
    else:
        from zeromem_cli.cli.tables import local_moment

        record = item.to_dict()
        width = max(len(k) for k in record)
        lines = []
        for name, value in record.items():
            if isinstance(value, (list, dict)):
                value = dumps(value, indent=None) if value else ""
            elif value is None:
                value = ""
            elif name in _TIMES:  # a person reads local time, as tables show it; JSON keeps UTC
                value = local_moment(value)
            lines.append(f"{name.ljust(width)}  {shown(str(value))}")
        print("\n".join(lines))


_TIMES = frozenset({"created_at", "updated_at", "expires_at", "last_accessed_at", "deleted_at"})


def history(entries: Sequence[HistoryEntry], fmt: str) -> None:
    if fmt == OutputFormat.json:
        print(dumps([e.to_dict() for e in entries]))
    elif fmt == OutputFormat.jsonl:
        for e in entries:
            print(dumps(e.to_dict(), indent=None))
    elif fmt == OutputFormat.ids:
        for e in entries:
            print(e.version)
    elif fmt == OutputFormat.plain:
        for e in entries:
            print(
                "\t".join(
                    [
                        str(e.version),
                        e.valid_from,
                        e.valid_to or "",
                        e.change,
                        _one_line(shown(e.content)),
                    ]
                )
            )
    else:
        from zeromem_cli.cli import tables

        zone = tables.zone()
        columns = [
            tables.Column("version", justify="right"),
            tables.Column(f"valid from ({zone})", drop=2),
            tables.Column(f"valid to ({zone})", drop=3),
            tables.Column("change", drop=1),
            tables.Column("content", content=True),
        ]
        rows = [
            [
                str(e.version),
                tables.local_time(e.valid_from),
                tables.local_time(e.valid_to) or "now",
                e.change,
                tables.cut(shown(e.content)),
            ]
            for e in entries
        ]
        tables.draw(columns, rows, _console())


# -- ingest ---------------------------------------------------------------------------------

_PLAN_VERBS = {"added": "add", "updated": "update", "forgotten": "forget"}


def ingest_items(items: Sequence[Any], *, dry_run: bool) -> None:
    """What ingest did or would do, one tab-separated line per memory:
    action, id, category, key, content (forget: one line per memory forgotten)."""
    for item in items:
        candidate = item.candidate
        action = _PLAN_VERBS.get(item.action, item.action) if dry_run else item.action
        if candidate.action == "forget":
            if not item.forgotten:
                print("\t".join([action, "", "", "", _one_line(shown(candidate.content))]))
            for m in item.forgotten:
                cells = [action, str(m.id), shown(m.category), shown(m.key or "")]
                cells.append(_one_line(shown(m.content)))
                print("\t".join(cells))
            continue
        ids = ",".join(str(i) for i in item.memory_ids if i)
        content = _one_line(shown(candidate.content))  # a refused secret is not echoed
        cells = [action, ids, shown(candidate.category), shown(candidate.key or ""), content]
        print("\t".join(cells))


def ingest_rules(rules: Sequence[Any], fmt: str) -> None:
    """The active ingest rules (``ingest --rules``)."""
    columns = ("name", "family", "lang", "action", "category", "key", "ttl", "importance")
    if fmt in (OutputFormat.json, OutputFormat.jsonl):
        records = [rule.to_dict() for rule in rules]
        if fmt == OutputFormat.json:
            print(dumps(records))
        else:
            for record in records:
                print(dumps(record, indent=None))
        return
    rows = [
        [str(getattr(r, c) if getattr(r, c) is not None else "") for c in columns]
        + [("" if r.enabled else "disabled ") + r.source]
        for r in rules
    ]
    if fmt != OutputFormat.table:
        for row in rows:
            print("\t".join(row))
        return
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in (*columns, "source"):
        table.add_column(name, no_wrap=name != "key")
    for row in rows:
        table.add_row(*_escape(row))
    _console().print(table)


def trash(items: Sequence[Memory], fmt: str) -> None:
    """Soft-deleted memories with when and why they left (``zeromem trash``)."""
    if fmt != OutputFormat.plain and fmt != OutputFormat.table:
        memories(items, fmt)
    elif fmt == OutputFormat.plain:
        for m in items:
            cells = [str(m.id), m.deleted_at or "", m.deleted_reason or "", shown(m.category)]
            print("\t".join(cells + [_one_line(shown(m.content))]))
    elif not items:
        message("the trash is empty")
    else:
        from zeromem_cli.cli import tables

        columns = [
            tables.Column("id", style="cyan", justify="right"),
            tables.Column(f"deleted ({tables.zone()})", drop=2, style="dim"),
            tables.Column("reason", drop=3),
            tables.Column("category", drop=1, style="magenta"),
            tables.Column("content", content=True),
        ]
        rows = [
            [
                str(m.id),
                tables.local_time(m.deleted_at),
                m.deleted_reason or "",
                shown(m.category),
                tables.cut(shown(m.content)),
            ]
            for m in items
        ]
        tables.draw(columns, rows, _console())


def snippet(text: str) -> None:
    """Exactly ``text`` on stdout (pack: every character was counted against the budget).
    Written in pieces: a reader that leaves (``| head -1``) is then noticed at the next one
    even where one huge write() to a pipe reports success."""
    for start in range(0, len(text), 65536):
        sys.stdout.write(text[start : start + 65536])
        sys.stdout.flush()
    if not text:
        sys.stdout.flush()


def pack_stats(result: Any) -> None:
    """One line of pack diagnostics (a ``PackResult``) on stderr."""
    duplicates = sum(c.status.startswith("near-duplicate") for c in result.candidates)
    message(
        f"pack: {result.tokens}/{result.budget} tokens ({result.tokenizer}, {result.format}); "
        f"{len(result.memories)} of {result.considered} candidate memories included"
        + (f", {duplicates} near-duplicates collapsed" if duplicates else "")
    )


def pack_explain(result: Any) -> None:
    """Each candidate of a ``PackResult``: rank, score parts and why it is in or out."""
    message("rank\tid\tpin\tscore\trelevance\tcontext\timportance\trecency\taccess\ttokens\tstatus")
    for rank, candidate in enumerate(result.candidates, start=1):
        c = candidate.to_dict()
        message(
            f"{rank}\t{c['id']}\t{'yes' if c['pinned'] else ''}\t{c['score']:.3f}\t"
            f"{c['relevance']:.3f}\t{c['context']:.3f}\t{c['importance']:.2f}\t{c['recency']:.3f}\t"
            f"{c['access']:.3f}\t{c['tokens'] or ''}\t{c['status']}"
        )
