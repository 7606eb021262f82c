"""Every numeric setting has both bounds, and a value at a bound works (#33: a retention of
99999999999999999999 days was accepted by `config set`, then crashed every `gc`)."""

from __future__ import annotations

import pytest

from tests.conftest import Run
from zeromem_cli.config import SETTINGS

NUMERIC = [s for s in SETTINGS.values() if s.kind in (int, float)]


@pytest.mark.parametrize("setting", NUMERIC, ids=lambda s: s.key)
def test_every_numeric_setting_has_both_bounds(setting) -> None:  # type: ignore[no-untyped-def]
    assert setting.minimum is not None and setting.maximum is not None


@pytest.mark.parametrize("key", ["gc.trash_retention_days", "gc.archive_after_days"])
def test_gc_runs_at_the_largest_value_and_refuses_more(cli: Run, key: str) -> None:
    assert cli("add", "something to keep").exit_code == 0
    huge = cli("config", "set", key, "99999999999999999999", db=False)
    assert huge.exit_code != 0 and "above" in huge.stderr and "Traceback" not in huge.output
    top = str(int(SETTINGS[key].maximum or 0))
    assert cli("config", "set", key, top, db=False).exit_code == 0
    assert cli("config", "set", "gc.archive_enabled", "true", db=False).exit_code == 0
    done = cli("gc")
    assert done.exit_code == 0, done.stderr
    assert "internal error" not in done.output
