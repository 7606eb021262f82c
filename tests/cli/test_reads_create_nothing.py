"""Reads and maintenance never create a store (#33): the default store not there yet reads as
empty, leaving no file or folder behind; a store named by ``--db`` / ``ZEROMEM_DB`` that is not
there is an error naming it (a typo is not an empty store); ``--db ""`` is an error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run

READS = [
    ("list",),
    ("search", "anything"),
    ("pack", "anything"),
    ("stats",),
    ("export",),
    ("trash",),
    ("show", "1"),
    ("history", "1"),
    ("gc",),
    ("gc", "--quiet"),
    ("forget", "1", "--yes"),
    ("restore", "1"),
    ("update", "1", "new text"),
]


def _files_under(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize("argv", READS, ids=lambda a: "-".join(a))
def test_the_default_store_not_there_yet_is_created_by_no_read(
    cli: Run, isolated_home: Path, argv: tuple[str, ...]
) -> None:
    result = cli(*argv, db=False)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output
    if argv[0] in ("show", "history", "forget", "restore", "update"):
        assert "no memory #1" in result.stderr  # an empty store: nothing to find
    else:
        assert result.exit_code == 0, result.stderr
    assert not isolated_home.exists(), _files_under(isolated_home)


@pytest.mark.parametrize("argv", READS, ids=lambda a: "-".join(a))
def test_a_named_store_that_is_not_there_is_an_error_naming_it(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]
) -> None:
    typo = tmp_path / "sub" / "memroies.db"
    result = cli(*argv, "--db", str(typo), db=False)
    assert result.exit_code == 1
    assert f"no store at {typo}" in result.stderr and len(result.stderr.splitlines()) == 1
    monkeypatch.setenv("ZEROMEM_DB", str(typo))
    result = cli(*argv, db=False)
    assert result.exit_code == 1 and f"no store at {typo}" in result.stderr
    assert not typo.parent.exists()


def test_an_empty_db_option_is_an_error_not_the_default_store(
    cli: Run, isolated_home: Path
) -> None:
    assert cli("add", "in the default store", db=False).exit_code == 0
    for argv in (("list",), ("search", "default"), ("add", "elsewhere")):
        result = cli(*argv, "--db", "", db=False)
        assert result.exit_code != 0 and "--db is empty" in result.stderr, argv
    assert "in the default store" in cli("list", "--format", "plain", db=False).stdout


def test_writes_still_create_the_store(cli: Run, tmp_path: Path) -> None:
    fresh = tmp_path / "new" / "memories.db"
    assert cli("add", "the first memory", "--db", str(fresh), db=False).exit_code == 0
    assert fresh.exists()
    assert "the first memory" in cli("list", "--db", str(fresh), db=False).stdout


def test_gc_with_a_home_that_does_not_exist_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "nonexistent"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZEROMEM_", "XDG_"))} | {
        "HOME": str(home)
    }
    for argv in (("gc", "--quiet"), ("list",), ("stats",)):
        done = subprocess.run(
            [sys.executable, "-m", "zeromem_cli", *argv], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    assert not home.exists()
