"""Commands that make memories leave and come back: ``forget`` (soft or ``--purge``),
``restore``, ``trash`` and ``gc``.

The selection, deletion and gc logic live in ``zeromem_cli.lifecycle``; this module parses
options, asks for confirmation and hands the results to ``render``.
"""

from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import (
    CategoryOption,
    FormatOption,
    JsonOption,
    JsonResultOption,
    StoreOptions,
    TagOption,
    confirm_or_refuse,
    settings,
    store_options,
)
from zeromem_cli.errors import InvalidInputError

if TYPE_CHECKING:
    from zeromem_cli.lifecycle import Selection
    from zeromem_cli.store import MemoryStore


def _plural(count: int) -> str:
    return f"{count} memor{'y' if count == 1 else 'ies'}"


MemoryRefs = Annotated[
    Optional[list[str]],
    typer.Argument(help="Memory ids, uids or unique uid prefixes.", show_default=False),
]
KeySelector = Annotated[
    Optional[str], typer.Option("--key", "-k", help="The memory with this key.")
]
QuerySelector = Annotated[
    Optional[str],
    typer.Option(
        "--query",
        help="Memories holding every content word of this text (all of them, not any).",
    ),
]
LimitSelector = Annotated[
    Optional[int],
    typer.Option("--limit", "-n", min=1, help="With --query: only the N best matches."),
]
BeforeSelector = Annotated[
    Optional[str],
    typer.Option("--before", help="Created before an ISO date, or before 7d, 24h... ago."),
]
AllSelector = Annotated[
    bool, typer.Option("--all", help="Every memory of the scope (alone or with filters).")
]
ChangeJsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print what changed as JSON ({action, count, ids}); with --dry-run the "
        "selected records, as --format json.",
    ),
]

# How many memories a forget --query lists before asking.
PREVIEW = 5


def _selection(
    store: "MemoryStore",
    refs: list[str] | None,
    *,
    key: str | None,
    query: str | None,
    category: str | None,
    tags: list[str] | None,
    before: str | None,
    everything: bool,
    state: str,
    limit: int | None,
) -> "Selection":
    from zeromem_cli.lifecycle import Selection
    from zeromem_cli.times import parse_since

    return Selection(
        ids=[store.resolve(ref) for ref in refs or ()],
        key=key,
        query=query,
        category=category,
        tags=tags or (),
        before=parse_since(before, store.now()) if before else None,
        everything=everything,
        state=state,
        limit=limit,
    )


def _refuse_broad_query(count: int, query: str | None, limit: int | None, yes: bool) -> None:
    """``forget --query Q --yes`` may not remove more than ``forget.query_max`` memories unless
    ``--limit`` says how many were meant (seen with ``--dry-run`` first)."""
    most = settings().get("forget.query_max")
    if query is None or limit is not None or not yes or count <= most:
        return
    raise InvalidInputError(
        f"--query selects {_plural(count)}, more than forget.query_max ({most}) at once: "
        f"look at them with --dry-run, then confirm the number with --limit {count}"
    )


@app.command()
@store_options
def forget(
    where: StoreOptions,
    memory_ids: MemoryRefs = None,
    key: KeySelector = None,
    query: QuerySelector = None,
    limit: LimitSelector = None,
    category: CategoryOption = None,
    tag: TagOption = None,
    before: BeforeSelector = None,
    everything: AllSelector = False,
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
    as_json: ChangeJsonOption = False,
) -> None:
    """Forget memories: soft delete (`restore` undoes it), or --purge to delete for good.

    Criteria combine: `forget --category note --before 90d` forgets old notes only.
    """
    from zeromem_cli import lifecycle

    if trash and not purge:
        raise InvalidInputError("--trash selects forgotten memories: use it with --purge")
    with where.open(create=False) as store:
        state = lifecycle.TRASH if trash else (lifecycle.ANY if purge else lifecycle.LIVE)
        selection = _selection(
            store,
            memory_ids,
            key=key,
            query=query,
            category=category,
            tags=tag,
            before=before,
            everything=everything,
            state=state,
            limit=limit,
        )
        selected = store.select(selection)
        count = len(selected)
        verb = "purge" if purge else "forget"
        action = "purged" if purge else "forgotten"
        if dry_run:
            render.memories(selected, render.resolve_format(fmt, as_json))
            render.message(f"would {verb} {_plural(count)}")
            return
        if not count:
            render.message(f"nothing to {verb}")
            if as_json:
                render.changed(action, [])
            return
        _refuse_broad_query(count, query, limit, yes)
        if purge:
            question = f"Purge {_plural(count)} for good? This cannot be undone."
        else:
            question = f"Forget {_plural(count)}?"
        if not yes and not memory_ids:
            render.preview(selected, PREVIEW, f"{verb} would take {_plural(count)}")
        confirm_or_refuse(question, yes)
        ids = [m.id for m in selected]
        if purge:
            result = store.purge(ids)
            render.message(f"purged {_plural(result.purged)}")
            if not result.wal_truncated:
                render.warning(
                    "another process is reading the database, so the write-ahead log still "
                    "holds old pages; run `zeromem gc` when it is done"
                )
            if as_json:
                render.changed(action, ids, wal_truncated=result.wal_truncated)
        else:
            forgotten = store.forget(*ids, strict=False)
            render.message(f"forgot {_plural(forgotten)}")
            if as_json:
                render.changed(action, ids)


@app.command()
@store_options
def restore(
    where: StoreOptions,
    memory_ids: MemoryRefs = None,
    key: KeySelector = None,
    query: QuerySelector = None,
    limit: LimitSelector = None,
    category: CategoryOption = None,
    tag: TagOption = None,
    before: BeforeSelector = None,
    everything: AllSelector = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would be restored; change nothing.")
    ] = False,
    fmt: FormatOption = None,
    as_json: ChangeJsonOption = False,
) -> None:
    """Bring back forgotten, expired or archived memories: by ids, or with the selectors of
    `forget` (an over-broad forget is one command to undo), all in one transaction."""
    from zeromem_cli import lifecycle

    with where.open(create=False) as store:
        selection = _selection(
            store,
            memory_ids,
            key=key,
            query=query,
            category=category,
            tags=tag,
            before=before,
            everything=everything,
            state=lifecycle.TRASH,
            limit=limit,
        )
        selected = store.select(selection, verb="restore")
        if dry_run:
            render.memories(selected, render.resolve_format(fmt, as_json))
            render.message(f"would restore {_plural(len(selected))}")
            return
        restored = lifecycle.restore(store, [m.id for m in selected])
    ids = [m.id for m in restored]
    if as_json:
        render.changed("restored", ids)
        return
    if not ids:
        render.message("nothing to restore")
        return
    render.message(f"restored #{ids[0]}" if len(ids) == 1 else f"restored {_plural(len(ids))}")
    for memory_id in ids:
        print(memory_id)


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
    if reason is not None and reason not in ("forgotten", "expired", "archived"):
        raise InvalidInputError(f"--reason is forgotten, expired or archived, not {reason!r}")
    with where.open(reading=True) as store:
        items = store.trash(reason=reason, limit=limit)
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
    as_json: JsonResultOption = False,
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
    all_scopes = all(v is None for v in (where.user, where.agent, where.session, where.project))
    with where.open(create=False) as store:
        report = store.gc(policy, all_scopes=all_scopes, vacuum=vacuum, dry_run=dry_run)
        indexed = None
        if not dry_run and store.unindexed(all_scopes=all_scopes):  # embed what has none
            try:
                indexed = _run_index(store, all_scopes)
            except InvalidInputError:
                pass  # the model did not load: the store told why, and gc's work stands
    if as_json:
        print(render.dumps({**report.to_dict(), "indexed": indexed and indexed.__dict__}))
    elif not quiet:
        print(report.summary())
        if indexed is not None:
            print(indexed.summary())
        for note in report.notes:
            render.warning(note)


@app.command("index")
@store_options
def index(
    where: StoreOptions,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print nothing unless something fails (cron).")
    ] = False,
    as_json: JsonResultOption = False,
) -> None:
    """Embed the memories that have no vector yet (semantic recall, zeromem[semantic]):
    after an import, an upgrade or a change of model. Resumable: run it again after an
    interruption. Covers every scope unless a scope option is given."""
    all_scopes = all(v is None for v in (where.user, where.agent, where.session, where.project))
    with where.open() as store:
        report = _run_index(store, all_scopes)
    if as_json:
        print(render.dumps(report.__dict__))
    elif not quiet:
        print(report.summary())


def _run_index(store: "MemoryStore", all_scopes: bool) -> Any:
    """``MemoryStore.index`` with a progress bar on a terminal's stderr."""
    import sys

    if not sys.stderr.isatty():
        return store.index(all_scopes=all_scopes)
    from rich.console import Console
    from rich.progress import Progress

    total = store.unindexed(all_scopes=all_scopes)
    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("embedding memories", total=total)
        return store.index(all_scopes=all_scopes, progress=lambda n: bar.advance(task, n))
