"""Why the ``zeromem:`` fragment records no access: ``llm`` stores a fragment once per hash of
its text, and a pack that touches its memories can reorder the next identical pack (the access
part of the score grows fastest for a memory seldom used). Runs without ``llm``: the fragment's
text comes from ``llm_memory``, which does not import it."""

from __future__ import annotations

from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.integrations.llm_memory import fragment_text, parse_fragment

QUERY = "weekly report"


def _store(path: Path) -> MemoryStore:
    """Two memories whose order hangs on access counts: r1 leads on accesses, r2 on importance
    by one step, so a touching pack makes r2 overtake r1 after the first touch."""
    store = MemoryStore(path)
    store.import_records(
        [
            (
                "r1",
                {
                    "content": "weekly report goes out on Friday afternoon",
                    "access_count": 5,
                    "importance": 5,
                },
            ),
            (
                "r2",
                {
                    "content": "weekly report reviewed by Anna before lunch",
                    "access_count": 0,
                    "importance": 6,
                },
            ),
        ],
    )
    return store


def test_touching_packs_reorder_but_fragments_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _store(tmp_path / "touched.db") as store:
        touched = [store.pack(QUERY, budget=200, touch=True).text for _ in range(6)]
    assert len(set(touched)) > 1  # what a touching fragment would do to llm's dedup
    monkeypatch.setenv("ZEROMEM_DB", str(tmp_path / "fragment.db"))
    with _store(tmp_path / "fragment.db") as store:
        expected = store.pack(QUERY, budget=200, touch=False).text
    texts = [fragment_text(f"{QUERY}?budget=200") for _ in range(6)]
    assert texts == [expected] * 6 and texts[0].startswith("- [general] weekly report goes out")
    with MemoryStore(tmp_path / "fragment.db") as store:
        assert [m.access_count for m in store.list()] == [0, 5]


@pytest.mark.parametrize(
    ("argument", "query", "options"),
    [
        ("", None, {}),
        ("when is it due?", "when is it due?", {}),
        ("a=b", "a=b", {}),
        ("report?budget=30&tag=a&tag=b%20c", "report", {"budget": 30, "tags": ("a", "b c")}),
        ("?inherit=yes&user=alice", None, {"inherit": True}),
        ("q?tag=%E5%91%A8%E6%8A%A5&category=a%26b", "q", {"tags": ("周报",), "category": "a&b"}),
    ],
)
def test_fragment_argument(argument: str, query: str | None, options: dict[str, object]) -> None:
    request = parse_fragment(argument)
    assert request.query == query
    for name, value in options.items():
        assert getattr(request, name) == value
    if "user=alice" in argument:
        assert request.where.user == "alice"
