"""The tools as a model meets them: names, titles, descriptions, parameters (with units and
bounds), the aliases models reach for, output schemas and annotations.

Default tools are the six a memory needs; ``admin=True`` ones are listed only with
``zeromem mcp --tools all``. Everything here is plain data: the stdio server publishes and
checks it as it is (``inputs``), the SDK server (``--http``) turns each parameter into the
annotated signature it builds its schema from (``server``); a test holds the two equal.
"""

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from zeromem_cli.mcp import reads, writes
from zeromem_cli.mcp.budget import MIN_TOKENS
from zeromem_cli.mcp.toolbox import MAX_LIMIT, ToolOutput

REQUIRED: Any = object()  # a Param default: the call must give it


class Param(NamedTuple):
    """One argument: its JSON type (``string``, ``integer``, ``boolean`` or ``array`` of
    ``items``), what a model reads about it, its bounds, and its default (``None``: it may
    be null; ``REQUIRED``: the call must give it)."""

    name: str
    kind: str
    description: str
    default: Any = None
    items: str | None = None  # array items: string, integer or object
    minimum: int | None = None
    maximum: int | None = None

    @property
    def nullable(self) -> bool:
        return self.default is None


# -- parameters, as a model reads them ------------------------------------------------------


def _query() -> Param:
    return Param("query", "string", "Words or a question, any language.", REQUIRED)


def _max_tokens() -> Param:
    return Param(
        "max_tokens",
        "integer",
        "Most tokens the result may take (default: server setting; capped).",
        minimum=MIN_TOKENS,
    )


def _category() -> Param:
    return Param("category", "string", "Only this category, e.g. preference.")


def _tags() -> Param:
    return Param("tags", "array", "Only memories with all these tags.", items="string")


def _since() -> Param:
    return Param("since", "string", "Created within 7d, 24h... or since a date.")


def _until() -> Param:
    return Param("until", "string", "Created before 7d... ago, or before a date.")


def _ids() -> Param:
    return Param("ids", "array", "Memory ids.", items="integer")


def _id() -> Param:
    return Param("id", "integer", "Memory id.", REQUIRED, minimum=1)


# Tool annotations (MCP ``ToolAnnotations``), under their wire names; the title is added
# from the tool's own.
_READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
_WRITES = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
_DESTRUCTIVE = {**_WRITES, "destructiveHint": True}


class ToolSpec(NamedTuple):
    name: str
    title: str
    description: str
    run: Callable[..., ToolOutput]
    params: list[Param]
    output: str  # the output model's name in ``schemas`` (and in ``outputs.json``)
    annotations: Mapping[str, bool]
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
            Param(
                "query",
                "string",
                "The task or question; omit for pinned, important and recent memories.",
            ),
            _max_tokens(),
            _category(),
            _tags(),
        ],
        "ContextOutput",
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
            _query(),
            Param(
                "limit",
                "integer",
                "Most memories to return (default 10).",
                minimum=1,
                maximum=MAX_LIMIT,
            ),
            _max_tokens(),
            _category(),
            _tags(),
            Param("key", "string", "Only the memory with this key."),
            _since(),
            _until(),
        ],
        "SearchOutput",
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
            _ids(),
            Param("keys", "array", "Memory keys.", items="string"),
            Param("history", "boolean", "Also every earlier version.", False),
            _max_tokens(),
        ],
        "GetOutput",
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
            Param("text", "string", "What to remember, in one place.", REQUIRED),
            Param(
                "key",
                "string",
                "A unique name in this scope, e.g. timezone: saving it again updates it.",
            ),
            Param("category", "string", "e.g. preference, fact, task (default general)."),
            Param("tags", "array", "Labels to filter by later.", items="string"),
            Param("ttl", "string", "Forget after 30m, 24h, 7d, 2w, or at an ISO date."),
            Param("pinned", "boolean", "Always in memory_context, first."),
            Param("importance", "integer", "0 to 10 (default 5).", minimum=0, maximum=10),
        ],
        "SaveOutput",
        _WRITES,
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
            _ids(),
            Param("key", "string", "The memory with this key."),
            Param("query", "string", "Memories this search finds."),
            _category(),
            _tags(),
            Param("before", "string", "Created before 90d... ago, or a date."),
            Param("limit", "integer", "With query: only the N best matches.", minimum=1),
            Param(
                "dry_run",
                "boolean",
                "Only preview (default: true for filters, false for ids, key).",
            ),
            _max_tokens(),
        ],
        "ForgetOutput",
        _DESTRUCTIVE,
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
                "array",
                "Chat messages: [{role: user|assistant, content: text}].",
                REQUIRED,
                items="object",
            ),
            Param("dry_run", "boolean", "Only say what would be stored.", False),
            _max_tokens(),
        ],
        "IngestOutput",
        _DESTRUCTIVE,
        {"budget": "max_tokens"},
    ),
    ToolSpec(
        "memory_history",
        "Memory history",
        "Every version of one memory, the current one first, with when each was valid.",
        reads.history,
        [_id(), _max_tokens()],
        "HistoryOutput",
        _READ_ONLY,
        {"memory_id": "id", "budget": "max_tokens"},
        admin=True,
    ),
    ToolSpec(
        "memory_restore",
        "Restore a memory",
        "Bring back a forgotten, expired or archived memory by id.",
        writes.restore,
        [_id()],
        "RestoreOutput",
        _WRITES,
        {"memory_id": "id"},
        admin=True,
    ),
    ToolSpec(
        "memory_stats",
        "Memory statistics",
        "Counts of this scope's memories: live, expired, in the trash, pinned, by category; "
        "stored tokens and what packing returns on average.",
        reads.stats,
        [_max_tokens()],
        "StatsOutput",
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
            Param("limit", "integer", "Most records.", minimum=1),
            _max_tokens(),
            _category(),
            _tags(),
            _since(),
            _until(),
            Param("include_expired", "boolean", "Also expired memories.", False),
        ],
        "ExportOutput",
        _READ_ONLY,
        {"budget": "max_tokens"},
        admin=True,
    ),
]
