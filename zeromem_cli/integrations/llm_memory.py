"""What the ``llm`` plugin does with a store, without importing ``llm``.

``llm_plugin`` registers these with ``llm``; keeping them here means the logic is plain
zeromem code over the public ``MemoryStore`` API, and ``llm`` is loaded only by ``llm``.

- **Fragment** ``zeromem:QUERY`` (``llm -f zeromem:QUERY``): exactly what ``zeromem pack QUERY
  --no-touch`` prints with the same configuration, and ``zeromem:`` (no query) the core
  memory (pinned, important, recent). Options ride after the last ``?`` as ``name=value``
  pairs joined by ``&`` (``zeromem:weekly report?budget=300&format=markdown``); a query that
  merely ends with a question mark has none. The pack records no access: ``llm`` keeps each
  fragment once by the hash of its text, and a touched memory ranks higher next time (the
  access part of the score), so touching would make the next identical fragment differ.
- **Tools** (``search``, ``remember``, ``forget``): compact text results within a token
  budget, counted with zeromem's own tokenizer, saying when something was left out.

The store and scope are chosen as the CLI chooses them: ``ZEROMEM_DB`` (else the per-user
default), ``ZEROMEM_USER`` / ``ZEROMEM_AGENT`` / ``ZEROMEM_SESSION`` / ``ZEROMEM_PROJECT``
(``auto``: the git repository of the directory ``llm`` runs in, ``none``: no project),
``scope.isolate_sessions``, ``config.toml`` and the ``ZEROMEM_<SECTION>_<KEY>`` settings, unless
the fragment or the tool box names them. So ``llm`` reads and writes exactly the memories
``zeromem`` does in the same shell.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from zeromem_cli.errors import InvalidInputError, SecretDetectedError
from zeromem_cli.paths import db_location

if TYPE_CHECKING:
    from zeromem_cli.config import Config
    from zeromem_cli.models import Memory
    from zeromem_cli.store import MemoryStore

PREFIX = "zeromem"
FRAGMENT_OPTIONS = (
    "budget",
    "format",
    "tokenizer",
    "category",
    "tag",
    "inherit",
    "header",
    "user",
    "agent",
    "session",
    "project",
    "isolate",
)
# The part after the last "?" is options only when it is nothing but name=value pairs.
_OPTIONS = re.compile(r"[a-z_]+=[^&]*(?:&[a-z_]+=[^&]*)*")
_ESCAPES = re.compile(r"((?:%[0-9A-Fa-f]{2})+)")
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
DEFAULT_TOOL_TOKENS = 500
DEFAULT_SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 50
SNIPPET_CHARS = 300


class Where(NamedTuple):
    """Which database and scope: given values, else the environment the CLI reads
    (``isolate`` None: the ``scope.isolate_sessions`` setting, as the CLI's ``--isolate``)."""

    db: str | None = None
    user: str | None = None
    agent: str | None = None
    session: str | None = None
    project: str | None = None
    isolate: bool | None = None

    def resolved(self, env: Mapping[str, str] | None = None) -> Where:
        env = os.environ if env is None else env

        def pick(value: str | None, name: str) -> str | None:
            return value if value else (env.get(name) or None)

        return Where(
            pick(self.db, "ZEROMEM_DB"),
            pick(self.user, "ZEROMEM_USER"),
            pick(self.agent, "ZEROMEM_AGENT"),
            pick(self.session, "ZEROMEM_SESSION"),
            pick(self.project, "ZEROMEM_PROJECT"),
            self.isolate,
        )

    def open(self, config: Config) -> MemoryStore:
        """The store, its ``--project auto`` resolved from the current directory."""
        from zeromem_cli.owner import resolve_owner
        from zeromem_cli.requests import StoreSettings
        from zeromem_cli.store import MemoryStore

        where = self.resolved()
        isolate = config.get("scope.isolate_sessions") if where.isolate is None else where.isolate
        owner = resolve_owner(
            where.user,
            where.agent,
            where.session,
            where.project,
        )
        return MemoryStore(
            db_location(where.db) if where.db else None,
            user=owner.user,
            agent=owner.agent,
            session=owner.session,
            project=owner.project,
            isolate=isolate,
            settings=StoreSettings.from_config(config),
        )


def _config() -> Config:
    from zeromem_cli.config import Config

    return Config()


# -- the fragment -----------------------------------------------------------------------------


class FragmentRequest(NamedTuple):
    """A parsed ``zeromem:`` argument; None means "from the configuration"."""

    query: str | None
    budget: int | None = None
    format: str | None = None
    tokenizer: str | None = None
    category: str | None = None
    tags: tuple[str, ...] = ()
    inherit: bool | None = None
    header: str | None = None
    where: Where = Where()


def _unquote(text: str) -> str:
    """Percent escapes (``%20``, ``%E5%91%A8``) decoded as UTF-8, as in a URL query; written
    here because the package imports no networking module, ``urllib`` included."""
    parts = _ESCAPES.split(text)
    for number in range(1, len(parts), 2):
        parts[number] = bytes.fromhex(parts[number].replace("%", "")).decode("utf-8", "replace")
    return "".join(parts)


def parse_fragment(argument: str) -> FragmentRequest:
    """``QUERY[?name=value&...]`` -> a request; an unknown option or a bad value raises
    InvalidInputError naming it."""
    query, mark, tail = argument.rpartition("?")
    if not mark or not _OPTIONS.fullmatch(tail):
        return FragmentRequest(argument.strip() or None)
    values: dict[str, Any] = {}
    tags: list[str] = []
    scope: dict[str, Any] = {}
    for pair in tail.split("&"):
        name, _, raw = pair.partition("=")
        value = _unquote(raw)
        if name not in FRAGMENT_OPTIONS:
            raise InvalidInputError(
                f"unknown zeromem fragment option {name!r} (known: {', '.join(FRAGMENT_OPTIONS)})"
            )
        if name == "budget":
            if not value.isdigit() or int(value) < 1:
                raise InvalidInputError(
                    f"budget must be a positive number of tokens, not {value!r}"
                )
            values["budget"] = int(value)
        elif name in ("inherit", "isolate"):
            if value.lower() not in _BOOLEANS:
                raise InvalidInputError(f"{name} must be true or false, not {value!r}")
            (scope if name == "isolate" else values)[name] = _BOOLEANS[value.lower()]
        elif name == "tag":
            tags.append(value)
        elif name in ("user", "agent", "session", "project"):
            scope[name] = value
        else:
            values[name] = value
    return FragmentRequest(query.strip() or None, tags=tuple(tags), where=Where(**scope), **values)


def fragment_text(argument: str) -> str:
    """The text of fragment ``zeromem:ARGUMENT``: the pack of its query (see the module
    docstring), deterministic for the same store, query and options."""
    from zeromem_cli.models import Filters
    from zeromem_cli.pack.select import Weights
    from zeromem_cli.requests import PackRequest

    request = parse_fragment(argument)
    config = _config()
    asked = PackRequest(
        budget=request.budget or config.get("pack.budget"),
        tokenizer=request.tokenizer or config.get("pack.tokenizer"),
        format=request.format or config.get("pack.format"),
        header=request.header,
        weights=Weights.from_config(config),
        filters=Filters(category=request.category, tags=request.tags),
        touch=False,
        inherit=config.get("pack.inherit") if request.inherit is None else request.inherit,
        pinned_share=config.get("pack.pinned_share"),
    )
    with request.where.open(config) as store:
        result = store.pack(request.query, asked)
    return result.text


# -- the tools --------------------------------------------------------------------------------


def _masked(text: str) -> str:
    """Masked, and no control character: ``llm chat`` prints tool results to the terminal."""
    from zeromem_cli.pack.format import SECRET_MASK
    from zeromem_cli.text.display import terminal_safe
    from zeromem_cli.text.secrets import mask_secrets

    return terminal_safe(mask_secrets(text, SECRET_MASK))


def _snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(_masked(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def hit_line(memory: Memory) -> str:
    """One memory as one compact line: id, category, key, date and (a snippet of) its text."""
    labels = f"[{_masked(memory.category)}]"
    if memory.key:
        labels += f" key={_masked(memory.key)}"
    if memory.pinned:
        labels += " pinned"
    date = (memory.updated_at or memory.created_at)[:10]
    return f"#{memory.id} {labels} {date}: {_snippet(memory.content)}"


def budgeted_lines(lines: Sequence[str], max_tokens: int, tokenizer: str) -> str:
    """The first of ``lines`` that fit ``max_tokens`` with a note on how many were left out
    (the note counted too), most first: a tool result never exceeds its budget."""
    from zeromem_cli.pack.tokens import get_tokenizer

    counter = get_tokenizer(tokenizer)
    for shown in range(len(lines), 0, -1):
        left = len(lines) - shown
        note = [f"({left} more not shown: over the {max_tokens}-token budget)"] if left else []
        text = "\n".join([*lines[:shown], *note])
        if counter.count(text) <= max_tokens:
            return text
    return f"({len(lines)} found, none fits the {max_tokens}-token budget)"


def search(where: Where, query: str, limit: int, max_tokens: int) -> str:
    """The best ``limit`` memories for ``query``, one compact line each, within the budget."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive number, not {limit!r}")
    config = _config()
    with where.open(config) as store:
        hits = store.search(query, limit=min(limit, MAX_SEARCH_LIMIT))
    if not hits:
        return "no memories match"
    return budgeted_lines([hit_line(m) for m in hits], max_tokens, config.get("pack.tokenizer"))


def remember(
    where: Where,
    text: str,
    key: str | None = None,
    category: str | None = None,
    tags: Sequence[str] | None = None,
) -> str:
    """Store ``text`` the way ``zeromem add`` does (a known key updates its memory, identical
    text is not stored twice); a likely credential is refused, naming the rule, never it."""
    config = _config()
    with where.open(config) as store:
        try:
            result = store.write(
                text,
                key=key or None,
                category=category or None,
                tags=list(tags) if tags else None,
                meta={"source": "llm"},
                default_category=config.get("add.default_category"),
            )
        except SecretDetectedError as exc:
            rules = ", ".join(exc.rules) or "secret rules"
            raise InvalidInputError(
                f"refused: this looks like a credential (rule {rules}); nothing was stored. "
                "Never store passwords, keys or tokens in memory."
            ) from None
    memory = result.memory
    if result.action == "updated":
        return f"updated #{memory.id} (key {_masked(memory.key or '')})"
    if result.action == "duplicate":
        return f"already stored as #{memory.id}"
    said = f"stored #{memory.id}"
    if result.similar:
        similar = ", ".join(f"#{memory_id}" for memory_id, _ in result.similar[:3])
        said += f" (similar: {similar})"
    return said


def forget(where: Where, memory_id: int | None = None, key: str | None = None) -> str:
    """Soft-delete one memory by id or by key (``zeromem restore ID`` brings it back)."""
    from zeromem_cli.models import Filters

    if (memory_id is None) == (not key):
        raise InvalidInputError("give the id of a memory or its key (one of them)")
    config = _config()
    with where.open(config) as store:
        if memory_id is not None:
            if isinstance(memory_id, bool) or not isinstance(memory_id, int):
                raise InvalidInputError(f"not a memory id: {memory_id!r}")
            target = store.get(memory_id)
        else:
            found = store.list(limit=1, filters=Filters(key=key))
            if not found:
                raise InvalidInputError(f"no memory has key {_masked(key or '')!r}")
            target = found[0]
        store.forget(target.id)
    return f"forgot #{target.id}: {_snippet(target.content, 80)}"
