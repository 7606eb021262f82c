"""Every client session starts its own server: four servers on one file, saving and searching
at once, lose nothing and see each other's writes on their next call."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.mcp.helpers import McpClient, text_of  # noqa: E402
from zeromem_cli import Filters, MemoryStore  # noqa: E402

pytestmark = pytest.mark.slow  # see docs/development.md

SERVERS = 4
SAVES = 100
ANIMALS = ["otter", "heron", "badger", "lynx", "marten", "ibis", "gecko", "okapi", "dingo", "tern"]


def test_four_servers_save_100_each_at_once_and_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"  # created by whichever server opens it first
    with ThreadPoolExecutor(SERVERS) as pool:
        homes = [tmp_path / f"h{n}" for n in range(SERVERS)]
        clients = list(pool.map(lambda home: McpClient(db, "--user", "u", home=home), homes))
    try:
        start = threading.Barrier(SERVERS)
        problems: list[str] = []

        def work(number: int) -> int:
            client = clients[number]
            start.wait()
            saved = 0
            for i in range(SAVES):
                animal = ANIMALS[i % len(ANIMALS)]
                result = client.call(
                    "memory_save",
                    text=f"server {number} saw a {animal} at checkpoint {i} near gate {number * i}",
                    tags=[f"server{number}"],
                )
                if result.is_error:
                    problems.append(text_of(result))
                else:
                    saved += result.structured_content["action"] == "added"  # type: ignore[index]
                if i % 5 == 0:
                    found = client.call("memory_search", query=f"{animal} checkpoint", limit=5)
                    if found.is_error:
                        problems.append(text_of(found))
            return saved

        with ThreadPoolExecutor(SERVERS) as pool:
            added = list(pool.map(work, range(SERVERS)))
        assert not problems, problems[:3]
        assert added == [SAVES] * SERVERS

        # A memory saved through one server is found by another on its next call.
        clients[0].ok("memory_save", text="The narwhal tusk is a tooth")
        hits = clients[3].ok("memory_search", query="narwhal tusk")["memories"]
        assert [h["content"] for h in hits] == ["The narwhal tusk is a tooth"]
        gone = clients[2].ok("memory_forget", ids=[hits[0]["id"]])
        assert gone["count"] == 1 and clients[1].ok("memory_search", query="narwhal")["count"] == 0
    finally:
        for client in clients:
            client.close()
    logs = "".join(c.stderr() for c in clients)
    assert "database is locked" not in logs and "Traceback" not in logs
    with MemoryStore(db, user="u") as store:
        assert store.count() == SERVERS * SAVES
        for number in range(SERVERS):
            tagged = store.list(limit=None, filters=_tag(f"server{number}"))
            assert len(tagged) == SAVES
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def _tag(tag: str) -> Filters:
    return Filters(tags=[tag])
