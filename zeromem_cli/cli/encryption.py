"""``zeromem encrypt | decrypt | rekey`` and ``zeromem key new | store``: encryption at rest
(the optional ``zeromem[encryption]`` extra). Keys are never printed."""

from pathlib import Path
from typing import Annotated

import typer

from zeromem_cli.cli import app, render
from zeromem_cli.cli.options import StoreOptions, store_options


def _database(where: StoreOptions) -> Path:
    """The store file; a PostgreSQL URL is refused (encryption at rest is a SQLite file's)."""
    from zeromem_cli.errors import StoreError
    from zeromem_cli.paths import default_db_path, is_database_url

    given = where.db if where.db is not None else default_db_path()
    if is_database_url(given):
        raise StoreError(
            "encryption at rest is for SQLite files: a PostgreSQL store is not encrypted by "
            "zeromem (use the server's encryption)"
        )
    return Path(given).expanduser()


@app.command()
@store_options
def encrypt(where: StoreOptions) -> None:
    """Encrypt the store with the configured key (--key-file, ZEROMEM_KEY or the OS keyring).

    The store is copied, checked and swapped in at once; the plain file is removed. No other
    process may have the store open meanwhile."""
    from zeromem_cli import encryption

    path = _database(where)
    done = encryption.encrypt(path, where.key_file)
    render.message(f"encrypted {path} ({done.rows:,} rows in {done.tables} tables)")


@app.command()
@store_options
def decrypt(where: StoreOptions) -> None:
    """Turn an encrypted store back into a plain SQLite file (readable by anyone who can read
    the file)."""
    from zeromem_cli import encryption

    path = _database(where)
    done = encryption.decrypt(path, where.key_file)
    render.message(f"decrypted {path} ({done.rows:,} rows in {done.tables} tables)")


@app.command()
@store_options
def rekey(
    where: StoreOptions,
    new_key_file: Annotated[
        Path,
        typer.Option(
            "--new-key-file",
            help="File holding the new key (make one with `zeromem key new PATH`).",
            dir_okay=False,
            readable=False,
            show_default=False,
        ),
    ],
) -> None:
    """Re-encrypt the store under a new key; the old key no longer opens it."""
    from zeromem_cli import encryption

    path = _database(where)
    done = encryption.rekey(path, new_key_file, where.key_file)
    render.message(f"rekeyed {path} ({done.rows:,} rows in {done.tables} tables)")


key_app = typer.Typer(
    name="key",
    help="Make a new random key: in a file, or in the OS keyring.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(key_app, name="key")


@key_app.command("new")
def key_new(
    path: Annotated[Path, typer.Argument(help="New file to write (0600; never overwritten).")],
) -> None:
    """Write a new random 256-bit key to a new file (use it with --key-file)."""
    from zeromem_cli import encryption

    encryption.new_key_file(path)
    render.message(f"wrote a new key to {path.expanduser()} (mode 600)")


@key_app.command("store")
def key_store() -> None:
    """Put a new random key in the OS keyring (needs the keyring package and a backend)."""
    from zeromem_cli import encryption

    backend = encryption.store_new_key_in_keyring()
    render.message(f"stored a new key in the OS keyring ({backend})")
