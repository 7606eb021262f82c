"""Record commands take the options README promises (#33): `pack --json`, `list --since` /
`--until` with the durations and dates of every other command."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore

NOW = datetime.now(timezone.utc)


def test_pack_json_is_format_json(cli: Run) -> None:
    cli("add", "otters hold hands while they sleep")
    as_flag = cli("pack", "otters", "--json")
    assert as_flag.exit_code == 0, as_flag.stderr
    assert as_flag.stdout == cli("pack", "otters", "--format", "json").stdout
    assert [m["content"] for m in json.loads(as_flag.stdout)] == [
        "otters hold hands while they sleep"
    ]
    both = cli("pack", "otters", "--json", "--format", "xml")
    assert both.exit_code == 2 and "not both" in both.stderr


def test_list_since_and_until(cli: Run, db_path: Path) -> None:
    with MemoryStore(db_path, clock=lambda: NOW - timedelta(days=400)) as store:
        store.add("an old note")
    with MemoryStore(db_path, clock=lambda: NOW - timedelta(days=3)) as store:
        store.add("a recent note")
    assert [m["content"] for m in as_json(cli("list", "--since", "1w", "--json"))] == [
        "a recent note"
    ]
    assert [m["content"] for m in as_json(cli("list", "--until", "1y", "--json"))] == [
        "an old note"
    ]
    day = (NOW - timedelta(days=200)).date().isoformat()
    assert [m["content"] for m in as_json(cli("list", "--until", day, "--json"))] == ["an old note"]
    bad = cli("list", "--since", "2M")
    assert bad.exit_code == 2 and "ambiguous unit 'M'" in bad.stderr
