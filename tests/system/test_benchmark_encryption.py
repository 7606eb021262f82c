"""The encryption benchmark runs end to end on a tiny store, so its code cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import synthetic

pytestmark = pytest.mark.slow  # see docs/development.md

pytest.importorskip("sqlcipher3")


def test_encryption_benchmark_prints_plain_and_encrypted_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks import encryption

    monkeypatch.setattr(synthetic, "CACHE", tmp_path / "cache")
    result = encryption.main(["--count", "300", "--runs", "1", "--queries", "3"])
    out = capsys.readouterr().out
    for row in ("cold search wall", "cold add CPU", "in-process pack p50"):
        assert row in out
    runs = {"search plain", "add plain", "search encrypted", "add encrypted"}
    assert set(result["cold"]) == set(result["cold_cpu"]) == runs
    assert all(value > 0 for value in result["in_process"].values())
