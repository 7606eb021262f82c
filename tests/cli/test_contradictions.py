"""Confusing inputs get one plain line (#33 item 13): non-finite scores, an empty query,
contradictory flags, a declined prompt, a keyring that is not there."""

from __future__ import annotations

import pytest

from tests.conftest import Run, as_json


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_min_score_must_be_finite(cli: Run, value: str) -> None:
    cli("add", "a memory")
    result = cli("search", "memory", "--min-score", value)
    assert result.exit_code == 2 and "finite" in result.stderr


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_refused(cli: Run, query: str) -> None:
    cli("add", "a memory")
    result = cli("search", "--", query)
    assert result.exit_code == 2 and "query is empty" in result.stderr


def test_pin_and_unpin_together_are_refused(cli: Run) -> None:
    cli("add", "a memory")
    result = cli("update", "1", "--pin", "--unpin")
    assert result.exit_code == 2 and "not both" in result.stderr
    assert as_json(cli("update", "1", "--pin", "--json"))["pinned"] is True
    assert as_json(cli("update", "1", "--unpin", "--json"))["pinned"] is False
