"""The ``zeromem`` command: a thin Typer layer over ``MemoryStore``.

Each command family lives in its own module and registers on ``app``. This module owns the one
error handler: a ``ZeromemError`` or a usage error becomes ``zeromem: error: ...`` on stderr and
its exit code, never a traceback (set ZEROMEM_DEBUG=1 to see one for an unexpected failure).

Command modules are imported lazily: ``COMMAND_MODULES`` says which module registers each
command, and the group imports only the module of the command being run (``zeromem search``
never loads the import/export or ingest code); help, completion and unknown names load them
all. A new command module goes into that table (an import line at the end of this file works
too, but then every call pays for it).
"""

import functools
import os
import re
import sys
from typing import Any

import typer
from typer._click.exceptions import NoArgsIsHelpError, NoSuchOption, UsageError
from typer.core import TyperGroup

from zeromem_cli.cli import render
from zeromem_cli.errors import ZeromemError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# The reader of stdout went away (`zeromem list | head -1`): what a shell reports for a
# process that SIGPIPE ended, 128 + 13, as `yes | head -1` gives; no message.
EXIT_BROKEN_PIPE = 141


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
    "index",
    "ingest",
    "export",
    "import",
    "encrypt",
    "decrypt",
    "rekey",
    "key",
    "mcp",
    "stats",
    "config",
    "path",
    "setup",
    "hook",
    "admin",
    "completions",
)


# Which module of this package registers each command (see the module docstring).
COMMAND_MODULES = {
    "add": "memories",
    "show": "memories",
    "list": "memories",
    "update": "memories",
    "history": "memories",
    "restore": "lifecycle",
    "search": "search",
    "pack": "pack",
    "forget": "lifecycle",
    "trash": "lifecycle",
    "gc": "lifecycle",
    "index": "lifecycle",
    "ingest": "ingest",
    "export": "transfer",
    "import": "transfer",
    "encrypt": "encryption",
    "decrypt": "encryption",
    "rekey": "encryption",
    "key": "encryption",
    "mcp": "mcp",
    "stats": "info",
    "path": "info",
    "config": "config",
    "setup": "setup",
    "hook": "hook",
    "admin": "admin",
    "completions": "completions",
}


class ZeromemGroup(TyperGroup):
    """A Typer group that builds its commands on demand and whose ``main`` maps every
    failure to one line and an exit code."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:
            module = COMMAND_MODULES.get(cmd_name)
            if module is None:  # unknown: load everything, so "Did you mean" sees every name
                self._load_all()
            else:
                _import_command_module(module)
                built = _build_command(cmd_name)
                if built is not None:
                    self.commands[cmd_name] = built
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        self._load_all()
        names = list(super().list_commands(ctx))
        rank = {name: number for number, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))

    def _load_all(self) -> None:
        for module in dict.fromkeys(COMMAND_MODULES.values()):
            _import_command_module(module)
        for name in _registered_names():
            if name not in self.commands:
                built = _build_command(name)
                if built is not None:
                    self.commands[name] = built

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if any(name.endswith("_COMPLETE") for name in os.environ):
            _import_command_module("completions")  # a TAB: our shell classes answer it
        try:
            _require_utf8_arguments(sys.argv[1:] if args is None else args)
            result = super().main(
                args=args,
                prog_name=prog_name or "zeromem",
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            sys.stdout.flush()  # a reader that left shows here, not at interpreter exit
        except NoArgsIsHelpError as exc:
            # `zeromem` alone: the help, as a usage error (stderr, exit 2), Click's convention
            # for a group called without a command; `zeromem --help` prints it to stdout, 0.
            print(exc.format_message(), file=sys.stderr)
            code = EXIT_USAGE
        except UsageError as exc:
            argv = sys.argv[1:] if args is None else args
            hint = f"; see '{exc.ctx.command_path} --help'" if exc.ctx is not None else ""
            if isinstance(exc, NoSuchOption) and _is_dash_text(exc.option_name, argv):
                where = exc.ctx.command_path if exc.ctx is not None else "zeromem COMMAND"
                hint = f"; text that starts with '-' goes after '--': {where} [OPTIONS] -- TEXT"
            text = _without_secrets(exc.format_message(), argv)
            render.error(text.rstrip(".") + hint)
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
        except SystemExit as exc:
            # Click meets a broken pipe itself and exits 1; the cause is its context.
            if not isinstance(exc.__context__, BrokenPipeError):
                raise
            code = _broken_pipe()
        except BrokenPipeError:
            code = _broken_pipe()
        except OSError as exc:  # the environment (a full disk, a read-only folder): its cause
            if os.environ.get("ZEROMEM_DEBUG"):
                raise
            where = f"{exc.filename}: " if exc.filename else ""
            render.error(f"{where}{exc.strerror or exc}")
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


def _is_dash_text(option: str, args: Any) -> bool:
    """The "option" Click did not know is the start of text (``add "-5 degrees in Harbin"``:
    Click reads ``-5``): an argument beginning with it holds a space, or it is a number."""
    for arg in (str(a) for a in args or ()):
        if arg.startswith(option) and (" " in arg.strip() or _number().fullmatch(arg)):
            return True
    return False


@functools.cache
def _number() -> re.Pattern[str]:
    """A negative number as text; compiled for a usage error only, not on every start."""
    return re.compile(r"-[0-9][0-9.,:]*%?")


def _broken_pipe() -> int:
    """The reader went away (`zeromem list | head`): stop quietly, no traceback; what is still
    buffered goes to /dev/null, so the flush at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_BROKEN_PIPE


def _without_secrets(text: str, args: Any) -> str:
    """A usage error quotes the argument it could not parse (``add "$(cat id_ed25519)"``:
    the key starts with ``-`` and reads as an option; Click quotes it cut at ``=`` and with
    its newlines escaped). When an argument holding a likely secret shows in the message,
    the quote is dropped: the message says what went wrong, never the argument itself."""
    from zeromem_cli.text.secrets import has_secret

    for arg in (str(a) for a in args or ()):
        parts = (arg, arg.lstrip("-"), arg.partition("=")[2])  # "--<token>", "--opt=<token>"
        if not any(part and has_secret(part) for part in parts):
            continue
        probe = arg.lstrip("-")[:12]
        if probe and probe in text:
            what = text.split(":", 1)[0] if ":" in text else "cannot parse the arguments"
            return f"{what}: [an argument that looks like a secret, not shown]"
    return " ".join(text.split())


def _import_command_module(module: str) -> None:
    import importlib

    importlib.import_module(f"zeromem_cli.cli.{module}")


def _command_name(info: Any) -> str:
    return str(info.name or info.callback.__name__.lower().replace("_", "-"))


def _registered_names() -> list[str]:
    names = [_command_name(info) for info in app.registered_commands]
    return names + [str(group.name) for group in app.registered_groups if group.name]


def _build_command(name: str) -> Any:
    """The Click command of one registered Typer command or sub-app, converted the way Typer
    converts all of them when it builds a group (function signature -> Click parameters)."""
    from typer.main import get_command_from_info, get_group_from_info

    for info in app.registered_commands:
        if _command_name(info) == name:
            return get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    for group in app.registered_groups:
        if group.name == name:
            return get_group_from_info(
                group,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
                suggest_commands=app.suggest_commands,
            )
    return None


def _require_utf8_arguments(args: Any) -> None:
    """Undecodable bytes in argv arrive as lone surrogates: refuse them before any work."""
    from zeromem_cli.text.normalize import require_utf8

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


def main() -> None:
    """Run the command named in ``sys.argv`` (the console script reaches it through
    ``zeromem_cli.entry``, which also tunes the garbage collector for a one-shot process)."""
    commands = app.registered_commands
    app.registered_commands = _invoked_command(commands, sys.argv[1:])
    try:
        app()
    finally:
        # Modules imported during the call registered their commands on the shortened list:
        # keep them, so a later call in this process still finds them.
        added = [info for info in app.registered_commands if info not in commands]
        app.registered_commands = commands + added


def _invoked_command(commands: list[Any], args: list[str]) -> list[Any]:
    """Only the command being run, when argv names one: Typer turns the signature of every
    registered command into Click parameters on each start (~40 ms for all of them); one is
    enough to run it. The group builds any other on demand (help, completion, unknown names);
    this matters only for modules imported eagerly at the end of this file."""
    if not args or args[0].startswith("-") or any(v.endswith("_COMPLETE") for v in os.environ):
        return commands
    return [info for info in commands if _command_name(info) == args[0]]
