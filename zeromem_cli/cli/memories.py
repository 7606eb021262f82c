"""Commands that write and read single memories: add, show, list, update, history, restore
(``forget`` lives in ``cli/lifecycle.py``). Each parses arguments, calls ``MemoryStore`` and
hands the result to ``render``."""

from typing import Annotated, Any, Optional

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import (
    AgentOption,
    CategoryOption,
    DbOption,
    FormatOption,
    IncludeExpiredOption,
    IsolateOption,
    JsonOption,
    KeyOption,
    ProjectOption,
    SessionOption,
    TagOption,
    UserOption,
    open_store,
    parse_meta,
    read_text_argument,
    settings,
)
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Filters
from zeromem_cli.oplog import record_operation

MetaOption = Annotated[
    Optional[list[str]],
    typer.Option("--meta", help="KEY=VALUE metadata (repeatable).", show_default=False),
]
TtlOption = Annotated[
    Optional[str],
    typer.Option("--ttl", help="Expire after 30s, 15m, 24h, 7d, 2w, or at an ISO date."),
]
AllowSecretOption = Annotated[
    bool,
    typer.Option(
        "--allow-secret", help="Store text even if it looks like a password, key or token."
    ),
]
IdArgument = Annotated[int, typer.Argument(help="Memory id.", min=1, show_default=False)]


@app.command()
def add(
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
    as_json: JsonOption = False,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """Add a memory and print its id (or the whole record with --json)."""
    content = read_text_argument(text)
    config = settings()
    with open_store(db, user, agent, session, project, isolate) as store:
        result = store.write(
            content,
            category=category,
            default_category=config.get("add.default_category"),
            tags=tag,
            key=key,
            importance=importance,
            pinned=True if pin else None,
            meta=parse_meta(meta),
            ttl=ttl if ttl is not None else (config.get("add.default_ttl") or None),
            allow_duplicate=allow_duplicate,
            merge=merge,
            allow_secret=allow_secret,
        )
        record_operation(store, "add", 1, enabled=config.get("log.enabled"))
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
    if as_json:
        render.memory(memory, render.OutputFormat.json)
    else:
        print(memory.id)


@app.command()
def show(
    memory_id: IdArgument,
    include_expired: Annotated[
        bool, typer.Option("--include-expired", help="Show it even if it has expired.")
    ] = False,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """Show one memory."""
    with open_store(db, user, agent, session, project, isolate) as store:
        memory = store.get(memory_id, include_expired=include_expired)
    render.memory(memory, render.resolve_format(fmt, as_json))


@app.command("list")
def list_memories(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most N memories.")] = 50,
    category: CategoryOption = None,
    tag: TagOption = None,
    key: KeyOption = None,
    include_expired: IncludeExpiredOption = False,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """List memories, newest first."""
    filters = Filters(category=category, tags=tag or (), key=key, include_expired=include_expired)
    with open_store(db, user, agent, session, project, isolate) as store:
        items = store.list(limit=limit, filters=filters)
    render.memories(items, render.resolve_format(fmt, as_json))


@app.command()
def update(
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
    pin: Annotated[
        Optional[bool], typer.Option("--pin/--unpin", help="Pin or unpin.", show_default=False)
    ] = None,
    meta: Annotated[
        Optional[list[str]],
        typer.Option(
            "--meta", help="KEY=VALUE to set; KEY= with no value removes it.", show_default=False
        ),
    ] = None,
    ttl: TtlOption = None,
    no_ttl: Annotated[bool, typer.Option("--no-ttl", help="Never expire.")] = False,
    allow_secret: AllowSecretOption = False,
    as_json: JsonOption = False,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """Change a memory; the previous version is kept (see `history`)."""
    if ttl is not None and no_ttl:
        raise InvalidInputError("give --ttl or --no-ttl, not both")
    if key is not None and clear_key:
        raise InvalidInputError("give --key or --clear-key, not both")
    if tag and clear_tags:
        raise InvalidInputError("give --tag or --clear-tags, not both")
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
    if pin is not None:
        changes["pinned"] = pin
    if meta_changes:
        changes["meta"] = meta_changes
    if ttl is not None:
        changes["ttl"] = ttl
    if no_ttl:
        changes["expires_at"] = None
    if not changes:
        raise InvalidInputError("nothing to update: give new text or an option to change")
    with open_store(db, user, agent, session, project, isolate) as store:
        memory = store.update(memory_id, allow_secret=allow_secret, **changes)
    if as_json:
        render.memory(memory, render.OutputFormat.json)
    else:
        print(memory.id)


@app.command()
def history(
    memory_id: IdArgument,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """Every version of a memory, oldest first, with the time each was valid."""
    with open_store(db, user, agent, session, project, isolate) as store:
        entries = store.history(memory_id)
    render.history(entries, render.resolve_format(fmt, as_json))


@app.command()
def restore(
    memory_id: IdArgument,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """Bring back a forgotten memory."""
    with open_store(db, user, agent, session, project, isolate) as store:
        memory = store.restore(memory_id)
    render.message(f"restored #{memory.id}")
    print(memory.id)
