"""`zeromem mcp` as a command: its options fail in one line before anything starts; stdio
works on a plain install, and ``--http`` without the MCP SDK says which extra to install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.mcp.messages import INITIALIZED, initialize

REPO = Path(__file__).resolve().parents[2]

# The SDK made unimportable in this one process, as on an install without zeromem[mcp].
_WITHOUT_SDK = (
    "import sys\n"
    "sys.modules['mcp'] = None\n"
    "from zeromem_cli.cli import main\n"
    "sys.argv = ['zeromem', 'mcp', *sys.argv[1:]]\n"
    "main()\n"
)


def _without_sdk(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_SDK, "--db", str(tmp_path / "m.db"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "ZEROMEM_HOME": str(tmp_path)},
        timeout=60,
    )


def test_http_without_the_extra_exits_1_naming_it(tmp_path: Path) -> None:
    result = _without_sdk(tmp_path, "--http", "127.0.0.1:8765")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (
        "zeromem: error: `zeromem mcp --http` needs the MCP SDK: pip install 'zeromem[mcp]'\n"
    )
    assert not (tmp_path / "m.db").exists()  # nothing was opened


def test_stdio_serves_a_plain_install(tmp_path: Path) -> None:
    """Over stdio the server is zeromem's own code: with the SDK unimportable, a client
    still initialises, lists the tools, saves a memory and finds it again."""
    messages = [
        initialize("plain"),
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "memory_save",
                "arguments": {"content": "Deploys go through make deploy-staging"},
            },
        },
    ]
    saved = _without_sdk(tmp_path, stdin="".join(json.dumps(m) + "\n" for m in messages))
    assert saved.returncode == 0, saved.stderr
    answers = {a["id"]: a for a in map(json.loads, saved.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "zeromem"
    assert "memory_search" in {tool["name"] for tool in answers[2]["result"]["tools"]}
    assert answers[3]["result"]["isError"] is False
    search = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "memory_search", "arguments": {"query": "make deploy-staging"}},
    }
    found = _without_sdk(
        tmp_path, stdin="".join(json.dumps(m) + "\n" for m in [*messages[:2], search])
    )
    answer = [a for a in map(json.loads, found.stdout.splitlines()) if a.get("id") == 4][0]
    assert answer["result"]["isError"] is False
    assert "make deploy-staging" in json.dumps(answer["result"]["structuredContent"])


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
