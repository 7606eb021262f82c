"""Bad input through the CLI: wrong --db targets, hostile content, out-of-range option values.
Every case is one line on stderr, the documented exit code, and nothing written or damaged."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from typer.testing import CliRunner, Result

from tests.conftest import Run, as_json, stored
from zeromem_cli import MemoryStore, SchemaError
from zeromem_cli.cli import app
from zeromem_cli.storage.sqlite import migrations as migrations_module
from zeromem_cli.storage.sqlite import schema as schema_module

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_posix = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
# Root reads and writes regardless of file modes through two capabilities; a process started
# without them (util-linux ``setpriv``) meets the modes as any user does.
WITHOUT_OVERRIDE = [
    "setpriv",
    "--inh-caps=-dac_override,-dac_read_search",
    "--bounding-set=-dac_override,-dac_read_search",
]

# Commands that open the database, each with the arguments it needs.
OPENING_COMMANDS = [
    ["add", "some memory"],
    ["search", "memory"],
    ["list"],
    ["show", "1"],
    ["update", "1", "new text"],
    ["history", "1"],
    ["forget", "1", "--yes"],
    ["restore", "1"],
]


def run_on(target: Path, *args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(app, [*args, "--db", str(target)], input=input)


class Outcome(NamedTuple):
    exit_code: int
    stdout: str
    stderr: str


def run_bound_by_modes(target: Path, *args: str) -> Result | Outcome:
    """``run_on`` for a check of file modes: as root, a ``zeromem`` process without the
    capabilities that let root ignore them (so the check runs in CI, which runs as root)."""
    if not IS_ROOT:
        return run_on(target, *args)
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without util-linux setpriv to drop CAP_DAC_OVERRIDE")
    done = subprocess.run(
        [*WITHOUT_OVERRIDE, sys.executable, "-m", "zeromem_cli", *args, "--db", str(target)],
        capture_output=True,
        text=True,
    )
    return Outcome(done.returncode, done.stdout, done.stderr)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_one_line_error(result: Result | Outcome, code: int, *fragments: str) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("zeromem: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


# -- --db targets --------------------------------------------------------------------------------


@pytest.mark.parametrize("args", OPENING_COMMANDS, ids=lambda a: a[0])
@pytest.mark.parametrize(
    "content",
    [b"my precious notes\n" * 50, b"SQLite format 2\x00" + b"\x01" * 200, b"\x00" * 4096],
    ids=["text", "almost-sqlite", "zeros"],
)
def test_a_file_that_is_not_sqlite_is_refused_untouched(
    tmp_path: Path, args: list[str], content: bytes
) -> None:
    target = tmp_path / "notes.txt"
    target.write_bytes(content)
    before = digest(target)
    assert_one_line_error(run_on(target, *args), 1, str(target))
    assert digest(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no -wal, no -journal


def test_a_truncated_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    good = tmp_path / "good.db"
    with MemoryStore(good) as store:
        store.add("kept")
    target = tmp_path / "cut.db"
    target.write_bytes(good.read_bytes()[:1500])  # a header, then garbage where pages should be
    before = digest(target)
    result = run_on(target, "list")
    assert_one_line_error(result, 1)
    assert digest(target) == before


@pytest.mark.parametrize("args", OPENING_COMMANDS[:3], ids=lambda a: a[0])
def test_a_directory_is_refused(tmp_path: Path, args: list[str]) -> None:
    assert_one_line_error(run_on(tmp_path, *args), 1, "is a directory")
    assert list(tmp_path.iterdir()) == []


@needs_posix
def test_an_unreadable_file_is_refused_untouched(tmp_path: Path) -> None:
    target = tmp_path / "m.db"
    with MemoryStore(target) as store:
        store.add("secret life")
    target.chmod(0)
    try:
        assert_one_line_error(run_bound_by_modes(target, "list"), 1, "permission denied")
    finally:
        target.chmod(0o600)
    assert [m.content for m in MemoryStore(target).list()] == ["secret life"]


@needs_posix
@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_read_only_location_is_refused_untouched(tmp_path: Path, what: str) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    target = folder / "m.db"
    with MemoryStore(target) as store:
        store.add("kept")
    before = digest(target)
    (target if what == "file" else folder).chmod(0o500 if what == "folder" else 0o400)
    try:
        assert_one_line_error(run_bound_by_modes(target, "add", "more"), 1)
        assert digest(target) == before
    finally:
        folder.chmod(0o700)
        target.chmod(0o600)


@needs_posix
def test_a_new_database_in_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    try:
        assert_one_line_error(run_bound_by_modes(folder / "m.db", "add", "x"), 1, "cannot create")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)


def test_a_database_under_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    assert_one_line_error(run_on(blocker / "m.db", "add", "x"), 1, "cannot create")
    assert blocker.read_text() == "x"


# -- migrations ----------------------------------------------------------------------------------


def test_a_failing_migration_rolls_back_every_step(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryStore(db_path) as store:
        store.add("kept across a failed upgrade")
    before = sqlite3.connect(db_path)
    schema = before.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    version = before.execute("PRAGMA user_version").fetchone()[0]
    before.close()

    def m_good(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE upgrade_marker (x)")
        conn.execute("ALTER TABLE memories ADD COLUMN upgraded INTEGER")
        conn.execute("UPDATE memories SET content = 'rewritten'")

    def m_bad(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE another (x)")
        conn.execute("SELECT no_such_function()")

    steps = [*migrations_module.MIGRATIONS, m_good, m_bad]
    monkeypatch.setattr(migrations_module, "MIGRATIONS", steps)
    monkeypatch.setattr(migrations_module, "LATEST_VERSION", len(steps))
    monkeypatch.setattr(schema_module, "LATEST_VERSION", len(steps))
    with pytest.raises(SchemaError, match="m_bad.*left unchanged"):
        MemoryStore(db_path)
    result = run_on(db_path, "list")
    assert_one_line_error(result, 1, "migration", "m_bad")

    after = sqlite3.connect(db_path)
    assert after.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema
    assert after.execute("PRAGMA user_version").fetchone()[0] == version
    assert after.execute("SELECT content FROM memories").fetchall() == [
        ("kept across a failed upgrade",)
    ]
    after.close()
    monkeypatch.undo()
    assert [m.content for m in MemoryStore(db_path).list()] == ["kept across a failed upgrade"]


def test_a_failing_first_migration_leaves_a_new_database_empty(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def m_bad(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half (x)")
        conn.execute("CREATE TABLE half (x)")

    steps = [*migrations_module.MIGRATIONS, m_bad]
    monkeypatch.setattr(migrations_module, "MIGRATIONS", steps)
    monkeypatch.setattr(migrations_module, "LATEST_VERSION", len(steps))
    monkeypatch.setattr(schema_module, "LATEST_VERSION", len(steps))
    with pytest.raises(SchemaError):
        MemoryStore(db_path)
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    conn.close()


# -- content --------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["add", "-"], ["search", "-"]])
def test_invalid_utf8_on_stdin_is_refused(cli: Run, command: list[str]) -> None:
    result = cli(*command, input=b"ok then \xff\xfe broken")
    assert_one_line_error(result, 2, "not valid UTF-8")
    assert stored(cli) == []


def test_invalid_utf8_on_stdin_for_update_keeps_the_memory(cli: Run) -> None:
    cli("add", "original")
    assert_one_line_error(cli("update", "1", "-", input=b"\xc3\x28"), 2, "not valid UTF-8")
    assert as_json(cli("show", "1", "--json"))["content"] == "original"


@pytest.mark.parametrize("content", ["\x00", "\x00\x01\x1b\x7f", " \t\r\n ", "\u0085\x9b"])
def test_content_of_only_control_characters_is_empty(cli: Run, content: str) -> None:
    assert_one_line_error(cli("add", content), 2, "content is empty")


def test_control_characters_are_removed_deliberately(cli: Run) -> None:
    record = as_json(cli("add", "-", "--json", input="a\x00b\x1b[2Jc\r\nd\te\x07"))
    assert record["content"] == "ab[2Jc\nd\te"
    assert [h["id"] for h in as_json(cli("search", "ab", "--json"))] == [record["id"]]


def test_update_to_empty_content_is_refused(cli: Run) -> None:
    cli("add", "original")
    assert_one_line_error(cli("update", "1", "   "), 2, "content is empty")
    assert as_json(cli("show", "1", "--json"))["content"] == "original"


def test_size_limit_is_configurable_and_named(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    default = cli("add", "x" * (64 * 1024 + 1))
    assert_one_line_error(default, 2, "65536 bytes")
    assert cli("add", "é" * (32 * 1024)).exit_code == 0  # exactly 64 KiB of UTF-8
    monkeypatch.setenv("ZEROMEM_ADD_MAX_CONTENT_BYTES", "10")
    assert_one_line_error(cli("add", "eleven byte"), 2, "over the limit of 10 bytes")
    assert_one_line_error(cli("update", "1", "eleven byte"), 2, "10 bytes")
    assert cli("add", "ten bytes!").exit_code == 0
    monkeypatch.setenv("ZEROMEM_ADD_MAX_CONTENT_BYTES", "0")
    result = cli("add", "x")
    assert result.exit_code == 1 and "add.max_content_bytes" in result.stderr


# -- option values --------------------------------------------------------------------------------

BAD_OPTIONS: list[tuple[list[str], str]] = [
    (["add", "m", "--ttl", "999999999w"], "too long"),
    (["add", "m", "--ttl", "0s"], "positive"),
    (["add", "m", "--ttl", "-5d"], "not a TTL"),
    (["add", "m", "--ttl", "9999-12-31T23:59:59-01:00"], "out of range"),
    (["add", "m", "--ttl", "2026-02-30"], "not a TTL"),
    (["add", "m", "--ttl", ""], "not a TTL"),
    (["add", "m", "--importance", "5.5"], ""),
    (["add", "m", "--importance", "99999999999999999999999"], ""),
    (["add", "m", "--meta", "k"], "KEY=VALUE"),
    (["add", "m", "--meta", " =v"], "KEY=VALUE"),
    (["add", "m", "--category", "\x00"], "category is empty"),
    (["add", "m", "--tag", " "], "tag is empty"),
    (["add", "m", "--key", "k" * 201], "longer than 200"),
    (["search", "m", "--since", "999999999w"], "too long"),
    (["search", "m", "--since", "yesterday"], "not a date or duration"),
    (["search", "m", "--until", "0001-01-01T00:00:00+01:00"], "out of range"),
    (["search", "m", "--limit", "0"], ""),
    (["list", "--limit", "-1"], ""),
    (["show", "0"], ""),
    (["show", "-3"], ""),
    (["show", "99999999999999999999"], "not a memory id"),
    (["show", "1e3"], ""),
    (["forget", "1", "0", "--yes"], ""),
    (["update", "1", "--ttl", "1d", "--no-ttl"], "not both"),
    (["update", "1", "--importance", "11"], ""),
]


@pytest.mark.parametrize(("args", "fragment"), BAD_OPTIONS, ids=lambda v: repr(v)[:40])
def test_bad_option_values_are_one_line_usage_errors(
    cli: Run, args: list[str], fragment: str
) -> None:
    cli("add", "existing memory")
    result = cli(*args)
    assert_one_line_error(result, 2, fragment)
    assert [m["content"] for m in as_json(cli("list", "--json", "--include-expired"))] == [
        "existing memory"
    ]


def test_non_finite_meta_numbers_stay_text(cli: Run) -> None:
    record = as_json(
        cli("add", "m", "--meta", "a=1e999", "--meta", "b=-Infinity", "--meta", "c=NaN", "--json")
    )
    assert record["meta"] == {"a": "1e999", "b": "-Infinity", "c": "NaN"}


def test_library_meta_must_be_json(store: MemoryStore) -> None:
    from zeromem_cli import InvalidInputError

    for bad in ({"x": float("nan")}, {"x": object()}, {"x": float("inf")}):
        with pytest.raises(InvalidInputError):
            store.add("m", meta=bad)
    assert store.count() == 0


def test_a_huge_limit_means_everything(cli: Run) -> None:
    cli("add", "one")
    assert len(as_json(cli("list", "--limit", str(10**30), "--json"))) == 1
    assert len(as_json(cli("search", "one", "--limit", str(10**30), "--json"))) == 1


Check = Callable[[Path], None]


def test_files_and_folder_are_private_after_every_write_path(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "m.db"
    run_on(target, "add", "private")
    run_on(target, "update", "1", "more private")
    run_on(target, "forget", "1", "--yes")
    if os.name == "posix":
        assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
        for suffix in ("", "-wal", "-shm"):
            path = Path(f"{target}{suffix}")
            if path.exists():
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, suffix


@pytest.mark.parametrize(
    "args",
    [
        ["add", "caf\udce9"],
        ["add", "ok", "--tag", "\udcff"],
        ["search", "caf\udce9"],
        ["list", "--category", "\udcff"],
    ],
)
def test_undecodable_bytes_in_arguments_are_refused(cli: Run, args: list[str]) -> None:
    assert_one_line_error(cli(*args), 2, "not valid UTF-8")
    assert stored(cli) == []


def test_undecodable_bytes_in_the_environment_are_refused(
    cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_USER", "\udcff")
    assert_one_line_error(cli("add", "scoped"), 2, "not valid UTF-8")
    monkeypatch.delenv("ZEROMEM_USER")
    assert stored(cli) == []
