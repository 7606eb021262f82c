"""`zeromem search` end to end: languages, ranking, filters and output formats.

CLI layer (CliRunner), moved whole from tests/core. The same behaviour through the library,
the contract a second backend must pass, is in tests/core/test_store_search.py.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli import Filters, MemoryStore


def ids(result_json: list[dict[str, object]]) -> list[object]:
    return [hit["id"] for hit in result_json]


def search_ids(cli: Run, *args: str) -> list[object]:
    return ids(as_json(cli("search", *args, "--json")))


# -- Latin scripts ------------------------------------------------------------------------------


def test_diacritics_and_case_do_not_matter(cli: Run) -> None:
    cli("add", "Meet at Café Zürich on Friday")
    cli("add", "Lunch at the canteen")
    assert search_ids(cli, "cafe zurich") == [1]
    assert search_ids(cli, "CAFÉ") == [1]


def test_stemming_finds_other_word_forms(cli: Run) -> None:
    cli("add", "Weekly meetings moved to Tuesday")
    cli("add", "Went running in the park")
    assert search_ids(cli, "meeting") == [1]
    assert search_ids(cli, "run") == [2]


def test_prefix_of_a_word_finds_it(cli: Run) -> None:
    cli("add", "The configuration lives in /etc/app.toml")
    assert search_ids(cli, "config") == [1]


def test_irregular_verb_forms_meet(cli: Run) -> None:
    cli("add", "Alice went to Berlin for the conference")
    cli("add", "Bob bought a new laptop")
    assert search_ids(cli, "where did alice go?") == [1]
    assert search_ids(cli, "what did bob buy") == [2]


def test_stop_words_do_not_drown_the_content_words(cli: Run) -> None:
    cli("add", "Weekly report goes out Fridays 17:00")
    cli("add", "What is the plan? It is what it is, and that is that.")
    assert search_ids(cli, "when is the weekly report sent?")[0] == 1
    # A question made only of stop words still searches rather than failing.
    assert cli("search", "what is it?").exit_code == 0


def test_a_memory_matching_more_of_the_query_ranks_higher(cli: Run) -> None:
    cli("add", "Python is used for the data pipeline")
    cli("add", "The data pipeline runs nightly in Python with Airflow")
    cli("add", "Airflow schedules jobs")
    assert search_ids(cli, "python airflow pipeline")[0] == 2


def test_labels_weigh_more_than_body_text(cli: Run) -> None:
    cli("add", "Remember the infra budget review and the infra roadmap, infra everywhere")
    cli("add", "Staging database is db-2.internal", "-t", "infra")
    cli("add", "Deploys go through the pipeline", "-k", "infra")
    found = search_ids(cli, "infra")
    assert set(found) == {1, 2, 3}
    assert found[0] == 3  # the key outweighs tags, tags outweigh body text


# -- Chinese, Japanese, Korean, mixed -------------------------------------------------------------


def test_a_two_character_chinese_word_finds_the_memory(cli: Run) -> None:
    cli("add", "周报发送时间改为每周五下午五点")
    cli("add", "每天上午九点发送技术日报")
    assert search_ids(cli, "周报") == [1]
    assert search_ids(cli, "周报几点发送？")[0] == 1
    assert search_ids(cli, "日报几点发")[0] == 2


def test_chinese_function_words_do_not_break_words(cli: Run) -> None:
    cli("add", "服务器证书将于明年一月十日过期，需要提前续期")
    cli("add", "已把会议室 A302 订到明天下午三点")
    assert search_ids(cli, "证书过期了吗") == [1]
    assert search_ids(cli, "会议室订在哪里") == [2]


def test_a_single_chinese_character_finds_the_memory(cli: Run) -> None:
    cli("add", "我的猫很可爱")
    cli("add", "我的狗很听话")
    assert search_ids(cli, "猫") == [1]


def test_japanese_and_korean(cli: Run) -> None:
    cli("add", "明日の会議は10時からです")
    cli("add", "내일 회의는 10시에 시작합니다")
    cli("add", "カレーライスが好き")
    assert search_ids(cli, "会議") == [1]
    assert search_ids(cli, "회의") == [2]
    assert search_ids(cli, "カレー") == [3]


def test_mixed_text_works_in_both_directions(cli: Run) -> None:
    cli("add", "推荐系统使用 Python 和 PyTorch")
    cli("add", "The recommender service uses 推荐算法 v2")
    cli("add", "Unrelated note about lunch")
    assert search_ids(cli, "PyTorch") == [1]
    assert search_ids(cli, "推荐系统用什么框架")[0] == 1
    assert search_ids(cli, "推荐系统 pytorch")[0] == 1
    assert search_ids(cli, "推荐算法")[0] == 2
    assert search_ids(cli, "recommender 推荐")[0] == 2


def test_full_width_forms_match_ascii(cli: Run) -> None:
    cli("add", "Ｐｙｔｈｏｎ　３．１２ released")
    assert search_ids(cli, "python") == [1]


# -- filters ------------------------------------------------------------------------------------


def test_category_tag_and_key_filters(cli: Run) -> None:
    cli("add", "deploy notes for alpha", "-c", "project", "-t", "infra", "-t", "alpha")
    cli("add", "deploy notes for beta", "-c", "project", "-t", "infra")
    cli("add", "deploy checklist", "-c", "task", "-k", "deploy_list")
    assert set(search_ids(cli, "deploy", "--category", "project")) == {1, 2}
    assert search_ids(cli, "deploy", "--tag", "infra", "--tag", "alpha") == [1]
    assert set(search_ids(cli, "deploy", "--tag", "infra")) == {1, 2}
    assert search_ids(cli, "deploy", "--key", "deploy_list") == [3]
    assert search_ids(cli, "deploy", "--category", "nothing") == []


def test_since_and_until_take_durations_and_dates(cli: Run, db_path: Path) -> None:
    now = datetime.now(timezone.utc)
    with MemoryStore(db_path) as store:
        store.write("budget review notes", created_at=now - timedelta(days=30))
        store.write("budget draft notes", created_at=now - timedelta(days=2))
    assert search_ids(cli, "budget", "--since", "7d") == [2]
    assert search_ids(cli, "budget", "--until", "7d") == [1]
    old_day = (now - timedelta(days=20)).date().isoformat()
    assert search_ids(cli, "budget", "--until", old_day) == [1]
    assert search_ids(cli, "budget", "--since", old_day) == [2]
    bad = cli("search", "budget", "--since", "last tuesday")
    assert bad.exit_code == 2 and bad.stderr.startswith("zeromem: error: not a date or duration")


def test_min_score_drops_weak_hits(cli: Run) -> None:
    cli("add", "alpha beta gamma")
    cli("add", "alpha")
    hits = as_json(cli("search", "alpha beta gamma", "--json"))
    assert len(hits) == 2 and hits[0]["score"] > hits[1]["score"] > 0
    threshold = (hits[0]["score"] + hits[1]["score"]) / 2
    assert search_ids(cli, "alpha beta gamma", "--min-score", str(threshold)) == [1]
    assert search_ids(cli, "alpha beta gamma", "--min-score", "1e9") == []


def test_include_expired(cli: Run, db_path: Path) -> None:
    past = datetime.now(timezone.utc) - timedelta(days=3)
    with MemoryStore(db_path, clock=lambda: past) as store:
        store.add("temporary door code 4711", ttl="1h")
    assert search_ids(cli, "door code") == []
    assert search_ids(cli, "door code", "--include-expired") == [1]


def test_scope_options_limit_search(cli: Run) -> None:
    cli("add", "alice secret recipe", "--user", "alice")
    cli("add", "bob secret recipe", "--user", "bob", "--agent", "cook")
    assert search_ids(cli, "secret recipe", "--user", "alice") == [1]
    assert search_ids(cli, "secret recipe", "--user", "bob", "--agent", "cook") == [2]
    assert search_ids(cli, "secret recipe") == []


# -- the library and the CLI agree ---------------------------------------------------------------


def test_library_search_matches_the_cli(cli: Run, db_path: Path) -> None:
    cli("add", "Weekly report goes out Fridays", "-c", "preference")
    cli("add", "Weekly standup at 9", "-c", "meeting")
    with MemoryStore(db_path) as store:
        hits = store.search("weekly report", limit=10, filters=Filters(category="preference"))
        assert [h.id for h in hits] == [1] and hits[0].score and hits[0].score > 0
        both = store.search("weekly report", limit=10)
    assert [h.id for h in both] == search_ids(cli, "weekly report")
    assert [round(h.score or 0, 6) for h in both] == [
        h["score"] for h in as_json(cli("search", "weekly report", "--json"))
    ]


# -- output formats and raw FTS -----------------------------------------------------------------


def test_every_output_format(cli: Run) -> None:
    cli("add", "alpha one")
    cli("add", "alpha two", "-c", "fact")
    assert sorted(cli("search", "alpha", "--format", "ids").stdout.split()) == ["1", "2"]
    lines = cli("search", "alpha", "--format", "jsonl").stdout.splitlines()
    assert len(lines) == 2 and all("score" in json.loads(line) for line in lines)
    plain = cli("search", "alpha", "--format", "plain").stdout.splitlines()
    assert all(len(line.split("\t")) == 4 for line in plain)
    assert json.loads(cli("search", "alpha", "--format", "json").stdout) == json.loads(
        cli("search", "alpha", "--json").stdout
    )
    table = cli("search", "alpha", "--format", "table")
    assert table.exit_code == 0 and "alpha one" in table.stdout
    assert cli("search", "zzz", "--format", "table").stderr.strip() == "no memories"


def test_raw_fts_expressions(cli: Run) -> None:
    cli("add", "alpha beta")
    cli("add", "alpha gamma")
    assert search_ids(cli, "alpha NOT gamma", "--fts") == [1]
    assert set(search_ids(cli, "alph*", "--fts")) == {1, 2}
    for bad in ("alpha AND (", '"open', "NEAR(", "nosuchcolumn: x"):
        result = cli("search", bad, "--fts")
        assert result.exit_code == 2, bad
        assert result.stderr.startswith("zeromem: error: invalid FTS5 expression"), bad


@pytest.mark.parametrize("limit", ["0", "-1", "x"])
def test_bad_limit_is_a_usage_error(cli: Run, limit: str) -> None:
    assert cli("search", "a", "--limit", limit).exit_code == 2


def test_a_tiny_store_prints_a_nonzero_score(cli: Run) -> None:
    # BM25 clamps the weight of a word held by half of a one- or two-memory store to ~1e-6.
    cli("add", "Weekly report goes out Fridays 17:00")
    line = cli("search", "weekly report").stdout.strip()
    memory_id, score, category, content = line.split("\t")
    assert float(score) > 0 and content == "Weekly report goes out Fridays 17:00"


def test_as_of_resolves_last_week_from_the_given_date(cli: Run, db_path: Path) -> None:
    with MemoryStore(db_path) as store:
        then = store.write(
            "went hiking at Mount Tam", created_at=datetime(2023, 5, 20, tzinfo=timezone.utc)
        ).memory.id
        store.write(
            "went hiking at Mount Tam again", created_at=datetime(2025, 1, 4, tzinfo=timezone.utc)
        )
    assert search_ids(cli, "hiking last week", "--as-of", "2023-05-25")[0] == then
    packed = cli("pack", "hiking last week", "--as-of", "2023-05-25", "--budget", "200")
    assert packed.exit_code == 0
    lines = [line for line in packed.stdout.splitlines() if "hiking" in line]
    assert "again" not in lines[0]  # the memory of the week before 2023-05-25 comes first


def test_a_bad_as_of_is_a_one_line_error(cli: Run) -> None:
    cli("add", "anything")
    result = cli("search", "anything", "--as-of", "someday")
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_since_a_date_before_year_1000_finds_everything_after_it(cli: Run) -> None:
    assert cli("add", "the staging database is db-2.internal").exit_code == 0
    result = cli("search", "staging", "--since", "0999-01-01", "--format", "ids")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["1"]
