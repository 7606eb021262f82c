"""Streamable HTTP: a real server process, real HTTP requests. With a token file every request
needs the bearer token (401 otherwise); a non-loopback bind without one is refused."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
import httpx2  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from tests.mcp.helpers import text_of  # noqa: E402
from tests.mcp.messages import initialize  # noqa: E402

INITIALIZE = initialize("raw-http-test")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _zeromem(*args: str, home: Path, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zeromem_cli", "mcp", *args],
        cwd=home,
        env={**os.environ, "ZEROMEM_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,  # type: ignore[call-overload]
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    home = tmp_path_factory.mktemp("http")
    token = secrets.token_urlsafe(32)
    token_file = home / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    port = _free_port()
    process = _zeromem(
        "--db", str(home / "m.db"), "--user", "web",
        "--http", f"127.0.0.1:{port}", "--token-file", str(token_file),
        home=home,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
        assert out == ""  # HTTP mode prints nothing to stdout either
        assert token not in out + err


def _post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(INITIALIZE).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, _lower(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, _lower(exc.headers), exc.read().decode()


def _lower(headers: object) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in dict(headers).items()}  # type: ignore[call-overload]


def test_requests_without_the_token_get_401(served: tuple[str, str]) -> None:
    url, token = served
    wrong = {"Authorization": "Bearer wrong-token-0123456789"}
    for headers in ({}, wrong, {"Authorization": token}):
        status, response_headers, body = _post(url, headers)
        assert status == 401, (headers, body)
        assert response_headers.get("www-authenticate", "").startswith("Bearer ")
        assert token not in body
    status, _, body = _post(url, {"Authorization": f"Bearer {token}"})
    assert status == 200 and "zeromem" in body


def test_the_sdk_client_works_with_the_token(served: tuple[str, str]) -> None:
    url, token = served

    async def session_calls() -> tuple[list[str], str, str]:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = [t.name for t in (await session.list_tools()).tools]
                    saved = await session.call_tool("memory_save", {"text": "HTTP says hi"})
                    found = await session.call_tool("memory_search", {"query": "http hi"})
                    return tools, text_of(saved), text_of(found)

    tools, saved, found = anyio.run(session_calls)
    assert len(tools) == 6 and saved.startswith("added #")
    assert "HTTP says hi" in found


def test_non_loopback_bind_needs_a_token_file(tmp_path: Path) -> None:
    process = _zeromem("--http", "0.0.0.0:8765", "--db", str(tmp_path / "m.db"), home=tmp_path)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and out == ""
    assert err.startswith("zeromem: error: --http 0.0.0.0:8765: not a loopback address")
    assert "--token-file" in err and len(err.strip().splitlines()) == 1


def test_a_token_file_others_can_read_is_refused(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(secrets.token_urlsafe(32))
    token_file.chmod(0o644)
    process = _zeromem(
        "--http", "127.0.0.1:8765", "--token-file", str(token_file), "--db",
        str(tmp_path / "m.db"), home=tmp_path,
    )  # fmt: skip
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "can be read by others" in err
    assert token_file.read_text() not in err


def test_a_busy_port_fails_before_saying_serving(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = _zeromem(
            "--http", f"127.0.0.1:{port}", "--db", str(tmp_path / "m.db"), home=tmp_path
        )
        out, err = process.communicate(timeout=60)
    assert process.returncode == 1 and out == ""
    assert "serving" not in err
    assert (
        err.strip()
        == f"zeromem: error: --http 127.0.0.1:{port}: cannot listen there: Address already in use"
    )
