"""No benchmark question appears in the package or the tests.

Ranking is judged on held-out sets no one here sees; a question quoted in a docstring, a test
or a data file is a sign that something was written for it. This reads every question of the
shared evaluation sets (../shared/datasets, never copied into the repository) and fails when
six consecutive words of one (a whole question when it is shorter; for Chinese, a run of eight
characters) occur in any source or data file of ``zeromem_cli`` or ``tests``.
Skipped cleanly when the datasets are absent.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from benchmarks.datasets import DATASETS

REPO = Path(__file__).resolve().parents[2]
WINDOW = 6  # consecutive words of a question that count as quoting it
SHORTEST = 4  # a shorter question is too generic to tell a quote from ordinary text
HAN_RUN = 8  # consecutive characters of a Chinese question that count as quoting it
SCANNED = (".py", ".toml", ".json", ".txt", ".md", ".jsonl")


def _questions() -> list[str]:
    found: list[str] = []
    locomo = DATASETS / "locomo10.json"
    if locomo.is_file():
        for sample in json.loads(locomo.read_text(encoding="utf-8")):
            found += [str(qa.get("question", "")) for qa in sample.get("qa", [])]
    longmemeval = DATASETS / "longmemeval_s_dev100.json.gz"
    if longmemeval.is_file():
        with gzip.open(longmemeval, "rt", encoding="utf-8") as handle:
            found += [str(item.get("question", "")) for item in json.load(handle)]
    chinese = DATASETS / "zh_memory_eval.json"
    if chinese.is_file():
        data = json.loads(chinese.read_text(encoding="utf-8"))
        found += [str(query.get("q", "")) for query in data.get("queries", [])]
    return [q for q in found if q.strip()]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _han(text: str) -> str:
    return "".join(re.findall(r"[\u3400-\u9fff]", text))


def _files() -> list[Path]:
    roots = (REPO / "zeromem_cli", REPO / "tests")
    return sorted(
        path
        for root in roots
        for path in root.rglob("*")
        if path.is_file() and path.suffix in SCANNED and path.resolve() != Path(__file__)
    )


def test_no_benchmark_question_is_quoted() -> None:
    questions = _questions()
    if not questions:
        pytest.skip("no shared dataset under ../shared/datasets")
    windows: dict[str, set[tuple[str, ...]]] = {}
    han: dict[str, str] = {}
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        words = _words(text)
        windows[str(path.relative_to(REPO))] = {
            tuple(words[i : i + n]) for n in range(SHORTEST, WINDOW + 1) for i in range(len(words))
        }
        han[str(path.relative_to(REPO))] = _han(text)
    quoted: list[str] = []
    for question in questions:
        words = _words(question)
        size = min(WINDOW, len(words))
        grams = {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}
        characters = _han(question)
        runs = {characters[i : i + HAN_RUN] for i in range(len(characters) - HAN_RUN + 1)}
        for name in windows:
            if (size >= SHORTEST and grams & windows[name]) or any(r in han[name] for r in runs):
                quoted.append(f"{name}: {question.strip()}")
    assert not quoted, "benchmark questions quoted:\n" + "\n".join(sorted(set(quoted)))
