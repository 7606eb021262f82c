"""Records: the one rule for which kind each record is, and the classes of the plain ones.

The rule (DESIGN.md "Records"); follow it rather than inventing another idiom. Where a
record is built decides its kind:

- On the start-up path of a command (the core, ``cli/``, the hooks): a mutable record the
  library returns (``Memory``, ``HistoryEntry``, ``WriteResult``, ``Filters``, ``PackResult``,
  pack's ``Candidate``) derives from ``Record``; a small immutable value (``Scope``,
  ``Weights``, ``Tuning``, ``DateHint``, ``Window``, ``Term``, ``ParsedQuery``,
  ``SecretRule``, ``SecretMatch``, ``Setting``, ``StoreOptions``, the request records,
  ``Match``, ``CandidateQuery``, ``Owner``) from ``FrozenRecord``:
  hashable, with ``_replace`` like a NamedTuple's.
- Off it (lifecycle reports, import plans, stats, ingest, the MCP server, ``setup``): a
  mutable record is a ``@dataclass``, an immutable one may be a ``typing.NamedTuple``.

Why: ``@dataclass`` compiles its methods when its class is built (0.2-0.5 ms a class), and a
NamedTuple in a module with postponed annotations compiles each field's annotation into a
``ForwardRef`` (~0.2 ms a class), on every start of every command that imports them. A record
class here compiles nothing at start-up: its ``__init__`` is generated ahead, at the end of
this file.

A record declares each field once, as an annotation with an optional default
(``field(default_factory=list)``: a fresh list per record). Its class makes the annotations
``__slots__`` (no ``__dict__``: a mistyped attribute is an error) and takes its ``__init__``
from the generated section that ends this file, which ``python -m zeromem_cli.plain --write``
writes from the classes (the ``__init__`` a hand-written record would have, compiled with the
package; ``tests/core/test_plain_records.py`` fails when it drifts). A class not found there,
or changed since, gets the same ``__init__`` by one ``exec`` when first built.
``Record`` gives equality and a repr over the fields, as a dataclass does (``Memory(id=1,
uid='...', ...)``; equal when of the same class with equal fields), and pickles and copies
through the constructor; ``dataclasses.fields`` / ``asdict`` / ``replace`` do not apply
(records that need it have ``to_dict()``). A class that lists its own ``__slots__`` writes its
own ``__init__``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from typing_extensions import Self, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: Any) -> Any:  # for type checkers only
        return lambda target: target


class _Factory:
    """A ``field(default_factory=...)`` default; ``FACTORY`` stands for it in ``__init__``."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any] | None) -> None:
        self.make = make

    def __repr__(self) -> str:
        return "<factory>"


FACTORY = _Factory(None)
_LITERALS: dict[Any, str] = {list: "[]", dict: "{}"}  # fresh values written as literals


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is ``default_factory()``, made for each record built without it."""
    return _Factory(default_factory)  # type: ignore[return-value]


_DECLARED: list[type[Record]] = []  # classes whose __init__ is written from their fields
_set = object.__setattr__  # how a generated __init__ sets the fields of a frozen record


@dataclass_transform(field_specifiers=(field,))
class _RecordType(type):
    """Record classes: fields from the annotations, ``__slots__`` and ``__init__`` from them."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if "__slots__" in namespace:  # hand-written: the slots are the fields
            namespace["_fields"] = tuple(namespace["__slots__"])
            namespace["_field_defaults"] = {}
            return super().__new__(mcs, name, bases, namespace)
        for base in bases:
            if getattr(base, "_fields", ()):
                raise TypeError(f"{name}: a record with fields cannot be subclassed")
        hints = namespace.get("__annotations__", {})
        fields = tuple([n for n in hints if "ClassVar" not in str(hints[n])])
        defaults = {n: namespace.pop(n) for n in fields if n in namespace}
        if fields[len(fields) - len(defaults) :] != tuple(defaults):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        namespace["__slots__"] = namespace["_fields"] = fields
        namespace["_field_defaults"] = defaults
        cls: Any = super().__new__(mcs, name, bases, namespace)
        if fields and "__init__" not in namespace:
            _DECLARED.append(cls)
            cls.__init__ = _first_init
        return cls


def _layout(cls: type[Record]) -> tuple[Any, ...]:
    """What an ``__init__`` depends on: the fields, which of them have a factory, frozen."""
    defaults = cls._field_defaults
    factories = tuple([n for n in defaults if defaults[n].__class__ is _Factory])
    return (cls._fields, factories, issubclass(cls, FrozenRecord))


def _init_source(cls: type[Record], name: str = "__init__") -> str:
    """The ``__init__`` a hand-written record would have (its defaults go in ``__defaults__``;
    a frozen record sets its fields through ``object.__setattr__``), formatted as ruff would."""
    fields, factories, frozen = _layout(cls)
    lines = []
    for field_name in fields:
        value = field_name
        if field_name in factories:
            make = cls._field_defaults[field_name].make
            fresh = _LITERALS.get(make) or f'type(self)._field_defaults["{field_name}"].make()'
            value = f"{fresh} if {field_name} is FACTORY else {field_name}"
        lines.append(
            f'_set(self, "{field_name}", {value})' if frozen else f"self.{field_name} = {value}"
        )
    parameters = "    " + ", ".join(["self", *fields])
    if len(parameters) > 100:
        parameters = "".join(f"    {p},\n" for p in ["self", *fields])[:-1]
    head = f"def {name}(  # type: ignore[no-untyped-def]\n{parameters}\n):\n    "
    return head + "\n    ".join(lines) + "\n"


def _first_init(self: Record, *args: Any, **kwargs: Any) -> None:
    """Put the class's own ``__init__`` in place and build this record with it: the generated
    one (end of this file) when it was generated for the class as it is now, else one compiled
    here (a class outside the package, or a section not yet regenerated)."""
    cls = type(self)
    init = INITS.get(_key(cls))
    code = getattr(init, "__code__", None)
    fields, _, frozen = _layout(cls)
    if code is None or code.co_varnames[1 : code.co_argcount] != fields:
        init = None
    elif ("_set" in code.co_names) != frozen:
        init = None
    if init is None:
        namespace: dict[str, Any] = {"FACTORY": FACTORY, "_set": _set}
        exec(_init_source(cls), namespace)  # noqa: S102 - field names are identifiers
        init = namespace["__init__"]
    cls.__init__ = _finish(cls, init)  # type: ignore[method-assign]
    init(self, *args, **kwargs)


def _key(cls: type[Record]) -> str:
    return f"{cls.__module__.removeprefix('zeromem_cli.')}.{cls.__qualname__}"


def _finish(cls: type[Record], init: Callable[..., None]) -> Callable[..., None]:
    init.__defaults__ = tuple(
        FACTORY if isinstance(v, _Factory) else v for v in cls._field_defaults.values()
    )
    init.__name__ = "__init__"
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def generated_inits() -> str:
    """The generated section that ends this file: the ``__init__`` of every record class of
    the package (all its modules are imported first, but for those needing an optional
    dependency that is not installed)."""
    import importlib
    import pkgutil

    import zeromem_cli

    for module in pkgutil.walk_packages(zeromem_cli.__path__, "zeromem_cli."):
        if not module.name.endswith("__main__"):
            try:
                importlib.import_module(module.name)
            except ImportError as exc:  # an optional dependency (llm, mcp) is not installed
                if (exc.name or "").startswith("zeromem_cli"):
                    raise
    ours = [c for c in _DECLARED if c.__module__.startswith("zeromem_cli.")]
    parts = [GENERATED]
    for cls in sorted(ours, key=_key):
        if "<locals>" not in cls.__qualname__:
            name = f"_init_{cls.__qualname__}"
            parts.append(f"\n\n{_init_source(cls, name)}\n\n")
            parts.append(f'INITS["{_key(cls)}"] = {name}\n')
    return "".join(parts)


class Record(metaclass=_RecordType):
    """Equality and repr over the fields; unhashable, like a dataclass with ``eq=True``."""

    __slots__: ClassVar[tuple[str, ...]] = ()
    __hash__: ClassVar[None] = None  # type: ignore[assignment]
    _fields: ClassVar[tuple[str, ...]]
    _field_defaults: ClassVar[dict[str, Any]]

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({fields})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle and copy by calling the constructor with the fields in order (a frozen
        record cannot have its fields set one by one, as the default protocol would)."""
        return (type(self), self._values())


class FrozenRecord(Record):
    """A ``Record`` that cannot change once built, hashable by its fields."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def _replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (as ``NamedTuple._replace``)."""
        return type(self)(**{**{name: getattr(self, name) for name in self._fields}, **changes})


GENERATED = (
    "# -- Generated by `python -m zeromem_cli.plain --write` from the record classes: do not\n"
    "# edit below. Compiled with the package, they cost nothing at start-up; a test fails\n"
    "# when they drift from the classes. --\n"
    "INITS: dict[str, Callable[..., None]] = {}\n"
)

if __name__ == "__main__":  # ``python -m zeromem_cli.plain [--write]``
    from pathlib import Path

    from zeromem_cli import plain  # the package's own copy: the one record classes register in

    section = plain.generated_inits()
    if sys.argv[1:] == ["--write"]:
        path = Path(plain.__file__)
        text = path.read_text(encoding="utf-8")
        path.write_text(text[: text.index(plain.GENERATED)] + section, encoding="utf-8")
    else:
        print(section, end="")


# -- Generated by `python -m zeromem_cli.plain --write` from the record classes: do not
# edit below. Compiled with the package, they cost nothing at start-up; a test fails
# when they drift from the classes. --
INITS: dict[str, Callable[..., None]] = {}


def _init_StoreOptions(  # type: ignore[no-untyped-def]
    self, db, user, agent, session, project, isolate, key_file
):
    _set(self, "db", db)
    _set(self, "user", user)
    _set(self, "agent", agent)
    _set(self, "session", session)
    _set(self, "project", project)
    _set(self, "isolate", isolate)
    _set(self, "key_file", key_file)


INITS["cli.options.StoreOptions"] = _init_StoreOptions


def _init_Setting(  # type: ignore[no-untyped-def]
    self, key, kind, default, help, minimum, maximum, choices, check
):
    _set(self, "key", key)
    _set(self, "kind", kind)
    _set(self, "default", default)
    _set(self, "help", help)
    _set(self, "minimum", minimum)
    _set(self, "maximum", maximum)
    _set(self, "choices", choices)
    _set(self, "check", check)


INITS["config.Setting"] = _init_Setting


def _init_Filters(  # type: ignore[no-untyped-def]
    self, category, tags, key, since, until, include_expired, include_deleted, min_score
):
    self.category = category
    self.tags = tags
    self.key = key
    self.since = since
    self.until = until
    self.include_expired = include_expired
    self.include_deleted = include_deleted
    self.min_score = min_score


INITS["models.Filters"] = _init_Filters


def _init_HistoryEntry(  # type: ignore[no-untyped-def]
    self,
    memory_id,
    version,
    content,
    category,
    tags,
    key,
    importance,
    pinned,
    meta,
    expires_at,
    valid_from,
    valid_to,
    change,
):
    self.memory_id = memory_id
    self.version = version
    self.content = content
    self.category = category
    self.tags = tags
    self.key = key
    self.importance = importance
    self.pinned = pinned
    self.meta = meta
    self.expires_at = expires_at
    self.valid_from = valid_from
    self.valid_to = valid_to
    self.change = change


INITS["models.HistoryEntry"] = _init_HistoryEntry


def _init_Memory(  # type: ignore[no-untyped-def]
    self,
    id,
    uid,
    content,
    category,
    tags,
    key,
    user,
    agent,
    session,
    project,
    importance,
    pinned,
    meta,
    created_at,
    updated_at,
    expires_at,
    last_accessed_at,
    access_count,
    deleted_at,
    deleted_reason,
    score,
):
    self.id = id
    self.uid = uid
    self.content = content
    self.category = category
    self.tags = [] if tags is FACTORY else tags
    self.key = key
    self.user = user
    self.agent = agent
    self.session = session
    self.project = project
    self.importance = importance
    self.pinned = pinned
    self.meta = {} if meta is FACTORY else meta
    self.created_at = created_at
    self.updated_at = updated_at
    self.expires_at = expires_at
    self.last_accessed_at = last_accessed_at
    self.access_count = access_count
    self.deleted_at = deleted_at
    self.deleted_reason = deleted_reason
    self.score = score


INITS["models.Memory"] = _init_Memory


def _init_WriteResult(  # type: ignore[no-untyped-def]
    self, memory, action, similar
):
    self.memory = memory
    self.action = action
    self.similar = [] if similar is FACTORY else similar


INITS["models.WriteResult"] = _init_WriteResult


def _init_Owner(  # type: ignore[no-untyped-def]
    self, user, agent, session, project
):
    _set(self, "user", user)
    _set(self, "agent", agent)
    _set(self, "session", session)
    _set(self, "project", project)


INITS["owner.Owner"] = _init_Owner


def _init_Candidate(  # type: ignore[no-untyped-def]
    self, memory, relevance, importance, recency, access, score, context, tokens, status
):
    self.memory = memory
    self.relevance = relevance
    self.importance = importance
    self.recency = recency
    self.access = access
    self.score = score
    self.context = context
    self.tokens = tokens
    self.status = status


INITS["pack.select.Candidate"] = _init_Candidate


def _init_PackResult(  # type: ignore[no-untyped-def]
    self, text, tokens, budget, tokenizer, format, memories, candidates, notes
):
    self.text = text
    self.tokens = tokens
    self.budget = budget
    self.tokenizer = tokenizer
    self.format = format
    self.memories = [] if memories is FACTORY else memories
    self.candidates = [] if candidates is FACTORY else candidates
    self.notes = [] if notes is FACTORY else notes


INITS["pack.select.PackResult"] = _init_PackResult


def _init_Weights(  # type: ignore[no-untyped-def]
    self, relevance, importance, recency, access, half_life_days, context, context_window_minutes
):
    _set(self, "relevance", relevance)
    _set(self, "importance", importance)
    _set(self, "recency", recency)
    _set(self, "access", access)
    _set(self, "half_life_days", half_life_days)
    _set(self, "context", context)
    _set(self, "context_window_minutes", context_window_minutes)


INITS["pack.select.Weights"] = _init_Weights


def _init_Factor(  # type: ignore[no-untyped-def]
    self, name, used_by, kind, reads, off
):
    _set(self, "name", name)
    _set(self, "used_by", used_by)
    _set(self, "kind", kind)
    _set(self, "reads", reads)
    _set(self, "off", off)


INITS["ranking.factors.Factor"] = _init_Factor


def _init_Tuning(  # type: ignore[no-untyped-def]
    self,
    pool,
    prefix,
    variants,
    all_words_first,
    all_words_max,
    coverage,
    coverage_chars,
    date,
    importance,
    pinned,
    related,
    related_share,
    related_max_matches,
    session,
    context,
    context_sources,
    context_span,
    context_decay,
    context_lend_chars,
    context_window_minutes,
    pack_relevance,
    pack_importance,
    pack_recency,
    pack_access,
    pack_half_life_days,
    pack_context,
    access_saturation,
    near_duplicate,
    opener,
    opener_hits,
    semantic_sure,
    semantic_tail,
    semantic_floor,
    semantic_spread,
    semantic_push_margin,
    semantic_pack_hits,
    semantic_pack_share,
    semantic_pack_lift,
    semantic_pack_room,
):
    _set(self, "pool", pool)
    _set(self, "prefix", prefix)
    _set(self, "variants", variants)
    _set(self, "all_words_first", all_words_first)
    _set(self, "all_words_max", all_words_max)
    _set(self, "coverage", coverage)
    _set(self, "coverage_chars", coverage_chars)
    _set(self, "date", date)
    _set(self, "importance", importance)
    _set(self, "pinned", pinned)
    _set(self, "related", related)
    _set(self, "related_share", related_share)
    _set(self, "related_max_matches", related_max_matches)
    _set(self, "session", session)
    _set(self, "context", context)
    _set(self, "context_sources", context_sources)
    _set(self, "context_span", context_span)
    _set(self, "context_decay", context_decay)
    _set(self, "context_lend_chars", context_lend_chars)
    _set(self, "context_window_minutes", context_window_minutes)
    _set(self, "pack_relevance", pack_relevance)
    _set(self, "pack_importance", pack_importance)
    _set(self, "pack_recency", pack_recency)
    _set(self, "pack_access", pack_access)
    _set(self, "pack_half_life_days", pack_half_life_days)
    _set(self, "pack_context", pack_context)
    _set(self, "access_saturation", access_saturation)
    _set(self, "near_duplicate", near_duplicate)
    _set(self, "opener", opener)
    _set(self, "opener_hits", opener_hits)
    _set(self, "semantic_sure", semantic_sure)
    _set(self, "semantic_tail", semantic_tail)
    _set(self, "semantic_floor", semantic_floor)
    _set(self, "semantic_spread", semantic_spread)
    _set(self, "semantic_push_margin", semantic_push_margin)
    _set(self, "semantic_pack_hits", semantic_pack_hits)
    _set(self, "semantic_pack_share", semantic_pack_share)
    _set(self, "semantic_pack_lift", semantic_pack_lift)
    _set(self, "semantic_pack_room", semantic_pack_room)


INITS["ranking.tuning.Tuning"] = _init_Tuning


def _init_ImportRequest(  # type: ignore[no-untyped-def]
    self, on_conflict, skip_invalid, all_scopes, dry_run, allow_secret, progress, own_projects
):
    _set(self, "on_conflict", on_conflict)
    _set(self, "skip_invalid", skip_invalid)
    _set(self, "all_scopes", all_scopes)
    _set(self, "dry_run", dry_run)
    _set(self, "allow_secret", allow_secret)
    _set(self, "progress", progress)
    _set(self, "own_projects", own_projects)


INITS["requests.ImportRequest"] = _init_ImportRequest


def _init_PackRequest(  # type: ignore[no-untyped-def]
    self,
    budget,
    tokenizer,
    format,
    header,
    weights,
    filters,
    touch,
    pool,
    reveal,
    content_of,
    inherit,
    pinned_share,
    exclude,
    as_of,
    ranking,
    semantic,
):
    _set(self, "budget", budget)
    _set(self, "tokenizer", tokenizer)
    _set(self, "format", format)
    _set(self, "header", header)
    _set(self, "weights", weights)
    _set(self, "filters", filters)
    _set(self, "touch", touch)
    _set(self, "pool", pool)
    _set(self, "reveal", reveal)
    _set(self, "content_of", content_of)
    _set(self, "inherit", inherit)
    _set(self, "pinned_share", pinned_share)
    _set(self, "exclude", exclude)
    _set(self, "as_of", as_of)
    _set(self, "ranking", ranking)
    _set(self, "semantic", semantic)


INITS["requests.PackRequest"] = _init_PackRequest


def _init_StoreSettings(  # type: ignore[no-untyped-def]
    self,
    max_content_bytes,
    max_tags,
    max_tag_chars,
    notice,
    log,
    if_missing,
    semantic,
    semantic_model,
):
    _set(self, "max_content_bytes", max_content_bytes)
    _set(self, "max_tags", max_tags)
    _set(self, "max_tag_chars", max_tag_chars)
    _set(self, "notice", notice)
    _set(self, "log", log)
    _set(self, "if_missing", if_missing)
    _set(self, "semantic", semantic)
    _set(self, "semantic_model", semantic_model)


INITS["requests.StoreSettings"] = _init_StoreSettings


def _init_WriteRequest(  # type: ignore[no-untyped-def]
    self,
    category,
    tags,
    key,
    importance,
    pinned,
    meta,
    ttl,
    expires_at,
    user,
    agent,
    session,
    project,
    allow_duplicate,
    merge,
    default_category,
    created_at,
    allow_secret,
    near,
    embed,
):
    _set(self, "category", category)
    _set(self, "tags", tags)
    _set(self, "key", key)
    _set(self, "importance", importance)
    _set(self, "pinned", pinned)
    _set(self, "meta", meta)
    _set(self, "ttl", ttl)
    _set(self, "expires_at", expires_at)
    _set(self, "user", user)
    _set(self, "agent", agent)
    _set(self, "session", session)
    _set(self, "project", project)
    _set(self, "allow_duplicate", allow_duplicate)
    _set(self, "merge", merge)
    _set(self, "default_category", default_category)
    _set(self, "created_at", created_at)
    _set(self, "allow_secret", allow_secret)
    _set(self, "near", near)
    _set(self, "embed", embed)


INITS["requests.WriteRequest"] = _init_WriteRequest


def _init_CandidateQuery(  # type: ignore[no-untyped-def]
    self, match, scope, filters, now, pool, bounded, full_only
):
    _set(self, "match", match)
    _set(self, "scope", scope)
    _set(self, "filters", filters)
    _set(self, "now", now)
    _set(self, "pool", pool)
    _set(self, "bounded", bounded)
    _set(self, "full_only", full_only)


INITS["storage.query.CandidateQuery"] = _init_CandidateQuery


def _init_Match(  # type: ignore[no-untyped-def]
    self, clauses
):
    _set(self, "clauses", clauses)


INITS["storage.query.Match"] = _init_Match


def _init_Window(  # type: ignore[no-untyped-def]
    self, match, after, rare_ids
):
    _set(self, "match", match)
    _set(self, "after", after)
    _set(self, "rare_ids", rare_ids)


INITS["storage.sqlite.window.Window"] = _init_Window


def _init_DateHint(  # type: ignore[no-untyped-def]
    self, test
):
    _set(self, "test", test)


INITS["text.dates.DateHint"] = _init_DateHint


def _init__DatePatterns(  # type: ignore[no-untyped-def]
    self, month_date, year, iso_date, relative, ago, past, weekday
):
    _set(self, "month_date", month_date)
    _set(self, "year", year)
    _set(self, "iso_date", iso_date)
    _set(self, "relative", relative)
    _set(self, "ago", ago)
    _set(self, "past", past)
    _set(self, "weekday", weekday)


INITS["text.dates._DatePatterns"] = _init__DatePatterns


def _init_Term(  # type: ignore[no-untyped-def]
    self, text, prefix, near
):
    _set(self, "text", text)
    _set(self, "prefix", prefix)
    _set(self, "near", near)


INITS["text.query.Term"] = _init_Term


def _init_SecretMatch(  # type: ignore[no-untyped-def]
    self, rule, description, span
):
    _set(self, "rule", rule)
    _set(self, "description", description)
    _set(self, "span", span)


INITS["text.secrets.SecretMatch"] = _init_SecretMatch


def _init_SecretRule(  # type: ignore[no-untyped-def]
    self, name, description, pattern, check, needs, folded
):
    _set(self, "name", name)
    _set(self, "description", description)
    _set(self, "pattern", pattern)
    _set(self, "check", check)
    _set(self, "needs", needs)
    _set(self, "folded", folded)


INITS["text.secrets.SecretRule"] = _init_SecretRule


def _init_Duration(  # type: ignore[no-untyped-def]
    self, months, seconds
):
    _set(self, "months", months)
    _set(self, "seconds", seconds)


INITS["times.Duration"] = _init_Duration
