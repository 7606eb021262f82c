"""Read commands work on a database this process cannot write (read-only media, a chmod-ed
file): they open it ``mode=ro``, ``pack`` skips its access record, and writes fail with one
line naming the cause.

Permissions are real: root bypasses file modes, so as root the folder is bind-mounted
read-only in a private mount namespace (``unshare -m``) that ends with the command; as
another user the folder and file are chmod-ed. Without either, the test skips saying why.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hooks.conftest import HOOK_LIMIT_MS
from zeromem_cli import MemoryStore

ZEROMEM = [sys.executable, "-m", "zeromem_cli"]


def _can_mount_read_only(folder: Path) -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = _wrap(folder, ["touch", str(folder / "probe")])
    done = subprocess.run(probe, capture_output=True, text=True)
    return done.returncode != 0 and "Read-only" in done.stderr


def _wrap(folder: Path, argv: list[str]) -> list[str]:
    """``argv`` run with ``folder`` read-only for it alone (root: a private mount namespace)."""
    f = shlex.quote(str(folder))
    script = f"mount --bind {f} {f} && mount -o remount,bind,ro {f} && exec {shlex.join(argv)}"
    return ["unshare", "-m", "sh", "-c", script]


@pytest.fixture
def read_only(tmp_path: Path):  # type: ignore[no-untyped-def]
    """``run(*args, folder_writable=False)``: zeromem on a read-only ``memories.db``."""
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "memories.db"
    with MemoryStore(db) as store:
        store.add("the staging database is db-2.internal", category="fact")
        store.add("weekly report goes out on fridays", pinned=True)
    root = os.geteuid() == 0
    if root and not _can_mount_read_only(folder):
        pytest.skip("running as root without a way to mount a read-only folder (unshare -m)")

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        argv = [*ZEROMEM, *args, "--db", str(db)]
        if args[0] == "hook":  # the hook fast path takes --db after its two words
            argv = [*ZEROMEM, *args[:3], "--db", str(db), *args[3:]]
        env = dict(os.environ, ZEROMEM_LOG_ENABLED="true", ZEROMEM_HOOKS_TIMEOUT_MS=HOOK_LIMIT_MS)
        if root:
            return subprocess.run(
                _wrap(folder, argv), input=stdin, capture_output=True, text=True, env=env
            )
        db.chmod(0o444)
        folder.chmod(0o555)
        try:
            return subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env)
        finally:
            folder.chmod(0o755)
            db.chmod(0o644)

    run.db = db  # type: ignore[attr-defined]
    return run


def test_read_commands_work_on_a_read_only_database(read_only) -> None:  # type: ignore[no-untyped-def]
    listed = read_only("list", "--format", "plain")
    assert listed.returncode == 0, listed.stderr
    assert "db-2.internal" in listed.stdout
    for args in (
        ("show", "1", "--json"),
        ("search", "staging database"),
        ("history", "1"),
        ("trash",),
        ("stats",),
        ("export",),
    ):
        done = read_only(*args)
        assert done.returncode == 0, (args, done.stderr)
        assert done.stderr == "", (args, done.stderr)
    assert "db-2.internal" in read_only("search", "staging database").stdout
    assert read_only("export").stdout.count("\n") == 2


def test_pack_skips_its_access_record_and_says_so_once_with_v(read_only) -> None:  # type: ignore[no-untyped-def]
    quiet = read_only("pack", "staging database")
    assert quiet.returncode == 0, quiet.stderr
    assert "db-2.internal" in quiet.stdout
    assert quiet.stderr == ""
    verbose = read_only("pack", "staging database", "-v")
    assert verbose.returncode == 0
    assert verbose.stderr.count("read-only") == 1
    assert "no access recorded" in verbose.stderr
    with MemoryStore(read_only.db) as store:
        assert all(m.access_count == 0 for m in store.list())


def test_a_prompt_hook_injects_from_a_read_only_database(read_only) -> None:  # type: ignore[no-untyped-def]
    import json

    body = json.dumps(
        {
            "session_id": "ro-session",
            "transcript_path": "/nonexistent/transcript.jsonl",
            "cwd": "/",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "which staging database do we use?",
        }
    )
    done = read_only("hook", "claude-code", "user-prompt", stdin=body)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "db-2.internal" in context


def test_writes_on_a_read_only_database_name_the_cause(read_only) -> None:  # type: ignore[no-untyped-def]
    for args in (("add", "a new memory"), ("forget", "1", "--yes"), ("update", "1", "x")):
        done = read_only(*args)
        assert done.returncode == 1, (args, done.stderr)
        assert "read-only" in done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1
    with MemoryStore(read_only.db) as store:
        assert len(store.list()) == 2


def test_library_read_only_refuses_writes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        store.add("kept as it was")
    with MemoryStore(db, read_only=True) as store:
        assert not store.writable
        assert [m.content for m in store.list()] == ["kept as it was"]
        from zeromem_cli.errors import StoreError

        with pytest.raises(StoreError, match="read-only"):
            store.add("not written")
    with MemoryStore(db, read_only="auto") as store:
        assert store.writable  # this process can write it: opened as usual


def test_read_only_refuses_a_database_that_needs_an_upgrade(tmp_path: Path) -> None:
    import sqlite3

    from zeromem_cli.errors import SchemaError

    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        store.add("written by this version")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE store_meta SET value = '0' WHERE key = 'index_version'")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="older zeromem"):
        MemoryStore(db, read_only=True)


def test_reads_work_on_a_writable_file_in_a_read_only_folder(tmp_path: Path) -> None:
    """#33: a database this process may write, in a folder it may not (where SQLite cannot
    make its ``-shm`` file): list, search, stats and pack failed with "cannot write". They
    open it read-only. As root the folder is mounted read-only with the file mounted over it
    writable (a private mount namespace); as another user the folder is chmod-ed."""
    folder = tmp_path / "ro-folder"
    folder.mkdir()
    db = folder / "memories.db"
    with MemoryStore(db) as store:
        store.add("the staging database is db-2.internal", category="fact")
    root = os.geteuid() == 0
    if root and not _can_mount_read_only(folder):
        pytest.skip("running as root without a way to mount a read-only folder (unshare -m)")
    for args in (
        ("list", "--format", "plain"),
        ("search", "staging database"),
        ("stats",),
        ("pack", "staging database"),
    ):
        argv = [*ZEROMEM, *args, "--db", str(db)]
        if root:
            f, d = shlex.quote(str(folder)), shlex.quote(str(db))
            script = (
                f"mount --bind {f} {f} && mount --bind {d} {d} && "
                f"mount -o remount,bind,ro {f} && touch {d} && "
                f"! touch {f}/probe 2>/dev/null && exec {shlex.join(argv)}"
            )
            done = subprocess.run(
                ["unshare", "-m", "sh", "-c", script], capture_output=True, text=True
            )
        else:
            folder.chmod(0o555)
            try:
                done = subprocess.run(argv, capture_output=True, text=True)
            finally:
                folder.chmod(0o755)
        assert done.returncode == 0, (args, done.stderr)
        assert "cannot write" not in done.stderr
        if args[0] != "stats":
            assert "db-2.internal" in done.stdout, args
