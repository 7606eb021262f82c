"""The ``hook`` command: what an agent harness runs at its lifecycle events.

The console script runs hooks without Typer (``integrations/hooks/fastpath.py``); this
command is what ``zeromem hook --help`` shows and what an in-process caller reaches. Both end in
``integrations.hooks.runner.run_hook``, which never fails: a hook that breaks is an exit 0 with
nothing injected and one line on stderr.
"""

from typing import Annotated

import typer

from zeromem_cli.cli import app
from zeromem_cli.cli.options import StoreOptions, store_options


@app.command()
@store_options
def hook(
    where: StoreOptions,
    harness: Annotated[str, typer.Argument(help="claude-code, codex or gemini.")],
    event: Annotated[
        str,
        typer.Argument(help="session-start, user-prompt, pre-compact, stop or session-end."),
    ],
) -> None:
    """Answer an agent harness's hook: its JSON on stdin, memories injected or the transcript
    ingested (written by `zeromem setup`; never fails the harness)."""
    from zeromem_cli.integrations.hooks.runner import Where, run_hook

    run_hook(
        harness,
        event,
        Where(
            where.db,
            where.user,
            where.agent,
            where.session,
            where.project,
            where.isolate,
            where.key_file,
        ),
    )
