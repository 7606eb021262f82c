"""The published output schemas through a real client: flat (no ``$ref``, no ``anyOf`` of
plain types), field names those of ``--json``, and as strict as the models behind them: a
result with a field of the wrong type or a field missing fails them."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import jsonschema  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tests.mcp.helpers import ADMIN_TOOLS, DEFAULT_TOOLS, McpClient  # noqa: E402
from zeromem_cli import MemoryStore  # noqa: E402
from zeromem_cli.cli import app  # noqa: E402


def _walk(schema: Any) -> list[dict[str, Any]]:
    """Every subschema (object) of ``schema``, itself included."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        found.append(schema)
        for value in schema.values():
            found.extend(_walk(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_walk(value))
    return found


def _is_valid(schema: dict[str, Any], data: dict[str, Any]) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(data)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("schemas") / "memories.db"
    with MemoryStore(path) as store:
        store.add("The heron fishes at dawn", key="heron", tags=["birds", "river"])
        store.add("The heron nests in the reeds", category="fact")
    return path


@pytest.fixture(scope="module")
def client(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    with McpClient(db, "--tools", "all", home=tmp_path_factory.mktemp("home")) as opened:
        yield opened


def test_every_output_schema_is_flat(client: McpClient) -> None:
    tools = client.list_tools()
    assert {t.name for t in tools} == DEFAULT_TOOLS | ADMIN_TOOLS
    for tool in tools:
        schema = tool.output_schema
        assert schema is not None and schema["type"] == "object", tool.name
        jsonschema.Draft202012Validator.check_schema(schema)
        for part in _walk(schema):
            assert "$ref" not in part and "$defs" not in part, tool.name
            branches = part.get("anyOf", [])
            assert not all(set(b) == {"type"} for b in branches) or not branches, tool.name
    hit = client.tool("memory_search").output_schema["properties"]["memories"]["items"]  # type: ignore[index]
    assert hit["type"] == "object"
    assert hit["properties"]["key"]["type"] == ["string", "null"]
    assert hit["properties"]["score"]["type"] == ["number", "null"]


def test_search_hits_and_records_keep_the_json_field_names(client: McpClient, db: Path) -> None:
    hit = client.ok("memory_search", query="heron")["memories"][0]
    record = client.ok("memory_get", keys=["heron"])["memories"][0]
    result = CliRunner().invoke(app, ["export", "--db", str(db)])
    assert result.exit_code == 0, result.output
    exported = json.loads(result.stdout.splitlines()[0])
    assert set(hit) <= set(exported) | {"content_truncated", "score"}
    assert set(record) - {"content_truncated", "history"} == set(exported)
    schema = client.tool("memory_get").output_schema
    assert schema is not None
    assert set(schema["properties"]["memories"]["items"]["properties"]) == set(record) | {"history"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("id", "7"),
        ("key", 5),
        ("tags", ["birds", 3]),
        ("score", "high"),
        ("pinned", "yes"),
        ("content_truncated", None),
        ("created_at", None),
    ],
)
def test_a_hit_of_the_wrong_shape_fails_the_published_schema(
    client: McpClient, field: str, value: Any
) -> None:
    data = client.ok("memory_search", query="heron")
    schema = client.tool("memory_search").output_schema
    assert schema is not None and data["memories"]
    assert _is_valid(schema, data)
    broken = copy.deepcopy(data)
    broken["memories"][0][field] = value
    assert not _is_valid(schema, broken)
    missing = copy.deepcopy(data)
    del missing["memories"][-1][field]
    assert not _is_valid(schema, missing)


def test_history_versions_nested_in_get_are_checked_too(client: McpClient) -> None:
    client.ok("memory_save", text="The heron fishes at dusk", key="heron")
    data = client.ok("memory_get", keys=["heron"], history=True)
    schema = client.tool("memory_get").output_schema
    assert schema is not None
    versions = data["memories"][0]["history"]
    assert versions and _is_valid(schema, data)
    broken = copy.deepcopy(data)
    broken["memories"][0]["history"][0]["version"] = "one"
    assert not _is_valid(schema, broken)
    broken["memories"][0]["history"] = None  # history is optional: null or absent is fine
    assert _is_valid(schema, broken)
