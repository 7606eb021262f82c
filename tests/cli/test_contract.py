"""The contract scripts and agents rely on (issue 15, part B): every command that changes
memories says what it changed in --json; a broken pipe is a quiet exit 141; memories are
named by id, uid or a unique uid prefix; option letters and --json help mean one thing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore

ZEROMEM = [sys.executable, "-m", "zeromem_cli"]


def _uid(cli: Run, memory_id: int) -> str:
    return str(as_json(cli("show", str(memory_id), "--json"))["uid"])


# -- --json of every command that changes memories ------------------------------------------


def test_add_json_says_what_became_of_the_text(cli: Run) -> None:
    first = as_json(cli("add", "Weekly report goes out Fridays", "--key", "report", "--json"))
    assert first["action"] == "added" and first["id"] == 1 and first["similar"] == []
    assert first["content"] == "Weekly report goes out Fridays"  # the whole record, as before
    again = as_json(cli("add", "Weekly report goes out Fridays", "--key", "report", "--json"))
    assert (again["action"], again["id"]) == ("duplicate", 1)
    moved = as_json(cli("add", "Weekly report goes out Mondays", "--key", "report", "--json"))
    assert (moved["action"], moved["id"], moved["content"]) == (
        "updated",
        1,
        "Weekly report goes out Mondays",
    )
    near = as_json(cli("add", "Weekly report goes out Mondays now", "--json"))
    assert near["action"] == "added" and near["id"] == 2
    assert [s["id"] for s in near["similar"]] == [1]
    assert 0 < near["similar"][0]["similarity"] <= 1
    merged = as_json(cli("add", "Weekly report goes out Mondays at noon", "--merge", "--json"))
    assert merged["action"] == "merged" and merged["id"] in (1, 2)
    assert len(as_json(cli("list", "--json"))) == 2


def test_forget_yes_json_reports_what_it_forgot(cli: Run) -> None:
    for text in ("tea is green", "coffee is black", "water is clear"):
        cli("add", text)
    done = cli("forget", "1", "3", "--yes", "--json")
    assert as_json(done) == {"action": "forgotten", "count": 2, "ids": [1, 3]}
    purged = cli("forget", "1", "--purge", "--yes", "--json")
    report = as_json(purged)
    assert report["action"] == "purged" and report["ids"] == [1] and report["count"] == 1
    assert isinstance(report["wal_truncated"], bool)
    nothing = cli("forget", "--category", "nope", "--yes", "--json")
    assert as_json(nothing) == {"action": "forgotten", "count": 0, "ids": []}


def test_restore_takes_several_ids_and_reports_them(cli: Run) -> None:
    for text in ("tea is green", "coffee is black", "water is clear"):
        cli("add", text)
    cli("forget", "--all", "--yes")
    done = cli("restore", "1", "2", "--json")
    assert as_json(done) == {"action": "restored", "count": 2, "ids": [1, 2]}
    assert sorted(m["id"] for m in as_json(cli("list", "--json"))) == [1, 2]
    plain = cli("restore", "3")
    assert (plain.exit_code, plain.stdout, plain.stderr) == (0, "3\n", "restored #3\n")


def test_restore_undoes_an_over_broad_forget_with_the_same_selectors(cli: Run) -> None:
    cli("add", "Bob likes green tea", "-c", "people")
    cli("add", "Bob's birthday is March 3rd", "-c", "people")
    cli("add", "the staging database is db-2.internal", "-c", "infra")
    cli("forget", "--category", "people", "--yes")
    dry = cli("restore", "--category", "people", "--dry-run", "--json")
    assert sorted(m["id"] for m in as_json(dry)) == [1, 2]
    assert "would restore 2 memories" in dry.stderr
    assert len(as_json(cli("list", "--json"))) == 1  # a dry run changes nothing
    done = as_json(cli("restore", "--category", "people", "--json"))
    assert done["ids"] == [1, 2]
    assert len(as_json(cli("list", "--json"))) == 3
    cli("forget", "--all", "--yes")
    assert as_json(cli("restore", "--query", "Bob tea", "--json"))["ids"] == [1]
    none = cli("restore", "--category", "nope")
    assert (none.exit_code, none.stdout, none.stderr) == (0, "", "nothing to restore\n")
    assert cli("restore").exit_code == 2  # nothing selected: say what to restore
    assert "say what to restore" in cli("restore").stderr


def test_restore_of_a_live_memory_is_not_found(cli: Run) -> None:
    cli("add", "tea is green")
    result = cli("restore", "1")
    assert result.exit_code == 1 and "in the trash" in result.stderr


# -- uid and uid prefix ---------------------------------------------------------------------


def test_every_single_memory_command_takes_a_uid_or_a_unique_prefix(cli: Run) -> None:
    cli("add", "tea is green")
    uid = _uid(cli, 1)
    assert as_json(cli("show", uid, "--json"))["id"] == 1
    assert as_json(cli("show", uid[:8], "--json"))["id"] == 1
    assert as_json(cli("show", uid[:8].upper(), "--json"))["id"] == 1
    assert as_json(cli("update", uid[:6], "tea is very green", "--json"))["id"] == 1
    assert len(as_json(cli("history", uid[:6], "--json"))) == 2
    assert as_json(cli("forget", uid[:6], "--yes", "--json"))["ids"] == [1]
    assert as_json(cli("restore", uid[:6], "--json"))["ids"] == [1]


def test_ambiguous_prefix_message(db_path: Path, cli: Run) -> None:
    import sqlite3

    cli("add", "tea is green")
    cli("add", "coffee is black")
    # Two uids made to share their first 8 hex digits (a real store would need ~2^16 memories).
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE memories SET uid = X'abcdef0189ab4cde8f0123456789abcd' WHERE id = 1")
    conn.execute("UPDATE memories SET uid = X'abcdef01ffff4cde8f0123456789abcd' WHERE id = 2")
    conn.commit()
    conn.close()
    result = cli("show", "abcdef01")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "zeromem: error: uid prefix abcdef01 matches 2 memories: give more of it"
    )
    assert as_json(cli("show", "abcdef0189", "--json"))["id"] == 1
    assert as_json(cli("show", "ABCDEF01-ffff", "--json"))["id"] == 2
    missing = cli("show", "fedcba98")
    assert missing.exit_code == 1 and "no memory with uid fedcba98" in missing.stderr
    bad = cli("show", "not-a-uid")
    assert bad.exit_code == 2 and "not a memory id or uid" in bad.stderr


def test_a_uid_of_another_scope_is_not_found(cli: Run) -> None:
    cli("add", "alice's note", "--user", "alice")
    uid = as_json(cli("show", "1", "--json", "--user", "alice"))["uid"]
    result = cli("show", uid)
    assert result.exit_code == 1 and "no memory with uid" in result.stderr


def test_library_resolve(store: MemoryStore) -> None:
    from zeromem_cli import InvalidInputError, NotFoundError

    memory = store.add("tea is green")
    assert store.resolve(memory.id) == memory.id
    assert store.resolve(str(memory.id)) == memory.id
    assert store.resolve(memory.uid) == memory.id
    assert store.resolve(memory.uid.replace("-", "")[:5]) == memory.id
    # A number is an id if one exists, else a uid prefix (a uid may start with digits only).
    digits = store.add("coffee is black")
    conn = store.connection
    conn.execute(
        "UPDATE memories SET uid = X'83025c4b8f7347708276c706f9675397' WHERE id = ?", (digits.id,)
    )
    assert store.resolve("83025") == digits.id
    assert store.resolve("2") == digits.id  # id 2 exists: an id
    with pytest.raises(InvalidInputError):
        store.resolve("abc")  # shorter than a uid prefix may be
    with pytest.raises(InvalidInputError):
        store.resolve("0")
    with pytest.raises(NotFoundError):
        store.scoped(user="bob").resolve(memory.uid)


# -- broken pipe ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose list, search, export and pack outputs are far larger than a pipe holds
    (pipes may hold 1 MiB: pack prints at most ~200 memories, so those are 10 kB each)."""
    db = tmp_path_factory.mktemp("pipe") / "many.db"
    with MemoryStore(db) as store, store.transaction():
        for number in range(300):
            words = " ".join(f"w{number * 1500 + k:x}" for k in range(1400))
            store.add(f"note {number} about the weekly report: {words}", allow_duplicate=True)
    return db


@pytest.mark.parametrize(
    "args",
    [
        ["list", "-n", "5000"],
        ["list", "-n", "5000", "--json"],
        ["search", "weekly report", "-n", "5000"],
        ["export"],
        ["export", "--format", "csv"],
        # Packs the whole store (seconds of CPU): the whole suite's, not the fast loop's.
        pytest.param(["pack", "--budget", "1000000", "--no-touch"], marks=pytest.mark.slow),
    ],
    ids=lambda a: " ".join(a),
)
def test_a_reader_that_leaves_is_a_quiet_exit_141(many: Path, args: list[str]) -> None:
    process = subprocess.Popen(
        [*ZEROMEM, *args, "--db", str(many)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # `| head -1`
    stderr = process.stderr.read()
    code = process.wait(timeout=60)
    assert first
    assert (code, stderr) == (141, b"")


# -- options mean one thing ------------------------------------------------------------------


def _commands() -> list[tuple[str, object]]:
    import typer._click as click
    import typer.main

    from zeromem_cli.cli import app

    group = typer.main.get_command(app)
    ctx = click.Context(group)
    found: list[tuple[str, object]] = []

    def walk(command: object, path: list[str]) -> None:
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):  # type: ignore[attr-defined]
                walk(command.get_command(ctx, name), [*path, name])  # type: ignore[attr-defined]
        else:
            found.append((" ".join(path), command))

    walk(group, [])
    return found


def test_each_option_letter_means_one_thing_on_every_command() -> None:
    meanings: dict[str, set[str]] = {}
    for _name, command in _commands():
        for param in command.params:  # type: ignore[attr-defined]
            opts = list(getattr(param, "opts", ())) + list(getattr(param, "secondary_opts", ()))
            longs = tuple(o for o in opts if o.startswith("--"))
            for letter in (o for o in opts if len(o) == 2 and o.startswith("-")):
                meanings.setdefault(letter, set()).add(f"{longs}")
    assert {k: v for k, v in meanings.items() if len(v) > 1} == {}
    assert meanings["-n"] == {"('--limit',)"}


def test_json_help_is_true_on_each_command() -> None:
    """ "Same as --format json" only where --format is the output format with a json choice."""
    output_formats = {"table", "plain", "json", "jsonl", "ids"}
    checked = []
    for name, command in _commands():
        params = {p.name: p for p in command.params}  # type: ignore[attr-defined]
        flag = next((p for p in params.values() if "--json" in getattr(p, "opts", ())), None)
        if flag is None:
            continue
        checked.append(name)
        fmt = next((p for p in params.values() if "--format" in getattr(p, "opts", ())), None)
        choices = set(getattr(fmt.type, "choices", ())) if fmt is not None else set()
        if "Same as --format json" in (flag.help or ""):
            assert choices == output_formats, name
    for must in ("add", "update", "forget", "restore", "gc", "ingest", "import", "stats"):
        assert must in checked, must


def test_no_arguments_usage_in_a_real_process() -> None:
    done = subprocess.run(ZEROMEM, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and "Usage:" in done.stderr


def test_json_reports_are_one_json_document(cli: Run) -> None:
    cli("add", "tea is green")
    for args in (["forget", "1", "--yes", "--json"], ["restore", "1", "--json"]):
        result = cli(*args)
        assert result.exit_code == 0
        json.loads(result.stdout)


# -- text that starts with "-" ----------------------------------------------------------------


@pytest.mark.parametrize(
    "args", [["add", "-5 degrees in Harbin"], ["add", "-5"], ["search", "-3.5% growth"]]
)
def test_text_that_starts_with_a_dash_says_to_put_double_dash_first(
    cli: Run, args: list[str]
) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    command = args[0]
    assert result.stderr.strip().endswith(
        f"text that starts with '-' goes after '--': zeromem {command} [OPTIONS] -- TEXT"
    )
    assert len(result.stderr.splitlines()) == 1
    cli("add", "a first memory")  # the store exists: search reads it
    done = cli(args[0], "--", args[1])
    assert done.exit_code == 0, done.stderr


def test_an_unknown_real_option_still_points_at_help(cli: Run) -> None:
    result = cli("add", "text", "--colour")
    assert result.exit_code == 2 and "see 'zeromem add --help'" in result.stderr
