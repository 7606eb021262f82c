"""The ``Tuning`` record: every knob of search and pack, read from ``tuning.json``.

One data file holds each value with what it does, the benchmark command that measures it and
the commit that chose it: figures go stale in comments, a command does not. The record's
defaults ARE the file's values: ``tuning_values.py`` holds them as Python, written from the
file by ``python -m zeromem_cli.ranking.tuning --write`` (a start then parses no JSON; a test
fails when the two differ). Edit the file, then run that command.

``ZEROMEM_TUNING`` names a JSON file overriding some of them, either the same shape
(``{"values": {name: {"value": v}}}``) or plain ``{name: value}``: every face (CLI, MCP, hooks,
library) then ranks with it. A library caller passes ``DEFAULT_TUNING._replace(...)`` as
``ranking=`` instead. An unknown name or a value of the wrong type is refused at load.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from zeromem_cli.plain import FrozenRecord
from zeromem_cli.ranking.tuning_values import VALUES as _DEFAULTS

DATA = Path(__file__).with_name("tuning.json")
OVERRIDE_ENV = "ZEROMEM_TUNING"


def read_values(path: Path) -> dict[str, Any]:
    """{name: value} of a tuning file: the packaged shape or plain ``{name: value}``."""
    import json

    data = json.loads(path.read_text(encoding="utf-8"))
    values = data.get("values", data) if isinstance(data, dict) else None
    if not isinstance(values, dict):
        raise ValueError(f"{path}: not a tuning file (expected an object of values)")
    return {
        name: entry["value"] if isinstance(entry, dict) else entry for name, entry in values.items()
    }


class Tuning(FrozenRecord):
    """Every ranking knob (``tuning.json`` says what each does and what chose it). A weight of
    0 switches its factor off (``zeromem_cli.ranking.factors``)."""

    pool: int = _DEFAULTS["pool"]
    prefix: bool = _DEFAULTS["prefix"]
    variants: bool = _DEFAULTS["variants"]
    all_words_first: bool = _DEFAULTS["all_words_first"]
    all_words_max: int = _DEFAULTS["all_words_max"]
    coverage: float = _DEFAULTS["coverage"]
    coverage_chars: float = _DEFAULTS["coverage_chars"]
    date: float = _DEFAULTS["date"]
    importance: float = _DEFAULTS["importance"]
    pinned: float = _DEFAULTS["pinned"]
    related: float = _DEFAULTS["related"]
    related_share: float = _DEFAULTS["related_share"]
    related_max_matches: int = _DEFAULTS["related_max_matches"]
    session: float = _DEFAULTS["session"]
    context: float = _DEFAULTS["context"]
    context_sources: int = _DEFAULTS["context_sources"]
    context_span: int = _DEFAULTS["context_span"]
    context_decay: float = _DEFAULTS["context_decay"]
    context_lend_chars: float = _DEFAULTS["context_lend_chars"]
    context_window_minutes: float = _DEFAULTS["context_window_minutes"]
    pack_relevance: float = _DEFAULTS["pack_relevance"]
    pack_importance: float = _DEFAULTS["pack_importance"]
    pack_recency: float = _DEFAULTS["pack_recency"]
    pack_access: float = _DEFAULTS["pack_access"]
    pack_half_life_days: float = _DEFAULTS["pack_half_life_days"]
    pack_context: float = _DEFAULTS["pack_context"]
    access_saturation: int = _DEFAULTS["access_saturation"]
    near_duplicate: float = _DEFAULTS["near_duplicate"]
    opener: float = _DEFAULTS["opener"]
    opener_hits: int = _DEFAULTS["opener_hits"]
    semantic_sure: float = _DEFAULTS["semantic_sure"]
    semantic_tail: int = _DEFAULTS["semantic_tail"]
    semantic_floor: float = _DEFAULTS["semantic_floor"]
    semantic_spread: float = _DEFAULTS["semantic_spread"]
    semantic_push_margin: float = _DEFAULTS["semantic_push_margin"]
    semantic_pack_hits: int = _DEFAULTS["semantic_pack_hits"]
    semantic_pack_share: float = _DEFAULTS["semantic_pack_share"]
    semantic_pack_lift: bool = _DEFAULTS["semantic_pack_lift"]
    semantic_pack_room: float = _DEFAULTS["semantic_pack_room"]


def overridden(base: Tuning, values: dict[str, Any]) -> Tuning:
    """``base`` with ``values`` replacing some fields; an unknown name or a value of another
    type than the default's raises ValueError (ints are accepted for floats)."""
    changes: dict[str, Any] = {}
    for name, value in values.items():
        if name not in Tuning._fields:
            raise ValueError(f"unknown tuning value {name!r}")
        default = getattr(base, name)
        kind = type(default)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not kind:
            raise ValueError(f"tuning value {name!r} must be {kind.__name__}, not {value!r}")
        changes[name] = value
    return base._replace(**changes)


def _configured() -> Tuning:
    path = os.environ.get(OVERRIDE_ENV)
    if not path:
        return Tuning()
    try:
        return overridden(Tuning(), read_values(Path(path)))
    except (OSError, ValueError) as error:
        from zeromem_cli.errors import InvalidInputError

        raise InvalidInputError(f"{OVERRIDE_ENV}: {error}") from None


DEFAULT_TUNING = _configured()


def values_module() -> str:
    """The text of ``tuning_values.py``: the file's values, in its order, as Python."""
    lines = []
    for name, value in read_values(DATA).items():
        if not isinstance(value, (bool, int, float)):
            raise ValueError(f"{DATA}: {name} is not a number or a boolean")
        lines.append(f'    "{name}": {value!r},\n')
    return (
        '"""The values of ``tuning.json``, generated by ``python -m zeromem_cli.ranking.tuning\n'
        "--write``: do not edit (``tests/unit/test_tuning.py`` fails when they drift). Python,\n"
        'so a start reads no JSON: ``tuning.py`` says why."""\n\n'
        "from typing import Any\n\n"
        f"VALUES: dict[str, Any] = {{\n{''.join(lines)}}}\n"
    )


__all__ = ["DATA", "DEFAULT_TUNING", "OVERRIDE_ENV", "Tuning", "overridden", "read_values"]

if __name__ == "__main__":  # ``python -m zeromem_cli.ranking.tuning [--write]``
    if sys.argv[1:] == ["--write"]:
        DATA.with_name("tuning_values.py").write_text(values_module(), encoding="utf-8")
    else:
        print(values_module(), end="")
