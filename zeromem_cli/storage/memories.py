"""Memory rows (interface; see ``storage.backend``): rows <-> records, one memory's reads,
writes and versions. Implementations: ``storage.sqlite.memories``, ``storage.postgres.memories``."""

from __future__ import annotations

from zeromem_cli.storage.backend import forwarded
from zeromem_cli.storage.sqlite import memories as _sqlite

Row = _sqlite.Row
to_memory = _sqlite.to_memory
history_record = _sqlite.history_record

visible_row = forwarded("memories", _sqlite.visible_row)
by_id = forwarded("memories", _sqlite.by_id)
has_id = forwarded("memories", _sqlite.has_id)
ids_by_uid_prefix = forwarded("memories", _sqlite.ids_by_uid_prefix)
fetch = forwarded("memories", _sqlite.fetch)
newest_first = forwarded("memories", _sqlite.newest_first)
in_id_order = forwarded("memories", _sqlite.in_id_order)
count = forwarded("memories", _sqlite.count)
pack_candidates = forwarded("memories", _sqlite.pack_candidates)
pinned_standing = forwarded("memories", _sqlite.pinned_standing)
by_ids = forwarded("memories", _sqlite.by_ids)
neighbours = forwarded("memories", _sqlite.neighbours)
session_openers = forwarded("memories", _sqlite.session_openers)
live_by_key = forwarded("memories", _sqlite.live_by_key)
live_by_hash = forwarded("memories", _sqlite.live_by_hash)
history = forwarded("memories", _sqlite.history)
history_by_memory = forwarded("memories", _sqlite.history_by_memory)
insert = forwarded("memories", _sqlite.insert)
touch_updated = forwarded("memories", _sqlite.touch_updated)
replace_version = forwarded("memories", _sqlite.replace_version)
mark_forgotten = forwarded("memories", _sqlite.mark_forgotten)
undelete = forwarded("memories", _sqlite.undelete)
record_access = forwarded("memories", _sqlite.record_access)


class KeyTaken(Exception):
    """``insert`` found the key live in the scope: another writer committed it meanwhile
    (PostgreSQL; on SQLite the write lock makes the check and the insert one step)."""
