"""Commands that make memories leave: ``forget`` (soft or ``--purge``), ``trash`` and ``gc``.

The selection, deletion and gc logic live in ``zeromem_cli.lifecycle``; this module parses
options, asks for confirmation and hands the results to ``render``.
"""

from typing import Annotated, Optional

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import (
    CategoryOption,
    FormatOption,
    JsonOption,
    StoreOptions,
    TagOption,
    confirm_or_refuse,
    settings,
    store_options,
)
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.oplog import record_operation


def _plural(count: int) -> str:
    return f"{count} memor{'y' if count == 1 else 'ies'}"


@app.command()
@store_options
def forget(
    where: StoreOptions,
    memory_ids: Annotated[
        Optional[list[int]],
        typer.Argument(help="Memory ids.", min=1, show_default=False),
    ] = None,
    key: Annotated[
        Optional[str], typer.Option("--key", "-k", help="The memory with this key.")
    ] = None,
    query: Annotated[
        Optional[str],
        typer.Option("--query", help="Every memory `search` would find for this text."),
    ] = None,
    limit: Annotated[
        Optional[int],
        typer.Option("--limit", "-n", min=1, help="With --query: only the N best matches."),
    ] = None,
    category: CategoryOption = None,
    tag: TagOption = None,
    before: Annotated[
        Optional[str],
        typer.Option("--before", help="Created before an ISO date, or before 7d, 24h... ago."),
    ] = None,
    everything: Annotated[
        bool, typer.Option("--all", help="Every memory of the scope (alone or with filters).")
    ] = False,
    purge: Annotated[
        bool,
        typer.Option(
            "--purge",
            help="Delete for good: row, history and index; live and trashed memories alike.",
        ),
    ] = False,
    trash: Annotated[
        bool,
        typer.Option("--trash", help="With --purge: select only memories already in the trash."),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would be forgotten; change nothing.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """Forget memories: soft delete (`restore` undoes it), or --purge to delete for good.

    Criteria combine: `forget --category note --before 90d` forgets old notes only.
    """
    from zeromem_cli import lifecycle
    from zeromem_cli.times import parse_since

    if trash and not purge:
        raise InvalidInputError("--trash selects forgotten memories: use it with --purge")
    with where.open() as store:
        selection = lifecycle.Selection(
            ids=memory_ids or (),
            key=key,
            query=query,
            category=category,
            tags=tag or (),
            before=parse_since(before, store.now()) if before else None,
            everything=everything,
            state=lifecycle.TRASH if trash else (lifecycle.ANY if purge else lifecycle.LIVE),
            limit=limit,
        )
        selected = lifecycle.select(store, selection)
        count = len(selected)
        verb = "purge" if purge else "forget"
        if dry_run:
            render.memories(selected, render.resolve_format(fmt, as_json))
            render.message(f"would {verb} {_plural(count)}")
            return
        if not count:
            render.message(f"nothing to {verb}")
            return
        if purge:
            question = f"Purge {_plural(count)} for good? This cannot be undone."
        else:
            question = f"Forget {_plural(count)}?"
        confirm_or_refuse(question, yes)
        ids = [m.id for m in selected]
        if purge:
            result = lifecycle.purge(store, ids)
            record_operation(store, "purge", result.purged)
            render.message(f"purged {_plural(result.purged)}")
            if not result.wal_truncated:
                render.warning(
                    "another process is reading the database, so the write-ahead log still "
                    "holds old pages; run `zeromem gc` when it is done"
                )
        else:
            forgotten = lifecycle.forget(store, ids)
            record_operation(store, "forget", forgotten)
            render.message(f"forgot {_plural(forgotten)}")


@app.command("trash")
@store_options
def show_trash(
    where: StoreOptions,
    reason: Annotated[
        Optional[str],
        typer.Option("--reason", help="Only forgotten, expired or archived memories."),
    ] = None,
    limit: Annotated[
        Optional[int], typer.Option("--limit", "-n", min=1, help="At most N memories.")
    ] = None,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """List soft-deleted memories (forgotten, expired, archived); `restore ID` brings one back."""
    from zeromem_cli import lifecycle

    if reason is not None and reason not in ("forgotten", "expired", "archived"):
        raise InvalidInputError(f"--reason is forgotten, expired or archived, not {reason!r}")
    with where.open(reading=True) as store:
        items = lifecycle.trash(store, reason=reason, limit=limit)
    render.trash(items, render.resolve_format(fmt, as_json))


@app.command()
@store_options
def gc(
    where: StoreOptions,
    vacuum: Annotated[
        bool, typer.Option("--vacuum", help="Also compact the database file (VACUUM).")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would be done; change nothing.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print nothing unless something fails (cron).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Move expired memories to the trash, purge old trash, archive stale memories (if enabled
    in config), optimize the index. Covers every scope unless a scope option is given."""
    from zeromem_cli import lifecycle

    config = settings()
    policy = lifecycle.GcPolicy(
        trash_retention_days=config.get("gc.trash_retention_days"),
        archive_enabled=config.get("gc.archive_enabled"),
        archive_after_days=config.get("gc.archive_after_days"),
        archive_max_importance=config.get("gc.archive_max_importance"),
    )
    all_scopes = where.user is None and where.agent is None and where.session is None
    with where.open() as store:
        report = lifecycle.collect_garbage(
            store, policy, all_scopes=all_scopes, vacuum=vacuum, dry_run=dry_run
        )
    if as_json:
        print(render.dumps(report.to_dict()))
    elif not quiet:
        print(report.summary())
        for note in report.notes:
            render.warning(note)
