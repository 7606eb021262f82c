"""Where the key of an encrypted store comes from, first match wins: ``--key-file`` /
``ZEROMEM_KEY_FILE``, ``ZEROMEM_KEY``, then the OS keyring (``keyring``, when installed).

A ``Key`` never shows its text: its ``repr`` and ``str`` are a placeholder, so a traceback, a log
line or an error message cannot leak it. Nothing here imports the SQLCipher driver; the keyring
is asked only when an encrypted store has no other key (``storage.db.connect``).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from zeromem_cli.errors import StoreError

KEY_ENV = "ZEROMEM_KEY"
KEY_FILE_ENV = "ZEROMEM_KEY_FILE"
KEYRING_SERVICE = "zeromem"
KEYRING_USER = "store-key"
# 32 random bytes as 64 hex digits: used as SQLCipher's raw key, so no slow passphrase KDF runs
# on every open. Any other text is a passphrase (PBKDF2, SQLCipher's default).
_RAW_KEY = re.compile(r"[0-9a-fA-F]{64}")


class Key:
    """A store key; its text is reachable only through ``pragma_literal``."""

    __slots__ = ("_text", "source")

    def __init__(self, text: str, source: str) -> None:
        if not text:
            raise StoreError(f"the key from {source} is empty")
        self._text = text
        self.source = source

    def __repr__(self) -> str:
        return f"<zeromem key from {self.source}>"

    __str__ = __repr__

    @property
    def is_raw(self) -> bool:
        return _RAW_KEY.fullmatch(self._text) is not None

    def pragma_literal(self) -> str:
        """The SQL literal for ``PRAGMA key`` / ``ATTACH ... KEY``: a raw key ``"x'..'"``, or the
        passphrase quoted as a string."""
        if self.is_raw:
            return f"\"x'{self._text.lower()}'\""
        return "'" + self._text.replace("'", "''") + "'"

    def same_as(self, other: Key) -> bool:
        import hmac

        return hmac.compare_digest(self._text.encode(), other._text.encode())


def configured(key_file: Path | None = None) -> Key | None:
    """The key from ``key_file`` (else ``ZEROMEM_KEY_FILE``), else ``ZEROMEM_KEY``; None if
    neither is set. The keyring is not asked here (see ``from_keyring``)."""
    if key_file is None and os.environ.get(KEY_FILE_ENV):
        key_file = Path(os.environ[KEY_FILE_ENV])
    if key_file is not None:
        return read_key_file(key_file)
    text = os.environ.get(KEY_ENV)
    if text:
        return Key(text, KEY_ENV)
    return None


def read_key_file(path: Path) -> Key:
    """The key in ``path`` (one line; the trailing newline dropped). Refused when the file is
    readable or writable by group or others: a key anyone can read protects nothing."""
    path = path.expanduser()
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"key file {path} is not a regular file")
        if info.st_mode & 0o077:
            raise StoreError(
                f"key file {path} is accessible by group or others "
                f"(mode {stat.S_IMODE(info.st_mode):o}): run chmod 600 {path}"
            )
        data = path.read_bytes()
    except PermissionError:
        raise StoreError(f"cannot read key file {path}: permission denied") from None
    except FileNotFoundError:
        raise StoreError(f"key file {path} does not exist") from None
    except OSError as exc:
        raise StoreError(f"cannot read key file {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise StoreError(f"key file {path} is not UTF-8 text") from None
    return Key(text, f"key file {path}")


def new_key() -> Key:
    """A fresh random raw key (256 bits)."""
    import secrets

    return Key(secrets.token_hex(32), "a new random key")


def write_key_file(path: Path, key: Key) -> None:
    """Write ``key`` to a new file, 0600 from the start; an existing file is never overwritten.
    A folder that is not there yet is created 0700 (``key new ~/.config/zeromem/store.key`` on
    a fresh machine)."""
    try:
        path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        raise StoreError(f"{path} exists: not overwriting a key file") from None
    except OSError as exc:
        raise StoreError(f"cannot create {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(key._text + "\n")


def from_keyring() -> Key | None:
    """The key in the OS keyring, or None when ``keyring`` is absent, has no usable backend or
    holds no zeromem key."""
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        return None
    try:
        text = keyring.get_password(KEYRING_SERVICE, KEYRING_USER)
    except (KeyringError, RuntimeError):
        return None
    return Key(text, "the OS keyring") if text else None


def store_in_keyring(key: Key) -> str:
    """Put ``key`` in the OS keyring; returns the backend's name. StoreError when unavailable."""
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        raise StoreError("the OS keyring needs the keyring package: pip install keyring") from None
    backend = keyring.get_keyring()
    if backend.priority <= 0:  # the fail/null backends: nothing would be kept
        raise StoreError(
            f"no usable OS keyring ({type(backend).__name__}): make a key file instead with "
            "`zeromem key new PATH` and give it as --key-file PATH or ZEROMEM_KEY_FILE"
        )
    try:
        keyring.set_password(KEYRING_SERVICE, KEYRING_USER, key._text)
    except (KeyringError, RuntimeError) as exc:
        raise StoreError(f"the OS keyring refused the key: {type(exc).__name__}") from None
    return type(backend).__name__
