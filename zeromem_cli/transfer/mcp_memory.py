"""The MCP reference memory server's knowledge graph (``memory.jsonl``) as import records.

The server (``@modelcontextprotocol/server-memory``) saves one JSON object a line:
``{"type": "entity", "name", "entityType", "observations": [...]}`` and ``{"type":
"relation", "from", "to", "relationType"}``. Its ``read_graph`` answer, ``{"entities": [...],
"relations": [...]}``, is read too.

- Each observation becomes one memory, ``NAME: observation``, of category ``entityType``,
  tagged with the entity's name, with ``meta`` ``{"source": "mcp-memory", "entity",
  "entity_type"}``. An entity without observations still says what it is (``NAME:
  entityType``).
- Each relation becomes one memory in the active voice the server asks for, ``A works at B``
  (underscores of ``relationType`` read as spaces), category ``relation``, tagged with both
  names, ``meta`` holding ``from``, ``to`` and ``relation``.

Identity: a record's uid is derived from its fields and the import's scope (no line numbers),
so importing the same graph again changes nothing, and importing it after the server added
observations adds only those. No record has a key: a zeromem key holds one current value, so
keying by entity would fold an entity's observations into one memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from zeromem_cli.transfer.read import RecordError

SOURCE = "mcp-memory"


def looks_like_graph(text: str) -> bool:
    """Whether ``text`` is the server's JSONL (its first line an entity or a relation) or a
    ``read_graph`` object. Anything not starting with ``{`` is neither (and is not parsed)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("{"):
        return False
    try:
        value = json.loads(stripped.split("\n", 1)[0])
    except ValueError:
        try:  # a pretty-printed object: a read_graph answer, or another kind of JSON
            value = json.loads(stripped)
        except ValueError:
            return False
    if not isinstance(value, dict):
        return False
    return value.get("type") in ("entity", "relation") or isinstance(value.get("entities"), list)


def graph_records(text: str) -> list[tuple[str, Any]]:
    """``(where, raw record)`` pairs for ``import_records``; an unusable line or item is a
    RecordError in its place, so the import reports it by line as for any other format."""
    return [pair for where, item in _items(text) for pair in _records(where, item)]


def _items(text: str) -> Iterator[tuple[str, Any]]:
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):  # one read_graph object, or JSONL (which fails to parse)
        try:
            whole = json.loads(stripped)
        except ValueError:
            whole = None
        if isinstance(whole, dict) and isinstance(whole.get("entities"), list):
            yield from _graph_object(whole)
            return
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            yield where, json.loads(line)
        except ValueError as exc:
            yield where, RecordError(where, None, f"not valid JSON ({exc})")


def _graph_object(graph: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for number, entity in enumerate(graph.get("entities") or [], start=1):
        item = {"type": "entity", **entity} if isinstance(entity, dict) else entity
        yield f"entity {number}", item
    for number, relation in enumerate(graph.get("relations") or [], start=1):
        item = {"type": "relation", **relation} if isinstance(relation, dict) else relation
        yield f"relation {number}", item


def _text(where: str, item: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = item.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise RecordError(where, name, "expected non-empty text")
    return value.strip()


def _records(where: str, item: Any) -> list[tuple[str, Any]]:
    try:
        return _convert(where, item)
    except RecordError as exc:
        return [(where, exc)]


def _convert(where: str, item: Any) -> list[tuple[str, Any]]:
    if isinstance(item, RecordError):
        raise item
    if not isinstance(item, dict):
        raise RecordError(where, None, "expected an object (an entity or a relation)")
    kind = item.get("type")
    if kind == "entity":
        name = _text(where, item, "name")
        entity_type = _text(where, item, "entityType", required=False)
        observations = item.get("observations") or []
        if not isinstance(observations, list):
            raise RecordError(where, "observations", "expected an array of text")
        meta = {"source": SOURCE, "entity": name}
        base: dict[str, Any] = {"tags": [name], "meta": meta}
        if entity_type:
            base["category"] = entity_type
            meta["entity_type"] = entity_type
        if not observations:
            return [(where, {**base, "content": f"{name}: {entity_type}" if entity_type else name})]
        records: list[tuple[str, Any]] = []
        for number, observation in enumerate(observations, start=1):
            place = f"{where} observation {number}"
            if not isinstance(observation, str) or not observation.strip():
                records.append(
                    (place, RecordError(place, "observations", "expected non-empty text"))
                )
                continue
            records.append((place, {**base, "content": f"{name}: {observation.strip()}"}))
        return records
    if kind == "relation":
        source, target = _text(where, item, "from"), _text(where, item, "to")
        relation = _text(where, item, "relationType")
        verb = " ".join(relation.replace("_", " ").split())
        return [
            (
                where,
                {
                    "content": f"{source} {verb} {target}",
                    "category": "relation",
                    "tags": [source, target],
                    "meta": {"source": SOURCE, "from": source, "to": target, "relation": relation},
                },
            )
        ]
    raise RecordError(where, "type", f"expected 'entity' or 'relation', not {kind!r}")
