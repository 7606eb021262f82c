"""The ingest rules skip a sentence that holds no letter of a script their pattern needs (#33
item 8: scanning each sentence with every rule was most of ingest's time). The skip must never
change what is extracted."""

from __future__ import annotations

import dataclasses

import pytest

from zeromem_cli.ingest.extract import extract_text
from zeromem_cli.ingest.rules import Rule, load_rules


@pytest.mark.parametrize(
    ("pattern", "scripts"),
    [
        ("我的(?P<key>.+)是(?P<value>.+)", {"cjk"}),
        (r"my\s+(?P<key>\w+)\s+is\s+(?P<value>.+)", {"latin"}),
        ("(?:记住|remember)(?P<value>.+)", set()),  # either script: no skip is safe
        ("[一-龥]+(?P<value>x)?", {"cjk"}),
        ("(?P<value>.+)", set()),
        ("(?:please )?我喜欢(?P<value>.+)", {"cjk"}),
        ("(?:a|我)+(?P<value>.+)", set()),
    ],
)
def test_what_a_pattern_needs(pattern: str, scripts: set[str]) -> None:
    rule = Rule(name="custom.t", pattern=pattern, category="note")
    assert set(rule.scripts) == scripts


_SENTENCES = [
    "Remember that the deploy window is Tuesday 10:00.",
    "记住：以后周报都用表格格式",
    "我的生日是五月三日",
    "My favourite editor is Helix",
    "I prefer 简体中文 for notes",
    "以后用 pytest 写测试",
    "Ok, looking at the logs now.",
    "我不吃香菜",
    "Forget my old phone number",
    "忘记我的旧地址",
    "My ſtandup time is 9:30",  # a long s: IGNORECASE matches it with "s"
    "I'm allergic to ＫIWI",
]


def test_skipping_changes_no_extraction() -> None:
    rules = load_rules(None)
    unskipped = []
    for rule in rules:
        copy = dataclasses.replace(rule)
        copy.__dict__["scripts"] = frozenset()  # the analysis off: every rule runs
        unskipped.append(copy)
    for sentence in _SENTENCES:
        fast = [(c.rule, c.content, c.key) for c in extract_text(sentence, rules)]
        slow = [(c.rule, c.content, c.key) for c in extract_text(sentence, unskipped)]
        assert fast == slow, sentence


def test_about_half_the_builtin_rules_are_skipped_on_english() -> None:
    enabled = [r for r in load_rules(None) if r.enabled]
    assert sum("cjk" in r.scripts for r in enabled) >= len(enabled) // 3
