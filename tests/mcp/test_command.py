"""`zeromem mcp` as a command: its options fail in one line before anything starts, and
without the MCP SDK it says which extra to install."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run

REPO = Path(__file__).resolve().parents[2]

# The SDK made unimportable in this one process, as on an install without zeromem[mcp].
_WITHOUT_SDK = (
    "import sys\n"
    "sys.modules['mcp'] = None\n"
    "from zeromem_cli.cli import main\n"
    "sys.argv = ['zeromem', 'mcp', *sys.argv[1:]]\n"
    "main()\n"
)


def test_without_the_extra_it_exits_1_naming_it(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_SDK, "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "ZEROMEM_HOME": str(tmp_path)},
        timeout=60,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (
        "zeromem: error: `zeromem mcp` needs the MCP SDK: pip install 'zeromem[mcp]'\n"
    )
    assert not (tmp_path / "m.db").exists()  # nothing was opened


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--token-file", "t"], "--token-file is for --http: stdio needs no token"),
        (["--http", "8765"], "--http takes HOST:PORT, e.g. 127.0.0.1:8765, not '8765'"),
        (["--http", "127.0.0.1:99999"], "--http: port must be from 1 to 65535, not '99999'"),
        (["--http", "::1:8765"], "--http: write an IPv6 address in brackets, e.g. [::1]:8765"),
        (["--http", "example.com:80"], "--http example.com:80: not a loopback address"),
        (["--tools", "some"], "Invalid value for '--tools'"),
    ],
)
def test_bad_options_are_one_line_usage_errors(cli: Run, args: list[str], message: str) -> None:
    result = cli("mcp", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
