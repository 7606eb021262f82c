"""The pack benchmark runs (quick mode) so it cannot rot; skipped without the datasets."""

from __future__ import annotations

import pytest

from benchmarks.datasets import load_locomo


@pytest.mark.slow
def test_pack_benchmark_quick_mode_runs(capsys: pytest.CaptureFixture[str]) -> None:
    if load_locomo() is None:
        pytest.skip("LoCoMo dataset not available")
    from benchmarks.pack_recall import main

    out = main(["--quick"])
    assert all(0.0 <= r <= 1.0 for r in out["recall"]["pack"])
    assert out["recall"]["pack"][-1] > out["recall"]["recency"][-1]
    if "margin" in out:  # approx never counts fewer than the exact tokenizers
        assert all(under == 0 for (_, _, _, under) in out["margin"].values())
    assert all(0.0 <= r <= 1.0 for r in out["recall"]["plain"])
    printed = capsys.readouterr().out
    assert "evidence recall" in printed and "per category" in printed


@pytest.mark.slow
def test_pack_digest_is_the_same_twice_and_within_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks.pack_digest import BUDGETS, FORMATS, main

    assert main(["--count", "10000", "--queries", "3"]) == 0
    first = capsys.readouterr().out.splitlines()
    assert main(["--count", "10000", "--queries", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == first
    assert len(first) == 4 * len(BUDGETS) * len(FORMATS)
    for line in first:
        _, budget, _, ids, tokens, _ = line.split(" | ")
        assert 0 < int(tokens) <= int(budget) and ids
