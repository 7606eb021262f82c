"""Budgets are never exceeded: over generated stores and budgets, every read's text and its
structured form (as compact JSON, what the protocol carries) each fit max_tokens, counted with
zeromem's tokenizer; ``truncated`` says when something was left out; the cap holds."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

pytest.importorskip("mcp")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.mcp.helpers import McpClient, text_of, within_budget  # noqa: E402

CAP = 1500
WORDS = ["otter", "river", "report", "Friday", "周报", "发送", "deploy", "<b>", "&amp;", '"q"']

_sessions = itertools.count()

memory_text = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=400).map(" ".join),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=300),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=30).map("\n".join),
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    home = tmp_path_factory.mktemp("budgets")
    with McpClient(
        home / "m.db",
        "--user",
        "prop",
        "--isolate",  # each example's session is a store of its own
        "--allow-scope-override",
        "--tools",
        "all",
        home=home,
        env={"ZEROMEM_MCP_MAX_TOKENS_CAP": str(CAP)},
    ) as opened:
        yield opened


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    texts=st.lists(memory_text, min_size=0, max_size=8),
    pinned=st.lists(st.booleans(), min_size=8, max_size=8),
    budget=st.integers(min_value=200, max_value=3000),
)
def test_no_read_exceeds_its_budget(
    client: McpClient, texts: list[str], pinned: list[bool], budget: int
) -> None:
    session = f"s{next(_sessions)}"  # each example is a store of its own
    saved = []
    for text, pin in zip(texts, pinned, strict=False):
        result = client.call("memory_save", text=text, pinned=pin, session=session)
        if not result.is_error:  # a generated text may be refused (empty, looks like a secret)
            saved.append(result.structured_content["id"])  # type: ignore[index]
    reads = [
        ("memory_search", {"query": "otter report 周报 deploy"}),
        ("memory_context", {"query": "when is the report sent"}),
        ("memory_context", {}),
        ("memory_get", {"ids": saved or [1], "history": True}),
        ("memory_forget", {"query": "otter 周报 river", "dry_run": True}),
        ("memory_export", {}),
        ("memory_stats", {}),
    ]
    for name, arguments in reads:
        result = client.call(name, **arguments, max_tokens=budget, session=session)
        if name == "memory_get" and not saved:
            assert result.is_error
            continue
        assert not result.is_error, (name, text_of(result))
        text_tokens, wire, kept = within_budget(result)
        assert kept == min(budget, CAP), name
        assert text_tokens <= kept and wire <= kept, (name, text_tokens, wire, kept)
        data = result.structured_content
        assert isinstance(data, dict)
        assert max(text_tokens, wire) <= data["tokens"] <= kept, name
        if name == "memory_export" and not data["truncated"]:  # nothing left out: all there
            assert len(data["memories"]) == len(set(saved))
    assert client.ok("memory_search", query="x", max_tokens=CAP * 10)["max_tokens"] == CAP
