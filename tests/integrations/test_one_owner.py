"""One owner for every face: what a harness's hooks store in a repository, the MCP server that
``zeromem setup`` wrote for that harness finds there, and a server of another repository does
not. Everything runs as the written files say: the hook command through a shell in the
repository, the MCP server from its written command, args and env, with the repository as its
working directory, through the MCP SDK's own client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import tomllib

pytest.importorskip("mcp")

from anyio.from_thread import start_blocking_portal  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from tests.harness.workspace import zeromem_setup  # noqa: E402
from tests.hooks.conftest import HOOK_LIMIT_MS, payload  # noqa: E402
from tests.hooks.test_end_to_end import SESSION_ONE, write_transcript  # noqa: E402

STOP = {"claude-code": "Stop", "codex": "Stop", "gemini": "AfterAgent"}
FACT = "the staging database is db-2.internal"
SLOW = pytest.mark.slow


def checkout(folder: Path, remote: str) -> Path:
    """A git checkout as git leaves it on disk (the faces read these files, never run git)."""
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    return folder


def setup(harness: str, repo: Path, env: dict[str, str]) -> None:
    zeromem_setup(repo, env, harness, "--project")


def written(harness: str, repo: Path) -> tuple[str, dict[str, Any]]:
    """(the Stop hook's command, the MCP server entry) as setup wrote them in ``repo``."""
    if harness == "claude-code":
        hooks = json.loads((repo / ".claude" / "settings.json").read_text())
        server = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["zeromem"]
    elif harness == "codex":
        hooks = json.loads((repo / ".codex" / "hooks.json").read_text())
        config = tomllib.loads((repo / ".codex" / "config.toml").read_text())
        server = config["mcp_servers"]["zeromem"]
    else:
        hooks = json.loads((repo / ".gemini" / "settings.json").read_text())
        server = hooks["mcpServers"]["zeromem"]
    (group,) = hooks["hooks"][STOP[harness]]
    (handler,) = group["hooks"]
    return handler["command"], server


def mcp_call(
    server: dict[str, Any], cwd: Path, env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The structured results of ``calls`` to the server started as ``server`` says."""
    params = StdioServerParameters(
        command=server["command"],
        args=list(server.get("args", [])),
        env={**env, **server.get("env", {})},
        cwd=str(cwd),
    )

    @asynccontextmanager
    async def connect() -> AsyncIterator[ClientSession]:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session

    results = []
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(connect()) as session:
            for name, arguments in calls:
                result = portal.call(session.call_tool, name, arguments)
                assert not result.is_error, result.content
                assert isinstance(result.structured_content, dict)
                results.append(result.structured_content)
    return results


# Claude Code's in the fast loop; the other two (the same path, other files) in the whole suite.
@pytest.mark.parametrize(
    "harness",
    ["claude-code", pytest.param("codex", marks=SLOW), pytest.param("gemini", marks=SLOW)],
)
def test_the_mcp_server_setup_wrote_finds_what_the_hooks_stored(
    harness: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ZEROMEM_HOME": str(tmp_path / "zeromem"),
        "ZEROMEM_HOOKS_TIMEOUT_MS": HOOK_LIMIT_MS,  # a loaded machine must not drop the capture
    }
    billing = checkout(tmp_path / "billing", "git@github.com:Acme/Billing.git")
    site = checkout(tmp_path / "site", "https://github.com/Acme/Site")
    setup(harness, billing, env)
    stop_command, server = written(harness, billing)

    transcript = tmp_path / f"transcript.{harness}"
    write_transcript(harness, transcript, len(SESSION_ONE))
    body = payload(harness, "stop", transcript, session_id="one", cwd=str(billing))
    ran = subprocess.run(
        stop_command,
        shell=True,
        cwd=billing,
        env=env,
        input=json.dumps(body).encode(),
        capture_output=True,
        timeout=60,
    )
    assert ran.returncode == 0 and ran.stderr == b"", ran.stderr

    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory_search", {"query": "staging database host"}),
        ("memory_context", {"query": "staging database"}),
    ]
    found, context = mcp_call(server, billing, env, calls)
    assert any(FACT in hit["content"] for hit in found["memories"])
    assert FACT in json.dumps(context)

    elsewhere, elsewhere_context = mcp_call(server, site, env, calls)
    assert elsewhere["memories"] == []
    assert FACT not in json.dumps(elsewhere_context)


def test_cursors_mcp_server_finds_what_the_cli_added_in_the_repository(tmp_path: Path) -> None:
    """Cursor takes the MCP server only: `zeromem add` in the repository (the CLI face) and
    the server `setup cursor --project` wrote, started there, reach the same project."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "ZEROMEM_HOME": str(tmp_path / "zeromem"),
    }
    billing = checkout(tmp_path / "billing", "git@github.com:Acme/Billing.git")
    site = checkout(tmp_path / "site", "https://github.com/Acme/Site")
    setup("cursor", billing, env)
    assert sorted(p.name for p in billing.rglob("*") if p.is_file()) == ["config", "mcp.json"]
    server = json.loads((billing / ".cursor" / "mcp.json").read_text())["mcpServers"]["zeromem"]
    added = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "add", "The billing API listens on port 8080"],
        cwd=billing,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr
    calls: list[tuple[str, dict[str, Any]]] = [("memory_search", {"query": "billing API port"})]
    (found,) = mcp_call(server, billing, env, calls)
    assert [hit["content"] for hit in found["memories"]] == ["The billing API listens on port 8080"]
    (elsewhere,) = mcp_call(server, site, env, calls)
    assert elsewhere["memories"] == []
