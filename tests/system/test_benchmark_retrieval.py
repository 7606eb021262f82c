"""The retrieval benchmark runs (quick mode), so it cannot silently rot."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import retrieval
from benchmarks.datasets import DATASETS


def test_quick_benchmark_prints_every_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(retrieval, "CACHE", tmp_path / "cache")
    assert retrieval.main(["--quick", "--memories", "300"]) == 0
    out = capsys.readouterr().out
    assert "Search latency" in out and "p50 ms" in out
    if not (DATASETS / "locomo10.json").is_file():
        assert "skipped: locomo10.json" in out
        pytest.skip("LoCoMo dataset absent: only the skip path was checked")
    assert "overall 1-4" in out and "R@10" in out
    assert "plain R@10" in out and "held-out" in out and "tuning" in out
    assert "hit@3" in out and "MRR" in out
    assert "variants: traditional" in out  # the project's own Chinese cases
    assert "LongMemEval_S dev" in out and "each session its own, asked from a new one" in out
    if (DATASETS / "longmemeval_s_dev100.json.gz").is_file():
        assert "session hit@5 zm/plain" in out and "pack@1000 zm/plain" in out
