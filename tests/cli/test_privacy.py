"""Privacy: one scope never sees, changes or learns about another's memories on any path, and
the package cannot talk to the network."""

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
}


@pytest.fixture
def seeded(cli: Run) -> dict[str, int]:
    """One memory per scope, all containing the word 'shared'; returns scope -> id."""
    ids = {}
    for name, scope in SCOPES.items():
        ids[name] = int(cli("add", f"{name} shared private fact", *scope).stdout)
    return ids


def test_every_read_sees_only_its_own_scope(cli: Run, seeded: dict[str, int]) -> None:
    for name, scope in SCOPES.items():
        mine = seeded[name]
        assert [h["id"] for h in as_json(cli("search", "shared", *scope, "--json"))] == [mine]
        assert [h["id"] for h in as_json(cli("search", "shared", "--fts", *scope, "--json"))] == [
            mine
        ]
        assert [m["id"] for m in as_json(cli("list", *scope, "--json"))] == [mine]
        assert as_json(cli("show", str(mine), *scope, "--json"))["id"] == mine
        packed = as_json(cli("pack", "shared", "--format", "json", "--no-touch", *scope))
        assert [m["id"] for m in packed] == [mine]
        assert cli("pack", "shared", *scope).stdout.count("shared private fact") == 1
        exported = cli("export", *scope).stdout.splitlines()
        assert [json.loads(line)["id"] for line in exported] == [mine]
        assert as_json(cli("stats", *scope, "--json"))["memories"]["live"] == 1


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
def test_another_scopes_id_is_simply_not_found(
    cli: Run, seeded: dict[str, int], command: list[str]
) -> None:
    for owner, victim_id in seeded.items():
        for intruder, scope in SCOPES.items():
            if intruder == owner:
                continue
            args = [part.format(id=victim_id) for part in command]
            result = cli(*args, *scope)
            assert result.exit_code == 1, (owner, intruder, result.stderr)
            assert result.stderr.startswith(f"zeromem: error: no memory #{victim_id} ")
            assert "shared" not in result.stderr + result.stdout  # nothing about its content
    for name, scope in SCOPES.items():  # and nothing changed
        record = as_json(cli("show", str(seeded[name]), *scope, "--json"))
        assert record["content"] == f"{name} shared private fact"
        assert record["importance"] == 5 and record["deleted_at"] is None


def test_a_forgotten_memory_cannot_be_restored_from_another_scope(
    cli: Run, seeded: dict[str, int]
) -> None:
    assert cli("forget", str(seeded["alice"]), "--yes", "--user", "alice").exit_code == 0
    for intruder in ("bob", "alice-coder", "unscoped"):
        assert cli("restore", str(seeded["alice"]), *SCOPES[intruder]).exit_code == 1
        assert cli("history", str(seeded["alice"]), *SCOPES[intruder]).exit_code == 1
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
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_scanner_would_catch_an_import() -> None:
    assert _imported_modules("import socket\nfrom urllib.request import urlopen") == {
        "socket",
        "urllib",
    }
    assert _imported_modules("x = __import__('requests')") == {"requests"}
