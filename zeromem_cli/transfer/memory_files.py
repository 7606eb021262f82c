"""Memory files that other tools keep, as ``zeromem import`` formats.

``claude-md`` (Claude Code's CLAUDE.md, with its ``@`` imports), ``agents-md`` (AGENTS.md),
``gemini-md`` (GEMINI.md, with imports) and ``mcp-memory`` (the MCP reference memory server's
``memory.jsonl``). Reading one gives a ``MemoryFilePlan``: raw records with their place, which
``transfer.imports.import_records`` validates (secrets included) and writes in one
transaction like any other import, plus what was read on the way (files, imports not
followed). The readers live in ``markdown_memory`` and ``mcp_memory``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zeromem_cli.transfer.read import RecordError

MEMORY_FILE_FORMATS = ("claude-md", "agents-md", "gemini-md", "mcp-memory")
_BY_NAME = {
    "claude.md": "claude-md",
    "claude.local.md": "claude-md",
    "agents.md": "agents-md",
    "agents.override.md": "agents-md",
    "gemini.md": "gemini-md",
}


@dataclass
class MemoryFilePlan:
    """What reading a memory file found: records for ``import_records`` and what was read."""

    format: str
    records: list[tuple[str, Any]] = field(default_factory=list)  # (where, raw record)
    files: list[str] = field(default_factory=list)  # the files read, in order
    notes: list[str] = field(default_factory=list)  # imports not followed, and why


def detect(name: str | None, text: str) -> str | None:
    """The memory-file format of a file, from its name, else its content; None when it is
    none of them (the record formats are detected next)."""
    from zeromem_cli.transfer.mcp_memory import looks_like_graph

    lowered = (name or "").lower()
    if lowered in _BY_NAME:
        return _BY_NAME[lowered]
    if lowered.endswith((".jsonl", ".json", ".ndjson")) or not lowered:
        return "mcp-memory" if looks_like_graph(text) else None
    if lowered.endswith((".md", ".markdown")):
        return "claude-md"
    return None


def drop_projects(plan: MemoryFilePlan) -> None:
    """Forget the project each record's repository gave it (the command names one)."""
    for _, record in plan.records:
        if isinstance(record, dict):
            record.pop("project", None)


def plan_summary(
    plan: MemoryFilePlan, invalid: Sequence[RecordError], dry_run: bool
) -> dict[str, Any]:
    """What an import of ``plan`` adds to its report: the files read, the imports not
    followed and, for a dry run, each memory it would store (the invalid ones left out)."""
    summary: dict[str, Any] = {"format": plan.format, "files": plan.files, "notes": plan.notes}
    if dry_run:
        skipped = {error.where for error in invalid}
        summary["plan"] = [
            {
                "where": where,
                "category": record.get("category") or "general",
                "tags": list(record.get("tags") or []),
                "content": record["content"],
            }
            for where, record in plan.records
            if isinstance(record, dict) and where not in skipped
        ]
    return summary


def read(fmt: str, path: Path | None, text: str) -> MemoryFilePlan:
    """The records of memory file ``path`` (None: ``text`` came from stdin) in ``fmt``."""
    if fmt == "mcp-memory":
        from zeromem_cli.transfer.mcp_memory import graph_records

        plan = MemoryFilePlan(fmt, graph_records(text))
        plan.files.append(path.name if path is not None else "stdin")
        return plan
    from zeromem_cli.transfer.markdown_memory import read_markdown

    return read_markdown(fmt, path, text)
