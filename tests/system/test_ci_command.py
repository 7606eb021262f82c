"""CI runs exactly the test command README gives: the last line of ``.ci/run`` that runs pytest
is the part of README's test line after its install step."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def readme_test_command() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^Run the tests.*?\n\n {4}(.+)$", text, re.MULTILINE)
    assert match, "README.md has no 'Run the tests' command block"
    install, _, command = match.group(1).partition(" && ")
    assert "pip install" in install and command, match.group(1)
    return command.strip()


def test_ci_runs_the_test_command_readme_gives() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    runs = [line.strip() for line in script if re.match(r"\s*python -m pytest\b", line)]
    assert runs == [readme_test_command()]
