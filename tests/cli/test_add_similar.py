"""`zeromem add` and near-duplicates: reported on stderr (the memory still added), `--merge`
into the nearest, never across scopes, skipped with `--allow-duplicate`.

CLI layer (CliRunner), moved whole from tests/core/test_similarity.py (which keeps the
threshold and the library's behaviour).
"""

from __future__ import annotations

from tests.conftest import Run, as_json


def test_add_reports_a_near_duplicate_on_stderr_and_still_adds(cli: Run) -> None:
    cli("add", "The staging database is db-2.internal")
    cli("add", "Lunch with Sam on Tuesday")
    result = cli("add", "Staging database: db-2.internal")
    assert result.exit_code == 0 and result.stdout == "3\n"
    assert "similar to #1" in result.stderr
    assert "#2" not in result.stderr


def test_add_reports_chinese_near_duplicates(cli: Run) -> None:
    cli("add", "周报每周五下午五点发送")
    result = cli("add", "周报在每周五下午五点发出")
    assert result.stdout == "2\n" and "similar to #1" in result.stderr
    distinct = cli("add", "月报每月一号上午九点提交")
    assert distinct.stdout == "3\n" and "similar" not in distinct.stderr


def test_distinct_facts_are_not_reported(cli: Run) -> None:
    cli("add", "User prefers dark mode in the editor")
    result = cli("add", "User prefers tabs over spaces")
    assert result.exit_code == 0 and result.stderr == ""


def test_merge_updates_the_nearest_and_keeps_the_old_text_in_history(cli: Run) -> None:
    cli("add", "Deploys happen every Tuesday morning", "-c", "ops", "-k", "deploys")
    cli("add", "Bob is allergic to peanuts")
    merged = cli("add", "Deploys happen on Tuesday mornings", "--merge", "-t", "infra")
    assert merged.exit_code == 0 and merged.stdout == "1\n"
    assert "merged into #1" in merged.stderr
    record = as_json(cli("show", "1", "--json"))
    assert record["content"] == "Deploys happen on Tuesday mornings"
    assert (record["key"], record["category"], record["tags"]) == ("deploys", "ops", ["infra"])
    versions = as_json(cli("history", "1", "--json"))
    assert [v["content"] for v in versions] == [
        "Deploys happen every Tuesday morning",
        "Deploys happen on Tuesday mornings",
    ]
    assert versions[0]["change"] == "merge"
    assert len(as_json(cli("list", "--json"))) == 2  # nothing deleted, nothing added


def test_merge_without_a_similar_memory_adds(cli: Run) -> None:
    cli("add", "Bob is allergic to peanuts")
    result = cli("add", "The API timeout is 30 seconds", "--merge")
    assert result.stdout == "2\n" and result.stderr == ""


def test_similarity_never_crosses_scopes(cli: Run) -> None:
    cli("add", "Bob is allergic to peanuts", "--user", "alice")
    result = cli("add", "Bob has a peanut allergy", "--user", "carol", "--merge")
    assert result.stdout == "2\n" and result.stderr == ""


def test_allow_duplicate_skips_the_similarity_check(cli: Run) -> None:
    cli("add", "Bob is allergic to peanuts")
    result = cli("add", "Bob has a peanut allergy", "--allow-duplicate", "--merge")
    assert result.stdout == "2\n" and result.stderr == ""
