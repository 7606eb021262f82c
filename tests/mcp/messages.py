"""JSON-RPC messages a raw MCP client sends, for tests that speak the wire themselves (no SDK
needed to import this)."""

from __future__ import annotations

from typing import Any


def initialize(client: str, number: int = 1) -> dict[str, Any]:
    """The ``initialize`` request of a client named ``client``."""
    return {
        "jsonrpc": "2.0",
        "id": number,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": client, "version": "0"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
