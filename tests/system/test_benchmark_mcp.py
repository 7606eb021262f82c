"""The MCP latency benchmark runs end to end on a tiny store, so its code cannot rot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from benchmarks import mcp_latency, synthetic  # noqa: E402
from zeromem_cli import MemoryStore  # noqa: E402


@pytest.mark.slow
def test_mcp_benchmark_prints_both_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(synthetic, "CACHE", tmp_path / "cache")
    results = mcp_latency.main(["--tiers", "300", "--queries", "12", "--runs", "1", "--no-chats"])
    out = capsys.readouterr().out
    assert "Tool-call round trip through the MCP client" in out
    assert "Server start-up to the first answer" in out
    (row,) = results["latency"]
    assert len(row["mcp"]["memory_search"]) == 12 and len(row["mcp"]["memory_context"]) == 6
    assert all(t > 0 for t in row["library"]["memory_search"])
    assert set(row["mcp"]["check"]) == set(mcp_latency.READS)
    assert len(row["mcp"]["memory_search, no match"]) == 12
    assert "memory_search, no match" in out
    assert "client schema check" in out
    assert results["start_up"]["first_search"] >= results["start_up"]["initialize"] > 0


@pytest.mark.slow
def test_mcp_benchmark_measures_an_installed_server_from_outside_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(synthetic, "CACHE", tmp_path / "cache")
    args = ["--tiers", "300", "--queries", "4", "--runs", "1", "--no-chats"]
    results = mcp_latency.main([*args, "--python", sys.executable])
    served = next(line for line in capsys.readouterr().out.splitlines() if "Server:" in line)
    assert served.startswith(f"Server: {sys.executable} -m zeromem_cli mcp (in ")
    folder = Path(served.split(" (in ", 1)[1].rstrip(")"))
    assert not folder.is_relative_to(mcp_latency.REPO)  # started outside the checkout
    assert results["latency"][0]["mcp"]["memory_search"]
    assert results["start_up"]["first_search"] > 0


@pytest.mark.slow
def test_mcp_benchmark_measures_the_store_of_chat_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks import chat_store

    monkeypatch.setattr(synthetic, "CACHE", tmp_path / "cache")
    if chat_store.questions(1) == []:
        pytest.skip("../shared/datasets is not beside the project")
    row = mcp_latency.chat_latency(6, tmp_path)
    assert row is not None and row["label"].endswith("chat turns") and not row["targeted"]
    assert len(row["mcp"]["memory_search"]) == 6 and len(row["mcp"]["memory_context"]) == 3
    with MemoryStore(chat_store.cached_database(), read_only=True) as store:
        assert store.count() > 50_000  # every distinct turn of both datasets
        assert store.search("Caroline LGBTQ support group")  # its sessions are read
