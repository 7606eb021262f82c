"""Options every command shares (database and scope) and small input helpers.

Options are declared once as ``Annotated`` aliases so each command lists them in its
signature and they work after the subcommand name: ``zeromem search foo --user alice``.
"""

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from zeromem_cli.cli.render import OutputFormat
from zeromem_cli.config import Config
from zeromem_cli.errors import InvalidInputError

SCOPE_PANEL = "Database and scope"

DbOption = Annotated[
    Optional[Path],
    typer.Option(
        "--db",
        envvar="ZEROMEM_DB",
        help="Database file (default: the per-user data dir).",
        show_default=False,
        dir_okay=True,
        readable=False,  # checked by db.connect: an unreadable file is exit 1, not a usage error
        rich_help_panel=SCOPE_PANEL,
    ),
]
UserOption = Annotated[
    Optional[str],
    typer.Option("--user", envvar="ZEROMEM_USER", help="User scope.", rich_help_panel=SCOPE_PANEL),
]
AgentOption = Annotated[
    Optional[str],
    typer.Option(
        "--agent", envvar="ZEROMEM_AGENT", help="Agent scope.", rich_help_panel=SCOPE_PANEL
    ),
]
SessionOption = Annotated[
    Optional[str],
    typer.Option(
        "--session", envvar="ZEROMEM_SESSION", help="Session scope.", rich_help_panel=SCOPE_PANEL
    ),
]
FormatOption = Annotated[
    Optional[OutputFormat],
    typer.Option(
        "--format",
        "-f",
        help="Output format (default: table on a terminal, plain when piped).",
        case_sensitive=False,
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Same as --format json.")]


def settings() -> Config:
    """The resolved configuration (the file is read only if it exists: a stat otherwise)."""
    return Config()


def open_store(db: Path | None, user: str | None, agent: str | None, session: str | None) -> Any:
    """Open the store for this invocation (imported here to keep --help fast)."""
    from zeromem_cli.store import MemoryStore

    return MemoryStore(
        db,
        user=user,
        agent=agent,
        session=session,
        max_content_bytes=settings().get("add.max_content_bytes"),
        notice=_notice,
    )


def _notice(text: str) -> None:
    """A long one-time job on opening (upgrade, index rebuild): said on stderr first."""
    print(f"zeromem: {text}...", file=sys.stderr, flush=True)


def read_text_argument(text: str) -> str:
    """TEXT as given, or all of stdin when TEXT is ``-``; stdin must be valid UTF-8."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
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
        raise typer.Exit(1)


# Filters shared by list, search, pack and export.
SinceOption = Annotated[
    Optional[str], typer.Option("--since", help="Created within 7d, 24h... or since a date.")
]
UntilOption = Annotated[
    Optional[str], typer.Option("--until", help="Created before 7d ago, or before a date.")
]
IncludeExpiredOption = Annotated[
    bool, typer.Option("--include-expired", help="Include expired memories.")
]
CategoryOption = Annotated[
    Optional[str], typer.Option("--category", "-c", help="Category (e.g. fact, preference).")
]
TagOption = Annotated[
    Optional[list[str]], typer.Option("--tag", "-t", help="Tag (repeatable).", show_default=False)
]
KeyOption = Annotated[
    Optional[str],
    typer.Option("--key", "-k", help="Unique key in the scope: writing it again updates it."),
]
