"""What kind of answer a question asks for, and whether a memory's text holds one.

"How long have you used this editor?" is answered by "I switched to it about 6 months ago",
which shares one word with it; "what day of the week is the standup?" by "standup is on
Thursday"; "when did you go?" by "I went yesterday"; "why?" by "because...". BM25 sees only the
shared words, so a turn about the same topic without the answer ranks above it. The question's
own form says what the answer looks like (a duration, a date, a reason, a weekday, a clock
time), and that is cheap to look for in a candidate: ``search`` ranks the candidates holding
one up (``Ranking.answer``). Only forms whose answers have a shape a pattern can see are
listed: "how many" is not (numbers are everywhere in long answers), nor "where" (a place by its
name was measured: no gain). The kinds live in a data file of the package
(``answer_kinds.json``, which says where its entries come from). Each kind is recognised in
English and Chinese
(多久 a duration, 什么时候 a time, 为什么 a reason, 星期几 a weekday, 几点 a clock time).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from zeromem_cli.text.lexicon import NUMBER_WORDS, WEEKDAYS

# The kinds: a data file of the package, read when a question first holds a cue word (below).
TABLE = Path(__file__).with_name("answer_kinds.json")
# Kind -> language -> (the questions asking for it, the texts holding one, strings every such
# text holds: a text holding none is not matched at all, a few substring tests where the
# pattern would try every position). The text patterns compile only when a question asks
# (``_holds``) and are matched against the lowercased text, case-sensitively and each English
# alternative opening with ``(?<!\w)`` rather than ``\b``: several times faster on a long text,
# and pack tests hundreds. Chinese patterns go without it: CJK characters are word characters.
Kinds = dict[str, dict[str, tuple[str, str, tuple[str, ...]]]]


@cache
def _kinds() -> Kinds:
    import json

    numbers = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
    names = {
        "<DAYS>": "|".join(WEEKDAYS),
        # "May" is left out: a month only when it is not the common verb.
        "<MONTHS>": "january|february|march|april|june|july|august|september|october|"
        "november|december",
        "<COUNT>": rf"(?:\d+(?:[.,]\d+)?\+?|{numbers})",
        "<CN>": "[0-9０-９一二两三四五六七八九十百几半]+",
    }

    def filled(pattern: str) -> str:
        for name, value in names.items():
            pattern = pattern.replace(name, value)
        return pattern

    data = json.loads(TABLE.read_text(encoding="utf-8"))
    return {
        kind: {
            language: (
                filled(entry["asks"][language]),
                filled(entry["holds"][language]),
                tuple(entry["anchors"][language]),
            )
            for language in ("en", "zh")
        }
        for kind, entry in data["kinds"].items()
    }


# A question asking for one of the kinds holds one of these words (most questions skip the
# patterns altogether).
_CUES = ("how", "what", "which", "when", "why", "多", "什么", "何", "哪", "几", "为")


@cache
def _asks(kind: str) -> re.Pattern[str]:
    return re.compile("|".join(each[0] for each in _kinds()[kind].values()), re.IGNORECASE)


@cache
def _holds(kinds: tuple[str, ...]) -> re.Pattern[str]:
    table = _kinds()
    return re.compile("|".join(f"(?:{each[1]})" for kind in kinds for each in table[kind].values()))


def answer_kinds(question: str) -> tuple[str, ...]:
    """The kinds of answer ``question`` asks for ("duration", "date", "reason", "weekday",
    "clock time"); usually none."""
    lowered = question.lower()
    if not any(cue in lowered for cue in _CUES):
        return ()
    return tuple(kind for kind in _kinds() if _asks(kind).search(question))


@cache
def _anchors(kinds: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(
            anchor for kind in kinds for each in _kinds()[kind].values() for anchor in each[2]
        )
    )


def holds_answer(kinds: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` holds an answer of one of ``kinds`` (from ``answer_kinds``)."""
    lowered = text.lower()
    if not any(anchor in lowered for anchor in _anchors(kinds)):
        return False
    return _holds(kinds).search(lowered) is not None


__all__ = ["answer_kinds", "holds_answer"]
