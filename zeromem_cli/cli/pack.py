"""The ``pack`` command: the best memories that fit a token budget, printed for an LLM.

stdout carries the snippet and nothing else (so it can be piped into a model); ``--stats`` /
``-v`` and ``--explain`` write their diagnostics to stderr.
"""

from enum import Enum
from typing import Annotated

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import (
    AsOfOption,
    CategoryOption,
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


class PackFormat(str, Enum):
    text = "text"
    markdown = "markdown"
    json = "json"
    xml = "xml"


class TokenizerName(str, Enum):
    approx = "approx"
    o200k = "o200k"
    cl100k = "cl100k"


@app.command()
@store_options
def pack(
    where: StoreOptions,
    query: Annotated[
        str | None,
        argument(
            help="What the memories should be relevant to; - reads stdin. "
            "Without it: pinned, important and recent memories.",
            show_default=False,
        ),
    ] = None,
    budget: Annotated[
        int | None,
        option("--budget", "-b", min=1, help="Most tokens to print [default: pack.budget, 1000]."),
    ] = None,
    tokenizer: Annotated[
        TokenizerName | None,
        option(
            "--tokenizer",
            help="approx (fast, never under o200k/cl100k on our benchmarks) or exact o200k / "
            "cl100k (pip install 'zeromem[tokenizers]') [default: pack.tokenizer, approx].",
            case_sensitive=False,
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        PackFormat | None,
        option(
            "--format",
            "-f",
            help="text, markdown, json or xml [default: pack.format, text].",
            case_sensitive=False,
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, option("--json", help="The same as --format json (as other commands take it).")
    ] = False,
    header: Annotated[
        str | None, option("--header", help="A first line (counted in the budget).")
    ] = None,
    category: CategoryOption = None,
    tag: TagOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    as_of: AsOfOption = None,
    semantic: SemanticOption = None,
    no_touch: Annotated[
        bool, option("--no-touch", help="Do not record an access of the packed memories.")
    ] = False,
    reveal: Annotated[
        bool,
        option(
            "--reveal",
            help="Print likely secrets (API keys, passwords...) as stored instead of masking "
            "them as [secret: rule].",
        ),
    ] = False,
    stats: Annotated[
        bool,
        option("--stats", "-v", help="Tokens used and memories included, on stderr."),
    ] = False,
    explain: Annotated[
        bool,
        option("--explain", help="Every candidate's score parts and fate, on stderr."),
    ] = False,
    inherit: Annotated[
        bool | None,
        option(
            "--inherit/--no-inherit",
            help="Also pack from the scopes around this one: in a project, the user's own "
            "memories; with --isolate, the session's agent, user and unscoped ones "
            "[default: pack.inherit, false].",
        ),
    ] = None,
    pinned_share: Annotated[
        float | None,
        option(
            "--pinned-share",
            min=0.0,
            max=1.0,
            help="Most of the budget pinned memories take first; past it they compete by "
            "score (1: all pinned first) [default: pack.pinned_share, 0.5].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the most relevant memories that fit a token budget, ready to pipe into an LLM."""
    from zeromem_cli.pack.select import Weights
    from zeromem_cli.requests import PackRequest
    from zeromem_cli.times import parse_since

    if as_json and fmt is not None and str(getattr(fmt, "value", fmt)) != "json":
        raise InvalidInputError("give --json or --format, not both")
    config = settings()
    text = read_text_argument(query) if query is not None else None
    with where.open(reading=True) as store:
        filters = filters_from_flags(store, category=category, tags=tag, since=since, until=until)
        request = PackRequest(
            budget=config.choose(budget, "pack.budget"),
            tokenizer=config.choose(tokenizer, "pack.tokenizer"),
            format="json" if as_json else config.choose(fmt, "pack.format"),
            header=header,
            weights=Weights.from_config(config),
            filters=filters,
            touch=not no_touch,
            reveal=reveal,
            inherit=config.choose(inherit, "pack.inherit"),
            pinned_share=config.choose(pinned_share, "pack.pinned_share"),
            as_of=parse_since(as_of, store.now()) if as_of else None,
            semantic=semantic,
        )
        result = store.pack(text, request)
    for note in result.notes:
        render.warning(f"pack: {note}")
    if explain:
        render.pack_explain(result)
    if stats or explain:
        render.pack_stats(result)
        if not store.writable and not no_touch and result.memories:
            render.message("pack: the database is read-only: no access recorded")
    render.snippet(result.text)
