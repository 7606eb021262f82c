"""Statements over many memories (interface; see ``storage.backend``): forget and gc batches,
purge, maintenance, stats counts, bulk import."""

from __future__ import annotations

from zeromem_cli.storage.backend import forwarded
from zeromem_cli.storage.sqlite import bulk as _sqlite

COLUMNS = _sqlite.COLUMNS
HISTORY_COLUMNS = _sqlite.HISTORY_COLUMNS
GC_SELECTIONS = _sqlite.GC_SELECTIONS
ImportConflict = _sqlite.ImportConflict

selected = forwarded("bulk", _sqlite.selected)
forget_live = forwarded("bulk", _sqlite.forget_live)
trash = forwarded("bulk", _sqlite.trash)
delete_for_good = forwarded("bulk", _sqlite.delete_for_good)
checkpoint = forwarded("bulk", _sqlite.checkpoint)
vacuum = forwarded("bulk", _sqlite.vacuum)
gc_count = forwarded("bulk", _sqlite.gc_count)
gc_batch = forwarded("bulk", _sqlite.gc_batch)
soft_delete = forwarded("bulk", _sqlite.soft_delete)
counts = forwarded("bulk", _sqlite.counts)
live_by_category = forwarded("bulk", _sqlite.live_by_category)
live_by_scope = forwarded("bulk", _sqlite.live_by_scope)
live_contents = forwarded("bulk", _sqlite.live_contents)
server_bytes = forwarded("bulk", _sqlite.server_bytes)
existing = forwarded("bulk", _sqlite.existing)
fresh_ids = forwarded("bulk", _sqlite.fresh_ids)
update_imported = forwarded("bulk", _sqlite.update_imported)
insert_imported = forwarded("bulk", _sqlite.insert_imported)
