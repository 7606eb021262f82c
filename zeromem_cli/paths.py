"""Where zeromem keeps its files.

Precedence for the database: ``--db`` / ``ZEROMEM_DB`` > ``$ZEROMEM_HOME/memories.db`` >
``<platformdirs user data dir>/zeromem/memories.db``. ``ZEROMEM_HOME`` moves data and config
together, which is also how tests keep every file inside ``tmp_path``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "zeromem"
DB_FILENAME = "memories.db"
CONFIG_FILENAME = "config.toml"


def is_database_url(text: object) -> bool:
    """A ``postgresql://`` (or ``postgres://``) URL rather than a file path."""
    return isinstance(text, str) and text.lower().startswith(("postgresql://", "postgres://"))


def db_location(given: str | Path) -> str | Path:
    """``--db`` as given: a database URL unchanged (a Path would fold its "//"), a file path
    with ``~`` expanded."""
    return given if is_database_url(given) else Path(given).expanduser()


def home_override() -> Path | None:
    home = os.environ.get("ZEROMEM_HOME")
    return Path(home).expanduser() if home else None


def data_dir() -> Path:
    home = home_override()
    if home is not None:
        return home
    fast = _linux_user_dir("XDG_DATA_HOME", ".local/share")
    if fast is not None:
        return fast
    from platformdirs import user_data_dir  # imported here: only needed without overrides

    return Path(user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    home = home_override()
    if home is not None:
        return home
    fast = _linux_user_dir("XDG_CONFIG_HOME", ".config")
    if fast is not None:
        return fast
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))


def _linux_user_dir(xdg_variable: str, under_home: str) -> Path | None:
    """platformdirs' answer on Linux, without importing it (it loads tempfile, random and
    hashlib: ~4 ms on every command that reads the config). Only the two plain cases are
    answered here: ``$XDG_...`` when it is an absolute path, else ``$HOME/<under_home>``
    when HOME is absolute; anything else (other systems, Android, no usable HOME) asks
    platformdirs. tests/test_startup.py checks both answers agree."""
    if (
        sys.platform != "linux"
        or hasattr(sys, "getandroidapilevel")
        or "ANDROID_DATA" in os.environ
    ):
        return None
    xdg = os.environ.get(xdg_variable, "")
    if os.path.isabs(xdg):
        return Path(os.path.join(xdg, APP_NAME))
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return Path(os.path.join(home, under_home, APP_NAME))
    return None


def default_db_path() -> Path | str:
    """``ZEROMEM_DB`` (a file path, or a ``postgresql://`` URL kept as text), else the
    per-user data file."""
    env = os.environ.get("ZEROMEM_DB")
    if env:
        return db_location(env)
    return data_dir() / DB_FILENAME


def config_path() -> Path:
    return config_dir() / CONFIG_FILENAME
