"""Time (``zeromem_cli.times``): durations, ISO-8601 parsing and formatting, a TTL (expiry) and
a ``--since``/``--until`` point, and the store's use of its injected clock for them.

Core layer: pure public functions, and ``MemoryStore`` with its ``clock``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from zeromem_cli import InvalidInputError, MemoryStore
from zeromem_cli.times import (
    MAX_DURATION_SECONDS,
    Duration,
    from_iso,
    is_duration,
    parse_duration,
    parse_expiry,
    parse_since,
    to_iso,
)

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)

# -- durations ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "months", "seconds"),
    [
        ("30s", 0, 30),
        ("15m", 0, 15 * 60),
        ("15min", 0, 15 * 60),
        ("24h", 0, 24 * 3600),
        ("7d", 0, 7 * 86400),
        ("7 days", 0, 7 * 86400),
        ("2w", 0, 14 * 86400),
        ("6mo", 6, 0),
        ("6 months", 6, 0),
        ("1y", 12, 0),
        ("2 years", 24, 0),
        ("1h30m", 0, 5400),
        ("1y 6mo", 18, 0),
        (" 15 min ", 0, 15 * 60),
        ("0s", 0, 0),
        ("365000d", 0, 365000 * 86400),
        ("P6M", 6, 0),  # ISO-8601: M before T is months...
        ("PT6M", 0, 360),  # ...and minutes after it
        ("P1Y2M10DT2H30M5S", 14, 10 * 86400 + 2 * 3600 + 30 * 60 + 5),
        ("P2W", 0, 14 * 86400),
    ],
)
def test_a_duration_is_numbers_and_case_sensitive_units(
    text: str, months: int, seconds: int
) -> None:
    assert is_duration(text)
    assert parse_duration(text) == Duration(months, seconds)


@pytest.mark.parametrize("text", ["6M", "6 M", "1h30M", "15 M "])
def test_a_capital_m_alone_is_refused_saying_what_to_write(text: str) -> None:
    """#33: `M` read as minutes made `forget --before 6M` purge everything older than six
    minutes. Minutes or months? The message says how to write either."""
    with pytest.raises(
        InvalidInputError, match=r"ambiguous unit 'M'.*min for minutes.*mo for months"
    ):
        parse_duration(text)
    for face in (parse_since, parse_expiry):
        with pytest.raises(InvalidInputError, match="ambiguous unit 'M'"):
            face(text, NOW)


@pytest.mark.parametrize(("text", "fix"), [("7D", "7d"), ("2W", "2w"), ("1Y", "1y"), ("3H", "3h")])
def test_units_are_case_sensitive(text: str, fix: str) -> None:
    with pytest.raises(InvalidInputError, match=f"units are case-sensitive, write {fix}"):
        parse_duration(text)


@pytest.mark.parametrize(
    "text", ["7", "d", "-7d", "1.5h", "7q", "", "P", "PT", "p6m", "P6", "1" * 5000 + "d"]
)
def test_anything_else_is_not_a_duration(text: str) -> None:
    with pytest.raises(InvalidInputError, match="not a duration|unknown unit|too long"):
        parse_duration(text)


def test_months_and_years_are_calendar_steps() -> None:
    end_of_march = datetime(2026, 3, 31, 12, tzinfo=timezone.utc)
    assert parse_since("1mo", end_of_march) == datetime(2026, 2, 28, 12, tzinfo=timezone.utc)
    assert parse_since("6mo", end_of_march) == datetime(2025, 9, 30, 12, tzinfo=timezone.utc)
    assert parse_since("P6M", end_of_march) == parse_since("6 months", end_of_march)
    assert parse_expiry("1y", end_of_march) == datetime(2027, 3, 31, 12, tzinfo=timezone.utc)
    leap = datetime(2028, 2, 29, tzinfo=timezone.utc)
    assert parse_expiry("1y", leap) == datetime(2029, 2, 28, tzinfo=timezone.utc)


def test_a_duration_past_a_thousand_years_is_refused() -> None:
    assert parse_duration("366000d") == Duration(0, MAX_DURATION_SECONDS)
    assert parse_duration("1000y") == Duration(12000, 0)
    for text in ("366001d", "52300w", "1001y", "12001mo", "999y 13mo", "99999999999d"):
        with pytest.raises(InvalidInputError, match="at most 1000 years"):
            parse_duration(text)
    with pytest.raises(InvalidInputError, match="duration too long: '366001d'"):
        parse_duration("366001d")


def test_a_ttl_out_of_range_or_in_the_past_says_so() -> None:
    """#33: `--ttl 99999999999d` and `--ttl 0001-01-01` said "not a TTL"."""
    with pytest.raises(InvalidInputError, match="too long"):
        parse_expiry("99999999999d", NOW)
    with pytest.raises(InvalidInputError, match="TTL date is in the past"):
        parse_expiry("0001-01-01", NOW)
    with pytest.raises(InvalidInputError, match="out of range"):
        parse_expiry("1000y", datetime(9500, 1, 1, tzinfo=timezone.utc))


# -- ISO-8601 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-01-31", datetime(2026, 1, 31, tzinfo=timezone.utc)),  # a date is its midnight
        ("2026-01-31T10:00", datetime(2026, 1, 31, 10, tzinfo=timezone.utc)),  # naive: UTC
        ("2026-01-31T10:00:00Z", datetime(2026, 1, 31, 10, tzinfo=timezone.utc)),
        ("2026-01-31t10:00:00z", datetime(2026, 1, 31, 10, tzinfo=timezone.utc)),
        ("2026-01-31 10:00:00Z", datetime(2026, 1, 31, 10, tzinfo=timezone.utc)),
        ("2026-01-31T10:00:00+02:00", datetime(2026, 1, 31, 8, tzinfo=timezone.utc)),
        (" 2026-01-31 ", datetime(2026, 1, 31, tzinfo=timezone.utc)),
        # Forms Python 3.11's fromisoformat reads and 3.10's refuses: one parser reads them
        # the same on every supported version (#33).
        ("20260131", datetime(2026, 1, 31, tzinfo=timezone.utc)),
        ("2026-01-31T10:00:00.5Z", datetime(2026, 1, 31, 10, 0, 0, 500000, tzinfo=timezone.utc)),
        ("2026-01-31T10:00:00+0200", datetime(2026, 1, 31, 8, tzinfo=timezone.utc)),
        ("2026-01-31T10Z", datetime(2026, 1, 31, 10, tzinfo=timezone.utc)),
        ("20260131T1000Z", datetime(2026, 1, 31, 10, tzinfo=timezone.utc)),
    ],
)
def test_iso_dates_and_times_are_read_as_utc(text: str, moment: datetime) -> None:
    parsed = from_iso(text)
    assert parsed == moment and parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("2026-02-30", "not an ISO-8601 date or time"),
        ("31/01/2026", "not an ISO-8601 date or time"),
        ("yesterday", "not an ISO-8601 date or time"),
        ("9999-12-31T23:59-01:00", "date out of range"),  # past year 9999 once in UTC
        ("0001-01-01T00:00+01:00", "date out of range"),
    ],
)
def test_bad_or_out_of_range_dates_are_invalid_input(text: str, problem: str) -> None:
    with pytest.raises(InvalidInputError, match=problem):
        from_iso(text)


def test_to_iso_is_the_fixed_width_utc_form() -> None:
    plus_two = timezone(timedelta(hours=2))
    assert to_iso(datetime(2026, 1, 1, 5, tzinfo=plus_two)) == "2026-01-01T03:00:00Z"
    assert to_iso(datetime(2026, 1, 1)) == "2026-01-01T00:00:00Z"  # naive is UTC
    assert to_iso(datetime(2026, 1, 1, 0, 0, 0, 999999, tzinfo=timezone.utc)) == (
        "2026-01-01T00:00:00Z"
    )
    # Fixed width: sorting the text sorts the times (SQL compares them as text).
    moments = [
        datetime(y, m, 1, tzinfo=timezone.utc) for y, m in ((2026, 10), (1970, 1), (2026, 2))
    ]
    assert sorted(to_iso(m) for m in moments) == [to_iso(m) for m in sorted(moments)]
    assert from_iso(to_iso(NOW)) == NOW


def test_to_iso_pads_years_before_1000() -> None:
    """glibc's strftime('%Y') does not pad below year 1000: '999-01-01T00:00:00Z' sorted after
    2026, so `search --since 0999-01-01` found nothing."""
    assert to_iso(datetime(999, 1, 1, tzinfo=timezone.utc)) == "0999-01-01T00:00:00Z"
    assert to_iso(datetime(1, 1, 1, tzinfo=timezone.utc)) == "0001-01-01T00:00:00Z"
    assert to_iso(datetime(999, 1, 1, tzinfo=timezone.utc)) < to_iso(NOW)


# -- expiry and since --------------------------------------------------------------------------


def test_an_expiry_is_a_positive_duration_or_a_future_date() -> None:
    assert parse_expiry("1h", NOW) == NOW + timedelta(hours=1)
    assert parse_expiry("2027-01-31", NOW) == datetime(2027, 1, 31, tzinfo=timezone.utc)
    with pytest.raises(InvalidInputError, match="TTL must be positive"):
        parse_expiry("0s", NOW)
    with pytest.raises(InvalidInputError, match="TTL date is in the past"):
        parse_expiry(to_iso(NOW), NOW)
    with pytest.raises(InvalidInputError, match="not a TTL: 'next week'"):
        parse_expiry("next week", NOW)


def test_since_is_a_duration_back_from_now_or_a_date() -> None:
    assert parse_since("7d", NOW) == NOW - timedelta(days=7)
    assert parse_since("2026-01-31", NOW) == datetime(2026, 1, 31, tzinfo=timezone.utc)
    assert parse_since("2030-01-01", NOW) == datetime(2030, 1, 1, tzinfo=timezone.utc)  # as is
    with pytest.raises(InvalidInputError, match="not a date or duration: 'last tuesday'"):
        parse_since("last tuesday", NOW)


def test_the_store_computes_expiry_on_its_own_clock(db_path: Path) -> None:
    clock = [NOW]
    with MemoryStore(db_path, clock=lambda: clock[0]) as store:
        memory = store.add("door code 4711", ttl="90m")
        assert memory.expires_at == "2026-06-01T13:30:00Z"
        assert memory.created_at == "2026-06-01T12:00:00Z"
        dated = store.add("conference badge", expires_at="2026-07-01")
        assert dated.expires_at == "2026-07-01T00:00:00Z"
        with pytest.raises(InvalidInputError, match="TTL date is in the past"):
            store.add("too late", ttl="2026-05-01")
        clock[0] = NOW + timedelta(minutes=89)
        assert [m.id for m in store.list()] == [dated.id, memory.id]
        clock[0] = NOW + timedelta(minutes=90)  # expires_at is the first moment it is gone
        assert [m.id for m in store.list()] == [dated.id]
