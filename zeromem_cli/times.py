"""Time in one place: the clock, ISO-8601 formatting and parsing of user durations and dates.

All stored times are UTC strings like ``2026-11-30T02:11:54Z``: fixed width, so they sort
lexicographically in SQL exactly as they sort in time.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from zeromem_cli.errors import InvalidInputError

Clock = Callable[[], datetime]


@functools.cache
def _duration() -> re.Pattern[str]:
    """Compiled on first use (an IGNORECASE pattern: ~0.3 ms on every start otherwise)."""
    return re.compile(r"^\s*(\d{1,9})\s*([smhdw])\s*$", re.IGNORECASE)


_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
# A bound that keeps ``now +/- duration`` inside datetime's range (years 1..9999).
MAX_DURATION_SECONDS = 1000 * 366 * 86400


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


@functools.lru_cache(maxsize=8192)
def from_iso(text: str) -> datetime:
    """Parse an ISO-8601 date or date-time; naive values are taken as UTC. Cached (a
    datetime is immutable): search and pack read the same stored times call after call,
    hundreds per pack in a long-lived process."""
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidInputError(f"not an ISO-8601 date or time: {text!r}") from None
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
    raw = text.strip()
    try:
        moment = datetime.fromisoformat(raw[:-1] + "+00:00" if raw[-1:] in "Zz" and raw else raw)
    except ValueError:
        raise InvalidInputError(f"not an ISO-8601 date or time: {text!r}") from None
    try:
        if moment.tzinfo is None:
            moment = moment.astimezone()  # naive: local time (the TZ environment variable)
        return moment.astimezone(timezone.utc)
    except (OverflowError, OSError, ValueError):  # year 1 or 9999 shifted past the calendar
        raise InvalidInputError(f"date out of range: {text!r}") from None


def parse_duration(text: str) -> timedelta:
    """Parse ``30s``, ``15m``, ``24h``, ``7d`` or ``2w``."""
    match = _duration().match(text)
    if not match:
        raise InvalidInputError(
            f"not a duration: {text!r} (use a number and a unit: 30s, 15m, 24h, 7d, 2w)"
        )
    amount, unit = int(match.group(1)), match.group(2).lower()
    seconds = amount * _UNIT_SECONDS[unit]
    if seconds > MAX_DURATION_SECONDS:
        raise InvalidInputError(f"duration too long: {text!r} (at most 1000 years)")
    return timedelta(seconds=seconds)


def is_duration(text: str) -> bool:
    return bool(_duration().match(text))


def parse_expiry(text: str, now: datetime) -> datetime:
    """A TTL: a duration from now, or an absolute ISO date/time (local time without an
    offset) that must lie in the future."""
    if is_duration(text):
        delta = parse_duration(text)
        if delta.total_seconds() <= 0:
            raise InvalidInputError(f"TTL must be positive: {text!r}")
        return now + delta
    try:
        moment = from_local_iso(text)
    except InvalidInputError:
        raise InvalidInputError(
            f"not a TTL: {text!r} (use 30s, 15m, 24h, 7d, 2w or an ISO date such as 2027-01-31)"
        ) from None
    if moment <= now:
        raise InvalidInputError(f"TTL date is in the past: {text!r}")
    return moment


def parse_since(text: str, now: datetime) -> datetime:
    """A point in the past: ``7d`` means seven days before now; an ISO date or time is taken
    as is, local time when it has no offset (``2026-12-01``: local midnight)."""
    if is_duration(text):
        return now - parse_duration(text)
    try:
        return from_local_iso(text)
    except InvalidInputError:
        raise InvalidInputError(
            f"not a date or duration: {text!r} (use 7d, 24h... or an ISO date such as 2026-01-31)"
        ) from None
