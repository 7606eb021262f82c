"""What kind of answer a question asks for, and whether a memory's text holds one.

"How long have I had my cat?" is answered by "I've had Luna for about 6 months", which shares
one word with it; "what day of the week is my class?" by "my class is on Thursday"; "when did
you go?" by "I went yesterday"; "why?" by "because...". BM25 sees only the shared words, so a
turn about the same topic without the answer ranks above it. The question's own form says
what the answer looks like (a duration, a date, a reason, a weekday, a clock time), and that
is cheap to look for in a candidate: ``search`` ranks the candidates holding one up
(``Ranking.answer``). Only forms whose answers have a shape a pattern can see are listed:
"how many" is not (numbers are everywhere in long answers), nor "where" (a place by its name
was measured: no gain). Each kind is recognised in English and in Chinese (``_ZH_KINDS``:
多久 a duration, 什么时候 a time, 为什么 a reason, 星期几 a weekday, 几点 a clock time).
"""

from __future__ import annotations

import re
from functools import cache

from zeromem_cli.text.lexicon import NUMBER_WORDS, WEEKDAYS

_DAYS = "|".join(WEEKDAYS)
# "May" is left out: a month only when it is not the common verb.
_MONTHS = "january|february|march|april|june|july|august|september|october|november|december"
_COUNT = (
    r"(?:\d+(?:[.,]\d+)?\+?|"
    + "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
    + ")"
)

# Kind -> (the questions asking for it, the texts holding one, strings every such text holds:
# a text holding none is not matched at all, a few substring tests where the pattern would
# try every position). The question patterns are
# small; the text patterns compile only when a question asks (``_holds``) and are matched
# against the lowercased text, case-sensitively and each alternative opening with ``(?<!\w)``
# rather than ``\b``: several times faster on a long text, and pack tests hundreds.
_KINDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # "how long have I had...", "for how long"
    "duration": (
        r"\bhow long\b",
        # "6 months", "two years", "a few weeks", "half a year", "since 2019", "since June"
        rf"(?<!\w)(?:{_COUNT}|half an?)\s+(?:more\s+|full\s+|whole\s+)?"
        r"(?:second|minute|hour|day|night|week|weekend|month|year|decade)s?\b"
        rf"|(?<!\w)since\s+(?:(?:19|20)\d\d|last|{_MONTHS})\b",
        ("second", "minute", "hour", "day", "night", "week", "month", "year", "decade", "since"),
    ),
    # "When did we...", "in what year", "which month", "how long ago"
    "date": (
        r"^\W*(?:and\s+|so\s+)?when\b|\b(?:what|which)\s+(?:year|month|date)\b|\bhow long ago\b",
        # "yesterday", "last weekend", "two weeks ago", "on Friday", "in June", "2022"
        r"(?<!\w)(?:yesterday|today|tonight|tomorrow|(?:last|next|this)\s+(?:week|month|year|"
        rf"weekend|night|morning|summer|fall|autumn|winter|spring|{_DAYS})|"
        rf"{_COUNT}\s+(?:day|week|month|year)s?\s+ago|{_DAYS}|{_MONTHS}|(?:19|20)\d\d)\b",
        (
            "day",
            "night",
            "tomorrow",
            "ago",
            "week",
            "month",
            "year",
            "morning",
            "summer",
            "fall",
            "autumn",
            "winter",
            "spring",
            *_MONTHS.split("|"),
            "19",
            "20",
        ),
    ),
    # "Why did he...?": a reason given
    "reason": (
        r"^\W*why\b",
        r"(?<!\w)(?:because|since|so that|'cause|the reason|helps? me|made me|makes me|inspir\w*|"
        r"motivat\w*)",
        ("because", "since", "so that", "cause", "reason", "me", "inspir", "motivat"),
    ),
    # "what day of the week", "which days"
    "weekday": (r"\b(?:what|which)\s+days?\b", rf"(?<!\w)(?:{_DAYS})s?\b", ("day",)),
    # "what time", "at what hour"
    "clock time": (
        r"\bwhat time\b|\bat what hour\b",
        r"(?<!\w)(?:\d{1,2}(?::\d\d)?\s*(?:a\.?m\b\.?|p\.?m\b\.?)|\d{1,2}:\d\d\b|"
        r"o'clock\b|noon\b|midnight\b)",
        ("am", "pm", "a.m", "p.m", ":", "o'clock", "noon", "midnight"),
    ),
}
# The same kinds asked in Chinese: (the questions, the texts, their anchor strings). Without
# ``(?<!\w)``: CJK characters are word characters, and Chinese writes no spaces.
_CN = "[0-9０-９一二两三四五六七八九十百几半]+"
_ZH_KINDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "duration": (
        r"多久|多长时间|多少年|多少天|几年了|几个月",
        rf"{_CN}\s*(?:个)?\s*(?:秒钟?|分钟|小时|天|晚|周|星期|礼拜|月|年)|自从|从.{{1,8}}开始",
        ("秒", "分钟", "小时", "天", "晚", "周", "星期", "礼拜", "月", "年", "自从", "开始"),
    ),
    "date": (
        r"什么时候|何时|哪天|哪一天|哪年|哪一年|几月|几号",
        r"[昨今明前后]天|[上下这本]个?(?:周|星期|礼拜|月)|[去今明前]年|周末"
        rf"|(?:星期|礼拜|周)[一二三四五六日天]|{_CN}\s*(?:月|号|日|年)",
        ("天", "周", "星期", "礼拜", "月", "年", "号", "日"),
    ),
    "reason": (
        r"为什么|为何|为啥",
        r"因为|由于|所以|为了|原因",
        ("因为", "由于", "所以", "为了", "原因"),
    ),
    "weekday": (
        r"星期几|周几|礼拜几|哪个星期|哪几天",
        r"(?:星期|礼拜|周)[一二三四五六日天]",
        ("星期", "礼拜", "周"),
    ),
    "clock time": (
        r"几点|什么时间",
        rf"{_CN}\s*点(?:半|钟|[0-9０-９一二三四五六七八九十]+分?)?|\d{{1,2}}[:：]\d\d|中午|午夜|凌晨",
        ("点", ":", "：", "中午", "午夜", "凌晨"),
    ),
}
# A question asking for one of the kinds holds one of these words (most questions skip the
# patterns altogether).
_CUES = ("how", "what", "which", "when", "why", "多", "什么", "何", "哪", "几", "为")


@cache
def _asks(kind: str) -> re.Pattern[str]:
    return re.compile(f"{_KINDS[kind][0]}|{_ZH_KINDS[kind][0]}", re.IGNORECASE)


@cache
def _holds(kinds: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        "|".join(f"(?:{table[kind][1]})" for kind in kinds for table in (_KINDS, _ZH_KINDS))
    )


def answer_kinds(question: str) -> tuple[str, ...]:
    """The kinds of answer ``question`` asks for ("duration", "date", "reason", "weekday",
    "clock time"); usually none."""
    lowered = question.lower()
    if not any(cue in lowered for cue in _CUES):
        return ()
    return tuple(kind for kind in _KINDS if _asks(kind).search(question))


@cache
def _anchors(kinds: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(
            anchor for kind in kinds for table in (_KINDS, _ZH_KINDS) for anchor in table[kind][2]
        )
    )


def holds_answer(kinds: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` holds an answer of one of ``kinds`` (from ``answer_kinds``)."""
    lowered = text.lower()
    if not any(anchor in lowered for anchor in _anchors(kinds)):
        return False
    return _holds(kinds).search(lowered) is not None


__all__ = ["answer_kinds", "holds_answer"]
