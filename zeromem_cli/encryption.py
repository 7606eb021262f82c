"""Encrypting, decrypting and rekeying a store file: which key applies, and refusals that keep
the user's data safe (no second copy of a keyring key is ever overwritten, a store is never
converted twice). The copy-check-swap itself is ``storage.convert``."""

from __future__ import annotations

from pathlib import Path

from zeromem_cli import keys
from zeromem_cli.errors import StoreError
from zeromem_cli.storage import convert
from zeromem_cli.storage.convert import Converted
from zeromem_cli.storage.sqlite import db

NO_KEY = "no key: set ZEROMEM_KEY or --key-file, or run `zeromem key store` first"


def _current_key(key_file: Path | None) -> keys.Key | None:
    return keys.configured(key_file) or keys.from_keyring()


def _existing(path: Path) -> str:
    state = db.store_state(path)
    if state == "new":
        raise StoreError(f"no store at {path}")
    return state


def encrypt(path: Path, key_file: Path | None = None) -> Converted:
    """Encrypt the plain store at ``path`` with the configured key (file, env, keyring)."""
    if _existing(path) == "encrypted":
        raise StoreError(f"{path} is already encrypted (use `zeromem rekey` to change key)")
    key = _current_key(key_file)
    if key is None:
        raise StoreError(NO_KEY)
    return convert.convert(path, None, key)


def decrypt(path: Path, key_file: Path | None = None) -> Converted:
    """Turn the encrypted store at ``path`` back into a plain SQLite file."""
    if _existing(path) == "plain":
        raise StoreError(f"{path} is not encrypted")
    key = _current_key(key_file)
    if key is None:
        raise StoreError(db.ENCRYPTED_HINT)
    return convert.convert(path, key, None)


def rekey(path: Path, new_key_file: Path, key_file: Path | None = None) -> Converted:
    """Re-encrypt the store at ``path`` under the key in ``new_key_file``."""
    if _existing(path) == "plain":
        raise StoreError(f"{path} is not encrypted (use `zeromem encrypt`)")
    old = _current_key(key_file)
    if old is None:
        raise StoreError(db.ENCRYPTED_HINT)
    new = keys.read_key_file(new_key_file)
    if new.same_as(old):
        raise StoreError("the new key is the key the store already has")
    return convert.convert(path, old, new)


def store_new_key_in_keyring() -> str:
    """A new random key into the OS keyring (refused if it already holds one: a store may be
    encrypted with it). Returns the backend's name."""
    if keys.from_keyring() is not None:
        raise StoreError(
            "the OS keyring already holds a zeromem key; it is kept (a store may need it)"
        )
    return keys.store_in_keyring(keys.new_key())


def new_key_file(path: Path) -> None:
    """A new random key in a new 0600 file at ``path``."""
    keys.write_key_file(path.expanduser(), keys.new_key())
