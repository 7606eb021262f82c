"""Dates a query names ("in May 2023", "last week", "two weeks ago"), as periods a memory's
``created_at`` may fall in: what search's date factor reads (``ranking.factors.date_factor``).

Pure language: no storage, no ranking. The patterns compile on first use: most queries name no
date (``_may_name_a_date`` screens them with a set lookup), and compiling them is a visible part
of a cold search (``python -m benchmarks.speed --only cold``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cache

from zeromem_cli.plain import FrozenRecord
from zeromem_cli.text.lexicon import MONTHS, NUMBER_WORDS, WEEKDAYS
from zeromem_cli.text.normalize import latin_words, normalize

_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
# Month names that are also common words count only next to a day or a year.
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "march", "jun", "jan", "dec", "sep", "oct", "aug"})
_RELATIVE = {
    "today": (0, 1),
    "yesterday": (1, 1),
    "this week": (7, 7),
    "last week": (14, 14),
    "past week": (7, 7),
    "this month": (31, 31),
    "last month": (62, 62),
    "past month": (31, 31),
    "this year": (366, 366),
    "last year": (731, 731),
}
# A query names a date only if it holds a digit or one of these words: most queries skip the
# patterns below, which compile on first use: compiling them is a visible part of a cold
# search (``python -m benchmarks.speed --only cold``).
_DATE_WORDS = (
    frozenset(MONTHS)
    | frozenset(WEEKDAYS)
    | {"today", "yesterday", "week", "month", "year", "weeks", "months", "years", "days", "ago"}
)
# Days in each unit of "N units ago" / "the past N units".
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_COUNT = "|".join(sorted(map(re.escape, NUMBER_WORDS), key=len, reverse=True)) + r"|\d{1,3}"


class _DatePatterns(FrozenRecord):
    month_date: re.Pattern[str]
    year: re.Pattern[str]
    iso_date: re.Pattern[str]
    relative: re.Pattern[str]
    ago: re.Pattern[str]
    past: re.Pattern[str]
    weekday: re.Pattern[str]


@cache
def _date_patterns() -> _DatePatterns:
    return _DatePatterns(
        # "May 2023", "May 7, 2023", "7 May 2023", "August", "2023": month and year as said.
        month_date=re.compile(
            rf"\b(?:(?P<day1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?P<month>{_MONTH_NAMES})\.?"
            rf"(?:\s+(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?)?(?:,?\s+(?P<year>(?:19|20)\d\d))?\b",
            re.IGNORECASE,
        ),
        year=re.compile(r"\b(?:19|20)\d\d\b"),
        iso_date=re.compile(r"\b((?:19|20)\d\d)-(\d\d)(?:-(\d\d))?\b"),
        relative=re.compile(r"\b(" + "|".join(_RELATIVE) + r")\b", re.IGNORECASE),
        # "two weeks ago", "a few days ago", "3 months ago"
        ago=re.compile(
            rf"\b(?P<count>{_COUNT})\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.IGNORECASE
        ),
        # "the past three months", "in the last 10 days", "over the past few weeks"
        past=re.compile(
            rf"\b(?:past|last)\s+(?P<count>{_COUNT})\s+(?P<unit>day|week|month|year)s?\b",
            re.IGNORECASE,
        ),
        weekday=re.compile(r"\blast\s+(?P<day>" + "|".join(WEEKDAYS) + r")\b", re.IGNORECASE),
    )


def _may_name_a_date(text: str) -> bool:
    if any(char.isdigit() for char in text):
        return True
    return not _DATE_WORDS.isdisjoint(word.casefold() for word in latin_words(text))


def _count(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[" ".join(text.lower().split())]


def _counted_spans(
    patterns: _DatePatterns, text: str, now: datetime, covered: list[tuple[int, int]]
) -> list[tuple[str, str]]:
    """[start, end) ISO dates for "N units ago" (that moment, give or take a quarter of it:
    people round), "the past N units" (from then until now) and "last Saturday" (the latest
    Saturday before today). Each match is added to ``covered``."""
    spans: list[tuple[datetime, datetime]] = []
    for found in patterns.ago.finditer(text):
        back = _count(found.group("count")) * _UNIT_DAYS[found.group("unit").lower()]
        slack = max(1.0, back / 4)
        spans.append((now - timedelta(days=back + slack), now - timedelta(days=back - slack)))
        covered.append(found.span())
    for found in patterns.past.finditer(text):
        back = _count(found.group("count")) * _UNIT_DAYS[found.group("unit").lower()]
        spans.append((now - timedelta(days=back), now + timedelta(days=1)))
        covered.append(found.span())
    for found in patterns.weekday.finditer(text):
        today = now.date()
        back = (today.weekday() - WEEKDAYS.index(found.group("day").lower())) % 7 or 7
        day = datetime.combine(today - timedelta(days=back), datetime.min.time(), now.tzinfo)
        spans.append((day, day + timedelta(days=1)))
        covered.append(found.span())
    return [(start.date().isoformat(), end.date().isoformat()) for start, end in spans]


class DateHint(FrozenRecord):
    """The periods a query names: ``test(created_at)`` says whether a memory falls in one."""

    test: Callable[[str], bool]


def date_hint(query: str, now: datetime) -> DateHint | None:
    """The periods a query names ("was this memory created then?"), or None if it names none.

    Understands month names with an optional day and year ("May 2023", "7 May", "in August"),
    bare years ("2022"), ISO dates, a few relative periods ("yesterday", "last week") and
    counted ones: "two weeks ago", "the past three months", "last Saturday".
    """
    text = normalize(query)
    if not _may_name_a_date(text):
        return None
    patterns = _date_patterns()
    prefixes: list[str] = []  # created_at starts with one of these: "2023-05", "2023-05-07"
    months: list[tuple[int, int | None]] = []  # (month, day) in any year
    spans: list[tuple[str, str]] = []  # [start, end) as ISO strings
    covered: list[tuple[int, int]] = []
    for found in patterns.iso_date.finditer(text):
        year, month, day = found.groups()
        prefixes.append(f"{year}-{month}" + (f"-{day}" if day else ""))
        covered.append(found.span())
    for found in patterns.month_date.finditer(text):
        if any(a <= found.start() < b for a, b in covered):
            continue
        name = found.group("month").lower()
        day_text = found.group("day1") or found.group("day2")
        year_text = found.group("year")
        if name in _AMBIGUOUS_MONTHS and not (day_text or year_text):
            continue
        month = MONTHS[name]
        day = int(day_text) if day_text and 1 <= int(day_text) <= 31 else None
        if year_text:
            prefixes.append(f"{year_text}-{month:02d}" + (f"-{day:02d}" if day else ""))
        else:
            months.append((month, day))
        covered.append(found.span())
    for found in patterns.year.finditer(text):
        if not any(a <= found.start() < b for a, b in covered):
            prefixes.append(found.group(0))
            covered.append(found.span())
    spans += _counted_spans(patterns, text, now, covered)
    for found in patterns.relative.finditer(text):
        if any(a <= found.start() < b for a, b in covered):
            continue
        covered.append(found.span())
        back, length = _RELATIVE[found.group(1).lower()]
        start = (now - timedelta(days=back)).date()
        end = start + timedelta(days=length)
        spans.append((start.isoformat(), end.isoformat()))
    if not (prefixes or months or spans):
        return None

    def test(created_at: str) -> bool:
        if any(created_at.startswith(p) for p in prefixes):
            return True
        if any(start <= created_at < end for start, end in spans):
            return True
        month_of, day_of = int(created_at[5:7]), int(created_at[8:10])
        return any(m == month_of and (d is None or d == day_of) for m, d in months)

    return DateHint(test)


__all__ = ["DateHint", "date_hint"]
