"""`zeromem ingest --format claude-code|codex|gemini PATH...`: existing transcripts (Claude Code
deletes its own after about 30 days) into memory by the same rules, with the same duplicate
check and <private> handling, --dry-run showing the plan."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from tests.hooks.conftest import FIXTURES, TRANSCRIPTS


def transcript(harness: str, folder: Path) -> Path:
    target = folder / TRANSCRIPTS[harness]
    shutil.copyfile(FIXTURES / harness / TRANSCRIPTS[harness], target)
    return target


def test_dry_run_shows_the_plan_and_writes_nothing(cli: Run, tmp_path: Path) -> None:
    result = cli(
        "ingest", "--format", "claude-code", str(transcript("claude-code", tmp_path)), "--dry-run"
    )
    assert result.exit_code == 0, result.stderr
    plan = result.stdout.splitlines()
    assert [line.split("\t")[0] for line in plan] == ["add"] * 4 + ["error"]
    assert "add\t\tfact\ttimezone\tMy timezone is CET" in plan
    # The plan refuses the secret as the write would, and shows it masked.
    assert plan[-1] == "error\t\tfact\tgithub_token\tMy github token is [secret: github_token]"
    assert "ghp_" not in result.stdout + result.stderr
    assert "ingest (dry run, nothing written)" in result.stderr
    assert as_json(cli("list", "--json")) == []


def test_backfill_stores_the_same_memories_as_the_hooks(cli: Run, tmp_path: Path) -> None:
    path = transcript("claude-code", tmp_path)
    result = cli("ingest", "--format", "claude-code", str(path))
    assert result.exit_code == 0
    # The secret is refused on the write path (one warning, never echoed), the rest stored.
    assert "ghp_" not in result.stderr and "ghp_" not in result.stdout
    assert "4 added" in result.stderr
    stored = sorted(m["content"] for m in as_json(cli("list", "--json")))
    assert stored == [
        "I prefer pytest over unittest for new tests",
        "My timezone is CET",
        "always use type hints in Python code",
        "the staging database is db-2.internal",
    ]
    again = cli("ingest", "--format", "claude-code", str(path))
    assert "0 added" in again.stderr and "4 duplicate" in again.stderr


def test_several_transcripts_of_each_harness(cli: Run, tmp_path: Path) -> None:
    paths = []
    for harness in ("codex", "gemini"):
        folder = tmp_path / harness
        folder.mkdir()
        paths.append((harness, transcript(harness, folder)))
    for harness, path in paths:
        assert cli("ingest", "--format", harness, str(path)).exit_code == 0
    stored = " ".join(m["content"] for m in as_json(cli("list", "--json")))
    for text in ("small commits", "release/2027", "Helix", "Tuesdays 14:00 UTC"):
        assert text in stored
    for private in ("40k", "salary", "90k"):
        assert private not in stored


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_a_file_that_is_not_a_transcript(cli: Run, tmp_path: Path, harness: str) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\nnot json\n')
    result = cli("ingest", "--format", harness, str(bad))
    assert result.exit_code == 2 and "line 2 is not valid JSON" in result.stderr


def test_json_output_names_the_transcript_format(cli: Run, tmp_path: Path) -> None:
    result = cli(
        "ingest", "--format", "gemini", str(transcript("gemini", tmp_path)), "--json", "--dry-run"
    )
    report = json.loads(result.stdout)
    assert (
        report["format"] == "gemini" and report["messages"] == 3 and report["mined"] == 2
    )  # the CLI's info note is none


def test_a_last_line_still_being_written_is_skipped(cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    done = {"type": "user", "message": {"role": "user", "content": "I prefer oat milk."}}
    path.write_text(json.dumps(done) + '\n{"type": "user", "message": {"role": "us')
    result = cli("ingest", "--format", "claude-code", str(path))
    assert result.exit_code == 0, result.stderr
    assert [m["content"] for m in as_json(cli("list", "--json"))] == ["I prefer oat milk"]
