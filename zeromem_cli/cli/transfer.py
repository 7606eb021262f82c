"""``export`` and ``import``: thin wrappers over ``zeromem_cli.transfer.imports``.

The progress bar (rich) is drawn only when stderr is a terminal, and imported only then.
"""

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, Optional

import typer

from zeromem_cli.cli import app, render, render_info
from zeromem_cli.cli.options import (
    CategoryOption,
    IncludeExpiredOption,
    SinceOption,
    StoreOptions,
    TagOption,
    UntilOption,
    filters_from_flags,
    refuse_all_scopes_with_scope,
    store_options,
)
from zeromem_cli.errors import InvalidInputError

if TYPE_CHECKING:
    pass


class ExportFormat(str, Enum):
    jsonl = "jsonl"
    json = "json"
    csv = "csv"
    markdown = "markdown"


class ImportFormat(str, Enum):
    jsonl = "jsonl"
    json = "json"
    csv = "csv"
    claude_md = "claude-md"
    agents_md = "agents-md"
    gemini_md = "gemini-md"
    mcp_memory = "mcp-memory"


class ConflictPolicy(str, Enum):
    skip = "skip"
    update = "update"
    duplicate = "duplicate"


AllScopesOption = Annotated[
    bool,
    typer.Option(
        "--all-scopes", help="Every user/project/agent/session, each record keeping its own scope."
    ),
]


@app.command()
@store_options
def export(
    where: StoreOptions,
    fmt: Annotated[
        ExportFormat,
        typer.Option(
            "--format", "-f", case_sensitive=False, help="jsonl (lossless), json, csv, markdown."
        ),
    ] = ExportFormat.jsonl,
    output: Annotated[
        Optional[Path],
        typer.Option(
            "--output",
            "-o",
            help="Write to FILE (atomically, mode 600) instead of stdout; plain text, even "
            "from an encrypted store.",
            dir_okay=False,
        ),
    ] = None,
    category: CategoryOption = None,
    tag: TagOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    include_expired: IncludeExpiredOption = False,
    include_deleted: Annotated[
        bool, typer.Option("--include-deleted", help="Include forgotten memories (the trash).")
    ] = False,
    with_history: Annotated[
        bool, typer.Option("--with-history", help="Include every earlier version.")
    ] = False,
    all_scopes: AllScopesOption = False,
) -> None:
    """Export memories (jsonl by default: every field, one JSON object a line), in plain text:
    an encrypted store's export is readable by anyone who can read the file."""
    from zeromem_cli.transfer.export import write_atomically, write_export

    refuse_all_scopes_with_scope(all_scopes, where)
    with where.open(reading=True) as store:
        filters = filters_from_flags(
            store,
            category=category,
            tags=tag,
            since=since,
            until=until,
            include_expired=include_expired,
            include_deleted=include_deleted,
        )
        records = store.export(filters, all_scopes=all_scopes, with_history=with_history)
        if output is None:
            write_export(records, fmt.value, sys.stdout)
        else:
            write_atomically(output, lambda handle: write_export(records, fmt.value, handle))
            render.message(f"exported {len(records)} memories to {output}")


def _read_input(source: Path) -> tuple[str | None, str]:
    """(file name or None for stdin, text)."""
    if str(source) == "-":
        data = sys.stdin.buffer.read()
        name = None
    else:
        path = source
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise InvalidInputError(f"no such file: {source}") from None
        except IsADirectoryError:
            raise InvalidInputError(f"{source} is a directory") from None
        except OSError as exc:
            raise InvalidInputError(f"cannot read {source}: {exc.strerror or exc}") from None
        name = path.name
    try:
        return name, data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{source} is not valid UTF-8 (byte {exc.start}); nothing was imported"
        ) from None


@contextmanager
def _progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr when it is a terminal; None (no output) otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


@app.command("import")
@store_options
def import_(
    where: StoreOptions,
    source: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="File to import; - reads stdin.",
            show_default=False,
            dir_okay=False,
        ),
    ],
    fmt: Annotated[
        Optional[ImportFormat],
        typer.Option(
            "--format",
            "-f",
            case_sensitive=False,
            help="jsonl, json, csv, or a memory file: claude-md, agents-md, gemini-md, "
            "mcp-memory (default: from the file name or the content).",
            show_default=False,
        ),
    ] = None,
    on_conflict: Annotated[
        ConflictPolicy,
        typer.Option(
            "--on-conflict",
            case_sensitive=False,
            help="When a uid or key already exists: skip it, update it, or add a duplicate.",
        ),
    ] = ConflictPolicy.skip,
    skip_invalid: Annotated[
        bool,
        typer.Option("--skip-invalid", help="Import the valid records and report the others."),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check and count, but write nothing.")
    ] = False,
    all_scopes: AllScopesOption = False,
    allow_secret: Annotated[
        bool,
        typer.Option(
            "--allow-secret",
            help="Import records holding likely credentials (API keys, passwords...) "
            "instead of refusing them.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Import memories from jsonl, json, csv, a Mem0 get_all dump, CLAUDE.md / AGENTS.md /
    GEMINI.md or an MCP memory.jsonl (idempotent by uid)."""
    from zeromem_cli.requests import ImportRequest
    from zeromem_cli.transfer import memory_files
    from zeromem_cli.transfer.imports import InvalidRecordsError
    from zeromem_cli.transfer.read import detect_format, parse

    refuse_all_scopes_with_scope(all_scopes, where)
    try:
        name, text = _read_input(source)
        chosen = fmt.value if fmt is not None else memory_files.detect(name, text)
        chosen = chosen or detect_format(name, text)
        plan = None
        if chosen in memory_files.MEMORY_FILE_FORMATS:
            plan = memory_files.read(chosen, None if str(source) == "-" else source, text)
            if where.project is not None:  # --project names where the file's memories go
                memory_files.drop_projects(plan)
    except KeyboardInterrupt:
        _interrupted()
    with where.open() as store, _progress_bar("importing") as progress:
        try:
            request = ImportRequest(
                on_conflict=on_conflict.value,
                skip_invalid=skip_invalid,
                all_scopes=all_scopes,
                dry_run=dry_run,
                progress=progress,
                allow_secret=allow_secret,
                # A memory file in a repository goes to its project, unless --project says.
                own_projects=plan is not None and where.project is None,
            )
            records = parse(text, chosen) if plan is None else plan.records
            report = store.import_records(records, request)
        except KeyboardInterrupt:  # the one transaction was rolled back
            _interrupted()
        except InvalidRecordsError as exc:
            _print_errors(exc.errors)
            count = len(exc.errors)
            raise InvalidInputError(
                f"{count} invalid record{'s' if count != 1 else ''}; nothing was imported "
                "(--skip-invalid imports the valid ones)"
            ) from None
        waiting = store.unindexed() if not dry_run and report.added + report.updated else 0
    _print_errors(report.invalid, warn=True)
    if waiting and not as_json:
        render.message(
            f"semantic recall: {waiting} memories have no vector yet (found by words until "
            "then): run `zeromem index`"
        )
    summary = report.to_dict()
    if plan is not None:
        summary.update(memory_files.plan_summary(plan, report.invalid, dry_run))
        render_info.memory_file_plan(summary, as_json)
    render_info.import_report(summary, as_json)


def _interrupted() -> NoReturn:
    """Ctrl-C while reading or importing: the import is one transaction, so nothing is in."""
    render.error("interrupted: nothing was imported")
    raise typer.Exit(130)


MAX_ERRORS_SHOWN = 20


def _print_errors(errors: Sequence[InvalidInputError], *, warn: bool = False) -> None:
    show = render.warning if warn else render.error
    for error in errors[:MAX_ERRORS_SHOWN]:
        show(f"{error}{' (skipped)' if warn else ''}")
    if len(errors) > MAX_ERRORS_SHOWN:
        show(f"... and {len(errors) - MAX_ERRORS_SHOWN} more")
