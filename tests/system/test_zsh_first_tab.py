"""zsh completion set up as README says (the script as ``_zeromem`` on ``$fpath``, then
``compinit``) completes on the FIRST TAB of a new shell (#33: Click's script only registered
itself then, so the first TAB did nothing). A real zsh in a real terminal (tmux)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_the_first_tab_of_a_new_zsh_completes(tmp_path: Path) -> None:
    if shutil.which("zsh") is None or shutil.which("tmux") is None:
        pytest.skip("needs zsh and tmux (apt-get install zsh tmux; .ci/run installs them)")
    zfunc, bin_dir, zdot = tmp_path / "zfunc", tmp_path / "bin", tmp_path / "zd"
    for folder in (zfunc, bin_dir, zdot):
        folder.mkdir()
    shutil.copy(REPO / "completions" / "zeromem.zsh", zfunc / "_zeromem")
    launcher = bin_dir / "zeromem"  # `zeromem` on PATH, as an installed one would be
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -m zeromem_cli "$@"\n')
    launcher.chmod(0o755)
    (zdot / ".zshrc").write_text(
        f"fpath=({zfunc} $fpath)\npath=({bin_dir} $path)\n"
        f"autoload -U compinit && compinit -u -d {tmp_path / 'zcompdump'}\nPS1='$ '\n"
    )
    session = f"zeromem-tab-{os.getpid()}"
    env = {
        "HOME": str(tmp_path),
        "TERM": "xterm",
        "PATH": "/usr/bin:/bin",
        "ZDOTDIR": str(zdot),
        "PYTHONPATH": str(REPO),
    }
    shell = " ".join(f"{k}={v}" for k, v in env.items())
    subprocess.run(
        [
            "tmux",
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "120",
            "-y",
            "10",
            f"env -i {shell} zsh -i",
        ],
        check=True,
    )
    try:
        time.sleep(1.5)
        subprocess.run(["tmux", "send-keys", "-t", session, "zeromem sea", "Tab"], check=True)
        screen = ""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "zeromem search" not in screen:
            time.sleep(0.5)
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
        assert "zeromem search" in screen, screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
