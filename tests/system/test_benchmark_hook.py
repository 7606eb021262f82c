"""The hook latency benchmark runs end to end on a tiny tier, so its code cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import hook_latency, synthetic


def test_hook_latency_benchmark_prints_its_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(synthetic, "CACHE", tmp_path / "cache")
    result = hook_latency.main(["--in-place", "--tiers", "300", "--runs", "1"])
    out = capsys.readouterr().out
    assert "| zeromem hook claude-code user-prompt |" in out
    assert "| zeromem search (plain baseline) |" in out
    assert set(result["medians"]) == {
        ("floor", 0),
        ("search", 300),
        ("prompt", 300),
        ("start", 300),
    }
    assert result["injected"][300][0] > 0  # the hook injected something: it really ran
