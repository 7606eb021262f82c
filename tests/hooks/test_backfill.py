"""`zeromem ingest --format claude-code|codex|gemini PATH...`: existing transcripts (Claude Code
deletes its own after about 30 days) into memory by the same rules, with the same duplicate
check and <private> handling, --dry-run showing the plan."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from tests.conftest import stored as stored_memories
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
    assert stored_memories(cli) == []


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


# -- where a backfilled session's memories go: where its hooks would have written them -------


def _checkout(folder: Path, remote: str) -> Path:
    """A git checkout as git leaves it on disk (zeromem reads these files, never runs git)."""
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    return folder


def _moved(harness: str, folder: Path, cwd: Path) -> Path:
    """The harness's fixture transcript, recorded in ``cwd`` instead of its own directory."""
    path = transcript(harness, folder)
    text = path.read_text(encoding="utf-8").replace("/home/ada/projects/ledger", str(cwd))
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("harness", "session"),
    [
        ("claude-code", "00893aaf-19fa-41d2-8238-13269b9b3ca0"),
        ("codex", "019add38-07f3-7e93-ae71-3e0095eb0315"),
    ],
)
def test_a_transcript_goes_to_its_sessions_project_with_its_session_as_origin(
    cli: Run, tmp_path: Path, harness: str, session: str
) -> None:
    repo = _checkout(tmp_path / "ledger", "git@github.com:Acme/Ledger.git")
    path = _moved(harness, tmp_path, repo / "src")
    assert cli("ingest", "--format", harness, str(path)).exit_code == 0
    stored = as_json(cli("list", "--json", "--project", "github.com/Acme/Ledger"))
    assert stored and {(m["project"], m["session"]) for m in stored} == {
        ("github.com/Acme/Ledger", session)
    }
    assert stored_memories(cli) == []  # not the user's project-less memories
    # Backfilling it again finds them where they are: nothing twice.
    again = cli("ingest", "--format", harness, str(path), "--project", "auto")
    assert "0 added" in again.stderr, again.stderr


def test_project_and_session_options_name_where_a_backfill_goes(cli: Run, tmp_path: Path) -> None:
    repo = _checkout(tmp_path / "ledger", "https://github.com/Acme/Ledger")
    path = _moved("claude-code", tmp_path, repo)
    result = cli(
        "ingest", "--format", "claude-code", str(path), "--project", "notes", "--session", "s1"
    )
    assert result.exit_code == 0, result.stderr
    stored = as_json(cli("list", "--json", "--project", "notes"))
    assert stored and {(m["project"], m["session"]) for m in stored} == {("notes", "s1")}
    assert as_json(cli("list", "--json", "--project", "github.com/Acme/Ledger")) == []


def test_a_session_outside_any_repository_and_gemini_stay_the_users(
    cli: Run, tmp_path: Path
) -> None:
    """A directory that is no repository (or no longer exists) is no project; Gemini CLI
    records only a hash of its directory, so its chats keep the store's project."""
    outside = tmp_path / "scratch"
    outside.mkdir()
    claude = _moved("claude-code", tmp_path, outside)
    gemini = transcript("gemini", tmp_path)
    for harness, path in (("claude-code", claude), ("gemini", gemini)):
        assert cli("ingest", "--format", harness, str(path)).exit_code == 0
    stored = as_json(cli("list", "--json"))
    assert {m["project"] for m in stored} == {None}
    assert {m["session"] for m in stored} == {
        "00893aaf-19fa-41d2-8238-13269b9b3ca0",
        "3b44bc68-5e1f-4d2a-9c7e-1f2a3b4c5d6e",
    }
