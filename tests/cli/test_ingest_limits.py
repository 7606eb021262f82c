"""Ingest checks sizes before it works (#33): stdin for `ingest -`, `pack -` and `search -`
is capped as for `add -` (one byte past the cap is read, not the whole input); a file over
ingest's cap is refused before it is read; a sentence too long to be a memory is skipped
before the rules run. Ingest writes in batches and lists no near-duplicates, with the same
outcome as one write at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli.cli import ingest as ingest_command


@pytest.mark.parametrize("argv", [("add", "-"), ("pack", "-"), ("search", "-")])
def test_stdin_over_the_cap_is_refused(cli: Run, argv: tuple[str, ...]) -> None:
    cli("add", "a first memory")
    result = cli(*argv, input=b"word " * 20_000)  # 100,000 bytes > 64 KiB
    assert result.exit_code == 2 and "over the limit of 65536 bytes" in result.stderr


def test_ingest_stdin_and_files_over_the_cap_are_refused(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ingest_command, "MAX_INGEST_BYTES", 1000)
    result = cli("ingest", "-", input=b"remember that the door code is 4711\n" * 100)
    assert result.exit_code == 2 and "over the limit of 1000 bytes" in result.stderr
    big = tmp_path / "big.txt"
    big.write_text("remember that the door code is 4711\n" * 100)
    result = cli("ingest", str(big))
    assert result.exit_code == 2 and "over the limit of 1000 bytes" in result.stderr


def test_a_huge_sentence_is_skipped_and_the_rest_ingested(cli: Run, tmp_path: Path) -> None:
    text = tmp_path / "chat.txt"
    text.write_text(
        "remember that " + "very " * 20_000 + "long\nremember that the door code is 4711\n"
    )
    result = cli("ingest", str(text), "--format", "text")
    assert result.exit_code == 0, result.stderr
    assert [m["content"] for m in as_json(cli("list", "--json"))] == ["the door code is 4711"]


def test_batched_ingest_keeps_keys_duplicates_and_forgets(cli: Run, tmp_path: Path) -> None:
    words = [f"{a}{b}" for a in "bcdfghklmnprst" for b in ("ax", "el", "is", "ov", "un")]
    lines = [f"my favourite {w} is item{n}" for n, w in enumerate(words * 9)]  # 630: 2 batches
    lines += ["my favourite bax is pebbles", "remember that otters hold hands"] * 2
    lines += ["forget my favourite cel"]
    chat = tmp_path / "chat.txt"
    chat.write_text("\n".join(lines) + "\n")
    report = as_json(cli("ingest", str(chat), "--format", "text", "--json"))
    summary = report["summary"]
    assert (summary["added"], summary["forgotten"]) == (len(words) + 1, 1)
    assert summary["updated"] == len(words) * 8 + 1 and summary["duplicate"] == 2
    stored = {m["key"]: m["content"] for m in as_json(cli("list", "-n", "1000", "--json"))}
    assert stored["favourite_bax"] == "my favourite bax is pebbles"
    assert "favourite_cel" not in stored and len(stored) == len(words)  # + otters, - cel


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_10_mb_line_is_skipped_before_the_rules_and_said(
    cli: Run, tmp_path: Path, how: str
) -> None:
    """The issue's case: one 10 MB line beside a short one. The long sentence is not mined
    (no memory may be that long: it was read for 89 s before being refused), a warning names
    it, and the short line is stored."""
    text = "remember that the door code is 4711\n" + "remember that " + "x" * 10_000_000 + "\n"
    if how == "file":
        chat = tmp_path / "chat.txt"
        chat.write_text(text)
        result = cli("ingest", str(chat), "--format", "text")
        named = f"message 2 of {chat}"
    else:
        result = cli("ingest", "-", "--format", "text", input=text.encode())
        named = "message 2 of stdin"
    assert result.exit_code == 0, result.stderr
    assert f"skipped a sentence of 10,000,014 characters in {named}" in result.stderr
    assert "1 added" in result.stderr and "1 skipped" in result.stderr
    assert [m["content"] for m in as_json(cli("list", "--json"))] == ["the door code is 4711"]


def test_ingest_finds_what_add_stored_without_the_near_duplicate_search(
    cli: Run, tmp_path: Path
) -> None:
    """Ingest skips only the near-duplicate listing: a line equal to a stored memory (case and
    spacing aside) is a duplicate, a keyed line whose text is stored without a key gives that
    memory the key, and the key said again with a new value updates the same memory."""
    cli("add", "the deploy window is Tuesday 10:00")
    editor = as_json(cli("add", "My editor is  Helix", "--json"))["id"]
    chat = tmp_path / "chat.txt"
    lines = ["remember that The deploy window is tuesday 10:00", "my editor is helix"]
    lines += [f"remember that filler fact {n} is true" for n in range(600)]  # two batches
    lines += ["my editor is zed"]
    chat.write_text("\n".join(lines) + "\n")
    summary = as_json(cli("ingest", str(chat), "--format", "text", "--json"))["summary"]
    assert (summary["duplicate"], summary["added"], summary["updated"]) == (1, 600, 2)
    keyed = as_json(cli("list", "--key", "editor", "--json"))
    assert [(m["id"], m["content"]) for m in keyed] == [(editor, "my editor is zed")]
    assert len(as_json(cli("list", "-n", "1000", "--json"))) == 602
