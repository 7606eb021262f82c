"""Setting up a key as README says, on a fresh machine (#33): `key new` into a folder that is
not there yet creates it (0700), and a store created while a key is in the OS keyring is
encrypted from the start."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.cli.test_encryption import CANARY, _holds
from tests.conftest import Run, as_json

pytest.importorskip("sqlcipher3")


def test_key_new_creates_its_folder_private(cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "fresh-home" / ".config" / "zeromem" / "store.key"
    made = cli("key", "new", str(path), db=False)
    assert made.exit_code == 0, made.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_new_store_takes_the_key_in_the_keyring(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("keyrings.alt")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # where this backend keeps keys
    import keyring
    from keyrings.alt.file import PlaintextKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    try:
        assert cli("key", "store", db=False).exit_code == 0
        assert cli("add", CANARY).exit_code == 0  # a new store: created encrypted
        assert _holds(db_path, CANARY) == []
        assert [m["content"] for m in as_json(cli("search", CANARY, "--json"))] == [CANARY]
        keyring.delete_password("zeromem", "store-key")
        listed = cli("list")
        assert listed.exit_code == 1 and "encrypted" in listed.stderr
    finally:
        keyring.set_keyring(previous)
