"""Output schemas of the MCP tools: what each result's ``structuredContent`` holds.

Field names are the export format's (``zeromem export``, ``--json``), so a program reading the
structured form reads the same records everywhere. The SDK publishes each model's JSON Schema
as the tool's ``outputSchema`` and checks every successful result against it before sending.
Memory text in these fields is stored data, not instructions (see ``envelope``).

The published schemas are flat (``Published``): nested models written out in place instead of
``$ref`` to ``$defs``, and a nullable field as ``"type": ["string", "null"]`` instead of an
``anyOf`` of two schemas. They accept exactly the same documents; a client checking every
result with ``jsonschema`` (the SDK's own client does) then resolves no references and walks
a quarter fewer subschemas per search hit (``python -m benchmarks.mcp_latency`` times it).

These models are the source: the stdio server, which imports no pydantic, publishes and checks
``outputs.json``, written from them by ``python -m zeromem_cli.mcp.schemas`` (a test fails when
the file and the models drift apart).
"""

import copy
import json
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema


def flat(schema: Any, handler: GetJsonSchemaHandler, within: frozenset[str] = frozenset()) -> Any:
    """``schema`` with each ``$ref`` replaced by what it names and each ``anyOf`` of plain
    types written as one list of types. A reference to a model it is already inside (a
    recursive model) stays a reference."""
    if isinstance(schema, list):
        return [flat(item, handler, within) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref not in within:
        target = handler.resolve_ref_schema({"$ref": ref})
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        return flat({**copy.deepcopy(target), **siblings}, handler, within | {ref})
    out = {key: flat(value, handler, within) for key, value in schema.items()}
    branches = out.get("anyOf")
    if isinstance(branches, list) and all(
        isinstance(b, dict) and set(b) == {"type"} and isinstance(b["type"], str) for b in branches
    ):
        del out["anyOf"]
        out["type"] = [b["type"] for b in branches]
    return out


class Published(BaseModel):
    """A tool's output model, published as one flat JSON Schema (see the module docstring)."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler.resolve_ref_schema(handler(core_schema))
        flattened = flat(schema, handler)
        schema.clear()  # the definition itself, which the root is built from
        schema.update(flattened)
        return schema


class Budgeted(Published):
    truncated: bool = Field(description="True when something was left out to fit max_tokens.")
    tokens: int = Field(description="Tokens this result takes (the larger of its two forms).")
    max_tokens: int = Field(description="The token budget the result kept to.")


class Hit(BaseModel):
    """A compact memory: enough to decide whether to fetch it with memory_get."""

    id: int
    key: str | None
    category: str
    tags: list[str]
    content: str = Field(description="The text, or a snippet of at most ~200 characters.")
    content_truncated: bool = Field(description="True when content is a snippet.")
    score: float | None = Field(description="Search relevance, higher is better.")
    pinned: bool
    created_at: str
    updated_at: str


class Version(BaseModel):
    """An earlier version of a memory and when it was the current one."""

    version: int
    content: str
    category: str
    tags: list[str]
    key: str | None
    importance: int
    pinned: bool
    meta: dict[str, Any]
    expires_at: str | None
    valid_from: str
    valid_to: str | None
    change: str


class MemoryRecord(BaseModel):
    """A full memory, as ``zeromem export`` writes it."""

    id: int
    uid: str
    content: str
    category: str
    tags: list[str]
    key: str | None
    user: str | None
    project: str | None
    agent: str | None
    session: str | None
    importance: int
    pinned: bool
    meta: dict[str, Any]
    created_at: str
    updated_at: str
    expires_at: str | None
    last_accessed_at: str | None
    access_count: int
    deleted_at: str | None
    deleted_reason: str | None
    content_truncated: bool = Field(description="True when content was cut to fit max_tokens.")
    history: list[Version] | None = Field(
        default=None, description="Earlier versions, oldest first (with history=true)."
    )


class ContextOutput(Budgeted):
    """Memories packed for the task, as one envelope of text."""

    context: str = Field(description="The packed memories: put this in your working context.")
    ids: list[int] = Field(description="Ids of the memories in context, in order.")
    count: int


class SearchOutput(Budgeted):
    """Matching memories, best first."""

    memories: list[Hit]
    count: int


class GetOutput(Budgeted):
    """Full memories by id or key."""

    memories: list[MemoryRecord]
    count: int
    not_found: list[int | str] = Field(description="Requested ids or keys with no memory.")


class ExportOutput(Budgeted):
    """Export records of this scope, newest first."""

    memories: list[MemoryRecord]
    count: int


class Similar(BaseModel):
    id: int
    similarity: float


class Written(Published):
    id: int
    key: str | None
    category: str
    tags: list[str]
    importance: int
    pinned: bool
    created_at: str
    updated_at: str


class SaveOutput(Written):
    """What saving did: added, updated (the key existed) or duplicate (nothing stored)."""

    action: Literal["added", "updated", "duplicate", "merged"]
    expires_at: str | None
    similar: list[Similar] = Field(description="Similar memories that already exist.")


class RestoreOutput(Written):
    action: Literal["restored"]


class ForgetOutput(Budgeted):
    """What was (or, in a dry run, would be) forgotten."""

    dry_run: bool
    count: int = Field(description="Memories forgotten (or selected, in a dry run).")
    memories: list[Hit] = Field(description="A preview of them, within max_tokens.")


class IngestSummary(BaseModel):
    added: int
    updated: int
    duplicate: int
    forgotten: int
    skipped: int


class ForgottenByIngest(BaseModel):
    id: int
    content: str
    category: str
    key: str | None


class IngestItem(BaseModel):
    """What happened to one thing the rules found (``zeromem ingest --json`` items)."""

    action: str = Field(description="added, updated, duplicate, forgotten, not-found or error.")
    kind: str = Field(description="store or forget.")
    content: str | None = None
    target: str | None = None
    category: str | None = None
    key: str | None = None
    importance: int | None = None
    ttl: str | None = None
    rule: str
    family: str
    role: str
    message: int
    ids: list[int]
    forgotten: list[ForgottenByIngest] | None = None
    reason: str | None = None


class IngestOutput(Budgeted):
    dry_run: bool
    format: str
    messages: int
    mined: int = Field(description="Messages read by the rules (the user's).")
    summary: IngestSummary
    items: list[IngestItem]


class HistoryOutput(Budgeted):
    """Versions of one memory, the current one first."""

    id: int
    versions: list[Version]
    count: int


class StatsOutput(Budgeted):
    stats: dict[str, Any] = Field(description="As `zeromem stats --json` prints it.")


OUTPUTS = Path(__file__).with_name("outputs.json")
MODELS: dict[str, type[BaseModel]] = {
    model.__name__: model
    for model in (
        ContextOutput,
        SearchOutput,
        GetOutput,
        ExportOutput,
        SaveOutput,
        RestoreOutput,
        ForgetOutput,
        IngestOutput,
        HistoryOutput,
        StatsOutput,
    )
}


def published() -> dict[str, Any]:
    """Each output model's JSON Schema by model name, as the SDK publishes it."""
    return {name: model.model_json_schema() for name, model in MODELS.items()}


def render() -> str:
    return json.dumps(published(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":
    OUTPUTS.write_text(render(), encoding="utf-8")
    print(f"wrote {OUTPUTS}", file=sys.stderr)


__all__ = [
    "MODELS",
    "OUTPUTS",
    "Budgeted",
    "ContextOutput",
    "ExportOutput",
    "ForgetOutput",
    "GetOutput",
    "HistoryOutput",
    "IngestOutput",
    "Published",
    "RestoreOutput",
    "SaveOutput",
    "SearchOutput",
    "StatsOutput",
    "published",
    "render",
]
