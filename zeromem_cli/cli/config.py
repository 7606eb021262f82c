"""``zeromem config list | get | set | unset | path``: the settings file, from the command line.

Values are validated by the schema in ``zeromem_cli.config``; ``list`` and ``get`` show the
value in effect (environment > file > default) and where it comes from. Settings are per user,
not per database, so these commands take neither --db nor the scope options.
"""

from typing import Annotated

import typer

from zeromem_cli.cli import app, render, render_info
from zeromem_cli.cli.options import JsonResultOption, settings
from zeromem_cli.config import SETTINGS, setting

config_app = typer.Typer(
    name="config",
    help="Show and change settings (a TOML file; environment variables override it).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(config_app, name="config")


def _complete_key(incomplete: str) -> list[tuple[str, str]]:
    return [(key, s.help) for key, s in SETTINGS.items() if key.startswith(incomplete)]


KeyArgument = Annotated[
    str,
    typer.Argument(
        metavar="KEY",
        help="A setting, e.g. search.limit (see `config list`).",
        autocompletion=_complete_key,
        show_default=False,
    ),
]


@config_app.command("list")
def list_settings(as_json: JsonResultOption = False) -> None:
    """Every setting with its value and where it comes from (env, file, default)."""
    config = settings()
    items = [
        {
            "key": key,
            "value": value,
            "source": source,
            "default": SETTINGS[key].default,
            "env": SETTINGS[key].env_var,
            "help": SETTINGS[key].help,
        }
        for key, value, source in config.items()
    ]
    render_info.config_items(items, as_json)


@config_app.command("get")
def get_setting(key: KeyArgument, as_json: JsonResultOption = False) -> None:
    """Print the value in effect for KEY."""
    render_info.single_value(settings().get(key), as_json)


@config_app.command("set")
def set_setting(
    key: KeyArgument,
    value: Annotated[str, typer.Argument(help="The new value.", show_default=False)],
) -> None:
    """Validate VALUE and store it in the config file."""
    config = settings()
    key = config.resolve(key)
    stored = config.set(key, value)
    render.message(f"set {key} = {render_info.config_value(stored)} in {config.path}")
    spec = setting(key)
    if config.source(key) == "env":
        render.warning(f"{spec.env_var} is set and overrides the file")


@config_app.command("unset")
def unset_setting(key: KeyArgument) -> None:
    """Remove KEY from the config file (back to its default)."""
    config = settings()
    key = config.resolve(key)
    if config.unset(key):
        value = render_info.config_value(config.get(key))
        render.message(f"unset {key} (now {value}, from {config.source(key)})")
    else:
        render.message(f"{key} was not set in {config.path}")


@config_app.command("path")
def config_path() -> None:
    """Print the path of the config file (it may not exist yet)."""
    from zeromem_cli.paths import config_path as path_of_config

    print(path_of_config())
