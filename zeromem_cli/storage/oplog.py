"""The operations log table (interface; see ``storage.backend``)."""

from __future__ import annotations

from zeromem_cli.storage.backend import forwarded
from zeromem_cli.storage.sqlite import oplog as _sqlite

append = forwarded("oplog", _sqlite.append)
totals = forwarded("oplog", _sqlite.totals)
