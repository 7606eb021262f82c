"""The scope is the server's: a call cannot reach another user's (or project's) memories, and
with --allow-scope-override only the agents and sessions of the configured user and project."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.mcp.helpers import McpClient, text_of  # noqa: E402
from zeromem_cli import MemoryStore  # noqa: E402

BOB_SECRET_PLAN = "Bob's surprise party for Alice is on the 14th at the boathouse"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scope") / "memories.db"
    with MemoryStore(path, user="bob") as bob:
        bob.add(BOB_SECRET_PLAN, key="party")
    with MemoryStore(path, user="alice") as alice:
        alice.add("Alice likes the boathouse cafe")
    with MemoryStore(path, user="alice", agent="coder") as coder:
        coder.add("The coder agent uses the boathouse branch for experiments")
    return path


@pytest.fixture(scope="module")
def alice(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    with McpClient(db, "--user", "alice", home=tmp_path_factory.mktemp("alice")) as client:
        yield client


def _bob_leaked(result_text: str, data: object) -> bool:
    return "surprise party" in result_text or "surprise party" in str(data)


def test_a_call_asking_for_another_users_memories_gets_nothing_and_says_why(
    alice: McpClient, db: Path
) -> None:
    for name, arguments in (
        ("memory_search", {"query": "boathouse party", "user": "bob"}),
        ("memory_context", {"query": "party", "user": "bob"}),
        ("memory_get", {"keys": ["party"], "user": "bob"}),
        ("memory_forget", {"key": "party", "user": "bob"}),
        ("memory_save", {"text": "planted by a model", "user": "bob"}),
        ("memory_search", {"query": "boathouse", "agent": "coder"}),
    ):
        result = alice.call(name, **arguments)
        assert result.is_error, name
        message = text_of(result)
        assert message.startswith("scope refused: this server serves user 'alice' only"), message
        assert "nothing was read or written" in message
        assert not _bob_leaked(message, result.structured_content)
    # Without naming bob, his memories are simply not in alice's scope (her agents' are).
    hits = alice.ok("memory_search", query="boathouse party surprise")
    assert {h["content"] for h in hits["memories"]} == {
        "Alice likes the boathouse cafe",
        "The coder agent uses the boathouse branch for experiments",
    }
    assert alice.error("memory_get", keys=["party"]) == "no memory with key 'party' in this scope"
    with MemoryStore(db, user="bob") as bob:  # nothing planted, nothing forgotten
        assert [m.content for m in bob.list()] == [BOB_SECRET_PLAN]
    # Naming the server's own user is not a widening: allowed.
    assert alice.ok("memory_search", query="boathouse", user="alice")["count"] == 2


def test_override_reaches_agents_and_sessions_of_the_configured_user_only(
    db: Path, tmp_path: Path
) -> None:
    # An isolated server reads only its exact scope, so naming an agent or session matters.
    server = ("--user", "alice", "--isolate", "--allow-scope-override")
    with McpClient(db, *server, home=tmp_path) as client:
        schema = client.tool("memory_search").input_schema["properties"]
        assert {"agent", "session"} <= set(schema) and "user" not in schema
        hits = client.ok("memory_search", query="boathouse", agent="coder")["memories"]
        assert [h["content"] for h in hits] == [
            "The coder agent uses the boathouse branch for experiments"
        ]
        saved = client.ok("memory_save", text="Session note about oars", session="s1")
        message = client.error("memory_search", query="boathouse party", user="bob")
        assert message.startswith(
            "scope refused: this server reaches agents and sessions within user 'alice' only"
        )
        assert "surprise" not in message
        assert client.ok("memory_search", query="oars")["count"] == 0  # not in alice's own
    with MemoryStore(db, user="alice", session="s1") as session:
        assert session.get(saved["id"]).content == "Session note about oars"


def test_a_project_server_stays_in_its_project_even_with_override(db: Path, tmp_path: Path) -> None:
    with MemoryStore(db, user="alice", project="github.com/acme/app") as app:
        app.add("The app's boathouse service deploys on Fridays")
    with MemoryStore(db, user="alice", project="github.com/acme/site") as site:
        site.add("The site's boathouse page is static")
    server = ("--user", "alice", "--project", "github.com/acme/app", "--allow-scope-override")
    with McpClient(db, *server, home=tmp_path) as client:
        assert "project" not in client.tool("memory_search").input_schema["properties"]
        for arguments in ({}, {"session": "s2"}, {"agent": "coder"}):
            hits = client.ok("memory_search", query="boathouse", **arguments)["memories"]
            assert [h["content"] for h in hits] == [
                "The app's boathouse service deploys on Fridays"
            ]
        saved = client.ok("memory_save", text="Release notes go in CHANGES.md", session="s2")
    with MemoryStore(db, user="alice", project="github.com/acme/app") as app:
        stored = app.get(saved["id"])
        assert (stored.project, stored.session) == ("github.com/acme/app", "s2")
