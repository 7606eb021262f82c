"""``zeromem admin init-postgres URL``: create (or upgrade) a PostgreSQL store's schema as the
role that owns it, grant member roles the use of it, and print what was done.

Members of a team store connect as their own roles, which may not create tables; the owner
runs this once (and after upgrading zeromem), and members' first use then finds the schema.
"""

from typing import Annotated, Optional

import typer

from zeromem_cli.cli import app, render_info
from zeromem_cli.cli.options import JsonResultOption

admin_app = typer.Typer(
    name="admin",
    help="Set up shared stores (PostgreSQL).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(admin_app, name="admin")


@admin_app.command("init-postgres")
def init_postgres(
    url: Annotated[
        str,
        typer.Argument(metavar="URL", help="postgresql://owner@host/database", show_default=False),
    ],
    member: Annotated[
        Optional[list[str]],
        typer.Option(
            "--member",
            metavar="ROLE",
            help="A PostgreSQL role to grant the use of the store (repeatable).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonResultOption = False,
) -> None:
    """Create or upgrade the zeromem schema in a PostgreSQL database; print what was done."""
    from zeromem_cli.errors import InvalidInputError
    from zeromem_cli.storage.db import is_url
    from zeromem_cli.storage.postgres.admin import initialize

    if not is_url(url):
        raise InvalidInputError("init-postgres takes a postgresql:// URL")
    render_info.init_report(initialize(url, tuple(member or ())), as_json)
