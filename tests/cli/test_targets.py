"""Files zeromem writes or opens that are not plain files (issue 15, part A).

``export -o`` replaces only a regular file atomically: ``-``, /dev/stdout, /proc/self/fd/N,
FIFOs and symlinks to them are written straight through (renaming over /dev/stdout as root
would replace the device for every process). A ``--db`` that is not a regular file, or a
``scheme://`` URL, is refused with one line and nothing is created.

CLI layer: subprocesses (a real fd 1 and a real FIFO), CliRunner for the one-line refusals.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import Run

ZEROMEM = [sys.executable, "-c", "from zeromem_cli.cli import main; main()"]


def _zeromem(db: Path, *args: str, stdout: object = subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ZEROMEM, *args, "--db", str(db)],
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def seeded(db_path: Path, cli: Run) -> Path:
    assert cli("add", "the weekly report goes out on Fridays").exit_code == 0
    return db_path


def _records(text: str) -> list[str]:
    return [json.loads(line)["content"] for line in text.splitlines() if line.strip()]


# "stdout-link" is a symlink to /proc/self/fd/1, as /dev/stdout is on Linux: the same path
# through the code, but a regression renames over a link in tmp_path, not over the machine's
# /dev/stdout (which the old code replaced with a regular file, for every process, as root).
@pytest.mark.parametrize("target", ["-", "stdout-link", "/proc/self/fd/1"])
def test_export_to_a_descriptor_writes_through(seeded: Path, tmp_path: Path, target: str) -> None:
    if not Path("/proc/self/fd/1").exists():
        pytest.skip("no /proc on this system")
    if target == "stdout-link":
        (tmp_path / target).symlink_to("/proc/self/fd/1")
        target = str(tmp_path / target)
    out = tmp_path / "out.jsonl"
    out.write_text("kept line\n", encoding="utf-8")
    with out.open("a", encoding="utf-8") as handle:  # `>> out.jsonl`
        result = _zeromem(seeded, "export", "-o", target, stdout=handle)
    assert result.returncode == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("kept line\n")
    assert _records(text.split("\n", 1)[1]) == ["the weekly report goes out on Fridays"], (
        text,
        result.stderr,
    )
    assert not (tmp_path / "-").exists()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_export_to_a_fifo_and_a_symlink_to_a_device(seeded: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    result = _zeromem(seeded, "export", "-o", str(fifo))
    reader.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert _records(received[0]) == ["the weekly report goes out on Fridays"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    assert _zeromem(seeded, "export", "-o", str(link)).returncode == 0
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_export_through_a_symlink_replaces_the_file_it_points_at(
    seeded: Path, tmp_path: Path, cli: Run
) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert cli("export", "-o", str(link)).exit_code == 0
    assert link.is_symlink()
    assert _records(real.read_text(encoding="utf-8")) == ["the weekly report goes out on Fridays"]


@pytest.mark.parametrize(
    ("location", "says"),
    [
        ("/dev/null", "not a regular file"),
        # A server URL is a PostgreSQL store (tests/postgres): none listens here.
        ("postgresql://user@/db?host=/run/nothing-here", "cannot connect to postgresql://"),
        ("postgres://localhost:1/zeromem", "cannot connect to postgres://localhost:1"),
        ("redis://localhost:6379/0", "redis:// is not a database"),
        ("file:///tmp/x.db", "file:// is not a database"),
    ],
)
def test_a_database_location_that_is_not_a_file_is_refused(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, location: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    before = set(os.listdir("/dev"))
    for args in (["add", "hello", "--db", location], ["list", "--db", location]):
        result = cli(*args, db=False)
        assert result.exit_code == 1, result.output
        assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # no "postgresql:" folder, no SQLite file
    assert set(os.listdir("/dev")) == before  # no /dev/null-journal or -wal


def test_the_library_never_makes_a_url_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zeromem_cli import MemoryStore, StoreError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError, match="cannot connect"):
        MemoryStore("postgresql://u@/db?host=/run/nothing-here")
    with pytest.raises(StoreError, match="not a valid URL"):
        MemoryStore(Path("postgresql://u@/db"))  # a Path folded its "//"
    assert list(tmp_path.iterdir()) == []
