"""The side-by-side benchmark runs (quick mode) on the session's server, so it cannot rot; on
its LoCoMo slice PostgreSQL's recall stays within 0.02 of SQLite's."""

from __future__ import annotations

import pytest

from benchmarks import postgres
from benchmarks.datasets import DATASETS
from tests import pgcluster

pytestmark = pytest.mark.slow  # see docs/development.md


def test_quick_benchmark_prints_both_backends(
    cluster: pgcluster.Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    results = postgres.main(["--quick", "--url", cluster.url()])
    out = capsys.readouterr().out
    assert "search p50 ms" in out and "16 clients search/s" in out
    (figures,) = results["speed"].values()  # --quick: one small tier
    assert set(figures) == {"sqlite", "postgresql"}
    assert "search CPU ms/query" in out and "load" in out
    if not (DATASETS / "locomo10.json").is_file():
        pytest.skip("LoCoMo dataset absent: only the speed part was checked")
    quality = results["quality"]
    for metric in ("recall@5", "recall@10", "pack@1000"):
        gap = quality["postgresql"][metric] - quality["sqlite"][metric]
        assert abs(gap) <= postgres.TOLERANCE, (metric, gap)
