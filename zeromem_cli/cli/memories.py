"""Commands that write and read single memories: add, show, list, update, history
(``forget`` and ``restore`` live in ``cli/lifecycle.py``). Each parses arguments, calls
``MemoryStore`` and hands the result to ``render``."""

from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import (
    CategoryOption,
    FormatOption,
    IncludeExpiredOption,
    JsonOption,
    JsonResultOption,
    KeyOption,
    SinceOption,
    StoreOptions,
    TagOption,
    UntilOption,
    filters_from_flags,
    parse_meta,
    read_text_argument,
    settings,
    store_options,
)
from zeromem_cli.errors import InvalidInputError

if TYPE_CHECKING:
    from zeromem_cli.models import Memory

MetaOption = Annotated[
    Optional[list[str]],
    typer.Option("--meta", help="KEY=VALUE metadata (repeatable).", show_default=False),
]
TtlOption = Annotated[
    Optional[str],
    typer.Option(
        "--ttl", help="Expire after 30s, 15min, 24h, 7d, 2w, 6mo, 1y (or P6M), or at an ISO date."
    ),
]
AllowSecretOption = Annotated[
    bool,
    typer.Option(
        "--allow-secret", help="Store text even if it looks like a password, key or token."
    ),
]
IdArgument = Annotated[
    str, typer.Argument(help="Memory id, uid, or a unique uid prefix.", show_default=False)
]


def _print_written(memory: "Memory", as_json: bool) -> None:
    """What add and update print: the id, or the whole record with --json."""
    if as_json:
        render.memory(memory, render.OutputFormat.json)
    else:
        print(memory.id)


@app.command()
@store_options
def add(
    where: StoreOptions,
    text: Annotated[
        str, typer.Argument(help="The memory text; - reads stdin.", show_default=False)
    ],
    category: CategoryOption = None,
    tag: TagOption = None,
    key: KeyOption = None,
    importance: Annotated[
        Optional[int],
        typer.Option("--importance", "-i", min=0, max=10, help="0 (trivial) to 10 [default: 5]."),
    ] = None,
    pin: Annotated[bool, typer.Option("--pin", help="Pin: always packed first.")] = False,
    meta: MetaOption = None,
    ttl: TtlOption = None,
    allow_duplicate: Annotated[
        bool,
        typer.Option("--allow-duplicate", help="Add even if identical or similar content exists."),
    ] = False,
    merge: Annotated[
        bool,
        typer.Option("--merge", help="If a similar memory exists, make this its next version."),
    ] = False,
    allow_secret: AllowSecretOption = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the record as JSON, with its action (added, updated, duplicate, "
            "merged) and the similar memories found.",
        ),
    ] = False,
) -> None:
    """Add a memory and print its id (or the whole record with --json)."""
    from zeromem_cli.requests import WriteRequest

    content = read_text_argument(text)
    config = settings()
    request = WriteRequest(
        category=category,
        default_category=config.get("add.default_category"),
        tags=tag,
        key=key,
        importance=importance,
        pinned=True if pin else None,
        meta=parse_meta(meta),
        ttl=config.choose(ttl, "add.default_ttl"),
        allow_duplicate=allow_duplicate,
        merge=merge,
        allow_secret=allow_secret,
    )
    with where.open() as store:
        result = store.write(content, request)
    memory = result.memory
    if result.action == "duplicate":
        render.message(f"duplicate of #{memory.id}: nothing added")
    elif result.action == "updated":
        render.message(f"updated #{memory.id} (key {memory.key!r})")
    elif result.action == "merged":
        render.message(f"merged into #{memory.id} (similar, {result.similar[0][1]:.2f})")
    elif result.similar:
        near = ", ".join(f"#{i} ({score:.2f})" for i, score in result.similar[:3])
        render.message(f"similar to {near}; --merge updates #{result.similar[0][0]} instead")
    if as_json:  # the record, and what became of the text (as the MCP memory_save says it)
        similar = [{"id": number, "similarity": score} for number, score in result.similar]
        print(render.dumps({"action": result.action, **memory.to_dict(), "similar": similar}))
    else:
        print(memory.id)


@app.command()
@store_options
def show(
    where: StoreOptions,
    memory_id: IdArgument,
    include_expired: Annotated[
        bool, typer.Option("--include-expired", help="Show it even if it has expired.")
    ] = False,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one memory."""
    with where.open(reading=True) as store:
        memory = store.get(store.resolve(memory_id), include_expired=include_expired)
    render.memory(memory, render.resolve_format(fmt, as_json))


@app.command("list")
@store_options
def list_memories(
    where: StoreOptions,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most N memories.")] = 50,
    category: CategoryOption = None,
    tag: TagOption = None,
    key: KeyOption = None,
    include_expired: IncludeExpiredOption = False,
    since: SinceOption = None,
    until: UntilOption = None,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """List memories, newest first."""
    with where.open(reading=True) as store:
        filters = filters_from_flags(
            store,
            category=category,
            tags=tag,
            key=key,
            include_expired=include_expired,
            since=since,
            until=until,
        )
        items = store.list(limit=limit, filters=filters)
    render.memories(items, render.resolve_format(fmt, as_json))


@app.command()
@store_options
def update(
    where: StoreOptions,
    memory_id: IdArgument,
    text: Annotated[
        Optional[str], typer.Argument(help="New text; - reads stdin.", show_default=False)
    ] = None,
    category: CategoryOption = None,
    tag: Annotated[
        Optional[list[str]],
        typer.Option("--tag", "-t", help="Replace the tags (repeatable).", show_default=False),
    ] = None,
    clear_tags: Annotated[bool, typer.Option("--clear-tags", help="Remove all tags.")] = False,
    key: KeyOption = None,
    clear_key: Annotated[bool, typer.Option("--clear-key", help="Remove the key.")] = False,
    importance: Annotated[
        Optional[int], typer.Option("--importance", "-i", min=0, max=10, help="0 to 10.")
    ] = None,
    pin: Annotated[bool, typer.Option("--pin", help="Pin: always packed first.")] = False,
    unpin: Annotated[bool, typer.Option("--unpin", help="Unpin.")] = False,
    meta: Annotated[
        Optional[list[str]],
        typer.Option(
            "--meta", help="KEY=VALUE to set; KEY= with no value removes it.", show_default=False
        ),
    ] = None,
    ttl: TtlOption = None,
    no_ttl: Annotated[bool, typer.Option("--no-ttl", help="Never expire.")] = False,
    allow_secret: AllowSecretOption = False,
    as_json: JsonResultOption = False,
) -> None:
    """Change a memory; the previous version is kept (see `history`)."""
    if ttl is not None and no_ttl:
        raise InvalidInputError("give --ttl or --no-ttl, not both")
    if key is not None and clear_key:
        raise InvalidInputError("give --key or --clear-key, not both")
    if tag and clear_tags:
        raise InvalidInputError("give --tag or --clear-tags, not both")
    if pin and unpin:
        raise InvalidInputError("give --pin or --unpin, not both")
    meta_changes = parse_meta(meta)
    if meta_changes:
        meta_changes = {k: (None if v == "" else v) for k, v in meta_changes.items()}
    content = read_text_argument(text) if text is not None else None
    changes: dict[str, Any] = {}
    if content is not None:
        changes["content"] = content
    if category is not None:
        changes["category"] = category
    if tag or clear_tags:
        changes["tags"] = tag or []
    if key is not None or clear_key:
        changes["key"] = key
    if importance is not None:
        changes["importance"] = importance
    if pin or unpin:
        changes["pinned"] = pin
    if meta_changes:
        changes["meta"] = meta_changes
    if ttl is not None:
        changes["ttl"] = ttl
    if no_ttl:
        changes["expires_at"] = None
    if not changes:
        raise InvalidInputError("nothing to update: give new text or an option to change")
    with where.open(create=False) as store:
        memory = store.update(store.resolve(memory_id), allow_secret=allow_secret, **changes)
    _print_written(memory, as_json)


@app.command()
@store_options
def history(
    where: StoreOptions,
    memory_id: IdArgument,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """Every version of a memory, oldest first, with the time each was valid."""
    with where.open(reading=True) as store:
        entries = store.history(store.resolve(memory_id))
    render.history(entries, render.resolve_format(fmt, as_json))
