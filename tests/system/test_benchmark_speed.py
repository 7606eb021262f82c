"""The speed benchmark runs end to end on a tiny tier, so its code cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import speed, synthetic
from zeromem_cli.text.normalize import has_cjk


def test_speed_benchmark_prints_every_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(synthetic, "CACHE", tmp_path / "cache")
    results = speed.main(
        [
            "--quick",
            "--tiers",
            "300",
            "--runs",
            "1",
            "--queries",
            "5",
            "--adds",
            "5",
            "--import-lines",
            "200",
        ]
    )
    out = capsys.readouterr().out
    for heading in (
        "Cold process start-up",
        "In-process latency",
        "Writes",
        "Footprint",
        "gc on 300 memories",
        "importtime",
    ):
        assert heading in out
    assert results["gc"]["expired"] == 30  # every tenth memory was expired
    assert results["footprint"][0]["raw"] > 0
    assert results["import_time"]["total_ms"] > 0
    assert "zeromem_cli.cli" in results["import_time"]["ours"]
    assert results["import_time"]["search"]["ours_ms"] > 0  # a real search process
    assert set(results["cold"]) >= {"typer app, one command", "zeromem search (300)"}


def test_synthetic_memories_are_deterministic_and_mixed() -> None:
    first = list(synthetic.memories(50))
    assert first == list(synthetic.memories(50))
    assert any(has_cjk(str(m["content"])) for m in first)
    assert any(not has_cjk(str(m["content"])) for m in first)


def test_only_runs_the_tables_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(synthetic, "CACHE", tmp_path / "cache")
    results = speed.main(["--tiers", "200", "--queries", "3", "--only", "latency,footprint"])
    out = capsys.readouterr().out
    assert "In-process latency" in out and "Footprint" in out
    assert "Cold process start-up" not in out and "gc on" not in out
    assert set(results) == {"latency", "footprint", "rss"}
    with pytest.raises(SystemExit):
        speed.main(["--only", "nonsense"])
