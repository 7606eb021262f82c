"""Time in one place: the clock, ISO-8601 formatting and parsing of user durations and dates.

All stored times are UTC strings like ``2026-11-30T02:11:54Z``: fixed width, so they sort
lexicographically in SQL exactly as they sort in time.

Every face (CLI ``--ttl/--since/--until/--before``, ``add.default_ttl``, MCP arguments, hooks
through the store) reads durations and dates here, so one grammar holds everywhere:

- durations are case-sensitive and unambiguous: ``30s``, ``15min`` or ``15m``, ``24h``, ``7d``,
  ``2w``, ``6mo``, ``1y`` (long names too: ``6 months``), several at once (``1h30m``) or ISO-8601
  (``P6M``, ``PT30M``, ``P1Y2M10DT2H``). A bare ``M`` is refused: minutes or months?
- months and years are calendar steps (31 Jan + 1mo = 28/29 Feb), not a fixed count of days;
- dates are ISO-8601 read by one parser (python-dateutil's ``isoparse``), so Python 3.10 and
  3.11 accept the same forms (``datetime.fromisoformat`` differs between them). Our own
  canonical form takes a fast path that both versions read identically.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.plain import FrozenRecord

Clock = Callable[[], datetime]

# A bound that keeps ``now +/- duration`` inside datetime's range (years 1..9999).
MAX_DURATION_SECONDS = 1000 * 366 * 86400
_MONTH_SECONDS = MAX_DURATION_SECONDS // 12000  # a month's share of the bound: 1000y = 12000mo

# Unit name -> (months, seconds). Case-sensitive: "M" is in no row on purpose.
_UNITS: dict[str, tuple[int, int]] = {}
for _names, _value in (
    (("s", "sec", "secs", "second", "seconds"), (0, 1)),
    (("m", "min", "mins", "minute", "minutes"), (0, 60)),
    (("h", "hr", "hrs", "hour", "hours"), (0, 3600)),
    (("d", "day", "days"), (0, 86400)),
    (("w", "wk", "wks", "week", "weeks"), (0, 604800)),
    (("mo", "mon", "mos", "month", "months"), (1, 0)),
    (("y", "yr", "yrs", "year", "years"), (12, 0)),
):
    for _name in _names:
        _UNITS[_name] = _value

_HINT = "use a number and a unit: 30s, 15min, 24h, 7d, 2w, 6mo, 1y, or ISO-8601 such as P6M"


class Duration(FrozenRecord):
    """A span a person typed: calendar months and plain seconds, kept apart because a month
    has no fixed length."""

    months: int = 0
    seconds: int = 0

    def is_zero(self) -> bool:
        return self.months == 0 and self.seconds == 0

    def after(self, moment: datetime) -> datetime:
        """``moment`` plus this span; an error (not a crash) past year 9999."""
        return _shift(moment, self.months, self.seconds)

    def before(self, moment: datetime) -> datetime:
        """``moment`` minus this span; an error (not a crash) before year 1."""
        return _shift(moment, -self.months, -self.seconds)

    def approx_seconds(self) -> int:
        return self.months * _MONTH_SECONDS + self.seconds


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Compiled on first use: start-up pays nothing for a command that reads no duration."""
    return (
        re.compile(r"\s*(?:\d+\s*[A-Za-z]+\s*)+"),  # the shape of "7d", "1h 30min", "6M"
        re.compile(r"(\d+)\s*([A-Za-z]+)"),
        re.compile(
            r"P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?"
            r"(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?"
        ),
        # Our own stored form and its plain variants: read alike by 3.10's and 3.11's
        # fromisoformat (3.10 takes a fraction of exactly 3 or 6 digits only).
        re.compile(
            r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.(?:\d{3}|\d{6}))?)?)?"
            r"(?:Z|[+-]\d{2}:\d{2})?"
        ),
    )


def _shift(moment: datetime, months: int, seconds: int) -> datetime:
    try:
        if months:
            index = moment.year * 12 + moment.month - 1 + months
            year, month = divmod(index, 12)
            if not 1 <= year <= 9999:
                raise OverflowError
            moment = moment.replace(
                year=year, month=month + 1, day=min(moment.day, _days_in(year, month + 1))
            )
        return moment + timedelta(seconds=seconds)
    except OverflowError:
        raise InvalidInputError("date out of range (before year 1 or after 9999)") from None


def _days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def utcnow() -> datetime:
    """The default clock (tests inject their own or travel with time-machine)."""
    return datetime.now(timezone.utc)


def to_iso(moment: datetime) -> str:
    """Format an aware datetime as the canonical stored UTC string: fixed width, so the text
    sorts as the times do (the year padded by hand: glibc's ``%Y`` writes 999, not 0999)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    m = moment.astimezone(timezone.utc)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}Z"


def _parse_iso(text: str) -> datetime:
    """An ISO-8601 date or date-time, naive when it names no offset. Canonical text takes
    ``fromisoformat`` (fast, identical on 3.10 and 3.11); anything else dateutil's ``isoparse``
    (imported only then: ~35 ms), so no form is read one way on 3.10 and another on 3.11."""
    raw = text.strip()
    if _patterns()[3].fullmatch(raw):
        try:
            return datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith("Z") else raw)
        except ValueError:
            raise InvalidInputError(f"not an ISO-8601 date or time: {text!r}") from None
    if not raw or not raw[0].isdigit() or len(raw) > 64:
        raise InvalidInputError(f"not an ISO-8601 date or time: {text!r}")
    from dateutil.parser import isoparse

    try:
        return isoparse(raw)
    except OverflowError:
        raise InvalidInputError(f"date out of range: {text!r}") from None
    except ValueError:
        raise InvalidInputError(f"not an ISO-8601 date or time: {text!r}") from None


@functools.lru_cache(maxsize=8192)
def from_iso(text: str) -> datetime:
    """Parse an ISO-8601 date or date-time; naive values are taken as UTC. Cached (a
    datetime is immutable): search and pack read the same stored times call after call,
    hundreds per pack in a long-lived process."""
    moment = _parse_iso(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:  # 9999-12-31T23:59-01:00 is past year 9999 in UTC
        raise InvalidInputError(f"date out of range: {text!r}") from None


def from_local_iso(text: str) -> datetime:
    """An ISO-8601 date or date-time a person typed (``--since 2026-12-01``, ``--ttl``): one
    without an offset is this machine's local time, as a person means it (``from_iso`` reads
    one as UTC: files and records, which store UTC)."""
    moment = _parse_iso(text)
    try:
        if moment.tzinfo is None:
            moment = moment.astimezone()  # naive: local time (the TZ environment variable)
        return moment.astimezone(timezone.utc)
    except (OverflowError, OSError, ValueError):  # year 1 or 9999 shifted past the calendar
        raise InvalidInputError(f"date out of range: {text!r}") from None


def is_duration(text: str) -> bool:
    """Whether ``text`` is written as a duration (it may still name a wrong unit: then
    ``parse_duration`` says which and what to write)."""
    shape, _, iso, _ = _patterns()
    raw = text.strip()
    return len(raw) <= 64 and bool(shape.fullmatch(raw) or iso.fullmatch(raw))


def parse_duration(text: str) -> Duration:
    """Parse ``30s``, ``15min``, ``24h``, ``7d``, ``2w``, ``6mo``, ``1y``, ``1h30m`` or an
    ISO-8601 duration (``P6M``, ``PT15M``)."""
    shape, part, iso, _ = _patterns()
    raw = text.strip()
    months = seconds = 0
    if len(raw) > 64:
        raise InvalidInputError(f"not a duration: {text!r} ({_HINT})")
    iso_match = iso.fullmatch(raw)
    if any(len(n.lstrip("0")) > 12 for n in re.findall(r"\d+", raw)):
        raise InvalidInputError(f"duration too long: {text!r} (at most 1000 years)")
    if iso_match:
        y, mo, w, d, h, mi, s = (int(g) if g else 0 for g in iso_match.groups())
        months, seconds = y * 12 + mo, w * 604800 + d * 86400 + h * 3600 + mi * 60 + s
    elif shape.fullmatch(raw):
        for amount, unit in part.findall(raw):
            if unit not in _UNITS:
                raise InvalidInputError(_unit_error(text, amount, unit))
            unit_months, unit_seconds = _UNITS[unit]
            months += int(amount) * unit_months
            seconds += int(amount) * unit_seconds
    else:
        raise InvalidInputError(f"not a duration: {text!r} ({_HINT})")
    if (
        months > 12000
        or seconds > MAX_DURATION_SECONDS
        or (Duration(months, seconds).approx_seconds() > MAX_DURATION_SECONDS)
    ):
        raise InvalidInputError(f"duration too long: {text!r} (at most 1000 years)")
    return Duration(months, seconds)


def _unit_error(text: str, amount: str, unit: str) -> str:
    amount = str(int(amount))
    if unit == "M":
        return (
            f"ambiguous unit 'M' in {text!r}: write {amount}min for minutes or {amount}mo "
            "for months (units are case-sensitive)"
        )
    if unit.lower() in _UNITS:
        return (
            f"unknown unit {unit!r} in {text!r}: units are case-sensitive, "
            f"write {amount}{unit.lower()}"
        )
    return f"unknown unit {unit!r} in {text!r} ({_HINT})"


def parse_expiry(text: str, now: datetime) -> datetime:
    """A TTL: a duration from now, or an absolute ISO date/time (local time without an
    offset) that must lie in the future."""
    if is_duration(text):
        duration = parse_duration(text)
        if duration.is_zero():
            raise InvalidInputError(f"TTL must be positive: {text!r}")
        try:
            return duration.after(now)
        except InvalidInputError:
            raise InvalidInputError(f"TTL out of range: {text!r} ends after year 9999") from None
    try:
        moment = from_local_iso(text)
    except InvalidInputError as exc:
        if "out of range" in str(exc):
            if _parse_iso(text).year <= now.year:  # year 1 shifted before the calendar
                raise InvalidInputError(f"TTL date is in the past: {text!r}") from None
            raise
        raise InvalidInputError(
            f"not a TTL: {text!r} (use 30s, 15min, 24h, 7d, 2w, 6mo, 1y, P6M "
            "or an ISO date such as 2027-01-31)"
        ) from None
    if moment <= now:
        raise InvalidInputError(f"TTL date is in the past: {text!r}")
    return moment


def parse_since(text: str, now: datetime) -> datetime:
    """A point in the past: ``7d`` means seven days before now; an ISO date or time is taken
    as is, local time when it has no offset (``2026-12-01``: local midnight)."""
    if is_duration(text):
        try:
            return parse_duration(text).before(now)
        except InvalidInputError as exc:
            if "out of range" in str(exc):
                raise InvalidInputError(f"out of range: {text!r} reaches before year 1") from None
            raise
    try:
        return from_local_iso(text)
    except InvalidInputError as exc:
        if "out of range" in str(exc):
            raise
        raise InvalidInputError(
            f"not a date or duration: {text!r} (use 7d, 24h, 6mo, 1y, P6M... or an ISO date "
            "such as 2026-01-31)"
        ) from None
