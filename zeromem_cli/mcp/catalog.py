"""The tools as a model meets them: names, titles, descriptions, parameters (with units and
bounds), the aliases models reach for, output schemas and annotations.

Default tools are the six a memory needs; ``admin=True`` ones are listed only with
``zeromem mcp --tools all``. Annotations here are evaluated, not postponed: the SDK builds
each tool's input schema from the signature ``server`` makes of these parameters.
"""

from collections.abc import Callable, Mapping
from typing import Annotated, Any, NamedTuple

from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from zeromem_cli.mcp import reads, schemas, writes
from zeromem_cli.mcp.budget import MIN_TOKENS
from zeromem_cli.mcp.toolbox import MAX_LIMIT, ToolOutput

# -- parameters, as a model reads them ------------------------------------------------------

Query = Annotated[str, Field(description="Words or a question, any language.")]
TaskQuery = Annotated[
    str | None,
    Field(description="The task or question; omit for pinned, important and recent memories."),
]
MaxTokens = Annotated[
    int | None,
    Field(
        ge=MIN_TOKENS,
        description="Most tokens the result may take (default: server setting; capped).",
    ),
]
Limit = Annotated[
    int | None, Field(ge=1, le=MAX_LIMIT, description="Most memories to return (default 10).")
]
Category = Annotated[str | None, Field(description="Only this category, e.g. preference.")]
Tags = Annotated[list[str] | None, Field(description="Only memories with all these tags.")]
Since = Annotated[str | None, Field(description="Created within 7d, 24h... or since a date.")]
Until = Annotated[str | None, Field(description="Created before 7d... ago, or before a date.")]
Ids = Annotated[list[int] | None, Field(description="Memory ids.")]
Id = Annotated[int, Field(ge=1, description="Memory id.")]
Key = Annotated[
    str | None,
    Field(description="A unique name in this scope, e.g. timezone: saving it again updates it."),
]


REQUIRED: Any = object()  # a Param default: the call must give it


class Param(NamedTuple):
    name: str
    annotation: Any
    default: Any = None


_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class ToolSpec(NamedTuple):
    name: str
    title: str
    description: str
    run: Callable[..., ToolOutput]
    params: list[Param]
    output: type[BaseModel]
    annotations: ToolAnnotations
    aliases: Mapping[str, str] = {}
    admin: bool = False


TOOLS = [
    ToolSpec(
        "memory_context",
        "Memory for this task",
        "The best first call of a task: the memories that matter for it, packed to fit "
        "max_tokens tokens (pinned core memory first, then what the query is about; without "
        "a query, pinned, important and recent memories).",
        reads.context,
        [
            Param("query", TaskQuery),
            Param("max_tokens", MaxTokens),
            Param("category", Category),
            Param("tags", Tags),
        ],
        schemas.ContextOutput,
        _READ_ONLY,
        {"q": "query", "budget": "max_tokens"},
    ),
    ToolSpec(
        "memory_search",
        "Search memories",
        "Find memories by words or a question, best first: compact hits (id, key, category, "
        "a snippet of at most ~200 characters, score, dates) within max_tokens tokens. "
        "memory_get gives full text.",
        reads.search,
        [
            Param("query", Query, REQUIRED),
            Param("limit", Limit),
            Param("max_tokens", MaxTokens),
            Param("category", Category),
            Param("tags", Tags),
            Param(
                "key", Annotated[str | None, Field(description="Only the memory with this key.")]
            ),
            Param("since", Since),
            Param("until", Until),
        ],
        schemas.SearchOutput,
        _READ_ONLY,
        {"q": "query", "top_k": "limit", "k": "limit", "n": "limit", "budget": "max_tokens"},
    ),
    ToolSpec(
        "memory_get",
        "Get memories",
        "Full memories by ids and/or keys (history=true adds their earlier versions), within "
        "max_tokens tokens.",
        reads.get,
        [
            Param("ids", Ids),
            Param("keys", Annotated[list[str] | None, Field(description="Memory keys.")]),
            Param(
                "history",
                Annotated[bool, Field(description="Also every earlier version.")],
                False,
            ),
            Param("max_tokens", MaxTokens),
        ],
        schemas.GetOutput,
        _READ_ONLY,
        {"id": "ids", "key": "keys", "budget": "max_tokens"},
    ),
    ToolSpec(
        "memory_save",
        "Save a memory",
        "Remember something for later sessions: a fact, preference, decision or task. "
        "Saving the same text again adds nothing; with a key, the text becomes the new "
        "version of the memory holding that key. Says added, updated or duplicate, and the "
        "id. Text that looks like a password, key or token is refused.",
        writes.save,
        [
            Param(
                "text",
                Annotated[str, Field(description="What to remember, in one place.")],
                REQUIRED,
            ),
            Param("key", Key),
            Param(
                "category",
                Annotated[
                    str | None, Field(description="e.g. preference, fact, task (default general).")
                ],
            ),
            Param(
                "tags", Annotated[list[str] | None, Field(description="Labels to filter by later.")]
            ),
            Param(
                "ttl",
                Annotated[
                    str | None,
                    Field(description="Forget after 30m, 24h, 7d, 2w, or at an ISO date."),
                ],
            ),
            Param(
                "pinned",
                Annotated[bool | None, Field(description="Always in memory_context, first.")],
            ),
            Param(
                "importance",
                Annotated[int | None, Field(ge=0, le=10, description="0 to 10 (default 5).")],
            ),
        ],
        schemas.SaveOutput,
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
        {"content": "text", "memory": "text", "tag": "tags"},
    ),
    ToolSpec(
        "memory_forget",
        "Forget memories",
        "Forget memories (soft delete: a person can restore them). By ids or key they are "
        "forgotten at once; by a filter (query, category, tags, before) this only previews "
        "what would go unless dry_run is false. Returns the count and a preview.",
        writes.forget,
        [
            Param("ids", Ids),
            Param("key", Annotated[str | None, Field(description="The memory with this key.")]),
            Param("query", Annotated[str | None, Field(description="Memories this search finds.")]),
            Param("category", Category),
            Param("tags", Tags),
            Param(
                "before",
                Annotated[str | None, Field(description="Created before 90d... ago, or a date.")],
            ),
            Param(
                "limit",
                Annotated[
                    int | None, Field(ge=1, description="With query: only the N best matches.")
                ],
            ),
            Param(
                "dry_run",
                Annotated[
                    bool | None,
                    Field(
                        description="Only preview (default: true for filters, false for ids, key)."
                    ),
                ],
            ),
            Param("max_tokens", MaxTokens),
        ],
        schemas.ForgetOutput,
        ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
        {"id": "ids", "q": "query", "budget": "max_tokens"},
    ),
    ToolSpec(
        "memory_ingest",
        "Remember from a conversation",
        "Store what the user's messages ask to keep, by fixed rules (no model call): explicit "
        "requests ('remember that...'), standing instructions, preferences, personal facts "
        "('my X is Y'), tasks; 'forget ...' requests forget what they clearly name. Only "
        "user messages are read.",
        writes.ingest,
        [
            Param(
                "messages",
                Annotated[
                    list[dict[str, Any]],
                    Field(description="Chat messages: [{role: user|assistant, content: text}]."),
                ],
                REQUIRED,
            ),
            Param(
                "dry_run",
                Annotated[bool, Field(description="Only say what would be stored.")],
                False,
            ),
            Param("max_tokens", MaxTokens),
        ],
        schemas.IngestOutput,
        ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
        {"budget": "max_tokens"},
    ),
    ToolSpec(
        "memory_history",
        "Memory history",
        "Every version of one memory, the current one first, with when each was valid.",
        reads.history,
        [Param("id", Id, REQUIRED), Param("max_tokens", MaxTokens)],
        schemas.HistoryOutput,
        _READ_ONLY,
        {"memory_id": "id", "budget": "max_tokens"},
        admin=True,
    ),
    ToolSpec(
        "memory_restore",
        "Restore a memory",
        "Bring back a forgotten, expired or archived memory by id.",
        writes.restore,
        [Param("id", Id, REQUIRED)],
        schemas.RestoreOutput,
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
        {"memory_id": "id"},
        admin=True,
    ),
    ToolSpec(
        "memory_stats",
        "Memory statistics",
        "Counts of this scope's memories: live, expired, in the trash, pinned, by category; "
        "stored tokens and what packing returns on average.",
        reads.stats,
        [Param("max_tokens", MaxTokens)],
        schemas.StatsOutput,
        _READ_ONLY,
        {"budget": "max_tokens"},
        admin=True,
    ),
    ToolSpec(
        "memory_export",
        "Export memories",
        "This scope's memories as full export records, newest first, within max_tokens tokens.",
        reads.export,
        [
            Param("limit", Annotated[int | None, Field(ge=1, description="Most records.")]),
            Param("max_tokens", MaxTokens),
            Param("category", Category),
            Param("tags", Tags),
            Param("since", Since),
            Param("until", Until),
            Param(
                "include_expired",
                Annotated[bool, Field(description="Also expired memories.")],
                False,
            ),
        ],
        schemas.ExportOutput,
        _READ_ONLY,
        {"budget": "max_tokens"},
        admin=True,
    ),
]
