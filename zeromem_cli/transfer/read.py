"""Reading import files: jsonl / json / csv / Mem0 ``get_all`` JSON -> validated records.

Parsing yields ``(where, raw)`` pairs, ``where`` being what an error message names ("line 12",
"record 3"). ``validate_record`` is the one place a raw record becomes an ``ImportRecord``: every
field is type-checked and cleaned exactly as ``add`` would, and every problem is reported as a
``RecordError`` naming the place and the field. Hooks that must see every imported record
(secret detection...) belong in ``validate_record``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import HISTORY_FIELDS, MEMORY_FIELDS, Scope
from zeromem_cli.text.normalize import clean_content, hash_of_normalized, normalize
from zeromem_cli.text.secrets import first_secret
from zeromem_cli.times import from_iso, to_iso

IMPORT_FORMATS = ("jsonl", "json", "csv")
TIME_FIELDS = ("created_at", "updated_at", "expires_at", "last_accessed_at", "deleted_at")
SCOPE_FIELDS = ("user", "agent", "session", "project")
# Where a record came from within its owner (user, project): a scoped import keeps them.
ORIGIN_FIELDS = frozenset({"agent", "session"})
# Accepted and ignored: search results carry a score; history is handled separately.
IGNORED_FIELDS = frozenset({"score"})
KNOWN_FIELDS = frozenset(MEMORY_FIELDS) | IGNORED_FIELDS | {"history"}
# uids derived for records that carry none, so re-importing the same file changes nothing.
_UID_NAMESPACE = uuid.UUID("6c1f8a52-3b1e-4f0e-9a57-0d6c4e1f2a90")
_CANONICAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z")
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
MAX_LABEL = 200
# Encoders built once: json.dumps with options builds a new encoder on every call.
_encode = json.JSONEncoder(ensure_ascii=False).encode
_SORTED = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False)
_encode_sorted = _SORTED.encode
# What _SORTED.encode runs, without the Python set-up it repeats on every call (a good part
# of a record's uid basis, computed for every record of a bulk import without uids; measured
# by ``python -m benchmarks.transfer_speed``).
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)


def _encode_sorted_fast(value: Any) -> str:
    """``_encode_sorted(value)``, the same text and the same errors."""
    if _c_make_encoder is None:  # an interpreter without json's C accelerator
        return _encode_sorted(value)
    encode = _c_make_encoder(
        {}, _SORTED.default, json.encoder.encode_basestring, None, ": ", ", ", True, False, False
    )
    return "".join(encode(value, 0))


class RecordError(InvalidInputError):
    """One invalid record: where it is, which field, what is wrong."""

    def __init__(self, where: str, field_name: str | None, problem: str) -> None:
        self.where = where
        self.field = field_name
        self.problem = problem
        place = f"{where}: field {field_name!r}: " if field_name else f"{where}: "
        super().__init__(place + problem)


@dataclass
class ImportRecord:
    """A validated record: column values as stored, plus which fields the file gave."""

    where: str
    values: dict[str, Any]
    given: frozenset[str]
    history: list[dict[str, Any]] = field(default_factory=list)
    requested_id: int | None = None
    normalized: str | None = None  # normalize(content), computed once for hash and index

    @property
    def uid(self) -> str:
        return str(self.values["uid"])

    @property
    def scope_columns(self) -> tuple[str, str, str, str]:
        values = self.values
        return (values["user"], values["agent"], values["session"], values["project"])


def derived_uid(basis: str) -> str:
    """``str(uuid.uuid5(_UID_NAMESPACE, basis))``, about five times faster (bulk imports)."""
    digest = _UID_HASH.copy()  # the namespace already hashed in
    digest.update(basis.encode("utf-8"))
    h = digest.hexdigest()
    # uuid5 sets the version nibble to 5 and the two variant bits to 10.
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


_UID_HASH = hashlib.sha1(_UID_NAMESPACE.bytes)
_VARIANT = {f"{n:x}": f"{8 | n & 3:x}" for n in range(16)}


# -- parsing ---------------------------------------------------------------------------------


def detect_format(name: str | None, text: str) -> str:
    """jsonl / json / csv from a file name, else from the content (stdin)."""
    if name:
        lowered = name.lower()
        for suffix, fmt in ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "json")):
            if lowered.endswith(suffix):
                return fmt
        if lowered.endswith(".csv"):
            return "csv"
    stripped = text.lstrip()
    if stripped.startswith("["):
        return "json"
    if stripped.startswith("{"):
        try:
            _loads(stripped)
        except ValueError:
            return "jsonl"
        return "json"
    if not stripped:
        return "jsonl"
    raise InvalidInputError(
        "cannot tell the import format; give --format jsonl, json, csv, claude-md, agents-md, "
        "gemini-md or mcp-memory"
    )


def parse(text: str, fmt: str) -> Iterator[tuple[str, Any]]:
    """Raw records with their place; a file that cannot be read at all raises InvalidInputError.

    A line that is not JSON is yielded as a RecordError in place of its record.
    """
    if fmt == "jsonl":
        return _parse_jsonl(text)
    if fmt == "json":
        return _parse_json(text)
    if fmt == "csv":
        return _parse_csv(text)
    raise InvalidInputError(f"unknown import format {fmt!r} (use jsonl, json or csv)")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


# Strict JSON: Python's decoder accepts NaN and Infinity, which are not JSON; a record holding
# one could not be written back (the derived uid, meta and export encode with allow_nan=False).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _loads(text: str) -> Any:
    """``json.loads`` refusing NaN and Infinity (the same checks and messages otherwise)."""
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _DECODER.decode(text)


# json's own C scanner (what ``decode`` runs after its checks): a line that is one object,
# "{" to "}", and that it reads to the very end decodes to exactly what ``decode`` returns,
# without the Python layers around it (faster per line of a bulk import; measured by
# ``python -m benchmarks.transfer_speed``). Any other line, and any error, goes through
# ``decode``, which gives the usual message.
_scan_json = _DECODER.scan_once  # type: ignore[attr-defined]


def _parse_jsonl(text: str) -> Iterator[tuple[str, Any]]:
    scan = _scan_json
    for number, line in enumerate(text.splitlines(), start=1):
        if not line or line.isspace():
            continue
        where = f"line {number}"
        if line[0] == "{" and line[-1] == "}":
            try:
                item, end = scan(line, 0)
                if end == len(line):
                    yield where, item
                    continue
            except (ValueError, StopIteration, RecursionError):
                pass
        try:
            yield where, _loads(line)
        except ValueError as exc:
            yield where, RecordError(where, None, f"not valid JSON ({exc})")


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _parse_json(text: str) -> Iterator[tuple[str, Any]]:
    stripped = text.lstrip()
    if not stripped.startswith("["):
        try:
            data = _loads(text)
        except ValueError as exc:
            raise InvalidInputError(f"not valid JSON: {exc}") from None
        if isinstance(data, dict) and isinstance(data.get("results"), list):  # Mem0 get_all
            for number, item in enumerate(data["results"], start=1):
                yield f"record {number}", item
        elif isinstance(data, dict) and isinstance(data.get("memories"), list):
            for number, item in enumerate(data["memories"], start=1):
                yield f"record {number}", item
        else:
            yield "record 1", data
        return
    # Walk the array element by element so each error can name the line it starts on.
    decoder = _DECODER
    ws = re.compile(r"\s*")
    position = ws.match(text, 0).end() + 1  # type: ignore[union-attr]
    position = ws.match(text, position).end()  # type: ignore[union-attr]
    if text[position : position + 1] == "]":
        return
    while True:
        try:
            item, end = decoder.raw_decode(text, position)
        except ValueError as exc:
            raise InvalidInputError(
                f"not valid JSON at line {_line_of(text, position)}: {exc}"
            ) from None
        yield f"line {_line_of(text, position)}", item
        position = ws.match(text, end).end()  # type: ignore[union-attr]
        char = text[position : position + 1]
        if char == "]":
            return
        if char != ",":
            raise InvalidInputError(
                f"not valid JSON at line {_line_of(text, position)}: expected ',' or ']'"
            )
        position = ws.match(text, position + 1).end()  # type: ignore[union-attr]


def _parse_csv(text: str) -> Iterator[tuple[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise InvalidInputError(f"line 1: not valid CSV ({exc})") from None
    columns = [name.strip() for name in header]
    unknown = [c for c in columns if c not in KNOWN_FIELDS]
    if unknown:
        raise InvalidInputError(
            f"line 1: CSV column {unknown[0]!r} is not a memory field "
            f"(known: {', '.join(MEMORY_FIELDS)})"
        )
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InvalidInputError(f"line {line}: not valid CSV ({exc})") from None
        where = f"line {line}"
        line = reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            yield where, RecordError(where, None, f"{len(row)} cells, header has {len(columns)}")
            continue
        try:
            yield where, _decode_csv_row(dict(zip(columns, row, strict=True)), where)
        except RecordError as exc:
            yield where, exc


def _decode_csv_row(cells: dict[str, str], where: str) -> dict[str, Any]:
    """CSV cells are text: turn them into the JSON types of a record (empty = absent)."""
    record: dict[str, Any] = {}
    for name, cell in cells.items():
        if cell == "" and name != "content":
            continue
        value: Any = cell
        if name in ("id", "importance", "access_count"):
            try:
                value = int(cell)
            except ValueError:
                raise RecordError(where, name, f"expected an integer, got {cell!r}") from None
        elif name == "pinned":
            lowered = cell.strip().lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise RecordError(where, name, f"expected true or false, got {cell!r}")
            value = lowered in ("true", "1", "yes")
        elif name in ("tags", "meta", "history"):
            if name == "tags" and not cell.lstrip().startswith("["):
                value = [t.strip() for t in cell.split(",") if t.strip()]
            else:
                try:
                    value = _loads(cell)
                except ValueError:
                    raise RecordError(where, name, f"not valid JSON: {cell[:40]!r}") from None
        record[name] = value
    return record


# -- Mem0 ------------------------------------------------------------------------------------


def is_mem0(raw: dict[str, Any]) -> bool:
    return "memory" in raw and "content" not in raw


def from_mem0(raw: dict[str, Any]) -> dict[str, Any]:
    """A Mem0 memory (``get_all``) as a zeromem record; the Mem0 id is kept in ``meta``."""
    meta = raw.get("metadata") or {}
    if not isinstance(meta, dict):
        meta = {"mem0_metadata": meta}
    meta = dict(meta)
    record: dict[str, Any] = {"content": raw.get("memory")}
    mem0_id = raw.get("id")
    if mem0_id is not None:
        meta["mem0_id"] = mem0_id
        try:
            record["uid"] = str(uuid.UUID(str(mem0_id)))
        except ValueError:
            record["uid"] = str(uuid.uuid5(_UID_NAMESPACE, f"mem0:{mem0_id}"))
    for source, target in (("user_id", "user"), ("agent_id", "agent"), ("run_id", "session")):
        if raw.get(source) not in (None, ""):
            record[target] = raw[source]
    for source, target in (("created_at", "created_at"), ("updated_at", "updated_at")):
        if raw.get(source) not in (None, ""):
            record[target] = raw[source]
    if raw.get("expiration_date") not in (None, ""):
        record["expires_at"] = raw["expiration_date"]
    if isinstance(raw.get("categories"), list):
        record["tags"] = raw["categories"]
    handled = {"id", "memory", "metadata", "user_id", "agent_id", "run_id", "created_at"}
    handled |= {"updated_at", "expiration_date", "categories", "hash", "score"}
    for name, value in raw.items():
        if name not in handled and value is not None:
            meta[f"mem0_{name}"] = value
    record["meta"] = meta
    return record


# -- validation ------------------------------------------------------------------------------


def _text(where: str, name: str, value: Any, *, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise RecordError(where, name, f"expected text, got {_type_name(value)}")
    cleaned = clean_content(value)
    if not cleaned:
        raise RecordError(where, name, "is empty")
    if len(cleaned) > MAX_LABEL:
        raise RecordError(where, name, f"is longer than {MAX_LABEL} characters")
    return cleaned


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "text"}.get(
        type(value), "an array" if isinstance(value, list) else "an object"
    )


def _integer(where: str, name: str, value: Any, low: int, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(where, name, f"expected an integer, got {_type_name(value)}")
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise RecordError(where, name, f"must be {span}, not {value}")
    return value


def _time(where: str, name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise RecordError(where, name, f"expected an ISO-8601 time, got {_type_name(value)}")
    if _CANONICAL_TIME.match(value):
        try:  # the common case (our own exports): only check that the date and time exist
            datetime.fromisoformat(value[:19])
            return value
        except ValueError:
            pass
    try:
        return to_iso(from_iso(value))
    except (InvalidInputError, OverflowError, ValueError):
        raise RecordError(where, name, f"not an ISO-8601 date or time: {value!r}") from None


def _tags(where: str, name: str, value: Any) -> str:
    if not isinstance(value, list):
        raise RecordError(where, name, f"expected an array of text, got {_type_name(value)}")
    if not value:
        return "[]"
    if all([type(tag) is str for tag in value]):
        key = tuple(value)
        stored = _TAG_SETS.get(key)  # a bulk import repeats a few tag sets
        if stored is not None:
            return stored
        stored = _stored_tags(key)
        if stored is not None:
            if len(_TAG_SETS) >= _TAG_SETS_MAX:
                _TAG_SETS.clear()
            _TAG_SETS[key] = stored
            return stored
    cleaned = [_text(where, name, tag, optional=False) for tag in value]
    return _encode(list(dict.fromkeys(cleaned)))


# Valid tag sets seen lately and their stored form (a dict: cheaper to consult than an LRU).
_TAG_SETS: dict[tuple[str, ...], str] = {}
_TAG_SETS_MAX = 4096


def _stored_tags(tags: tuple[str, ...]) -> str | None:
    """The stored form of valid tags, None when one is invalid (``_tags`` then says which)."""
    cleaned = []
    for tag in tags:
        tag = clean_content(tag)
        if not tag or len(tag) > MAX_LABEL:
            return None
        cleaned.append(tag)
    return _encode(list(dict.fromkeys(cleaned)))


def _meta(where: str, name: str, value: Any) -> str:
    if not isinstance(value, dict):
        raise RecordError(where, name, f"expected an object, got {_type_name(value)}")
    if not value:
        return "{}"
    try:
        return _encode_sorted(value)
    except ValueError as exc:
        raise RecordError(where, name, f"not valid JSON: {exc}") from None


def _bool(where: str, name: str, value: Any) -> int:
    if not isinstance(value, bool):
        raise RecordError(where, name, f"expected true or false, got {_type_name(value)}")
    return int(value)


def _content(where: str, value: Any, clean: Callable[[str], str]) -> str:
    if value is None:
        raise RecordError(where, "content", "is missing (every record needs content)")
    if not isinstance(value, str):
        raise RecordError(where, "content", f"expected text, got {_type_name(value)}")
    try:
        return clean(value)
    except InvalidInputError as exc:
        raise RecordError(where, "content", str(exc)) from None


def _keeps(name: str, scope: Scope, own_projects: bool) -> bool:
    """Whether a scoped import keeps a record's own value of scope field ``name``."""
    if name in ORIGIN_FIELDS:
        return not scope.isolate
    return name == "project" and own_projects and scope.project is None


def validate_record(
    raw: Any,
    where: str,
    *,
    clean: Callable[[str], str],
    scope: Scope | None,
    now: str,
    allow_secret: bool = False,
    own_projects: bool = False,
) -> ImportRecord:
    """Check and convert one raw record; raise RecordError on the first problem.

    ``clean`` validates content as ``add`` does (the store's size limit included).
    ``scope``: the scope of the import; a record naming another scope is invalid. None keeps
    each record's own scope (``--all-scopes``). A likely credential in the content, key, tags,
    meta or history is refused as ``add`` refuses it, unless ``allow_secret``. A record's
    own agent and session are kept unless ``scope`` isolates; its own project only with
    ``own_projects`` when ``scope`` has none.
    """
    if isinstance(raw, RecordError):
        raise raw
    if not isinstance(raw, dict):
        raise RecordError(where, None, f"expected an object, got {_type_name(raw)}")
    if is_mem0(raw):
        raw = from_mem0(raw)
    if not KNOWN_FIELDS.issuperset(raw):
        unknown = raw.keys() - KNOWN_FIELDS
        raise RecordError(where, str(min(unknown)), "unknown field")
    # Checks in a fixed order (the first problem is the one reported); an absent or null
    # field costs one dict lookup (a bulk import validates every field of every record).
    get = raw.get
    content = _content(where, get("content"), clean)
    normalized = normalize(content)
    values: dict[str, Any] = {"content": content, "content_hash": hash_of_normalized(normalized)}
    requested_id = None
    if get("id") is not None:
        requested_id = _integer(where, "id", raw["id"], 1, None)
    uid = get("uid")
    if uid is not None:
        if not isinstance(uid, str):
            raise RecordError(where, "uid", f"expected a UUID, got {_type_name(uid)}")
        try:
            values["uid"] = uid if _CANONICAL_UUID.match(uid) else str(uuid.UUID(uid))
        except ValueError:
            raise RecordError(where, "uid", f"not a UUID: {uid!r}") from None
    columns = ["", "", "", ""]
    for number, name in enumerate(SCOPE_FIELDS):
        value = get(name)
        given = None if value is None else _text(where, name, value)
        if scope is None:
            columns[number] = given or ""
            continue
        wanted = getattr(scope, name)
        if given is not None and given != wanted and _keeps(name, scope, own_projects):
            columns[number] = given  # its origin within the owner, or its file's project
            continue
        if given is not None and given != wanted:
            raise RecordError(
                where,
                name,
                f"{given!r} is outside the scope of this import ({wanted or 'unset'}); "
                "pass the matching scope option, or --all-scopes to keep each record's scope",
            )
        columns[number] = wanted or ""
    values["user"], values["agent"], values["session"], values["project"] = columns
    value = get("category")
    values["category"] = "general" if value is None else _text(where, "category", value)
    value = get("tags")
    values["tags"] = "[]" if value is None else _tags(where, "tags", value)
    value = get("key")
    values["key"] = None if value is None else _text(where, "key", value)
    value = get("importance")
    values["importance"] = 5 if value is None else _integer(where, "importance", value, 0, 10)
    value = get("pinned")
    values["pinned"] = 0 if value is None else _bool(where, "pinned", value)
    value = get("meta")
    values["meta"] = "{}" if value is None else _meta(where, "meta", value)
    value = get("access_count")
    values["access_count"] = 0 if value is None else _integer(where, "access_count", value, 0, None)
    for name in TIME_FIELDS:
        value = get(name)
        values[name] = None if value is None else _time(where, name, value)
    values["deleted_reason"] = _deleted_reason(where, get("deleted_reason"), values)
    values["created_at"] = values["created_at"] or now
    values["updated_at"] = values["updated_at"] or values["created_at"]
    given_fields = frozenset([name for name, value in raw.items() if value is not None])
    if uid is None:
        # No uid: derive one from the record and its scope, so a re-import is a no-op.
        values["uid"] = derived_uid(_encode_sorted_fast([columns, raw]))
    history = []
    if get("history") is not None:
        history = _history(where, raw["history"], clean)
    if not allow_secret:
        _refuse_secrets(where, values, history)
    return ImportRecord(where, values, given_fields, history, requested_id, normalized)


_SECRET_FIELDS = (
    "content",
    "category",
    "key",
    "tags",
    "meta",
    "user",
    "agent",
    "session",
    "project",
)


def _refuse_secrets(where: str, values: dict[str, Any], history: list[dict[str, Any]]) -> None:
    """A RecordError naming the field and the rule of the first likely credential (never the
    credential itself), as ``add`` would refuse it."""
    fields = [(name, values[name]) for name in _SECRET_FIELDS]
    for number, entry in enumerate(history, start=1):
        fields += [(f"history[{number}].{name}", entry.get(name)) for name in _SECRET_FIELDS]
    found = first_secret(fields)
    if found is not None:
        name, first = found
        raise RecordError(
            where,
            name,
            f"likely secret: {first.description} (rule {first.rule}); remove it, or pass "
            "--allow-secret to import it anyway",
        )


DELETED_REASONS = ("forgotten", "expired", "archived")


def _deleted_reason(where: str, value: Any, values: dict[str, Any]) -> str | None:
    """Why a trashed record is out of sight; a deleted record without one was forgotten."""
    if values["deleted_at"] is None:
        if value is not None:
            raise RecordError(where, "deleted_reason", "given without deleted_at")
        return None
    if value is None:
        return "forgotten"
    if value not in DELETED_REASONS:
        raise RecordError(where, "deleted_reason", f"must be one of {', '.join(DELETED_REASONS)}")
    return str(value)


def _history(where: str, value: Any, clean: Callable[[str], str]) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise RecordError(where, "history", f"expected an array, got {_type_name(value)}")
    entries = []
    for number, item in enumerate(value, start=1):
        name = f"history[{number}]"
        if not isinstance(item, dict):
            raise RecordError(where, name, f"expected an object, got {_type_name(item)}")
        for field_name in item:
            if field_name not in HISTORY_FIELDS and field_name != "memory_id":
                raise RecordError(where, f"{name}.{field_name}", "unknown field")
        content = _content(where, item.get("content"), clean)
        entry = {
            "content": content,
            "category": _text(where, f"{name}.category", item.get("category")) or "general",
            "tags": _tags(where, f"{name}.tags", item.get("tags") or []),
            "key": _text(where, f"{name}.key", item.get("key")),
            "importance": _integer(where, f"{name}.importance", item.get("importance", 5), 0, 10),
            "pinned": _bool(where, f"{name}.pinned", item.get("pinned", False)),
            "meta": _meta(where, f"{name}.meta", item.get("meta") or {}),
            "expires_at": _time(where, f"{name}.expires_at", item.get("expires_at")),
            "valid_from": _time(where, f"{name}.valid_from", item.get("valid_from")),
            "valid_to": _time(where, f"{name}.valid_to", item.get("valid_to")),
            "change": _text(where, f"{name}.change", item.get("change")) or "update",
        }
        for bound in ("valid_from", "valid_to"):
            if entry[bound] is None:
                raise RecordError(where, f"{name}.{bound}", "is missing")
        entries.append(entry)
    return entries
