"""Options every command shares (database and scope) and small input helpers.

The store options (``--db``, ``--user``, ``--agent``, ``--session``, ``--project``,
``--isolate``, ``--key-file``) are declared once: a command that opens the store takes one
``where: StoreOptions`` parameter and is decorated with ``@store_options``, which appends the
options to its signature (pipx's shared ``parents=`` parser, for Typer) so they work after the
subcommand name: ``zeromem search foo --user alice``; it opens the store with
``with where.open() as store:``, which resolves ``--project auto`` and ``--isolate``.
Commands without a store take none of them (``path`` takes ``--db`` alone). Other shared
options are ``Annotated`` aliases; ``filters_from_flags`` turns the filter flags into
``Filters`` on the store's clock, and ``settings()`` is the configuration of this command.
"""

import functools
import inspect
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.models import ArgumentInfo, OptionInfo, TyperPath

from zeromem_cli.cli import render
from zeromem_cli.cli.render import FORMATS
from zeromem_cli.config import Config
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.paths import db_location, is_database_url
from zeromem_cli.plain import FrozenRecord

SCOPE_PANEL = "Database and scope"

_BLANK: dict[Any, dict[str, Any]] = {}  # the attributes of typer.Option() / typer.Argument()


def option(default: Any = ..., *param_decls: str, **settings: Any) -> Any:
    """``typer.Option(default, *param_decls, **settings)``: the same ``OptionInfo``, made by
    copying the attributes of a blank one and setting those given. ``typer.Option`` hands its
    ~45 settings on through three calls, which cost a cold start ~65k instructions per option,
    for every option of every command it imports (``python -m benchmarks.startup_compare
    --callgrind``). Anything ``OptionInfo`` does not store as given goes to ``typer.Option``
    itself, so it is checked (and warned about) as Typer does; ``tests/cli/test_shared_options.py``
    compares the two."""
    return _info(_OptionInfo, typer.Option, default, param_decls, settings)


def argument(default: Any = ..., **settings: Any) -> Any:
    """``typer.Argument(default, **settings)``, made as ``option`` makes an option."""
    return _info(_ArgumentInfo, typer.Argument, default, None, settings)


class _CopiedDirectly:
    """Typer copies each parameter's record twice for every command it builds
    (``copy.copy``, which goes through ``__reduce_ex__``: ~10k instructions a copy, ~90 copies
    for ``search``); the same copy, made by copying its attributes."""

    def __copy__(self) -> Any:
        copied = object.__new__(type(self))
        vars(copied).update(vars(self))
        return copied


class _OptionInfo(_CopiedDirectly, OptionInfo):
    """Typer's ``OptionInfo``, copied directly."""


class _ArgumentInfo(_CopiedDirectly, ArgumentInfo):
    """Typer's ``ArgumentInfo``, copied directly."""


def _info(
    kind: type, make: Callable[..., Any], default: Any, decls: tuple[str, ...] | None, given: Any
) -> Any:
    blank = _BLANK.get(make)
    if blank is None:
        blank = _BLANK[make] = dict(vars(make()))
    if not given.keys() <= blank.keys() or ("parser" in given and "click_type" in given):
        return make(default, *(decls or ()), **given)  # Typer's own checks and warnings
    info: Any = object.__new__(kind)
    attributes = vars(info)
    attributes.update(blank)
    attributes.update(given)
    attributes["default"] = default
    if decls is not None:  # an argument's name is its parameter's
        attributes["param_decls"] = decls
    return info


class _DbLocation(TyperPath):
    """A file path, or a ``postgresql://`` URL kept as text (``pathlib`` folds its "//")."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if is_database_url(value):
            return value
        return super().convert(value, param, ctx)


_DB_SETTINGS: dict[str, Any] = {
    "envvar": "ZEROMEM_DB",
    "help": "Database file, or a postgresql:// URL (default: the per-user data dir).",
    "show_default": False,
    # readable=False: checked by db.connect (an unreadable file is exit 1, not a usage error)
    "click_type": _DbLocation(dir_okay=True, readable=False),
    "rich_help_panel": SCOPE_PANEL,
}
DbOption = Annotated[str | None, option("--db", **_DB_SETTINGS)]  # a path, or a URL


@functools.cache
def _store_parameters() -> tuple[inspect.Parameter, ...]:
    """The parameters ``@store_options`` appends, in --help order. Each option is its
    parameter's default, as Typer also reads them, rather than an ``Annotated`` alias: only
    the command being run asks for them, while an alias is built on every start (~80k
    instructions: ``python -m benchmarks.startup_compare --callgrind``)."""

    def store(name: str, kind: Any, *decls: str, **settings: Any) -> inspect.Parameter:
        settings.setdefault("rich_help_panel", SCOPE_PANEL)
        default = option(None, *decls, **settings)
        return inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind
        )

    return (
        store("db", str | None, "--db", **_DB_SETTINGS),
        store("user", str | None, "--user", envvar="ZEROMEM_USER", help="User scope."),
        store("agent", str | None, "--agent", envvar="ZEROMEM_AGENT", help="Agent scope."),
        store("session", str | None, "--session", envvar="ZEROMEM_SESSION", help="Session scope."),
        store(
            "project",
            str | None,
            "--project",
            envvar="ZEROMEM_PROJECT",
            help="Project scope: NAME, 'auto' (the git repository of the current directory) "
            "or 'none'.",
        ),
        store(
            "isolate",
            bool | None,
            "--isolate/--no-isolate",
            help="Read only this exact agent and session, not every session of the user "
            "[default: scope.isolate_sessions, false].",
            show_default=False,
        ),
        store(
            "key_file",
            Path | None,
            "--key-file",
            envvar="ZEROMEM_KEY_FILE",
            help="Key of an encrypted store, in a file only you can read (or set ZEROMEM_KEY).",
            show_default=False,
            readable=False,  # checked by keys.read_key_file (directory, mode, ...): exit 1
        ),
    )


FormatOption = Annotated[
    FORMATS | None,
    option(
        "--format",
        "-f",
        help="Output format (default: table on a terminal, plain when piped).",
        case_sensitive=False,
        show_default=False,
    ),
]
JsonOption = Annotated[bool, option("--json", help="Same as --format json.")]
# --json of a command without an output --format (add, update, gc, stats, config, path).
JsonResultOption = Annotated[bool, option("--json", help="Print the result as JSON.")]


if TYPE_CHECKING:
    from zeromem_cli.models import Filters
    from zeromem_cli.store import MemoryStore

_CONFIG_META = "zeromem.config"


def settings() -> Config:
    """The resolved configuration of this command, read once per invocation (the file only if
    it exists: a stat otherwise); a deprecated key it meets is noted on stderr once."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    config = ctx.meta.get(_CONFIG_META) if ctx is not None else None
    if config is None:
        config = Config(note=render.warning)
        if ctx is not None:
            ctx.meta[_CONFIG_META] = config
    return config


class StoreOptions(FrozenRecord):
    """Which store and scope a command works on: ``--db``, ``--user``, ``--agent``,
    ``--session``, ``--project``, ``--key-file`` (or their environment variables) and
    ``--isolate``."""

    db: str | None = None  # a file path, or a postgresql:// URL
    user: str | None = None
    agent: str | None = None
    session: str | None = None
    project: str | None = None
    isolate: bool | None = None
    key_file: Path | None = None

    @property
    def scoped(self) -> bool:
        """A scope option was given (a non-empty ``--user``, ``--agent``, ``--session`` or
        ``--project``)."""
        return bool(self.user or self.agent or self.session or self.project)

    def open(self, *, reading: bool = False, create: bool | None = None) -> "MemoryStore":
        """Open the store for this invocation (the core is imported here, not at start-up,
        to keep --help fast). ``reading``: the command only reads, so a database this
        process cannot write opens read-only instead of failing (``read_only="auto"``).
        ``create`` (default: not ``reading``): a store that does not exist yet is created;
        otherwise nothing is created: the default store reads as empty, and one named by
        ``--db`` / ``ZEROMEM_DB`` is an error naming it (a typo is not an empty store)."""
        from zeromem_cli.owner import resolve_owner
        from zeromem_cli.requests import StoreSettings
        from zeromem_cli.store import MemoryStore

        if self.db is not None and not self.db.strip():
            raise InvalidInputError(
                "--db is empty: give a file path or a postgresql:// URL, or leave it out "
                "for the default store"
            )
        if create is None:
            create = not reading

        config = settings()
        isolate = self.isolate
        owner = resolve_owner(
            self.user,
            self.agent,
            self.session,
            self.project,
        )
        return MemoryStore(
            db_location(self.db) if self.db else None,
            user=owner.user,
            agent=owner.agent,
            session=owner.session,
            project=owner.project,
            isolate=config.get("scope.isolate_sessions") if isolate is None else isolate,
            key_file=self.key_file,
            read_only="auto" if reading else False,
            settings=StoreSettings.from_config(config, notice=_notice)._replace(
                if_missing="create" if create else ("error" if self.db else "empty")
            ),
        )


Command = TypeVar("Command", bound=Callable[..., Any])


def store_options(command: Command) -> Command:
    """Give ``command`` the store options: its ``where: StoreOptions`` parameter is replaced
    by ``--db``, ``--user``, ``--agent``, ``--session``, ``--project``, ``--isolate`` and
    ``--key-file``, gathered back into one ``StoreOptions`` when it runs.

    Built without ``functools.wraps``: Typer would follow ``__wrapped__`` to the original
    signature; the wrapper's own ``__signature__`` is what Typer must read. It is computed
    when Typer first asks, so only the command being run pays for it."""
    code = command.__code__
    if "where" not in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
        raise TypeError(f"{command.__name__} needs a `where: StoreOptions` parameter")
    return _StoreCommand(command)  # type: ignore[return-value]


class _StoreCommand:
    # No class docstring: inspect.getdoc() would show it for a command without one.

    def __init__(self, command: Callable[..., Any]) -> None:
        self.command = command
        self.__name__ = command.__name__
        self.__qualname__ = command.__qualname__
        self.__doc__ = command.__doc__
        self.__module__ = command.__module__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        where = StoreOptions(*(kwargs.pop(p.name) for p in _store_parameters()))
        return self.command(*args, where=where, **kwargs)

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        signature = inspect.signature(self.command, eval_str=True)
        kept = [p for name, p in signature.parameters.items() if name != "where"]
        added = _store_parameters()
        positional = [p for p in kept if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        keyword = [p for p in kept if p.kind is inspect.Parameter.KEYWORD_ONLY]
        return signature.replace(parameters=[*positional, *keyword, *added])

    # What ``typing.get_type_hints`` reads (Typer calls it, twice per command built, only to
    # resolve annotations written as text): none is, ``__signature__`` holds every annotation
    # as its object (``eval_str``), so there is nothing to resolve, and resolving the
    # command's twenty-odd ``Annotated`` hints again cost ~2 M instructions of a cold search.
    __annotations__: dict[str, Any] = {}  # noqa: RUF012 - never mutated


def refuse_all_scopes_with_scope(all_scopes: bool, where: StoreOptions) -> None:
    """``--all-scopes`` and a scope option contradict each other."""
    if all_scopes and where.scoped:
        raise InvalidInputError("give --all-scopes or --user/--agent/--session/--project, not both")


def filters_from_flags(
    store: "MemoryStore",
    *,
    category: str | None = None,
    tags: list[str] | None = None,
    key: str | None = None,
    since: str | None = None,
    until: str | None = None,
    min_score: float | None = None,
    include_expired: bool = False,
    include_deleted: bool = False,
) -> "Filters":
    """The ``Filters`` of the filter flags; ``--since`` / ``--until`` durations (``7d``) count
    back from the store's clock, the one its reads compare ``created_at`` with."""
    from zeromem_cli.models import Filters
    from zeromem_cli.times import parse_since

    if (
        min_score is not None
        and min_score != min_score
        or min_score in (float("inf"), -float("inf"))
    ):
        raise InvalidInputError(f"--min-score must be a finite number, not {min_score}")
    now = store.now()
    return Filters(
        category=category,
        tags=tags or (),
        key=key,
        since=parse_since(since, now) if since else None,
        until=parse_since(until, now) if until else None,
        include_expired=include_expired,
        include_deleted=include_deleted,
        min_score=min_score,
    )


def _notice(text: str) -> None:
    """A long one-time job on opening (upgrade, index rebuild): said on stderr first."""
    print(f"zeromem: {text}...", file=sys.stderr, flush=True)


def read_text_argument(text: str, max_bytes: int | None = None) -> str:
    """TEXT as given, or all of stdin when TEXT is ``-``; stdin must be valid UTF-8 (a
    leading BOM is dropped, as import drops it). On a terminal, stderr says it is waiting.
    ``max_bytes``: stdin past it is refused after reading one byte more, not read whole
    (#33: a huge input was read and worked on before the size check refused it)."""
    if text != "-":
        return text
    if sys.stdin.isatty():
        print("zeromem: reading from stdin, Ctrl-D to end", file=sys.stderr, flush=True)
    if max_bytes is None:
        max_bytes = settings().get("add.max_content_bytes")
    data = sys.stdin.buffer.read(max_bytes + 4)  # + a BOM
    if len(data) > max_bytes + (3 if data.startswith(b"\xef\xbb\xbf") else 0):
        raise InvalidInputError(f"stdin is over the limit of {max_bytes} bytes; nothing was read")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"stdin is not valid UTF-8 (byte {exc.start}); nothing was stored"
        ) from None


def parse_meta(pairs: list[str] | None) -> dict[str, Any] | None:
    """``KEY=VALUE`` pairs; JSON literals (numbers, true/false/null) keep their type."""
    if not pairs:
        return None
    meta: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InvalidInputError(f"--meta takes KEY=VALUE, not {pair!r}")
        value: Any = raw
        if raw in ("true", "false", "null") or _looks_numeric(raw):
            import json  # only --meta values

            try:
                value = json.loads(raw)
            except ValueError:
                value = raw
        meta[name] = value
    return meta


def _looks_numeric(raw: str) -> bool:
    """A finite JSON-able number; "1e999", "inf" and "NaN" stay text (JSON has no such values)."""
    try:
        number = float(raw)
    except ValueError:
        return False
    return raw.strip() == raw and math.isfinite(number) and raw[-1:].isdigit()


def confirm_or_refuse(question: str, yes: bool) -> None:
    """Ask before a destructive step; without a terminal, refuse unless --yes was given."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise InvalidInputError(
            "refusing without confirmation: stdin is not a terminal; pass --yes"
        )
    if not typer.confirm(question, default=False, err=True):
        print("zeromem: declined: nothing changed", file=sys.stderr)
        raise typer.Exit(1)


# Filters shared by list, search, pack and export.
SinceOption = Annotated[
    str | None, option("--since", help="Created within 7d, 24h... or since a date.")
]
UntilOption = Annotated[
    str | None, option("--until", help="Created before 7d ago, or before a date.")
]
AsOfOption = Annotated[
    str | None,
    option(
        "--as-of",
        help='Ask as of this date (ISO, or 7d ago): "last week" and recency count from it.',
    ),
]
SemanticOption = Annotated[
    bool | None,
    option(
        "--semantic/--no-semantic",
        help="Also find memories said in other words (zeromem[semantic]) [default: "
        "search.semantic, on when installed].",
    ),
]
IncludeExpiredOption = Annotated[
    bool, option("--include-expired", help="Include expired memories.")
]
CategoryOption = Annotated[
    str | None, option("--category", "-c", help="Category (e.g. fact, preference).")
]
TagOption = Annotated[
    list[str] | None, option("--tag", "-t", help="Tag (repeatable).", show_default=False)
]
KeyOption = Annotated[
    str | None,
    option("--key", "-k", help="Unique key in the scope: writing it again updates it."),
]
