"""`zeromem pack` through the CLI: the snippet alone on stdout within the budget, stats and
explain on stderr, the query from stdin, options and config (budget, format, inherit, the
pinned share, the context weight) and bad values as usage errors.

CLI layer (CliRunner). What pack selects and how it formats it is tested on
``MemoryStore.pack`` in tests/core/test_pack*.py; these tests were moved from there whole.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import Run, as_json
from tests.core.test_pack_context import TURNS
from tests.core.test_pack_pinned import QUERY, _instruction
from zeromem_cli.pack.tokens import count_tokens

# -- the command (from core/test_pack.py) ------------------------------------------------------


def test_cli_prints_only_the_snippet_within_budget(cli: Run) -> None:
    for text in ("Weekly report goes out Fridays 17:00", "Staging db is db-2", "Lunch at noon"):
        assert cli("add", text).exit_code == 0
    result = cli("pack", "when is the weekly report due?", "--budget", "30")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("- [general] Weekly report goes out Fridays 17:00 (")
    assert count_tokens(result.stdout) <= 30
    assert result.stderr == ""


def test_cli_stats_and_explain_go_to_stderr(cli: Run) -> None:
    cli("add", "Weekly report goes out Fridays")
    plain = cli("pack", "weekly", "--no-touch")
    verbose = cli("pack", "weekly", "--stats", "--explain", "--no-touch")
    assert verbose.stdout == plain.stdout
    assert "tokens (approx, text); 1 of 1 candidate memories included" in verbose.stderr
    assert "\tincluded" in verbose.stderr


def test_cli_reads_the_query_from_stdin(cli: Run) -> None:
    cli("add", "周报发送时间改为每周五下午五点")
    cli("add", "unrelated english memory")
    result = cli("pack", "-", "--format", "json", input="周报几点发送？")
    assert [r["content"] for r in json.loads(result.stdout)] == ["周报发送时间改为每周五下午五点"]


def test_cli_empty_store_exits_zero_with_no_output(cli: Run) -> None:
    result = cli("pack", "anything", "-v", db=False)  # the default store, not there yet
    assert result.exit_code == 0 and result.stdout == ""
    assert "0/1000 tokens" in result.stderr


def test_cli_budget_and_format_come_from_config(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    cli("add", "a fact worth packing")
    monkeypatch.setenv("ZEROMEM_PACK_FORMAT", "xml")
    monkeypatch.setenv("ZEROMEM_PACK_BUDGET", "3")
    assert cli("pack").stdout == ""  # 3 tokens: not even the <memories> block fits
    monkeypatch.setenv("ZEROMEM_PACK_BUDGET", "100")
    assert cli("pack").stdout.startswith("<memories>\n<memory id=")


def test_cli_rejects_bad_options(cli: Run) -> None:
    assert cli("pack", "x", "--budget", "0").exit_code == 2
    assert cli("pack", "x", "--format", "yaml").exit_code == 2
    assert cli("pack", "x", "--tokenizer", "gpt2").exit_code == 2


# -- a session's context and inherit (from core/test_pack_context.py) --------------------------


def test_cli_explain_shows_the_context_part_and_config_turns_it_off(
    cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    for turn in TURNS[1:3]:
        assert cli("add", turn, "--session", "s1").exit_code == 0
    explained = cli("pack", "waterfall in Oregon", "--session", "s1", "--explain", "--no-touch")
    assert explained.exit_code == 0, explained.stderr
    header = explained.stderr.splitlines()[0].split("\t")
    rows = [line.split("\t") for line in explained.stderr.splitlines()[1:3]]
    assert header[5] == "context" and [float(r[5]) for r in rows] == [0.0, 0.6]
    assert TURNS[2] in explained.stdout
    monkeypatch.setenv("ZEROMEM_PACK_WEIGHTS_CONTEXT", "0")
    off = as_json(cli("pack", "waterfall in Oregon", "--session", "s1", "--format", "json"))
    assert [r["content"] for r in off] == [TURNS[1]]


def test_cli_inherit_flag_and_config(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("add", "Alice prefers metric units", "--user", "alice", "--pin").exit_code == 0
    assert (
        cli("add", "Draft the report in metric", "--user", "alice", "--session", "s1").exit_code
        == 0
    )
    # The user's memories are read by every session of hers; an isolated session reads them
    # only with --inherit.
    shared = as_json(cli("pack", "metric", "--user", "alice", "--session", "s1", "-f", "json"))
    assert {r["content"] for r in shared} == {
        "Alice prefers metric units",
        "Draft the report in metric",
    }
    scope = ("--user", "alice", "--session", "s1", "--isolate", "--format", "json")
    plain = as_json(cli("pack", "metric", *scope))
    inherited = as_json(cli("pack", "metric", *scope, "--inherit"))
    assert [r["content"] for r in plain] == ["Draft the report in metric"]
    assert [r["content"] for r in inherited][0] == "Alice prefers metric units"
    monkeypatch.setenv("ZEROMEM_PACK_INHERIT", "true")
    assert as_json(cli("pack", "metric", *scope)) == inherited
    assert as_json(cli("pack", "metric", *scope, "--no-inherit")) == plain


# -- the pinned share (from core/test_pack_pinned.py) ------------------------------------------


def test_cli_share_comes_from_the_option_or_config(
    cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(30):
        assert cli("add", _instruction(number), "--pin").exit_code == 0
    cli("add", "The quokka habitat survey covers Rottnest Island")
    assert "quokka" in cli("pack", QUERY, "--budget", "200").stdout
    monkeypatch.setenv("ZEROMEM_PACK_PINNED_SHARE", "1")
    assert "quokka" not in cli("pack", QUERY, "--budget", "200").stdout
    assert "quokka" in cli("pack", QUERY, "--budget", "200", "--pinned-share", "0.5").stdout
    refused = cli("pack", QUERY, "--pinned-share", "1.5")
    assert refused.exit_code == 2 and "--pinned-share" in refused.stderr
    monkeypatch.setenv("ZEROMEM_PACK_PINNED_SHARE", "2")
    bad = cli("pack", QUERY)
    assert bad.exit_code == 1 and "pack.pinned_share" in bad.stderr  # a config error


# -- headers and pinned marks (issue 15, part B) -----------------------------------------------


def test_markdown_header_that_is_a_heading_is_not_doubled(cli: Run) -> None:
    cli("add", "the weekly report goes out on Fridays")
    given = cli("pack", "weekly report", "--format", "markdown", "--header", "## Memories")
    assert given.exit_code == 0, given.stderr
    assert given.stdout.splitlines()[0] == "## Memories"
    level_one = cli("pack", "weekly report", "--format", "markdown", "--header", "# Context")
    assert level_one.stdout.splitlines()[0] == "# Context"
    plain = cli("pack", "weekly report", "--format", "markdown", "--header", "Memories")
    assert plain.stdout.splitlines()[0] == "## Memories"
    hashtag = cli("pack", "weekly report", "--format", "markdown", "--header", "#notes")
    assert hashtag.stdout.splitlines()[0] == "## #notes"  # not a heading: one is made


def test_a_header_longer_than_the_budget_warns_and_packs_without_it(cli: Run) -> None:
    cli("add", "the weekly report goes out on Fridays")
    header = "These are the memories you should take into account. " * 20
    result = cli("pack", "weekly report", "--budget", "60", "--header", header)
    assert result.exit_code == 0
    assert "weekly report goes out on Fridays" in result.stdout
    assert "These are the memories" not in result.stdout
    [warning] = result.stderr.splitlines()
    assert warning.startswith("zeromem: warning: pack: the header takes ")
    assert warning.endswith("more than the budget of 60: packed without it")
    fits = cli("pack", "weekly report", "--budget", "60", "--header", "Memories:")
    assert fits.stderr == "" and fits.stdout.startswith("Memories:\n")


def test_text_format_marks_pinned_memories(cli: Run) -> None:
    cli("add", "answer in English", "--pin", "-c", "instruction")
    cli("add", "the weekly report goes out on Fridays")
    lines = cli("pack", "--budget", "200").stdout.splitlines()
    assert lines[0].startswith("- [instruction, pinned] answer in English (")
    assert lines[1].startswith("- [general] the weekly report goes out on Fridays (")
