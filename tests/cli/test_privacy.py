"""Privacy: one owner (user and project) never sees, changes or learns about another's memories
on any path, nor an isolated scope about any other scope's; and the package cannot talk to the
network."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import zeromem_cli
from tests.conftest import Run, as_json

SCOPES = {
    "alice": ["--user", "alice"],
    "bob": ["--user", "bob"],
    "alice-coder": ["--user", "alice", "--agent", "coder"],
    "alice-session": ["--user", "alice", "--session", "s1"],
    "unscoped": [],
    "alice-app": ["--user", "alice", "--project", "app"],
    "alice-site": ["--user", "alice", "--project", "site", "--session", "s1"],
    "bob-app": ["--user", "bob", "--project", "app"],
}
# Who owns each scope's memory: a user and project. By default a scope reads every memory of
# its owner, whichever agent or session wrote it (a new session recalls earlier ones); with
# --isolate it reads only its exact scope, as every scope did before the project scope.
OWNERS = {
    "alice": "alice",
    "alice-coder": "alice",
    "alice-session": "alice",
    "bob": "bob",
    "unscoped": "unscoped",
    "alice-app": "alice/app",
    "alice-site": "alice/site",
    "bob-app": "bob/app",
}
MODES = {"shared": [], "isolated": ["--isolate"]}
# Each mode is a battery of some sixty commands: the fast loop runs the default (shared), the
# whole suite both.
MODE_PARAMS = ["shared", pytest.param("isolated", marks=pytest.mark.slow)]
# A word of its own in each memory, so pack never takes two of them for near-duplicates.
WORDS = ("apricot", "birch", "cedar", "damson", "elder", "fig", "gorse", "hazel")
CONTENT = {
    name: f"{name} shared private fact {word}" for name, word in zip(SCOPES, WORDS, strict=True)
}


def _readers(owner: str, mode: str) -> set[str]:
    """The scopes that read the memory written in scope ``owner``."""
    if mode == "isolated":
        return {owner}
    return {name for name in SCOPES if OWNERS[name] == OWNERS[owner]}


@pytest.fixture
def seeded(cli: Run) -> dict[str, int]:
    """One memory per scope, all containing the word 'shared'; returns scope -> id."""
    ids = {}
    for name, scope in SCOPES.items():
        ids[name] = int(cli("add", CONTENT[name], *scope).stdout)
    return ids


@pytest.mark.parametrize("mode", MODE_PARAMS)
def test_every_read_sees_only_its_owners_memories(
    cli: Run, seeded: dict[str, int], mode: str
) -> None:
    for name, given in SCOPES.items():
        scope = [*given, *MODES[mode]]
        mine = sorted(seeded[other] for other in SCOPES if name in _readers(other, mode))
        assert sorted(h["id"] for h in as_json(cli("search", "shared", *scope, "--json"))) == mine
        fts = as_json(cli("search", "shared", "--fts", *scope, "--json"))
        assert sorted(h["id"] for h in fts) == mine
        assert sorted(m["id"] for m in as_json(cli("list", *scope, "--json"))) == mine
        for memory_id in mine:
            assert as_json(cli("show", str(memory_id), *scope, "--json"))["id"] == memory_id
        packed = as_json(cli("pack", "shared", "--format", "json", "--no-touch", *scope))
        assert sorted(m["id"] for m in packed) == mine
        assert cli("pack", "shared", *scope).stdout.count("shared private fact") == len(mine)
        exported = cli("export", *scope).stdout.splitlines()
        assert sorted(json.loads(line)["id"] for line in exported) == mine
        assert as_json(cli("stats", *scope, "--json"))["memories"]["live"] == len(mine)


@pytest.mark.parametrize("mode", MODE_PARAMS)
@pytest.mark.parametrize(
    "command",
    [
        ["show", "{id}"],
        ["history", "{id}"],
        ["update", "{id}", "hijacked"],
        ["update", "{id}", "--importance", "9"],
        ["forget", "{id}", "--yes"],
        ["restore", "{id}"],
    ],
    ids=lambda c: " ".join(c[:1] + c[2:3]),
)
def test_another_owners_id_is_simply_not_found(
    cli: Run, seeded: dict[str, int], command: list[str], mode: str
) -> None:
    for owner, victim_id in seeded.items():
        for intruder, scope in SCOPES.items():
            if intruder in _readers(owner, mode):
                continue
            args = [part.format(id=victim_id) for part in command]
            result = cli(*args, *scope, *MODES[mode])
            assert result.exit_code == 1, (owner, intruder, result.stderr)
            assert result.stderr.startswith(f"zeromem: error: no memory #{victim_id} ")
            assert "shared" not in result.stderr + result.stdout  # nothing about its content
    for name, scope in SCOPES.items():  # and nothing changed
        record = as_json(cli("show", str(seeded[name]), *scope, "--isolate", "--json"))
        assert record["content"] == CONTENT[name]
        assert record["importance"] == 5 and record["deleted_at"] is None


def test_a_forgotten_memory_cannot_be_restored_by_another_owner(
    cli: Run, seeded: dict[str, int]
) -> None:
    assert cli("forget", str(seeded["alice"]), "--yes", "--user", "alice").exit_code == 0
    intruders = [SCOPES[name] for name in ("bob", "unscoped", "alice-app", "bob-app")]
    intruders.append([*SCOPES["alice-coder"], "--isolate"])
    for scope in intruders:
        assert cli("restore", str(seeded["alice"]), *scope).exit_code == 1
        assert cli("history", str(seeded["alice"]), *scope).exit_code == 1
    assert cli("restore", str(seeded["alice"]), "--user", "alice").exit_code == 0


def test_key_upsert_and_duplicates_never_cross_scopes(cli: Run) -> None:
    cli("add", "alice's report day", "--key", "report", "--user", "alice")
    bob = cli("add", "bob's report day", "--key", "report", "--user", "bob")
    assert bob.stderr == "" and bob.stdout == "2\n"  # a new memory, not an update of alice's
    same = cli("add", "alice's report day", "--user", "bob")
    assert same.stdout == "3\n"  # identical text in another scope is not a "duplicate"
    assert as_json(cli("show", "1", "--user", "alice", "--json"))["content"] == (
        "alice's report day"
    )
    app = cli(
        "add", "the app's report day", "--key", "report", "--user", "alice", "--project", "app"
    )
    assert app.stdout == "4\n"  # a project is another owner: its own key
    assert as_json(cli("show", "1", "--user", "alice", "--json"))["content"] == (
        "alice's report day"
    )


# -- no network ------------------------------------------------------------------------------------

NETWORK_MODULES = {
    "socket",
    "ssl",
    "http",
    "urllib",
    "urllib3",
    "requests",
    "httpx",
    "aiohttp",
    "ftplib",
    "smtplib",
    "telnetlib",
    "xmlrpc",
    "websocket",
    "websockets",
    "asyncio",
}


def _imported_modules(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif (  # __import__("socket") / importlib.import_module("socket")
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Name) and node.func.id == "__import__")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            found.add(node.args[0].value.split(".")[0])
    return found


def test_the_package_imports_no_network_module() -> None:
    package = Path(zeromem_cli.__file__).parent
    sources = sorted(package.rglob("*.py"))
    assert len(sources) > 10
    offenders = {
        str(path.relative_to(package)): sorted(
            _imported_modules(path.read_text()) & NETWORK_MODULES
        )
        for path in sources
    }
    # The one listener: `zeromem mcp --http` binds the address it was asked to serve once,
    # before saying it serves there (a busy port is an error, not a false "serving").
    allowed = {"mcp/listen.py": ["socket"]}
    assert {k: v for k, v in offenders.items() if v and allowed.get(k) != v} == {}


def test_the_scanner_would_catch_an_import() -> None:
    assert _imported_modules("import socket\nfrom urllib.request import urlopen") == {
        "socket",
        "urllib",
    }
    assert _imported_modules("x = __import__('requests')") == {"requests"}
