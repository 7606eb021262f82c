"""The options shared by commands: which commands take the store options, and the filter
flags read on the store's clock (``cli.options.filters_from_flags``)."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import typer
from typer._click import types as click_types
from typer.testing import CliRunner

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore
from zeromem_cli.cli import app
from zeromem_cli.cli.options import argument, filters_from_flags, option

FIXED = datetime(2030, 6, 15, 12, 0, tzinfo=timezone.utc)


def test_filters_count_back_from_the_store_clock_not_the_wall_clock(db_path: Path) -> None:
    with MemoryStore(db_path, clock=lambda: FIXED) as store:
        filters = filters_from_flags(
            store,
            category="fact",
            tags=["a", "b"],
            key="k",
            since="7d",
            until="24h",
            min_score=0.5,
            include_expired=True,
            include_deleted=True,
        )
    assert filters.since == FIXED - timedelta(days=7)
    assert filters.until == FIXED - timedelta(hours=24)
    assert (filters.category, list(filters.tags), filters.key) == ("fact", ["a", "b"], "k")
    assert filters.min_score == 0.5 and filters.include_expired and filters.include_deleted


def test_filters_from_no_flags_are_the_default_filters(db_path: Path) -> None:
    from zeromem_cli.models import Filters

    with MemoryStore(db_path, clock=lambda: FIXED) as store:
        assert filters_from_flags(store) == Filters()
        dated = filters_from_flags(store, since="2030-01-31", until="2030-02-01T10:00:00Z")
    assert dated.since == datetime(2030, 1, 31, tzinfo=timezone.utc)
    assert dated.until == datetime(2030, 2, 1, 10, tzinfo=timezone.utc)


def test_filters_on_the_store_clock_select_what_the_store_wrote_then(db_path: Path) -> None:
    clock = [FIXED - timedelta(days=30)]
    with MemoryStore(db_path, clock=lambda: clock[0]) as store:
        store.add("written a month before the fixed day")
        clock[0] = FIXED - timedelta(days=1)
        store.add("written the day before the fixed day")
        clock[0] = FIXED
        recent = store.list(filters=filters_from_flags(store, since="7d"))
        older = store.list(filters=filters_from_flags(store, until="7d"))
    assert [m.content for m in recent] == ["written the day before the fixed day"]
    assert [m.content for m in older] == ["written a month before the fixed day"]


def test_since_and_until_through_the_cli(cli: Run) -> None:
    old = (datetime.now(timezone.utc) - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = f'{{"content": "weekly report, old", "created_at": "{old}"}}\n'
    assert cli("import", "-", input=lines).exit_code == 0
    cli("add", "weekly report, new")

    def contents(*args: str) -> list[str]:
        return sorted(m["content"] for m in as_json(cli(*args, "--json")))

    both = ["weekly report, new", "weekly report, old"]
    assert contents("search", "weekly report") == both
    assert contents("search", "weekly report", "--since", "7d") == ["weekly report, new"]
    assert contents("search", "weekly report", "--until", "7d") == ["weekly report, old"]
    assert contents("search", "report", "--since", "60d", "--until", "7d") == ["weekly report, old"]
    exported = cli("export", "--since", "7d").stdout.splitlines()
    assert len(exported) == 1 and "weekly report, new" in exported[0]
    packed = cli("pack", "weekly report", "--until", "7d").stdout
    assert "old" in packed and "new" not in packed


STORELESS = [
    ("config", "list"),
    ("config", "get", "search.limit"),
    ("config", "set", "search.limit", "3"),
    ("config", "unset", "search.limit"),
    ("config", "path"),
    ("completions", "bash"),
]


@pytest.mark.parametrize("option", ["--user", "--agent", "--session", "--db"])
@pytest.mark.parametrize("command", STORELESS, ids=" ".join)
def test_commands_without_a_store_refuse_store_options(
    command: tuple[str, ...], option: str, isolated_home: Path
) -> None:
    result = CliRunner().invoke(app, [*command, option, "x"])
    assert result.exit_code == 2
    assert f"No such option: {option}" in result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""
    assert not (isolated_home / "config.toml").exists()  # `config set` did not run


@pytest.mark.parametrize("option", ["--user", "--agent", "--session"])
def test_path_takes_db_but_no_scope(option: str, tmp_path: Path) -> None:
    runner = CliRunner()
    refused = runner.invoke(app, ["path", option, "alice"])
    assert refused.exit_code == 2 and f"No such option: {option}" in refused.stderr
    chosen = runner.invoke(app, ["path", "--db", str(tmp_path / "x.db")])
    assert chosen.exit_code == 0
    assert chosen.stdout.splitlines()[0] == f"database\t{tmp_path / 'x.db'}"


def test_exactly_the_store_commands_take_the_store_options() -> None:
    """The commands docs/cli.md lists as taking --db/--user/--agent/--session do; no other does."""
    from typer.main import get_command

    from zeromem_cli.cli import COMMAND_ORDER

    root = get_command(app)
    ctx = root.make_context("zeromem", ["--version"], resilient_parsing=True)
    taking = {}
    for name in COMMAND_ORDER:
        command = root.get_command(ctx, name)
        subcommands = getattr(command, "commands", None)
        each = (
            {f"{name} {s}": c for s, c in subcommands.items()} if subcommands else {name: command}
        )
        for full, one in each.items():
            options = {opt for p in one.params for opt in getattr(p, "opts", [])}
            taking[full] = sorted(
                options & {"--db", "--user", "--agent", "--session", "--key-file"}
            )
    store = ["--agent", "--db", "--key-file", "--session", "--user"]
    # docs/cli.md: these open no database (admin init-postgres takes its URL as an argument)
    storeless = {"config", "path", "completions", "setup", "key", "admin"}
    assert {name for name, options in taking.items() if options == store} == (
        set(COMMAND_ORDER) - storeless
    )
    assert taking["setup"] == ["--db", "--user"]  # its own: the entries' database, user files
    assert taking["path"] == ["--db"]
    others = [n for n in taking if n.startswith(("config ", "completions", "key "))]
    assert len(others) == 8 and all(taking[n] == [] for n in others)


# ``option`` / ``argument`` build Typer's records without Typer's three calls deep (#30): the
# records must be Typer's own, attribute for attribute, for every kind of setting the CLI uses.
_OPTION_CALLS: list[tuple[tuple[object, ...], dict[str, object]]] = [
    (("--limit", "-n"), {"min": 1, "help": "At most N."}),
    (("--db",), {"envvar": "ZEROMEM_DB", "show_default": False, "rich_help_panel": "P"}),
    (("--format", "-f"), {"case_sensitive": False, "show_default": False}),
    (("--key-file",), {"readable": False, "envvar": "ZEROMEM_KEY_FILE"}),
    (("--isolate/--no-isolate",), {}),
    ((False, "--version"), {"is_eager": True, "callback": print, "help": "Version."}),
    ((), {"click_type": click_types.INT}),
    ((), {}),
]


@pytest.mark.parametrize(("args", "settings"), _OPTION_CALLS)
def test_option_is_typers_option(args: tuple[object, ...], settings: dict[str, object]) -> None:
    made, typers = option(*args, **settings), typer.Option(*args, **settings)
    assert isinstance(made, type(typers)) and vars(made) == vars(typers)
    copied = copy.copy(made)  # as Typer copies it for each command it builds
    assert copied is not made and type(copied) is type(made) and vars(copied) == vars(made)


def test_argument_is_typers_argument() -> None:
    for settings in ({"help": "What to look for."}, {"show_default": False}, {}):
        made, typers = argument(None, **settings), typer.Argument(None, **settings)
        assert isinstance(made, type(typers)) and vars(made) == vars(typers)
        assert vars(copy.copy(made)) == vars(made)


def test_option_leaves_what_typer_checks_to_typer() -> None:
    with pytest.raises(TypeError):
        option("--x", no_such_setting=1)
    with pytest.raises(ValueError, match="parser"):
        option("--x", parser=int, click_type=click_types.INT)
    with pytest.warns(DeprecationWarning):
        option("--x", is_flag=True)
