"""The ingest speed benchmark runs end to end on a tiny size, so its code cannot rot (#33)."""

from __future__ import annotations

import pytest

from benchmarks import ingest_speed


def test_ingest_speed_benchmark_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    rates = ingest_speed.main(["300"])
    out = capsys.readouterr().out
    assert "baseline: import lines/s CPU" in out and "target lines/s" in out and "load avg" in out
    assert out.splitlines()[1].startswith("300 | ")
    assert [count for count, _, _ in rates] == [300]
    assert all(cpu > 0 and again > 0 for _, cpu, again in rates)
