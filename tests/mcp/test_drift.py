"""The stdio server, which imports no SDK, publishes and checks exactly what the SDK's server
(``--http``) does: the same tools (titles, descriptions, annotations, input and output
schemas), tool by tool, in every tool set; the same verdict and the same words on any
arguments; ``outputs.json`` as written from the output models; and its result check agrees
with ``jsonschema`` on what conforms."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
import jsonschema  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from zeromem_cli import MemoryStore  # noqa: E402
from zeromem_cli.config import Config  # noqa: E402
from zeromem_cli.errors import InvalidInputError  # noqa: E402
from zeromem_cli.mcp import schemas  # noqa: E402
from zeromem_cli.mcp.calls import ServerOptions, ToolCalls  # noqa: E402
from zeromem_cli.mcp.inputs import validated  # noqa: E402
from zeromem_cli.mcp.outputs import OUTPUTS, output_schemas, problem  # noqa: E402
from zeromem_cli.mcp.scope import ScopePolicy  # noqa: E402
from zeromem_cli.mcp.server import ZeromemServer, _validation_message  # noqa: E402
from zeromem_cli.mcp.toolbox import Toolbox  # noqa: E402
from zeromem_cli.mcp.wire import call_tool, tool_list  # noqa: E402

OPTIONS = {
    "default": ServerOptions(),
    "all": ServerOptions(all_tools=True),
    "override": ServerOptions(all_tools=True, allow_scope_override=True),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    path = tmp_path_factory.mktemp("drift") / "memories.db"
    with MemoryStore(path, user="ada") as opened:
        opened.add("The heron fishes at dawn", key="heron", tags=["birds"])
        yield opened


def _box(store: MemoryStore, options: ServerOptions) -> Toolbox:
    policy = ScopePolicy(store.scope, options.allow_scope_override)
    return Toolbox(store, Config(), policy)


def _sdk_listing(server: ZeromemServer) -> dict[str, dict[str, Any]]:
    tools = anyio.run(server.list_tools)
    return {
        tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools
    }


@pytest.mark.parametrize("variant", sorted(OPTIONS))
def test_every_tool_is_listed_as_the_sdk_lists_it(store: MemoryStore, variant: str) -> None:
    box = _box(store, OPTIONS[variant])
    sdk = _sdk_listing(ZeromemServer(box, OPTIONS[variant]))
    ours = {tool["name"]: tool for tool in tool_list(ToolCalls(box, OPTIONS[variant]))}
    assert list(ours) == list(sdk)
    for name, tool in ours.items():
        for field in ("title", "description", "annotations", "inputSchema", "outputSchema"):
            assert tool[field] == sdk[name][field], (name, field)
        assert set(tool) == set(sdk[name]), name


def test_outputs_json_is_written_from_the_output_models() -> None:
    assert OUTPUTS.read_text(encoding="utf-8") == schemas.render(), (
        "regenerate: python -m zeromem_cli.mcp.schemas"
    )


# Arguments a model may send, right and wrong: each is checked by both servers' rules.
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        ["5", " 7 ", "+3", "5.0", "5.5", "1_000", "0x10", "", "true", "Yes", "off", "maybe"]
        + ['["a", "b"]', "[1, 2]", '{"a": 1}', "null", '"quoted"', "[1, 2.5]", "٣"]
    ),
    st.text(max_size=8),
    st.lists(st.one_of(st.integers(-5, 200), st.text(max_size=3), st.booleans()), max_size=3),
    st.lists(st.dictionaries(st.sampled_from(["role", "content"]), st.text(max_size=5))),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _sdk_verdict(server: ZeromemServer, name: str, arguments: dict[str, Any]) -> Any:
    tool = server._tool_manager.get_tool(name)
    assert tool is not None
    try:
        return tool.fn_metadata.validate_arguments(arguments)
    except ValidationError as exc:
        return _validation_message(name, exc)


def _our_verdict(calls: ToolCalls, name: str, arguments: dict[str, Any]) -> Any:
    try:
        return validated(name, calls.tools[name].params, arguments)
    except InvalidInputError as exc:
        return str(exc)


@pytest.fixture(scope="module")
def both(store: MemoryStore) -> tuple[ZeromemServer, ToolCalls]:
    box = _box(store, OPTIONS["override"])
    return ZeromemServer(box, OPTIONS["override"]), ToolCalls(box, OPTIONS["override"])


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_arguments_get_the_sdks_verdict_and_words(
    both: tuple[ZeromemServer, ToolCalls], data: st.DataObject
) -> None:
    server, calls = both
    name = data.draw(st.sampled_from(sorted(calls.tools)))
    names = [p.name for p in calls.tools[name].params]
    arguments = data.draw(st.dictionaries(st.sampled_from(names), _VALUES, max_size=4))
    assert _our_verdict(calls, name, arguments) == _sdk_verdict(server, name, arguments)


def _mutations(value: Any) -> Iterator[Any]:
    """``value`` with one field or item changed to another type, or removed."""
    if isinstance(value, dict):
        for key, item in value.items():
            for other in (None, "text", 7, 2.5, True, [], {}):
                changed = copy.copy(value)
                changed[key] = other
                yield changed
            removed = {k: v for k, v in value.items() if k != key}
            yield removed
            for inner in _mutations(item):
                yield {**value, key: inner}
    elif isinstance(value, list) and value:
        for inner in _mutations(value[0]):
            yield [inner, *value[1:]]


def test_the_result_check_agrees_with_jsonschema(store: MemoryStore) -> None:
    calls = ToolCalls(_box(store, OPTIONS["all"]), OPTIONS["all"])
    results = {
        "memory_search": {"query": "heron"},
        "memory_get": {"keys": ["heron"], "history": True},
        "memory_context": {"query": "heron"},
        "memory_stats": {},
        "memory_save": {"text": "The heron fishes at dusk", "key": "heron"},
    }
    checked = 0
    for name, arguments in results.items():
        result = call_tool(calls, name, arguments)
        assert not result["isError"], result
        schema = output_schemas()[calls.tools[name].spec.output]
        assert problem(schema, result["structuredContent"]) is None
        for broken in _mutations(result["structuredContent"]):
            valid = jsonschema.Draft202012Validator(schema).is_valid(broken)
            assert (problem(schema, broken) is None) == valid, (name, broken)
            checked += 1
    assert checked > 500
