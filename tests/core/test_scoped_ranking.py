"""Search in a scope that holds a small share of the store: a project's few memories among many
others' must rank exactly as they would in a pass over every match, and an empty scope finds
nothing (SQLite answers both from the scope's own rows: ``storage.sqlite.candidates``).

Core layer: public MemoryStore API only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.requests import StoreSettings
from zeromem_cli.storage.sqlite import candidates

# More matches outside the project than the first ranking pass looks at (FIRST_PASS), so a
# search that only ranked that pass and filtered it would miss the project's memories.
OTHERS = 900
OFF = StoreSettings(semantic=False)


def _fill(path: Path | str) -> list[str]:
    """Other projects' memories that all mention the deploy, and a project of six whose
    memories mention it more weakly (longer texts): BM25 ranks every one of them below all
    the others'."""
    with MemoryStore(path, user="team", project="bulk", settings=OFF) as bulk, bulk.transaction():
        for number in range(OTHERS):
            bulk.add(f"deploy note {number}: the deploy ran")
    small = [
        f"item {n}: after lunch the release train left and the deploy of service {n} was "
        "checked by the on-call engineer against the runbook and the dashboards"
        for n in range(6)
    ]
    with MemoryStore(path, user="team", project="small", settings=OFF) as project:
        for content in small:
            project.add(content)
    return small


def test_a_small_project_finds_its_memories_below_many_stronger_matches(
    db_path: Path | str,
) -> None:
    small = _fill(db_path)
    with MemoryStore(db_path, user="team", project="small", settings=OFF) as project:
        found = project.search("deploy", limit=10)
    assert {m.content for m in found} == set(small)
    with MemoryStore(db_path, user="team", project="empty", settings=OFF) as empty:
        assert empty.search("deploy") == []


@pytest.mark.parametrize("project", ["small", "bulk"])
def test_the_small_scope_pass_ranks_as_the_pass_over_every_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: str
) -> None:
    path = tmp_path / "memories.db"
    _fill(path)

    def ranking() -> list[tuple[int, float]]:
        with MemoryStore(path, user="team", project=project, settings=OFF) as store:
            return [(m.id, round(m.score or 0.0, 9)) for m in store.search("deploy", limit=50)]

    scoped = ranking()
    monkeypatch.setattr(candidates, "SMALL_SCOPE", 0)  # every scope takes the general passes
    assert ranking() == scoped
    assert len(scoped) == (6 if project == "small" else 50)
