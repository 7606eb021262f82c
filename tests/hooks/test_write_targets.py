"""Every file zeromem writes besides ``export -o`` follows one rule (``files.write_file``): a
regular file is replaced atomically, a symlink keeps pointing where it pointed (its target
gets the new text), and a device is written straight through, never renamed over.

The config file (``config set``), a harness session's hook state, and the settings files
``setup`` merges into, each through its public surface.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.hooks.conftest import payload, run_hook
from tests.hooks.test_setup import place, setup
from zeromem_cli.cli import app


def _is_char_device(path: str) -> bool:
    return stat.S_ISCHR(os.stat(path).st_mode)


def test_config_set_through_a_symlink_keeps_the_link(isolated_home: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "zeromem.toml"
    real.write_text("[search]\nlimit = 5\n", encoding="utf-8")
    isolated_home.mkdir(parents=True, exist_ok=True)
    link = isolated_home / "config.toml"
    link.symlink_to(real)
    result = CliRunner().invoke(app, ["config", "set", "pack.budget", "300"])
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    text = real.read_text(encoding="utf-8")
    assert "limit = 5" in text and "budget = 300" in text


def test_config_set_into_a_device_writes_through(isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    link = isolated_home / "config.toml"
    link.symlink_to(os.devnull)
    result = CliRunner().invoke(app, ["config", "set", "pack.budget", "300"])
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert _is_char_device(os.devnull)
    assert not list(isolated_home.glob(".config.toml*"))  # no temporary file left behind


def test_hook_state_through_a_symlink_keeps_the_link(
    isolated_home: Path, tmp_path: Path, seeded: Path
) -> None:
    body = payload("claude-code", "user-prompt", prompt="when is the weekly report due?")
    folder = isolated_home / "hooks" / "claude-code"
    folder.mkdir(parents=True)
    elsewhere = tmp_path / "state-elsewhere.json"
    elsewhere.write_text("{}", encoding="utf-8")
    state = folder / f"{body['session_id']}.json"
    state.symlink_to(elsewhere)
    done = run_hook("claude-code", "user-prompt", body, db=seeded)
    assert done.returncode == 0, done.stderr
    assert state.is_symlink()
    saved = json.loads(elsewhere.read_text(encoding="utf-8"))
    assert saved["injected"], saved


def test_setup_through_symlinked_settings_keeps_the_link(home: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    real = dotfiles / "claude-settings.json"
    original = place("claude-settings.json", real)
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.symlink_to(real)
    result = setup("claude-code", "--no-mcp")
    assert result.exit_code == 0, result.stderr
    assert settings.is_symlink() and os.readlink(settings) == str(real)
    assert "hook claude-code session-start" in real.read_text(encoding="utf-8")
    assert real.stat().st_mode & 0o777 == (dotfiles / "claude-settings.json").stat().st_mode & 0o777
    [backup] = sorted(settings.parent.glob("*.zeromem-*.bak"))
    assert backup.read_text(encoding="utf-8") == original


def test_setup_into_a_device_writes_through_without_backup(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.symlink_to(os.devnull)
    result = setup("claude-code", "--no-mcp")
    assert result.exit_code == 0, result.stderr
    assert settings.is_symlink() and _is_char_device(os.devnull)
    assert not list(settings.parent.glob("*.bak"))


@pytest.fixture(autouse=True)
def _no_real_home(home: Path) -> None:
    """setup and hooks read HOME: always the test's own."""
