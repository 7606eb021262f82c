"""Memory vectors of the semantic extra (interface; see ``storage.backend``): blocks of an
owner's vectors, where each memory's vector is, coverage. Implementations:
``storage.sqlite.vectors`` and ``storage.postgres.vectors``."""

from __future__ import annotations

from zeromem_cli.storage.backend import forwarded
from zeromem_cli.storage.sqlite import vectors as _sqlite

BLOCK_SIZE = _sqlite.BLOCK_SIZE

model = forwarded("vectors", _sqlite.model)
set_model = forwarded("vectors", _sqlite.set_model)
clear = forwarded("vectors", _sqlite.clear)
fingerprint = forwarded("vectors", _sqlite.fingerprint)
owner_blocks = forwarded("vectors", _sqlite.owner_blocks)
block_of = forwarded("vectors", _sqlite.block_of)
open_block = forwarded("vectors", _sqlite.open_block)
save_block = forwarded("vectors", _sqlite.save_block)
place = forwarded("vectors", _sqlite.place)
unplace = forwarded("vectors", _sqlite.unplace)
block = forwarded("vectors", _sqlite.block)
visible = forwarded("vectors", _sqlite.visible)
unembedded = forwarded("vectors", _sqlite.unembedded)
coverage = forwarded("vectors", _sqlite.coverage)
stored_bytes = forwarded("vectors", _sqlite.stored_bytes)
content_hashes = forwarded("vectors", _sqlite.content_hashes)
drop_blocks_holding = forwarded("vectors", _sqlite.drop_blocks_holding)
