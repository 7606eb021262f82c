"""``zeromem path`` and ``zeromem stats``: where the files are and what they hold."""

from typing import Annotated

import typer

from zeromem_cli.cli import app, render_info
from zeromem_cli.cli.options import (
    DbOption,
    JsonResultOption,
    StoreOptions,
    refuse_all_scopes_with_scope,
    store_options,
)


@app.command()
def path(as_json: JsonResultOption = False, db: DbOption = None) -> None:
    """Print the database and config file paths (without opening the database)."""
    from zeromem_cli.paths import config_path, db_location, default_db_path
    from zeromem_cli.storage.db import display

    database = db_location(db) if db is not None else default_db_path()
    render_info.paths({"database": display(database), "config": str(config_path())}, as_json)


@app.command()
@store_options
def stats(
    where: StoreOptions,
    all_scopes: Annotated[
        bool, typer.Option("--all-scopes", help="Count every user/project/agent/session.")
    ] = False,
    as_json: JsonResultOption = False,
) -> None:
    """Memories live / expired / in trash, by category and scope, size, tokens pack saves."""
    refuse_all_scopes_with_scope(all_scopes, where)
    with where.open(reading=True) as store:
        data = store.stats(all_scopes=all_scopes).to_dict()
    render_info.stats(data, as_json)
