"""The ``search`` command: full-text search with filters, output in any format."""

from typing import Annotated

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import (
    AsOfOption,
    CategoryOption,
    FormatOption,
    IncludeExpiredOption,
    JsonOption,
    KeyOption,
    SemanticOption,
    SinceOption,
    StoreOptions,
    TagOption,
    UntilOption,
    argument,
    filters_from_flags,
    option,
    read_text_argument,
    settings,
    store_options,
)
from zeromem_cli.errors import InvalidInputError


@app.command()
@store_options
def search(
    where: StoreOptions,
    query: Annotated[str, argument(help="What to look for, in any language; - reads stdin.")],
    limit: Annotated[
        int | None,
        option("--limit", "-n", min=1, help="At most N results [default: search.limit, 10]."),
    ] = None,
    category: CategoryOption = None,
    tag: TagOption = None,
    key: KeyOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    min_score: Annotated[
        float | None, option("--min-score", help="Drop results scoring below this.")
    ] = None,
    include_expired: IncludeExpiredOption = False,
    fts: Annotated[
        bool,
        option(
            "--fts",
            help="QUERY is your own expression: FTS5 syntax (tsquery on PostgreSQL).",
        ),
    ] = False,
    as_of: AsOfOption = None,
    semantic: SemanticOption = None,
    fmt: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search memories, best match first."""
    # Imported here: building the command (and --help) must not load the core.
    from zeromem_cli.times import parse_since

    config = settings()
    text = read_text_argument(query)
    if not text.strip():
        raise InvalidInputError("the query is empty: give words to search for (`list` shows all)")
    with where.open(reading=True) as store:
        filters = filters_from_flags(
            store,
            category=category,
            tags=tag,
            key=key,
            since=since,
            until=until,
            min_score=min_score,
            include_expired=include_expired,
        )
        hits = store.search(
            text,
            limit=config.choose(limit, "search.limit"),
            filters=filters,
            fts=fts,
            as_of=parse_since(as_of, store.now()) if as_of else None,
            semantic=semantic,
        )
    render.memories(hits, render.resolve_format(fmt, as_json), scores=True)
