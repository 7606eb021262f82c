"""The ``ingest`` command: conversations and tool output in, memories out, by rules.

Parsing, rules and writing live in ``zeromem_cli.ingest``; this module reads the sources,
resolves options and config, and hands the report to ``render``. The summary line is a
message (stderr); the details (``--dry-run`` plan, ``--json``) are data (stdout).
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import (
    StoreOptions,
    read_text_argument,
    settings,
    store_options,
)
from zeromem_cli.errors import InvalidInputError

if TYPE_CHECKING:
    from zeromem_cli.ingest import IngestReport

# The largest input `ingest` reads (a file or stdin), checked before reading it.
MAX_INGEST_BYTES = 64 * 1024 * 1024


def _read_source(source: str) -> str:
    if source == "-":
        return read_text_argument("-", MAX_INGEST_BYTES)
    path = Path(source)
    try:
        if path.stat().st_size > MAX_INGEST_BYTES:
            raise InvalidInputError(
                f"{source} is over the limit of {MAX_INGEST_BYTES} bytes: split it"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{source} is not valid UTF-8 (byte {exc.start})") from None


def _parse_roles(raw: str) -> tuple[str, ...]:
    from zeromem_cli.ingest.formats import normalize_role

    roles = tuple(dict.fromkeys(normalize_role(r) for r in raw.split(",") if r.strip()))
    if not roles:
        raise InvalidInputError("--roles needs at least one role, e.g. user,assistant")
    return roles


@app.command()
@store_options
def ingest(
    where: StoreOptions,
    sources: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="Files to read; - (or nothing, when piped) reads stdin.", show_default=False
        ),
    ] = None,
    input_format: Annotated[
        str,
        typer.Option(
            "--format",
            help="Input format: auto, jsonl, json, llm (llm logs --json), text, kv, or a "
            "transcript: claude-code, codex, gemini.",
        ),
    ] = "auto",
    kv: Annotated[
        bool, typer.Option("--kv", help="JSON tool results: scalar fields become key: value.")
    ] = False,
    roles: Annotated[str, typer.Option("--roles", help="Roles to mine, comma-separated.")] = "user",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be stored or forgotten.")
    ] = False,
    category: Annotated[
        Optional[str], typer.Option("--category", "-c", help="Category for every memory.")
    ] = None,
    tag: Annotated[
        Optional[list[str]],
        typer.Option("--tag", "-t", help="Tag every memory (repeatable).", show_default=False),
    ] = None,
    ttl: Annotated[
        Optional[str], typer.Option("--ttl", help="TTL for every memory (overrides the rules).")
    ] = None,
    key_prefix: Annotated[
        str, typer.Option("--key-prefix", help="Prefix of the keys --kv writes.")
    ] = "",
    list_rules: Annotated[
        bool, typer.Option("--rules", help="List the active rules and exit.")
    ] = False,
    all_rules: Annotated[
        bool, typer.Option("--all", help="With --rules: include disabled rules.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary line.")] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print every item and what was done with it as JSON (--format is the "
            "input's format).",
        ),
    ] = False,
) -> None:
    """Extract memories from a conversation or tool output by rules (zero tokens).

    Explicit requests ("remember that ...", "记住..."), standing instructions ("from now
    on ...", "以后..."), preferences, personal facts ("my X is Y", "我的X是Y" -> key X) and
    tasks are stored; "forget ..." / "忘记..." forgets the memories it clearly names.
    """
    from zeromem_cli.ingest import (
        INPUT_FORMATS,
        IngestReport,
        apply_candidates,
        extract_kv,
        extract_messages,
        load_rules,
        parse_input,
    )
    from zeromem_cli.ingest.apply import origin_store
    from zeromem_cli.ingest.formats import TRANSCRIPT_FORMATS

    config = settings()
    rules = load_rules(config.extra.get("ingest"), origin=f"config {config.path}")
    if list_rules:
        shown = rules if all_rules else [r for r in rules if r.enabled]
        render.ingest_rules(shown, render.resolve_format(None, as_json))
        return
    fmt = "kv" if kv else input_format.lower()
    if fmt not in INPUT_FORMATS:
        raise InvalidInputError(
            f"unknown --format {input_format!r} (use {', '.join(INPUT_FORMATS)})"
        )
    if kv and input_format.lower() not in ("auto", "kv"):
        raise InvalidInputError("--kv reads JSON tool results: do not combine it with --format")
    mined_roles = _parse_roles(roles)
    if not sources:
        if sys.stdin.isatty():
            raise InvalidInputError("give a file to ingest, or - to read stdin")
        sources = ["-"]
    if ttl:
        from zeromem_cli.times import parse_expiry, utcnow

        parse_expiry(ttl, utcnow())  # fail before reading anything
    parsed = [parse_input(_read_source(source), fmt) for source in sources]
    found_in = []
    messages = mined = empty = 0
    for source, part in zip(sources, parsed, strict=True):
        if part.format == "kv":
            found, skipped = extract_kv(part.records, category="fact", key_prefix=key_prefix)
            messages += len(part.records)
            mined += len(part.records)
            empty += skipped
        else:
            oversized: list[tuple[int, int]] = []
            found = extract_messages(part.messages, rules, mined_roles, oversized=oversized)
            _warn_oversized(source, oversized)
            messages += len(part.messages)
            chosen = [m for m in part.messages if m.role in mined_roles]
            mined += len(chosen)
            empty += len(chosen) - len({c.message for c in found})
        found_in.append((part, found))
    report = IngestReport(
        dry_run=dry_run,
        format="+".join(dict.fromkeys(p.format for p in parsed)),
        messages=messages,
        mined=mined,
        empty=empty,
    )
    with where.open() as store:
        for part, found in found_in:
            target = store
            if part.format in TRANSCRIPT_FORMATS:  # a harness session: where its hooks write
                target = origin_store(
                    store,
                    part,
                    session_given=where.session is not None,
                    # auto: the project of the directory the session worked in
                    project_given=(where.project or "auto").strip().lower() != "auto",
                )
            # Vectors are left to `zeromem index` / gc, as for `import`: embedding one
            # memory at a time would set ingest's speed (docs/ingest.md).
            report.items += apply_candidates(
                target, found, dry_run=dry_run, tags=tag, category=category, ttl=ttl, embed=False
            )
        unembedded = 0 if dry_run or not store.semantic.wanted() else _written(report)
    for item in report.items:
        if item.action == "error":
            from zeromem_cli.text.secrets import mask_secrets

            text = mask_secrets(item.candidate.content)[:60]  # masked before it is cut
            render.warning(f"skipped {text!r}: {item.reason}")
    if as_json:
        print(render.dumps(report.to_dict()))
    elif dry_run:
        render.ingest_items(report.items, dry_run=True)
    if not quiet:
        render.message(report.summary())
        if unembedded:
            render.message(
                f"{unembedded} written memories are found by words until `zeromem index` "
                "(or gc) embeds them for semantic recall"
            )


def _warn_oversized(source: str, oversized: list[tuple[int, int]]) -> None:
    """Say which sentences were too long to be a memory, and so were not mined."""
    from zeromem_cli.ingest.extract import MAX_SENTENCE_CHARS

    where = "stdin" if source == "-" else source
    for message, length in oversized:
        render.warning(
            f"skipped a sentence of {length:,} characters in message {message + 1} of {where}: "
            f"over the {MAX_SENTENCE_CHARS:,} ingest mines (no memory is that long)"
        )


def _written(report: "IngestReport") -> int:
    """Memories the report added or changed: the ones without a vector of their text."""
    counts = report.counts()
    return counts["added"] + counts["updated"]
