"""The tuning file: one record of every ranking knob, each value with its provenance, and the
override a user sets with ZEROMEM_TUNING (driven through the CLI)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from zeromem_cli.config import SETTINGS
from zeromem_cli.ranking import factors
from zeromem_cli.ranking.tuning import (
    DATA,
    DEFAULT_TUNING,
    Tuning,
    overridden,
    read_values,
    values_module,
)

PACK_SETTINGS = {
    "pack_relevance": "pack.weights.relevance",
    "pack_importance": "pack.weights.importance",
    "pack_recency": "pack.weights.recency",
    "pack_access": "pack.weights.access",
    "pack_half_life_days": "pack.weights.recency_half_life_days",
    "pack_context": "pack.weights.context",
    "context_window_minutes": "pack.weights.context_window_minutes",
}


def test_every_field_comes_from_the_file_with_its_provenance() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert data["version"] == 1
    assert list(data["values"]) == list(Tuning._fields)
    for name, entry in data["values"].items():
        assert getattr(Tuning(), name) == entry["value"], name
        assert entry["chosen_by"].startswith("python -m benchmarks."), name
        assert re.fullmatch(r"[0-9a-f]{7,40}", entry["commit"]), name
        assert entry["about"], name


def test_the_values_a_start_reads_are_the_files() -> None:
    """``tuning_values.py`` is ``tuning.json``'s values as Python (so no start parses JSON):
    after editing the file, ``python -m zeromem_cli.ranking.tuning --write`` rewrites it."""
    generated = DATA.with_name("tuning_values.py").read_text(encoding="utf-8")
    assert generated == values_module()


def test_the_config_defaults_of_pack_weights_are_the_tuning_values() -> None:
    for field, key in PACK_SETTINGS.items():
        assert SETTINGS[key].default == getattr(DEFAULT_TUNING, field), key


def test_every_factor_switches_off_through_known_fields() -> None:
    names = [factor.name for factor in factors.FACTORS]
    assert len(names) == len(set(names))
    for factor in factors.FACTORS:
        off = factors.without(DEFAULT_TUNING, factor)
        assert off != DEFAULT_TUNING, factor.name
        assert all(name in Tuning._fields for name, _ in factor.off)


def test_overrides_are_checked(tmp_path: Path) -> None:
    assert overridden(DEFAULT_TUNING, {"context": 0}).context == 0.0
    with pytest.raises(ValueError, match="unknown"):
        overridden(DEFAULT_TUNING, {"no_such_knob": 1.0})
    with pytest.raises(ValueError, match="must be float"):
        overridden(DEFAULT_TUNING, {"context": "high"})
    plain = tmp_path / "plain.json"
    plain.write_text('{"pool": 20}', encoding="utf-8")
    assert read_values(plain) == {"pool": 20}


def _cli(home: Path, tuning: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"ZEROMEM_HOME": str(home), "PATH": ""}
    if tuning is not None:
        env["ZEROMEM_TUNING"] = str(tuning)
    return subprocess.run(
        [sys.executable, "-m", "zeromem_cli", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_zeromem_tuning_changes_every_face_and_a_bad_file_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _cli(home, None, "add", "the deploy key lives in the vault").returncode == 0
    assert _cli(home, None, "add", "pinned: the vault moved", "--pin").returncode == 0
    before = _cli(home, None, "search", "vault", "--json")
    flat = tmp_path / "flat.json"
    flat.write_text('{"values": {"pinned": {"value": 5.0}}}', encoding="utf-8")
    after = _cli(home, flat, "search", "vault", "--json")
    assert before.returncode == after.returncode == 0
    assert json.loads(before.stdout) != json.loads(after.stdout)  # the pinned one's score
    bad = tmp_path / "bad.json"
    bad.write_text('{"pinned": "yes"}', encoding="utf-8")
    failed = _cli(home, bad, "search", "vault")
    assert failed.returncode != 0
    assert failed.stderr.strip().count("\n") == 0 and "ZEROMEM_TUNING" in failed.stderr
    assert "Traceback" not in failed.stderr
