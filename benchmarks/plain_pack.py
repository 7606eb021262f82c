"""Plain baselines for pack: BM25 hits (``plain_fts``) or the newest memories, packed greedily
into a budget with the same formatter and token counter as ``MemoryStore.pack``."""

from __future__ import annotations

from collections.abc import Iterable

from zeromem_cli.models import Memory
from zeromem_cli.pack.format import Formatter, plain_content
from zeromem_cli.pack.tokens import get_tokenizer


def greedy_pack(memories: Iterable[Memory], budget: int, tokenizer: str) -> set[int]:
    """Ids of ``memories``, taken in order while they fit ``budget`` (each that does not fit
    is skipped), then trimmed until the rendered block fits."""
    counter = get_tokenizer(tokenizer)
    formatter = Formatter("text", None, plain_content)
    chosen: list[Memory] = []
    used = 0
    for memory in memories:
        cost = max(1, counter.count(formatter.unit(memory)) - counter.overhead)
        if used + cost <= budget:
            chosen.append(memory)
            used += cost
    while chosen and counter.count(formatter.render(chosen)) > budget:
        chosen.pop()
    return {m.id for m in chosen}
