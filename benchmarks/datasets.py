"""Loaders for the public evaluation data in ../shared/datasets (never copied into this repo).

Every loader returns None when its file is absent, so a benchmark can skip cleanly.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _shared_datasets() -> Path:
    """../shared/datasets beside the repository, or beside the nearest folder above it that has
    one (a git worktree lives deeper than the main checkout)."""
    for folder in REPO.parents:
        if (folder / "shared" / "datasets").is_dir():
            return folder / "shared" / "datasets"
    return REPO.parent / "shared" / "datasets"


DATASETS = Path(os.environ.get("ZEROMEM_DATASETS") or _shared_datasets())

CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    when: datetime  # the session's date and time, UTC

    @property
    def memory_text(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass
class Question:
    question: str
    category: int
    evidence: list[str]  # normalised dia_ids present in the conversation


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


_DIA = re.compile(r"D:?(\d+):0*(\d+)")


def _session_time(text: str) -> datetime:
    # "1:56 pm on 8 May, 2023"
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def normalise_evidence(raw: list[str], known: set[str]) -> list[str]:
    """Split "D8:6; D9:17", fix "D:11:26" and "D30:05", drop ids not in the conversation."""
    ids: list[str] = []
    for item in raw:
        for session, turn in _DIA.findall(item):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id in known and dia_id not in ids:
                ids.append(dia_id)
    return ids


def load_locomo(path: Path | None = None) -> list[Conversation] | None:
    path = path or DATASETS / "locomo10.json"
    if not path.is_file():
        return None
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = Conversation(sample_id=str(sample.get("sample_id", len(conversations))))
        data = sample["conversation"]
        number = 1
        while f"session_{number}_date_time" in data or f"session_{number}" in data:
            turns = data.get(f"session_{number}")
            stamp = data.get(f"session_{number}_date_time")
            if turns and stamp:
                when = _session_time(stamp)
                for turn in turns:
                    text = turn.get("text", "")
                    if turn.get("blip_caption"):
                        text = f"{text} [shares an image: {turn['blip_caption']}]"
                    conv.turns.append(Turn(turn["dia_id"], turn["speaker"], text, when))
            number += 1
        known = {t.dia_id for t in conv.turns}
        for qa in sample["qa"]:
            evidence = normalise_evidence(qa.get("evidence", []), known)
            conv.questions.append(Question(qa["question"], int(qa["category"]), evidence))
        conversations.append(conv)
    return conversations


@dataclass
class ChineseSet:
    memories: list[dict[str, str]]  # id, category, content
    queries: list[dict[str, object]]  # q (the query), relevant (list of memory ids)


def load_chinese(path: Path | None = None) -> ChineseSet | None:
    path = path or DATASETS / "zh_memory_eval.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return ChineseSet(memories=data["memories"], queries=data["queries"])


# -- LongMemEval_S ----------------------------------------------------------------------------


@dataclass
class HaystackTurn:
    session_id: str
    role: str
    content: str
    when: datetime  # the session's date, UTC
    has_answer: bool

    @property
    def memory_text(self) -> str:
        return f"{self.role}: {self.content}"


@dataclass
class Haystack:
    """One LongMemEval question with its own haystack of chat sessions."""

    question_id: str
    question_type: str
    question: str
    asked: datetime  # the question's date: "now" for the search
    answer_sessions: set[str]
    turns: list[HaystackTurn] = field(default_factory=list)


def _lme_time(text: str) -> datetime:
    # "2023/05/30 (Tue) 10:18"
    return datetime.strptime(re.sub(r"\s*\(\w+\)\s*", " ", text.strip()), "%Y/%m/%d %H:%M").replace(
        tzinfo=timezone.utc
    )


def load_longmemeval(path: Path | None = None) -> list[Haystack] | None:
    """The LongMemEval_S dev questions that have an answer turn (abstentions are skipped)."""
    import gzip

    path = path or DATASETS / "longmemeval_s_dev100.json.gz"
    if not path.is_file():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    haystacks = []
    for item in data:
        stack = Haystack(
            question_id=str(item["question_id"]),
            question_type=str(item["question_type"]),
            question=str(item["question"]),
            asked=_lme_time(item["question_date"]),
            answer_sessions=set(item["answer_session_ids"]),
        )
        for sid, date, session in zip(
            item["haystack_session_ids"],
            item["haystack_dates"],
            item["haystack_sessions"],
            strict=True,
        ):
            when = _lme_time(date)
            for turn in session:
                stack.turns.append(
                    HaystackTurn(
                        sid, turn["role"], turn["content"], when, bool(turn.get("has_answer"))
                    )
                )
        if any(t.has_answer for t in stack.turns):
            haystacks.append(stack)
    return haystacks


def held_out(key: str) -> bool:
    """Whether a haystack key is in the held-out half: the first byte of the SHA-1 of the key is
    odd (fixed before any held-out figure was seen). Pass a haystack, never a question: every
    question over one haystack must land on the same side, or tuning on one reads the other's
    memories. Use ``locomo_held_out``, ``longmemeval_held_out`` or ``chinese_held_out``."""
    import hashlib

    return hashlib.sha1(key.encode("utf-8")).digest()[0] % 2 == 1


# LoCoMo's ten conversations in file order: every other one is held out (five and five; a hash
# of ten ids splits them six to four). The split is by conversation, the haystack its
# questions share.
def locomo_held_out(sample_id: str, conversations: list[str] | None = None) -> bool:
    """Whether LoCoMo conversation ``sample_id`` is in the held-out half (the 2nd, 4th...
    conversation of locomo10.json; ``conversations``: the ids in file order, read when absent)."""
    order = conversations if conversations is not None else _locomo_order()
    if sample_id in order:
        return order.index(sample_id) % 2 == 1
    return held_out(sample_id)


def _locomo_order() -> list[str]:
    global _LOCOMO_ORDER
    if _LOCOMO_ORDER is None:
        path = DATASETS / "locomo10.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
        _LOCOMO_ORDER = [str(s.get("sample_id", n)) for n, s in enumerate(data)]
    return _LOCOMO_ORDER


_LOCOMO_ORDER: list[str] | None = None


def longmemeval_held_out(question_id: str) -> bool:
    """Whether a LongMemEval question is held out, split by haystack: a question and its
    abstention sibling (``<id>_abs``, the same haystack) land on the same side."""
    return held_out(question_id.removesuffix("_abs"))


def chinese_held_out(query: str) -> bool:
    """Whether a query of the Chinese set is held out. The set is one store of 40 memories (a
    single haystack), so it can only be split by query: its halves share memories."""
    return held_out(query)
