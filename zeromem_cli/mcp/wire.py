"""The ``tools/list`` and ``tools/call`` results of the stdio server, as JSON-ready dicts.

A call goes through the same steps as on the SDK's server: arguments under their declared
names (``calls``), checked against the declared types (``inputs``), the tool run on the store
one call at a time, its structured result checked against the published schema
(``outputs``). Every failure is an ``isError`` result with one line; a call never kills the
server.
"""

from __future__ import annotations

from typing import Any

from zeromem_cli.errors import ZeromemError
from zeromem_cli.mcp.calls import ToolCalls, internal_error, logger, message_of
from zeromem_cli.mcp.inputs import input_schema, validated
from zeromem_cli.mcp.outputs import output_schemas, problem


def tool_list(calls: ToolCalls) -> list[dict[str, Any]]:
    """Every offered tool as ``tools/list`` describes it."""
    schemas = output_schemas()
    return [
        {
            "name": name,
            "title": spec.title,
            "description": spec.description,
            "inputSchema": input_schema(name, params),
            "outputSchema": schemas[spec.output],
            "annotations": {**spec.annotations, "title": spec.title},
        }
        for name, (spec, params) in calls.tools.items()
    ]


def failure(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def call_tool(calls: ToolCalls, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One ``tools/call``: its result, an error result for anything that went wrong."""
    offered = calls.tools.get(name)
    if offered is None:
        return failure(calls.unknown_tool(name))
    try:
        given = validated(name, offered.params, calls.arguments(name, arguments))
        output = calls.run(name, given)
    except ZeromemError as exc:
        return failure(message_of(exc))
    except Exception as exc:  # a bug: the server stays up, the caller learns of it
        return failure(internal_error(exc))
    wrong = problem(output_schemas()[offered.spec.output], output.data)
    if wrong is not None:  # a bug (a result off its schema): said, not sent
        logger.error("zeromem tool %s returned a result off its schema: %s", name, wrong)
        return failure(f"internal error in {name}: result off its schema ({wrong})")
    return {
        "content": [{"type": "text", "text": output.text}],
        "structuredContent": output.data,
        "isError": False,
    }


__all__ = ["call_tool", "failure", "tool_list"]
