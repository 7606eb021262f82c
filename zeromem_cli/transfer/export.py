"""Export: memories out to jsonl / json / csv / markdown.

Export reads rows in id order and writes one format; ``jsonl`` is lossless (every field, and
``history`` with ``with_history``), so export -> import into an empty database -> export gives
the same bytes; ``json`` holds the same records. ``csv`` and ``markdown`` are read by people
(a spreadsheet, a document): there every text cell is masked and made terminal-safe like the
table output (``text.display``). A file is written atomically (``write_atomically``).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.files import write_file
from zeromem_cli.models import MEMORY_FIELDS, Filters
from zeromem_cli.text.display import shown
from zeromem_cli.versions import earlier_versions

if TYPE_CHECKING:
    from zeromem_cli.models import Scope
    from zeromem_cli.storage.base import Backend

EXPORT_FORMATS = ("jsonl", "json", "csv", "markdown")


def export_records(
    backend: Backend,
    scope: Scope | None,
    now: datetime,
    filters: Filters | None = None,
    with_history: bool = False,
) -> list[dict[str, Any]]:
    """The records to export, oldest id first (``scope``, or every scope when None); called
    through ``MemoryStore.export``."""
    found = backend.in_id_order(scope, filters or Filters(), now)
    records = [memory.to_dict() for memory in found]
    if with_history:
        versions = earlier_versions(backend, [r["id"] for r in records])
        for record in records:
            record["history"] = versions.get(record["id"], [])
    return records


def write_export(records: list[dict[str, Any]], fmt: str, out: IO[str]) -> None:
    """Write ``records`` to ``out`` in one of EXPORT_FORMATS."""
    if fmt == "jsonl":
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    elif fmt == "json":
        out.write(json.dumps(records, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "csv":
        _write_csv(records, out)
    elif fmt == "markdown":
        out.write(to_markdown(records))
    else:
        raise InvalidInputError(f"unknown export format {fmt!r} (use {', '.join(EXPORT_FORMATS)})")


def _write_csv(records: list[dict[str, Any]], out: IO[str]) -> None:
    columns = list(MEMORY_FIELDS) + (["history"] if records and "history" in records[0] else [])
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        cells = []
        for name in columns:
            value = record.get(name)
            if value is None:
                cells.append("")
            elif isinstance(value, bool):
                cells.append("true" if value else "false")
            elif isinstance(value, (list, dict)):
                cells.append(json.dumps(value, ensure_ascii=False))
            else:
                cells.append(str(value))
        writer.writerow([shown(cell) for cell in cells])


def _shown_record(record: dict[str, Any]) -> dict[str, Any]:
    return {
        name: shown(value) if isinstance(value, str) else value for name, value in record.items()
    } | {"tags": [shown(tag) for tag in record.get("tags") or []]}


def to_markdown(records: list[dict[str, Any]]) -> str:
    """A document for people: one section per category, one bullet per memory."""
    records = [_shown_record(record) for record in records]
    lines = ["# zeromem memories", ""]
    if not records:
        lines += ["_No memories._", ""]
    by_category: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_category.setdefault(record["category"], []).append(record)
    for category in sorted(by_category):
        items = by_category[category]
        lines += [f"## {category} ({len(items)})", ""]
        for record in items:
            text = record["content"].replace("\n", "\n  ")
            details = [f"#{record['id']}"]
            if record["pinned"]:
                details.append("pinned")
            if record["key"]:
                details.append(f"key `{record['key']}`")
            if record["tags"]:
                details.append("tags " + ", ".join(record["tags"]))
            details.append(f"importance {record['importance']}")
            scope = [
                f"{n} {record[n]}" for n in ("user", "project", "agent", "session") if record[n]
            ]
            details += scope
            details.append(f"added {record['created_at'][:10]}")
            if record["expires_at"]:
                details.append(f"expires {record['expires_at'][:10]}")
            if record["deleted_at"]:
                details.append(f"forgotten {record['deleted_at'][:10]}")
            lines.append(f"- {text}")
            lines.append(f"  <sub>{' · '.join(details)}</sub>")
        lines.append("")
    return "\n".join(lines)


def write_atomically(path: Path, write: Callable[[IO[str]], None]) -> None:
    """``export -o``: ``-`` is stdout; any other path follows ``files.write_file`` (a regular
    file replaced atomically, 0600; a device, FIFO or descriptor written straight through)."""
    if str(path) == "-":
        write(sys.stdout)
        sys.stdout.flush()
        return
    write_file(path, write)
