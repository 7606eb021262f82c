"""What kind of answer a question asks for, and whether a memory's text holds one.

"How long have I had my cat?" is answered by "I've had Luna for about 6 months", which shares
one word with it; "what day of the week is my class?" by "my class is on Thursday"; "when did
you go?" by "I went yesterday"; "why?" by "because...". BM25 sees only the shared words, so a
turn about the same topic without the answer ranks above it. The question's own form says
what the answer looks like (a duration, a date, a reason, a weekday, a clock time), and that
is cheap to look for in a candidate: ``search`` ranks the candidates holding one up
(``Ranking.answer``). Only forms whose answers have a shape a pattern can see are listed:
"how many" is not (numbers are everywhere in long answers), nor "where" (a place by its name
was measured: no gain).
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
# A question asking for one of the kinds holds one of these words (most questions skip the
# patterns altogether).
_CUES = ("how", "what", "which", "when", "why")


@cache
def _asks(kind: str) -> re.Pattern[str]:
    return re.compile(_KINDS[kind][0], re.IGNORECASE)


@cache
def _holds(kinds: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{_KINDS[kind][1]})" for kind in kinds))


def answer_kinds(question: str) -> tuple[str, ...]:
    """The kinds of answer ``question`` asks for ("duration", "date", "reason", "weekday",
    "clock time"); usually none."""
    lowered = question.lower()
    if not any(cue in lowered for cue in _CUES):
        return ()
    return tuple(kind for kind in _KINDS if _asks(kind).search(question))


@cache
def _anchors(kinds: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(anchor for kind in kinds for anchor in _KINDS[kind][2]))


def holds_answer(kinds: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` holds an answer of one of ``kinds`` (from ``answer_kinds``)."""
    lowered = text.lower()
    if not any(anchor in lowered for anchor in _anchors(kinds)):
        return False
    return _holds(kinds).search(lowered) is not None


__all__ = ["answer_kinds", "holds_answer"]
