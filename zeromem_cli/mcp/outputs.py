"""Tool output schemas without the SDK: the published ``outputSchema`` of each tool, read from
``outputs.json`` (written from ``schemas``' models by ``python -m zeromem_cli.mcp.schemas``),
and the check every successful result passes before it is sent.

The check reads the few JSON Schema keywords those schemas use (type, properties, required,
items, enum, const, anyOf, additionalProperties): a result off its schema is a bug, reported
as an error result naming where it went wrong, never sent as if it were right.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

OUTPUTS = Path(__file__).with_name("outputs.json")


@cache
def output_schemas() -> dict[str, dict[str, Any]]:
    """Each output model's schema by name (``ToolSpec.output``)."""
    with OUTPUTS.open(encoding="utf-8") as file:
        loaded: dict[str, dict[str, Any]] = json.load(file)
    return loaded


def _is(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    raise ValueError(f"unsupported schema type {kind!r}")


def problem(schema: dict[str, Any], value: Any, where: str = "result") -> str | None:
    """Where ``value`` first breaks ``schema`` (``result.memories.0.id: not integer``), or
    None when it conforms."""
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_is(k, value) for k in kinds):
            return f"{where}: not {' or '.join(kinds)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: not one of {schema['enum']}"
    if "const" in schema and value != schema["const"]:
        return f"{where}: not {schema['const']!r}"
    branches = schema.get("anyOf")
    if branches is not None and all(problem(b, value, where) for b in branches):
        return problem(branches[0], value, where)
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                return f"{where}: {name} missing"
        properties = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                found = problem(properties[name], item, f"{where}.{name}")
            elif isinstance(schema.get("additionalProperties"), dict):
                found = problem(schema["additionalProperties"], item, f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                found = f"{where}: unexpected {name}"
            else:
                found = None
            if found:
                return found
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            found = problem(schema["items"], item, f"{where}.{index}")
            if found:
                return found
    return None


__all__ = ["OUTPUTS", "output_schemas", "problem"]
