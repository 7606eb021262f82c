"""docs/python-api.md names every public name of the library: what ``zeromem_cli`` exports and
every public method of ``MemoryStore``."""

from __future__ import annotations

from pathlib import Path

import zeromem_cli
from zeromem_cli import MemoryStore

PAGE = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"


def test_every_public_name_is_documented() -> None:
    text = PAGE.read_text(encoding="utf-8")
    names = {n for n in zeromem_cli.__all__ if not n.startswith("__")}
    names |= {n for n in dir(MemoryStore) if not n.startswith("_")}
    missing = sorted(n for n in names if f"`{n}" not in text)
    assert not missing, f"docs/python-api.md does not document: {missing}"
