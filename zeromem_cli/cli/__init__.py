"""The ``zeromem`` command: a thin Typer layer over ``MemoryStore``.

Each command family lives in its own module and registers on ``app``. This module owns the one
error handler: a ``ZeromemError`` or a usage error becomes ``zeromem: error: ...`` on stderr and
its exit code, never a traceback (set ZEROMEM_DEBUG=1 to see one for an unexpected failure).
"""

import os
import sys
from typing import Any

import typer
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from zeromem_cli import render
from zeromem_cli.errors import ZeromemError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


# The order commands appear in --help: the everyday ones first, whatever the import order.
COMMAND_ORDER = (
    "add",
    "show",
    "list",
    "search",
    "pack",
    "update",
    "history",
    "forget",
    "restore",
    "trash",
    "gc",
    "ingest",
    "export",
    "import",
    "stats",
    "config",
    "path",
    "completions",
)


class ZeromemGroup(TyperGroup):
    """A Typer group whose ``main`` maps every failure to one line and an exit code."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        rank = {name: number for number, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            _require_utf8_arguments(sys.argv[1:] if args is None else args)
            result = super().main(
                args=args,
                prog_name=prog_name or "zeromem",
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
        except NoArgsIsHelpError as exc:
            print(exc.format_message())
            code = EXIT_OK
        except UsageError as exc:
            hint = f"; see '{exc.ctx.command_path} --help'" if exc.ctx is not None else ""
            render.error(exc.format_message().rstrip(".") + hint)
            code = EXIT_USAGE
        except ZeromemError as exc:
            render.error(str(exc))
            code = exc.exit_code
        except UnicodeEncodeError as exc:  # undecodable bytes from the environment
            render.error(f"input is not valid UTF-8 ({exc.reason}); nothing was stored")
            code = EXIT_USAGE
        except typer.TyperException as exc:
            render.error(str(exc))
            code = getattr(exc, "exit_code", EXIT_ERROR)
        except (typer.Abort, KeyboardInterrupt, EOFError):
            render.error("interrupted")
            code = EXIT_INTERRUPTED
        except BrokenPipeError:
            # The reader went away (`zeromem list | head`): stop quietly, no traceback.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            code = EXIT_ERROR
        except Exception as exc:  # a bug: say so in one line, traceback only on request
            if os.environ.get("ZEROMEM_DEBUG"):
                raise
            render.error(
                f"internal error: {type(exc).__name__}: {exc} (set ZEROMEM_DEBUG=1 for details)"
            )
            code = EXIT_ERROR
        else:
            code = result if isinstance(result, int) else EXIT_OK
        if standalone_mode:
            sys.exit(code)
        return code


def _require_utf8_arguments(args: Any) -> None:
    """Undecodable bytes in argv arrive as lone surrogates: refuse them before any work."""
    from zeromem_cli.text import require_utf8

    for number, arg in enumerate(args or (), start=1):
        if isinstance(arg, str):
            require_utf8(arg, f"argument {number}")


app = typer.Typer(
    name="zeromem",
    cls=ZeromemGroup,
    help="Long-term memory for LLM agents: every operation is deterministic code, zero tokens.",
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from zeromem_cli import __version__

        print(f"zeromem {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Long-term memory for LLM agents: every operation is deterministic code, zero tokens."""


# Command modules register themselves on `app` when imported.
from zeromem_cli.cli import completions as _completions  # noqa: E402,F401
from zeromem_cli.cli import config as _config  # noqa: E402,F401
from zeromem_cli.cli import info as _info  # noqa: E402,F401
from zeromem_cli.cli import ingest as _ingest  # noqa: E402,F401
from zeromem_cli.cli import lifecycle as _lifecycle  # noqa: E402,F401
from zeromem_cli.cli import memories as _memories  # noqa: E402,F401
from zeromem_cli.cli import search as _search  # noqa: E402,F401
from zeromem_cli.cli import transfer as _transfer  # noqa: E402,F401


def main() -> None:
    """Console-script entry point."""
    commands = app.registered_commands
    app.registered_commands = _invoked_command(commands, sys.argv[1:])
    try:
        app()
    finally:
        app.registered_commands = commands


def _invoked_command(commands: list[Any], args: list[str]) -> list[Any]:
    """Only the command being run, when argv names one: Typer turns the signature of every
    registered command into Click parameters on each start (~40 ms for all of them); one is
    enough to run it. Help, completion, unknown names and root options see them all."""
    if not args or args[0].startswith("-") or any(v.endswith("_COMPLETE") for v in os.environ):
        return commands
    chosen = [
        info
        for info in commands
        if (info.name or info.callback.__name__.replace("_", "-")) == args[0]
    ]
    return chosen or commands


from zeromem_cli.cli import pack as _pack  # noqa: E402,F401
