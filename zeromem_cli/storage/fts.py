"""Index maintenance (interface; see ``storage.backend``)."""

from __future__ import annotations

from zeromem_cli.storage.backend import forwarded
from zeromem_cli.storage.sqlite import fts as _sqlite

optimize = forwarded("fts", _sqlite.optimize)
bulk_loading = forwarded("fts", _sqlite.bulk_loading)
ensure_index_version = forwarded("fts", _sqlite.ensure_index_version)
