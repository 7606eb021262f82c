"""``zeromem path`` and ``zeromem stats``: where the files are and what they hold."""

from typing import Annotated

import typer

from zeromem_cli.cli import app, render_info
from zeromem_cli.cli.options import (
    AgentOption,
    DbOption,
    IsolateOption,
    JsonOption,
    ProjectOption,
    SessionOption,
    UserOption,
    open_store,
)


@app.command()
def path(
    as_json: JsonOption = False,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """Print the database and config file paths (without opening the database)."""
    from zeromem_cli.paths import config_path, default_db_path

    database = db.expanduser() if db is not None else default_db_path()
    render_info.paths({"database": str(database), "config": str(config_path())}, as_json)


@app.command()
def stats(
    all_scopes: Annotated[
        bool, typer.Option("--all-scopes", help="Count every user/agent/session.")
    ] = False,
    as_json: JsonOption = False,
    db: DbOption = None,
    user: UserOption = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    isolate: IsolateOption = None,
) -> None:
    """Memories live / expired / in trash, by category and scope, size, tokens pack saves."""
    from zeromem_cli.errors import InvalidInputError
    from zeromem_cli.stats import collect

    if all_scopes and (user or agent or session or project):
        raise InvalidInputError("give --all-scopes or --user/--agent/--session, not both")
    with open_store(db, user, agent, session, project, isolate) as store:
        data = collect(store, all_scopes=all_scopes).to_dict()
    render_info.stats(data, as_json)
