"""``pack``: the most relevant memories that fit a token budget, formatted for a prompt.

``select`` chooses (search hits, pinned, important and recent memories, re-scored),
``format`` renders, ``tokens`` counts; the factors that score live in ``zeromem_cli.ranking``.
"""

# Search hits a pack considers (``pack(pool=...)``).
DEFAULT_POOL = 200
