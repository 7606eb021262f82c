"""A full disk is named as such (issue 15, part A).

On a real, small filesystem (a 512 KiB tmpfs: needs root and mount, skipped with the reason
otherwise) filled to the last byte, add, import, export -o and config set each print one plain
line naming the cause and exit 1. Before the fix, SQLite's own rollback followed by ours gave
"internal error: cannot rollback - no transaction is active", hiding "database or disk is full".

A reader (``MemoryStore`` in this process) keeps the database open, as an agent's long-lived
server would: the WAL and shared-memory files then exist before the disk fills, which is when
SQLite reports the disk full rather than an I/O error on opening.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hooks.conftest import HOOK_LIMIT_MS
from zeromem_cli import MemoryStore

ZEROMEM = [sys.executable, "-c", "from zeromem_cli.cli import main; main()"]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path, leave: int = 0) -> None:
    """Fill the disk, but for about ``leave`` bytes."""
    try:
        with open(folder / "filler", "wb", buffering=0) as handle:
            while shutil.disk_usage(folder).free > leave + 4096:
                handle.write(b"x" * 4096)
            if not leave:
                while True:
                    handle.write(b"x" * 1024)
    except OSError:
        pass  # full: that is the point
    assert shutil.disk_usage(folder).free <= max(leave, 1024) + 4096


def _zeromem(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ZEROMEM_HOME": str(home)}
    return subprocess.run(
        [*ZEROMEM, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def _one_plain_line(result: subprocess.CompletedProcess[str], says: str) -> None:
    assert result.returncode == 1, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_a_full_disk_is_one_plain_line(small_disk: Path, tmp_path: Path) -> None:
    home = small_disk / "home"
    db = small_disk / "memories.db"
    assert _zeromem(home, "add", "the first memory", "--db", str(db)).returncode == 0
    source = tmp_path / "in.jsonl"  # on the big disk: only the database is on the full one
    source.write_text('{"content": "' + "imported words " * 2000 + '"}\n', encoding="utf-8")
    with MemoryStore(db) as reader:
        assert len(reader.list()) == 1
        _fill(small_disk)
        big = "many words " * 3000
        _one_plain_line(_zeromem(home, "add", big, "--db", str(db)), "database or disk is full")
        _one_plain_line(
            _zeromem(home, "import", str(source), "--db", str(db)), "database or disk is full"
        )
        _one_plain_line(
            _zeromem(home, "export", "-o", str(small_disk / "out.jsonl"), "--db", str(db)),
            "No space left on device",
        )
        _one_plain_line(
            _zeromem(home, "config", "set", "add.default_category", "work"),
            "No space left on device",
        )
        assert [m.content for m in reader.list()] == ["the first memory"]  # nothing lost
    assert not list(small_disk.glob(".out.jsonl.*"))  # no temporary file left behind


def test_an_unwritable_config_folder_is_one_plain_line(tmp_path: Path) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("a file where the config folder should be\n", encoding="utf-8")
    result = _zeromem(home, "config", "set", "add.default_category", "work")
    _one_plain_line(result, "cannot write config")


def test_a_full_disk_is_one_plain_line_on_an_encrypted_store(
    small_disk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLCipher's errors take the same path: the disk is named, never the key."""
    pytest.importorskip("sqlcipher3")
    key = "a passphrase that must never be printed"
    monkeypatch.setenv("ZEROMEM_KEY", key)
    home = small_disk / "home"
    db = small_disk / "memories.db"
    assert _zeromem(home, "add", "the first memory", "--db", str(db)).returncode == 0
    with MemoryStore(db, key=key) as reader:
        _fill(small_disk)
        result = _zeromem(home, "add", "many words " * 3000, "--db", str(db))
        _one_plain_line(result, "database or disk is full")
        assert key not in result.stderr
        assert [m.content for m in reader.list()] == ["the first memory"]


def test_encrypt_on_a_full_disk_is_one_line_and_keeps_the_plain_store(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sqlcipher3")
    home = small_disk / "home"
    db = small_disk / "memories.db"
    assert _zeromem(home, "add", "words " * 5000, "--db", str(db)).returncode == 0
    _fill(small_disk, leave=db.stat().st_size // 2)  # room to start the copy, not to finish it
    monkeypatch.setenv("ZEROMEM_KEY", "a passphrase that must never be printed")
    result = _zeromem(home, "encrypt", "--db", str(db))
    _one_plain_line(result, "disk")  # SQLCipher says "disk I/O error" here
    assert "full" in result.stderr and "never be printed" not in result.stderr
    assert not list(small_disk.glob("*.zeromem-convert*"))  # no half-written copy left
    monkeypatch.delenv("ZEROMEM_KEY")
    (small_disk / "filler").unlink()
    with MemoryStore(db) as store:  # still the plain store, whole
        assert [m.content for m in store.list()] == [("words " * 5000).strip()]


def test_reads_that_count_accesses_still_answer_on_a_full_disk(
    small_disk: Path, tmp_path: Path
) -> None:
    """#33: pack records an access of what it packed; on a full disk that write failed, so
    pack failed and the hooks injected nothing until space was freed. Counting is best
    effort: the read answers."""
    import json

    home = tmp_path / "home"  # config and hook state on the big disk: only the store is full
    db = small_disk / "memories.db"
    assert (
        _zeromem(home, "add", "the staging database is db-2.internal", "--db", str(db)).returncode
        == 0
    )
    with MemoryStore(db) as reader:
        _fill(small_disk)
        packed = _zeromem(home, "pack", "staging database", "--db", str(db))
        assert packed.returncode == 0, packed.stderr
        assert "db-2.internal" in packed.stdout
        body = json.dumps(
            {
                "session_id": "full-disk",
                "transcript_path": "/nonexistent/transcript.jsonl",
                "cwd": "/",
                "hook_event_name": "UserPromptSubmit",
                "prompt": "which staging database do we use?",
            }
        )
        env = {**os.environ, "ZEROMEM_HOME": str(home)}
        env["ZEROMEM_HOOKS_TIMEOUT_MS"] = HOOK_LIMIT_MS  # a loaded machine must not drop it
        hook = subprocess.run(
            [*ZEROMEM, "hook", "claude-code", "user-prompt", "--db", str(db)],
            input=body, capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert hook.returncode == 0, hook.stderr
        assert "db-2.internal" in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
        assert [m.content for m in reader.list()] == ["the staging database is db-2.internal"]
