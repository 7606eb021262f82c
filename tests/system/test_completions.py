"""Shell completion: the committed scripts match the CLI, and TAB answers work and stay light."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run
from zeromem_cli.cli.completions import SHELLS, completion_script

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_committed_scripts_have_not_drifted(shell: str, cli: Run) -> None:
    committed = (REPO / "completions" / f"zeromem.{shell}").read_text(encoding="utf-8")
    assert committed == completion_script(shell), (
        f"completions/zeromem.{shell} is stale: run "
        f"`zeromem completions {shell} > completions/zeromem.{shell}`"
    )
    printed = cli("completions", shell, db=False)
    assert printed.exit_code == 0 and printed.stdout == committed
    assert "_ZEROMEM_COMPLETE=complete_" + shell in committed


def _complete(shell: str, words: str, cword: str, tmp_path: Path) -> list[str]:
    """Ask the CLI for completions exactly as the generated script does; also report whether
    answering imported rich or created a database."""
    code = (
        "import sys\n"
        "from zeromem_cli.cli import main\n"
        "try:\n    main()\n"
        "except SystemExit:\n    pass\n"
        "print('RICH' if 'rich' in sys.modules else 'NORICH', file=sys.stderr)\n"
    )
    env = {
        **os.environ,
        "_ZEROMEM_COMPLETE": f"complete_{shell}",
        "COMP_WORDS": words,
        "COMP_CWORD": cword,
        "ZEROMEM_HOME": str(tmp_path / "home"),
    }
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert result.stderr.strip() == "NORICH"
    assert not (tmp_path / "home").exists()  # no database opened or created
    return result.stdout.splitlines()


def test_bash_completes_commands_options_and_values(tmp_path: Path) -> None:
    commands = _complete("bash", "zeromem ", "1", tmp_path)
    for name in ("add", "search", "export", "import", "config", "stats", "completions", "path"):
        assert f"plain,{name}" in commands
    assert _complete("bash", "zeromem exp", "1", tmp_path) == ["plain,export"]
    options = _complete("bash", "zeromem import --on", "2", tmp_path)
    assert options == ["plain,--on-conflict"]
    policies = _complete("bash", "zeromem import x --on-conflict ", "4", tmp_path)
    assert policies == ["plain,skip", "plain,update", "plain,duplicate"]
    assert _complete("bash", "zeromem config set search.l", "3", tmp_path) == ["plain,search.limit"]
    assert _complete("bash", "zeromem export -o ou", "3", tmp_path) == ["file,ou"]


def test_zsh_and_fish_give_descriptions(tmp_path: Path) -> None:
    zsh = _complete("zsh", "zeromem sta", "1", tmp_path)
    assert zsh[:2] == ["plain", "stats"] and "live" in zsh[2]
    fish = _complete("fish", "zeromem completions ", "", tmp_path)
    assert [line.split("\t")[0] for line in fish] == ["plain,bash", "plain,zsh", "plain,fish"]
