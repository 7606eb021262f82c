"""`zeromem ingest` end to end: every input format, every rule family, config rules, dry runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli.ingest import builtin_rules, extract_text


def memories(cli: Run, *extra: str) -> list[dict]:
    return as_json(cli("list", "--json", *extra))


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


# -- input formats ------------------------------------------------------------------------------


def test_text_from_stdin_stores_the_cleaned_chinese_instruction(cli: Run) -> None:
    result = cli("ingest", "-", input="记住：以后周报都用表格格式\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("ingest: 1 message, 1 added, 0 updated")
    [memory] = memories(cli)
    assert "周报都用表格格式" in memory["content"] and "记住" not in memory["content"]
    assert memory["category"] == "instruction"
    assert memory["meta"]["source"] == "ingest" and memory["meta"]["rule"].startswith("zh.")


def test_jsonl_file_with_roles(cli: Run, tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    lines = [
        {"role": "user", "content": "My timezone is CET."},
        {"role": "assistant", "content": "Noted. I prefer short answers myself."},
        {"role": "user", "content": "Thanks, that's great!"},
    ]
    chat.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = cli("ingest", str(chat))
    assert result.exit_code == 0, result.stderr
    assert "3 messages, 2 mined, 1 added" in result.stderr
    [memory] = memories(cli)
    assert (memory["key"], memory["category"]) == ("timezone", "fact")
    assert memory["content"] == "My timezone is CET"


def test_openai_message_array_and_content_parts(cli: Run) -> None:
    payload = {
        "model": "x",
        "messages": [
            {"role": "system", "content": "Always answer in French."},
            {"role": "user", "content": [{"type": "text", "text": "我的生日是5月3日"}]},
        ],
    }
    result = cli("ingest", "--format", "json", input=json.dumps(payload, ensure_ascii=False))
    assert result.exit_code == 0, result.stderr
    [memory] = memories(cli)
    assert (memory["key"], memory["content"]) == ("生日", "我的生日是5月3日")


def test_llm_logs_records_prompt_is_user_and_response_assistant(cli: Run) -> None:
    records = [
        {"id": "01", "prompt": "From now on, answer me in Spanish.", "response": "Claro."},
        {"id": "02", "prompt": "what time is it?", "response": "TODO: check the clock API"},
    ]
    auto = cli("ingest", "--dry-run", "--json", input=json.dumps(records))
    assert as_json(auto)["format"] == "llm"
    result = cli(
        "ingest", "--format", "llm", "--roles", "user,assistant", input=json.dumps(records)
    )
    assert result.exit_code == 0, result.stderr
    stored = {m["category"]: m["content"] for m in memories(cli)}
    assert stored == {"instruction": "answer me in Spanish", "task": "check the clock API"}


def test_llm_format_rejects_plain_chat_messages(cli: Run) -> None:
    result = cli("ingest", "--format", "llm", input='[{"role": "user", "content": "hi"}]')
    assert result.exit_code == 2
    assert "not an llm log record" in result.stderr and "Traceback" not in result.stderr


def test_kv_tool_result_fields_become_keyed_facts(cli: Run) -> None:
    tool = {"name": "zeromem", "stars": 42, "owner": {"login": "acme"}, "license": None}
    first = cli("ingest", "--kv", "--key-prefix", "repo.", input=json.dumps(tool))
    assert first.exit_code == 0, first.stderr
    assert "1 record, 3 added" in first.stderr and "1 skipped" in first.stderr
    tool["stars"] = 43
    second = cli("ingest", "--kv", "--key-prefix", "repo.", input=json.dumps(tool))
    assert "0 added, 1 updated, 2 duplicate" in second.stderr
    by_key = {m["key"]: m for m in memories(cli)}
    assert by_key["repo_stars"]["content"] == "stars: 43"
    assert by_key["repo_owner_login"]["content"] == "owner.login: acme"
    assert {m["category"] for m in by_key.values()} == {"fact"}


def test_json_that_is_not_chat_asks_for_kv(cli: Run) -> None:
    result = cli("ingest", input='{"status": "ok"}')
    assert result.exit_code == 2
    assert "--kv" in result.stderr


def test_broken_jsonl_names_the_line(cli: Run) -> None:
    result = cli("ingest", "--format", "jsonl", input='{"role": "user", "content": "x"}\n{oops\n')
    assert result.exit_code == 2 and "line 2" in result.stderr


def test_text_role_prefixes_and_missing_file(cli: Run, tmp_path: Path) -> None:
    result = cli("ingest", input="assistant: I hate tabs\nuser: I hate tabs\n")
    assert "2 messages, 1 mined, 1 added" in result.stderr
    missing = cli("ingest", str(tmp_path / "nope.txt"))
    assert missing.exit_code == 2 and "cannot read" in missing.stderr


# -- rule families ------------------------------------------------------------------------------

STORED = [
    ("Please remember I'm allergic to peanuts.", "fact", "allergic to peanuts", None),
    ("请帮我记住我的车牌号是沪A12345。", "fact", "沪A12345", "车牌号"),
    ("Never use emojis in your replies.", "instruction", "Never use emojis", None),
    ("以后回答我都用中文。", "instruction", "回答我都用中文", None),
    ("I can't stand tabs for indentation.", "preference", "tabs for indentation", None),
    ("我不喜欢太长的会议。", "preference", "不喜欢太长的会议", None),
    (
        "My favorite programming language is Rust.",
        "preference",
        "Rust",
        "favorite_programming_language",
    ),
    ("I live in Rotterdam.", "fact", "Rotterdam", "location"),
    ("我的邮箱是li.wei@example.cn", "fact", "li.wei@example.cn", "邮箱"),
    ("Remind me to renew my passport next month.", "task", "renew my passport", None),
    ("别忘了周五之前交报销单。", "task", "周五之前交报销单", None),
]


@pytest.mark.parametrize(("text", "category", "fragment", "key"), STORED)
def test_each_rule_family_stores(
    cli: Run, text: str, category: str, fragment: str, key: str | None
) -> None:
    result = cli("ingest", input=text)
    assert result.exit_code == 0, result.stderr
    [memory] = memories(cli)
    assert memory["category"] == category
    assert fragment in memory["content"]
    assert memory["key"] == key


def test_tasks_expire_and_others_do_not(cli: Run) -> None:
    cli("ingest", input="TODO: migrate the cron jobs\nI prefer dark mode\n")
    expiry = {m["category"]: m["expires_at"] for m in memories(cli)}
    assert expiry["task"] is not None and expiry["preference"] is None


CHATTER = [
    "Do you remember what I said about the deadline?",
    "你记得我上次说的那个餐厅吗？",
    "Suppose I prefer tabs, how would you configure the linter?",
    "假如我的生日是二月二十九号，程序会不会出错？",
    "My point is that the tests are flaky.",
    "我的意思是先别上线。",
    "He prefers to work at night.",
    "我喜欢这个方案，就这么办。",
    "I like that idea, let's do it.",
    "My build is failing again.",
    "Forget it, it doesn't matter.",
    "忘了吧，不重要。",
    "以后再说吧。",
    'The ticket says "remember that the password is hunter2" which is odd.',
]


def test_chatter_is_not_stored(cli: Run) -> None:
    result = cli("ingest", "--json", input="\n".join(CHATTER))
    report = as_json(result)
    assert report["items"] == []
    assert report["summary"]["skipped"] == len(CHATTER)
    assert memories(cli) == []


def test_key_upsert_reports_updated(cli: Run) -> None:
    cli("ingest", input="My timezone is CET")
    result = cli("ingest", input="My timezone is PST")
    assert "0 added, 1 updated" in result.stderr
    [memory] = memories(cli)
    assert memory["content"] == "My timezone is PST"


def test_exact_duplicate_is_reported(cli: Run) -> None:
    cli("ingest", input="I prefer dark mode")
    result = cli("ingest", input="I prefer dark mode")
    assert "0 added, 0 updated, 1 duplicate" in result.stderr


def test_forget_soft_deletes_only_the_clear_match(cli: Run) -> None:
    cli("ingest", input="Remember that I'm vegetarian\nI live in Rotterdam\n我对花生过敏\n")
    assert len(memories(cli)) == 3
    planned = cli("ingest", "--dry-run", input="Forget that I'm vegetarian")
    assert planned.stdout.startswith("forget\t1\t")
    assert len(memories(cli)) == 3  # the dry run forgot nothing
    done = cli("ingest", input="Forget that I'm vegetarian\n忘记我对花生过敏这件事吧\n")
    assert "2 forgotten" in done.stderr
    assert [m["content"] for m in memories(cli)] == ["I live in Rotterdam"]
    assert cli("restore", "1").exit_code == 0  # soft delete


def test_vague_forget_forgets_nothing(cli: Run) -> None:
    cli(
        "ingest", input="I live in Rotterdam\nRemember that my flight to Lisbon leaves on June 12\n"
    )
    result = cli("ingest", "--json", input="Forget about the Lisbon trip")
    report = as_json(result)
    assert report["items"][0]["action"] == "not-found"
    assert report["summary"]["forgotten"] == 0
    assert len(memories(cli)) == 2


def test_forget_by_key(cli: Run) -> None:
    cli("ingest", input="My phone number is +31 6 1234 5678")
    result = cli("ingest", input="Please forget my old phone number")
    assert "1 forgotten" in result.stderr
    assert memories(cli) == []


# -- dry run, json, scope -----------------------------------------------------------------------


def test_dry_run_writes_nothing_and_prints_the_plan(cli: Run, db_path: Path) -> None:
    cli("ingest", input="My timezone is CET")
    text = "My timezone is PST\nI prefer dark mode\nI prefer dark mode\nhow are you?\n"
    result = cli("ingest", "--dry-run", input=text)
    assert result.exit_code == 0, result.stderr
    lines = [line.split("\t") for line in result.stdout.splitlines()]
    assert lines == [
        ["update", "1", "fact", "timezone", "My timezone is PST"],
        ["add", "", "preference", "", "I prefer dark mode"],
        ["duplicate", "", "preference", "", "I prefer dark mode"],
    ]
    assert result.stderr.startswith("ingest (dry run, nothing written): 4 messages, 1 added")
    [memory] = memories(cli)
    assert memory["content"] == "My timezone is CET"


def test_json_details(cli: Run) -> None:
    report = as_json(cli("ingest", "--json", "-q", input="我的生日是5月3日\n你好\n"))
    assert report["dry_run"] is False and report["format"] == "text"
    assert report["summary"] == {
        "added": 1,
        "updated": 0,
        "duplicate": 0,
        "forgotten": 0,
        "skipped": 1,
    }
    [item] = report["items"]
    assert item["action"] == "added" and item["key"] == "生日" and item["ids"] == [1]
    assert item["rule"] == "zh.my_x_is" and item["family"] == "fact"


def test_scope_tags_and_category_override(cli: Run) -> None:
    result = cli(
        "ingest", "--user", "alice", "-t", "chat", "-c", "profile", input="My name is Alice"
    )
    assert result.exit_code == 0, result.stderr
    assert memories(cli) == []
    [memory] = memories(cli, "--user", "alice")
    assert (memory["user"], memory["tags"], memory["category"]) == ("alice", ["chat"], "profile")


# -- config rules -------------------------------------------------------------------------------


def test_config_rule_adds_a_custom_rule(cli: Run, isolated_home: Path) -> None:
    write_config(
        isolated_home,
        """
[[ingest.rules]]
name = "ticket"
pattern = '^ticket (?P<id>[A-Z]+-\\d+) is (?P<content>.+)$'
category = "task"
key = "ticket_{id}"
ttl = "30d"
importance = 8
""",
    )
    result = cli("ingest", input="ticket ABC-12 is waiting for review")
    assert result.exit_code == 0, result.stderr
    [memory] = memories(cli)
    assert memory["content"] == "waiting for review"
    assert (memory["key"], memory["category"], memory["importance"]) == ("ticket_abc_12", "task", 8)
    assert memory["expires_at"] is not None
    listed = as_json(cli("ingest", "--rules", "--json"))
    assert listed[0]["name"] == "ticket" and listed[0]["source"] == "config"


def test_config_can_disable_and_override_builtins(cli: Run, isolated_home: Path) -> None:
    write_config(
        isolated_home,
        """
[[ingest.rules]]
name = "en.like"
enabled = false

[[ingest.rules]]
name = "en.my_x_is"
category = "profile"
ttl = "7d"
""",
    )
    cli("ingest", input="I prefer dark mode\nMy timezone is CET\n")
    [memory] = memories(cli)
    assert (memory["key"], memory["category"]) == ("timezone", "profile")
    assert memory["expires_at"] is not None
    names = [r["name"] for r in as_json(cli("ingest", "--rules", "--json"))]
    assert "en.like" not in names and "en.my_x_is" in names
    every = as_json(cli("ingest", "--rules", "--all", "--json"))
    assert any(r["name"] == "en.like" and r["enabled"] is False for r in every)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("name = 'bad'\npattern = '(unclosed'\ncategory = 'x'", "not a valid regular expression"),
        ("name = 'bad'\npattern = 'x(?P<a>y)'\ncategory = 'x'\nkey = '{b}'", "{b}"),
        ("name = 'bad'\npattern = 'x'\ncategory = 'x'\nimportance = 11", "importance"),
        ("name = 'bad'\npattern = 'x'\ncategory = 'x'\nttl = 'soon'", "ttl"),
        ("name = 'bad'\npattern = 'x'\ncategory = 'x'\ncolour = 'red'", "unknown field 'colour'"),
        ("name = 'bad'\ncategory = 'x'", "pattern is required"),
        ("name = 'bad'\npattern = '.*'\ncategory = 'x'", "matches empty text"),
    ],
)
def test_invalid_config_rule_names_the_rule(
    cli: Run, isolated_home: Path, rule: str, message: str
) -> None:
    write_config(isolated_home, f"[[ingest.rules]]\n{rule}\n")
    result = cli("ingest", input="I prefer dark mode")
    assert result.exit_code == 1
    assert result.stderr.startswith("zeromem: error: config ")
    assert "ingest rule 'bad'" in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr


def test_builtins_can_be_switched_off_entirely(cli: Run, isolated_home: Path) -> None:
    write_config(isolated_home, "[ingest]\nbuiltins = false\n")
    result = cli("ingest", input="I prefer dark mode")
    assert "0 added" in result.stderr
    assert as_json(cli("ingest", "--rules", "--json")) == []


# -- library ------------------------------------------------------------------------------------


def test_extract_text_keeps_the_users_language() -> None:
    [found] = extract_text("btw my timezone is CET, thanks", builtin_rules())
    assert (found.content, found.key) == ("my timezone is CET", "timezone")
    [zh] = extract_text("对了，我的生日是5月3日哦", builtin_rules())
    assert (zh.content, zh.key) == ("我的生日是5月3日", "生日")


def test_evaluation_floors() -> None:
    """The labelled set: precision >= 0.95 and recall >= 0.85 overall and per language."""
    from benchmarks.ingest_eval import evaluate

    tallies = evaluate()["tallies"]
    for group in ("all", "lang:en", "lang:zh"):
        assert tallies[group].precision >= 0.95, group
        assert tallies[group].recall >= 0.85, group
    assert tallies["all"].expected >= 100 and evaluate()["messages"]["all"] >= 150


def test_project_facts_floors() -> None:
    """Plain facts of how a project works (benchmarks/project_facts_eval.jsonl, coding-session
    statements in English and Chinese beside coding chatter): stored with precision >= 0.95
    and recall >= 0.85 overall and per language."""
    from benchmarks.ingest_eval import evaluate, load

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "project_facts_eval.jsonl"
    tallies = evaluate(load(path))["tallies"]
    for group in ("all", "lang:en", "lang:zh"):
        assert tallies[group].precision >= 0.95, group
        assert tallies[group].recall >= 0.85, group


def test_plain_project_facts_are_captured_and_chatter_is_not() -> None:
    rules = builtin_rules()
    [pnpm] = extract_text("FYI we use pnpm in this repo, never npm", rules)
    assert pnpm.content == "we use pnpm in this repo, never npm"
    [migrations] = extract_text("Note: the database migrations live in db/migrations", rules)
    assert migrations.content == "the database migrations live in db/migrations"
    [main] = extract_text("Never push to main.", rules)
    assert main.category == "instruction"
    [deploy] = extract_text("我们的部署走 make deploy。", rules)
    assert deploy.content == "我们的部署走 make deploy"
    for chatter in ("Should we use pnpm?", "We run the tests tomorrow.", "帮我看看 db/migrations"):
        assert extract_text(chatter, rules) == [], chatter
