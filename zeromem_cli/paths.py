"""Where zeromem keeps its files.

Precedence for the database: ``--db`` / ``ZEROMEM_DB`` > ``$ZEROMEM_HOME/memories.db`` >
``<platformdirs user data dir>/zeromem/memories.db``. ``ZEROMEM_HOME`` moves data and config
together, which is also how tests keep every file inside ``tmp_path``.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "zeromem"
DB_FILENAME = "memories.db"
CONFIG_FILENAME = "config.toml"


def home_override() -> Path | None:
    home = os.environ.get("ZEROMEM_HOME")
    return Path(home).expanduser() if home else None


def data_dir() -> Path:
    home = home_override()
    if home is not None:
        return home
    from platformdirs import user_data_dir  # imported here: only needed without overrides

    return Path(user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    home = home_override()
    if home is not None:
        return home
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))


def default_db_path() -> Path:
    env = os.environ.get("ZEROMEM_DB")
    if env:
        return Path(env).expanduser()
    return data_dir() / DB_FILENAME


def config_path() -> Path:
    return config_dir() / CONFIG_FILENAME
