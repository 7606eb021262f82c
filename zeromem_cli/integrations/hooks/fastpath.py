"""``zeromem hook ...`` without Typer: the console script hands a hook invocation straight here.

A hook runs on every prompt a person types, so its start-up is its latency: importing Typer and
Click and building the command costs more than the hook's own work (python -m
benchmarks.hook_latency). The command line is small and fixed: ``HARNESS EVENT`` and the store
options ``--db``, ``--user``, ``--agent``, ``--session``, ``--project``, ``--key-file`` (or
``ZEROMEM_DB``...) and ``--isolate/--no-isolate``, exactly those of the Typer ``hook`` command
(``zeromem_cli/cli/hook.py``, which ``--help`` still reaches; a test keeps the two in step).
Anything malformed is one stderr line and exit 0, like every other hook failure: an exit 2 would
make Claude Code reject the user's prompt.
"""

from __future__ import annotations

import os
import sys

STORE_OPTIONS = {
    "--db": "ZEROMEM_DB",
    "--user": "ZEROMEM_USER",
    "--agent": "ZEROMEM_AGENT",
    "--session": "ZEROMEM_SESSION",
    "--project": "ZEROMEM_PROJECT",
    "--key-file": "ZEROMEM_KEY_FILE",
}
FLAGS = {"--isolate": "1", "--no-isolate": "0"}
HELP = frozenset({"-h", "--help"})


def parse(argv: list[str]) -> tuple[list[str], dict[str, str | None]] | str:
    """(positionals, store options) or an error message."""
    positionals: list[str] = []
    options: dict[str, str | None] = {
        name: os.environ.get(var) or None for name, var in STORE_OPTIONS.items()
    }
    options["--isolate"] = None
    args = iter(argv)
    for arg in args:
        name, equals, value = arg.partition("=")
        if arg in FLAGS:
            options["--isolate"] = FLAGS[arg]
        elif name in STORE_OPTIONS:
            if not equals:
                value = next(args, "")
            if not value:
                return f"{name} needs a value"
            options[name] = value
        elif arg.startswith("-") and arg != "-":
            return f"unknown option {arg!r}"
        else:
            positionals.append(arg)
    if len(positionals) != 2:
        return (
            "usage: zeromem hook HARNESS EVENT [--db PATH] [--user U] [--agent A] "
            "[--session S] [--project NAME|auto|none] [--isolate] [--key-file PATH]"
        )
    return positionals, options


def main(argv: list[str]) -> int | None:
    """Run the hook and return its exit code (always 0), or None to let Typer answer
    (``--help``)."""
    if HELP & set(argv):
        return None
    from zeromem_cli.integrations.hooks.runner import Where, run_hook, say

    parsed = parse(argv)
    if isinstance(parsed, str):
        label = " ".join(a for a in argv[:2] if not a.startswith("-")) or "?"
        say(label, parsed, sys.stderr)
        return 0
    (harness, event), options = parsed
    isolate = options["--isolate"]
    where = Where(
        options["--db"],
        options["--user"],
        options["--agent"],
        options["--session"],
        options["--project"],
        None if isolate is None else isolate == "1",
        options["--key-file"],
    )
    try:
        return run_hook(harness, event, where)
    except KeyboardInterrupt:  # cancelled before the run could answer it: still no traceback
        return 0
