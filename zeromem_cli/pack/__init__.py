"""``pack``: the most relevant memories that fit a token budget, formatted for a prompt.

``select`` chooses (search hits, pinned, important and recent memories, re-scored),
``format`` renders, ``tokens`` counts; the factors that score live in ``zeromem_cli.ranking``.
"""

from zeromem_cli.requests import DEFAULT_POOL  # search hits a pack considers

__all__ = ["DEFAULT_POOL"]
