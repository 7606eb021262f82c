"""What every tool shares: the open store, the settings, the scope policy and the budgets.

``Toolbox`` is built once per server process; the tool functions in ``reads`` and ``writes``
take it as their first argument and return a ``ToolOutput``: the compact text a client shows
and the structured record of the declared output schema. They raise ``ZeromemError`` for
anything a caller did wrong; the server turns that into an ``isError`` result.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from zeromem_cli.config import Config
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.mcp.budget import Budget, resolve
from zeromem_cli.mcp.scope import ScopePolicy
from zeromem_cli.models import Filters
from zeromem_cli.pack.tokens import get_tokenizer
from zeromem_cli.store import MemoryStore
from zeromem_cli.times import parse_since

# Most hits a search may ask for: more cannot fit any budget a model should take.
MAX_LIMIT = 100


class ToolOutput(NamedTuple):
    text: str
    data: dict[str, Any]


class Toolbox:
    """The server's store (opened once, in the server's scope) and what the tools need."""

    def __init__(self, store: MemoryStore, config: Config, policy: ScopePolicy) -> None:
        self.store = store
        self.config = config
        self.policy = policy
        self.counter = get_tokenizer(config.get("pack.tokenizer"))
        self.default_tokens = int(config.get("mcp.max_tokens"))
        self.cap_tokens = int(config.get("mcp.max_tokens_cap"))

    def view(
        self, user: str | None = None, agent: str | None = None, session: str | None = None
    ) -> MemoryStore:
        """The store in the scope this call may use (``ScopePolicy.resolve``)."""
        scope = self.policy.resolve(user, agent, session)
        if scope == self.store.scope:
            return self.store
        return self.store.scoped(
            user=scope.user,
            agent=scope.agent,
            session=scope.session,
            project=scope.project,
            isolate=scope.isolate,
        )

    def budget(self, max_tokens: int | None) -> Budget:
        return Budget(resolve(max_tokens, self.default_tokens, self.cap_tokens), self.counter)


# The most ids and keys one memory_get may name: far more full records than any budget holds
# (mcp.max_tokens_cap), few enough that a call is answered at once.
MAX_GET_ITEMS = 100


def ids_of(ids: Sequence[int] | None) -> list[int]:
    """Distinct memory ids, in order; each a positive whole number."""
    found: dict[int, None] = {}
    for value in ids or ():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInputError(f"not a memory id: {value!r}")
        found[value] = None
    return list(found)


def tags_of(tags: Sequence[str] | str | None) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, str):
        return (tags,)
    return tuple(tags)


def moment(text: str | None, now: datetime, name: str) -> datetime | None:
    """``7d``, ``24h``... ago, or an ISO date; the error names the parameter."""
    if text is None or text == "":
        return None
    try:
        return parse_since(text, now)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{name}: {exc}") from None


def filters_of(
    store: MemoryStore,
    *,
    category: str | None = None,
    tags: Sequence[str] | str | None = None,
    key: str | None = None,
    since: str | None = None,
    until: str | None = None,
    include_expired: bool = False,
) -> Filters:
    now = store.now()
    return Filters(
        category=category or None,
        tags=tags_of(tags),
        key=key or None,
        since=moment(since, now, "since"),
        until=moment(until, now, "until"),
        include_expired=include_expired,
    )


def limit_of(limit: int | None, default: int) -> int:
    if limit is None:
        return min(default, MAX_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInputError(
            f"limit must be a whole number from 1 to {MAX_LIMIT}, not {limit!r}"
        )
    return limit


__all__ = [
    "MAX_LIMIT",
    "ToolOutput",
    "Toolbox",
    "filters_of",
    "ids_of",
    "limit_of",
    "moment",
    "tags_of",
]
