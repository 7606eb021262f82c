"""Printing for the housekeeping commands: config, path, stats, import reports.

Same rules as ``render``: data to stdout (JSON with --json, tab-separated lines otherwise),
messages to stderr, rich only for a table on a terminal and imported there.
"""

from __future__ import annotations

import sys
from typing import Any

from zeromem_cli.cli.render import _console, _escape, _one_line, dumps, message, shown


def config_value(value: Any) -> str:
    """A setting as text, the way ``config set`` accepts it back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def config_items(items: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(dumps(items))
        return
    if not sys.stdout.isatty():
        for item in items:
            print(f"{item['key']}\t{config_value(item['value'])}\t{item['source']}")
        return
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in ("key", "value", "source", "description"):
        table.add_column(name, overflow="fold")
    for item in items:
        table.add_row(
            *_escape([item["key"], config_value(item["value"]), item["source"], item["help"]])
        )
    _console().print(table)


def single_value(value: Any, as_json: bool) -> None:
    print(dumps(value) if as_json else config_value(value))


def paths(entries: dict[str, str], as_json: bool) -> None:
    if as_json:
        print(dumps(entries))
    else:
        for name, value in entries.items():
            print(f"{name}\t{value}")


def _human_bytes(size: int) -> str:
    amount = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if amount < 1024 or unit == "GiB":
            return f"{amount:.0f} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    return f"{size} B"  # pragma: no cover


def stats(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(dumps(data))
        return
    counts = data["memories"]
    tokens = data["tokens"]
    lines = [
        ("scope", "all scopes" if data["scope"] == "all" else "current scope"),
        ("live", str(counts["live"])),
        ("expired", str(counts["expired"])),
        ("trash", str(counts["trash"])),
        ("pinned", str(counts["pinned"])),
        ("with keys", str(counts["with_keys"])),
        ("database size", _human_bytes(data["database_bytes"])),
        ("stored tokens (approx)", str(tokens["stored"])),
    ]
    vectors = data["vectors"]
    if vectors["model"] is not None:
        share = vectors["coverage"]
        lines.append(
            (
                "semantic vectors",
                f"{vectors['embedded']} of {counts['live']} live"
                + (f" ({share:.0%})" if share is not None else "")
                + f", {_human_bytes(vectors['bytes'])}, {vectors['model']}",
            )
        )
    if tokens["pack_average"] is None:
        lines.append(("pack average tokens", "no pack runs logged yet"))
    else:
        lines.append(
            ("pack average tokens", f"{tokens['pack_average']:g} over {tokens['pack_runs']} runs")
        )
        if tokens["pack_saving"] is not None:
            lines.append(("pack saves", f"{tokens['pack_saving']:.1%} of stored tokens"))
    for category, count in data["by_category"].items():
        lines.append((f"category {shown(category)}", str(count)))
    for scope in data["by_scope"]:
        label = " ".join(
            f"{k}={shown(scope[k])}" for k in ("user", "project", "agent", "session") if scope[k]
        )
        lines.append((f"scope {label or '(unscoped)'}", str(scope["live"])))
    for op, count in data["operations"].items():
        lines.append((f"ops {op}", str(count)))
    width = max(len(name) for name, _ in lines)
    tty = sys.stdout.isatty()
    for name, value in lines:
        print(f"{name:<{width}}  {value}" if tty else f"{name}\t{value}")


def import_report(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(dumps(report))
        return
    verb = "would import" if report["dry_run"] else "imported"
    message(
        f"{verb} {report['added'] + report['updated']} of {report['read']} records: "
        f"{report['added']} added, {report['updated']} updated, {report['unchanged']} unchanged, "
        f"{report['skipped']} skipped, {report['invalid']} invalid"
        + (f", {report['keys_dropped']} keys dropped" if report["keys_dropped"] else "")
    )


def memory_file_plan(summary: dict[str, Any], as_json: bool) -> None:
    """A memory-file import: the files read and imports not followed (stderr) and, for a
    dry run, one line per memory (stdout: place, category, tags, text). Likely secrets are
    masked here, JSON included: a dry run lists records that were not checked for them."""
    from zeromem_cli.text.secrets import mask_secrets

    for row in summary.get("plan", []):
        row["content"] = mask_secrets(row["content"])
        row["category"] = mask_secrets(row["category"])
        row["tags"] = [mask_secrets(tag) for tag in row["tags"]]
    if as_json:
        return
    message(f"read {', '.join(summary['files'])}")
    for note in summary["notes"]:
        message(note)
    for row in summary.get("plan", []):
        cells = [row["where"], row["category"], ", ".join(row["tags"]), row["content"]]
        print("\t".join(_one_line(shown(cell)) for cell in cells))


def init_report(report: dict[str, Any], as_json: bool) -> None:
    """What ``admin init-postgres`` did: migrations applied, roles granted, the version."""
    if as_json:
        print(dumps(report))
        return
    for step in report["applied"]:
        print(f"applied migration {step}")
    if not report["applied"]:
        print(f"schema already at version {report['version']}: no migration to apply")
    for role in report["granted"]:
        print(f"granted role {role} the use of the store")
    print(f"{report['database']}: zeromem schema version {report['version']}")
    if not report.get("members_use_the_index", True):
        from zeromem_cli.storage.postgres.admin import LEAKPROOF_SQL

        message(
            "note: members' searches read every row (row-level security keeps them off the "
            "search index unless the text-search match is leakproof); a superuser may run: "
            f"{LEAKPROOF_SQL}"
        )
