"""Tool arguments without the SDK: each tool's published ``inputSchema`` and the check of a
call's arguments against it, built from the catalog's plain ``Param`` records.

Both keep to what the SDK's server (pydantic, in its lax mode) publishes and accepts, so a
client meets the same tools over stdio as over ``--http`` (``tests/mcp/test_drift.py`` holds
them equal): an integer may come as ``"5"`` or ``5.0``, a boolean as ``"true"`` or ``1``, a
list or object as a JSON string of one; anything else is refused with pydantic's own words
(``limit: Input should be a valid integer``), every wrong argument named, no value echoed.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.mcp.catalog import REQUIRED, Param

_BOOLEANS = {
    **dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True),
    **dict.fromkeys(("0", "off", "f", "false", "n", "no"), False),
}
_INTEGER = re.compile(r"[+-]?[0-9](?:_?[0-9])*(?:\.0+)?")
_INT64 = 2**63


def title(name: str) -> str:
    """A parameter's schema title as pydantic writes it (``max_tokens`` -> ``Max Tokens``)."""
    return name.title().replace("_", " ")


def _type_schema(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": param.kind}
    if param.kind == "array":
        items = param.items or "string"
        schema["items"] = (
            {"additionalProperties": True, "type": "object"}
            if items == "object"
            else {"type": items}
        )
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    return schema


def param_schema(param: Param) -> dict[str, Any]:
    base = _type_schema(param)
    schema = {"anyOf": [base, {"type": "null"}]} if param.nullable else base
    if param.default is not REQUIRED:
        schema["default"] = param.default
    return {**schema, "description": param.description, "title": title(param.name)}


def input_schema(tool: str, params: list[Param]) -> dict[str, Any]:
    """The tool's ``inputSchema``: one object, a property per parameter."""
    schema: dict[str, Any] = {
        "properties": {p.name: param_schema(p) for p in params},
        "type": "object",
        "title": f"{tool}Arguments",
    }
    required = [p.name for p in params if p.default is REQUIRED]
    if required:
        schema["required"] = required
    return schema


class _Wrong(Exception):
    """One argument (or item) that does not fit, with pydantic's message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _pre_parsed(param: Param, value: Any) -> Any:
    """A list or object sent as a JSON string, read as JSON (the SDK does the same for every
    parameter but a required string); numbers and strings stay as sent."""
    if not isinstance(value, str) or (param.kind == "string" and not param.nullable):
        return value
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return value
    return value if isinstance(parsed, str | int | float) else parsed


def _integer(value: Any) -> int:
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Wrong("Input should be a finite number")
        if not value.is_integer():
            raise _Wrong("Input should be a valid integer, got a number with a fractional part")
        if abs(value) >= _INT64:
            raise _Wrong("Unable to parse input string as an integer, exceeded maximum size")
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if _INTEGER.fullmatch(text) is None:
            raise _Wrong("Input should be a valid integer, unable to parse string as an integer")
        return int(text.split(".", 1)[0])
    raise _Wrong("Input should be a valid integer")


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        if not value.is_integer() or abs(value) >= _INT64:
            raise _Wrong("Input should be a valid boolean")
        value = int(value)
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:  # beyond 64 bits: not read as a number at all
            raise _Wrong("Input should be a valid boolean")
        if value in (0, 1):
            return value == 1
        raise _Wrong("Input should be a valid boolean, unable to interpret input")
    if isinstance(value, str):
        found = _BOOLEANS.get(value.lower())
        if found is None:
            raise _Wrong("Input should be a valid boolean, unable to interpret input")
        return found
    raise _Wrong("Input should be a valid boolean")


def _scalar(kind: str, value: Any) -> Any:
    if kind == "string":
        if not isinstance(value, str):
            raise _Wrong("Input should be a valid string")
        return value
    if kind == "integer":
        return _integer(value)
    if kind == "boolean":
        return _boolean(value)
    if not isinstance(value, dict):  # object
        raise _Wrong("Input should be a valid dictionary")
    return value


def _bounded(param: Param, value: int) -> int:
    if param.minimum is not None and value < param.minimum:
        raise _Wrong(f"Input should be greater than or equal to {param.minimum}")
    if param.maximum is not None and value > param.maximum:
        raise _Wrong(f"Input should be less than or equal to {param.maximum}")
    return value


def _value(param: Param, value: Any, errors: list[str]) -> Any:
    """``value`` as the parameter's type, or its errors (``name: message``) added."""
    try:
        if value is None and param.nullable:
            return None
        if param.kind != "array":
            checked = _scalar(param.kind, value)
            return _bounded(param, checked) if param.kind == "integer" else checked
        if not isinstance(value, list):
            raise _Wrong("Input should be a valid list")
    except _Wrong as wrong:
        errors.append(f"{param.name}: {wrong.message}")
        return None
    items = []
    for index, item in enumerate(value):
        try:
            items.append(_scalar(param.items or "string", item))
        except _Wrong as wrong:
            errors.append(f"{param.name}.{index}: {wrong.message}")
    return items


def validated(tool: str, params: list[Param], arguments: dict[str, Any]) -> dict[str, Any]:
    """Every parameter's value (its default where not given), or ``InvalidInputError`` naming
    each argument that does not fit. ``arguments`` hold declared names only (``calls``
    renamed aliases and refused unknown names already)."""
    values: dict[str, Any] = {}
    errors: list[str] = []
    for param in params:
        if param.name not in arguments:
            if param.default is REQUIRED:
                errors.append(f"{param.name}: Field required")
            else:
                values[param.name] = param.default
            continue
        values[param.name] = _value(param, _pre_parsed(param, arguments[param.name]), errors)
    if errors:
        raise InvalidInputError(f"invalid arguments for {tool}: " + "; ".join(errors))
    return values


__all__ = ["input_schema", "param_schema", "title", "validated"]
