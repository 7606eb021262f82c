"""`--tools all` adds the admin tools: history, restore, stats and export."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.mcp.helpers import ADMIN_TOOLS, DEFAULT_TOOLS, McpClient  # noqa: E402


def test_admin_tools_only_with_tools_all(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with McpClient(db, "--tools", "all", "--user", "ops", home=tmp_path / "home") as client:
        tools = client.list_tools()
        assert {t.name for t in tools} == DEFAULT_TOOLS | ADMIN_TOOLS
        annotations = {t.name: t.annotations for t in tools}
        for name in ("memory_history", "memory_stats", "memory_export"):
            assert annotations[name].read_only_hint is True, name
        assert annotations["memory_restore"].destructive_hint is False

        first = client.ok("memory_save", text="The lighthouse is red", key="lighthouse")
        client.ok("memory_save", text="The lighthouse is white", key="lighthouse")
        versions = client.ok("memory_history", id=first["id"])["versions"]
        assert [(v["content"], v["change"]) for v in versions] == [
            ("The lighthouse is white", "current"),
            ("The lighthouse is red", "key-update"),
        ]
        client.ok("memory_forget", ids=[first["id"]])
        assert client.ok("memory_search", query="lighthouse")["count"] == 0
        restored = client.ok("memory_restore", memory_id=first["id"])  # alias of id
        assert restored["action"] == "restored" and restored["id"] == first["id"]
        assert client.ok("memory_search", query="lighthouse")["count"] == 1
        assert client.error("memory_restore", id=first["id"]) == (
            f"no memory #{first['id']} in the trash"
        )

        client.ok("memory_save", text="Fog horn sounds hourly", category="fact", tags=["sea"])
        stats = client.ok("memory_stats")["stats"]
        assert stats["memories"]["live"] == 2
        assert stats["by_category"] == {"fact": 1, "general": 1}
        exported = client.ok("memory_export")["memories"]
        assert [r["content"] for r in exported] == [
            "Fog horn sounds hourly",
            "The lighthouse is white",
        ]
        assert exported[0]["tags"] == ["sea"] and exported[0]["user"] == "ops"
        assert client.ok("memory_export", category="fact")["count"] == 1
