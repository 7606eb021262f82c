"""A ranking regression fails CI: a quick retrieval run on the TUNING halves of the shared
datasets (and the agent-memory and dated sets in benchmarks/) must stay above recall floors.

The floors sit a little below what the ranking measured when they were set (docs/ranking.md
names the command and commit); a change that loses recall on these questions fails here, before
anyone runs the full benchmarks. Only tuning data is read. Skipped cleanly when a dataset is
absent. Databases are built in tmp_path (``benchmarks.ablation``, the same code as
``python -m benchmarks.retrieval --ablation``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import ablation
from zeromem_cli.ranking.tuning import DEFAULT_TUNING

# dataset -> (how many tuning haystacks, questions kept, {figure: floor}).
# A little below the figures measured (``pytest -s`` prints them; docs/ranking.md records them
# with the commit).
FLOORS: dict[str, tuple[int | None, int | None, dict[str, float]]] = {
    "locomo": (1, 80, {"R@10": 0.60, "pack@1000": 0.64}),
    "longmemeval": (4, None, {"R@10": 0.95, "pack@1000": 0.95}),
    "agent-memory": (None, None, {"R@10": 0.57, "pack@1000": 0.64}),
    "chinese": (None, None, {"MRR": 0.95}),
    # The hand-written dated memories (benchmarks/dated_memories): what keeps the date factor.
    "dated": (None, None, {"MRR": 0.90}),
}


@pytest.mark.slow
@pytest.mark.parametrize("dataset", list(FLOORS))
def test_recall_stays_above_its_floor(
    dataset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ablation.CACHE_ENV, str(tmp_path))
    haystacks, questions, floors = FLOORS[dataset]
    if dataset == "locomo":
        cases = ablation.locomo_cases(haystacks)
    elif dataset == "longmemeval":
        cases = ablation.longmemeval_cases(haystacks)
    else:
        cases = ablation.CASES[dataset]()
    if not cases:
        pytest.skip(f"{dataset}: dataset not found")
    figures = ablation.measure(dataset, cases[:questions], DEFAULT_TUNING)
    print(dataset, figures)
    for name, floor in floors.items():
        assert figures[name] >= floor, f"{dataset} {name} {figures[name]:.3f} < floor {floor}"
