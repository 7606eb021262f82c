"""What a hook injects: memories packed for the moment, exactly within its token budget.

Session start: no query, so ``pack`` gives the pinned "core memory" first, then the most
important and recent memories. Each prompt: ``pack`` for the prompt's text. Both read the
project's memories and the user's project-less ones (``inherit``), never another project's or
user's. Both skip what this harness session was already given (``exclude``) and never record
an access: a hook runs on every prompt and stays a read, so it never waits on another
process's write lock.

The block is delimited (``<zeromem-memory>``) so a transcript reader can drop it if a
harness records it as part of the user's turn, and the budget counts every character of it,
tags included. It also stays under the harness's whole-delivery size (``MAX_CONTEXT_CHARS``).

Hooks count with the ``approx`` tokenizer whatever ``pack.tokenizer`` says: loading an exact
vocabulary (about a second) takes longer than a hook may run. ``approx`` is the conservative
counter (docs/pack.md); the budget is exact in its tokens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zeromem_cli.integrations.harnesses import MAX_CONTEXT_CHARS
from zeromem_cli.integrations.private import (
    INJECTION_CLOSE,
    INJECTION_OPEN,
    strip_private,
)

if TYPE_CHECKING:
    from zeromem_cli.models import Memory
    from zeromem_cli.store import MemoryStore

# Search hits a prompt's pack starts from. A hook's budget holds about ten memories: a smaller
# pool than the library's 200 loses no evidence recall at that budget (python -m
# benchmarks.pack_recall --no-session --budgets 300 --pool 60, against --pool 200) and keeps
# the cold run fast (python -m benchmarks.hook_latency).
HOOK_POOL = 60

TITLES = {
    "session-start": "What the user told earlier sessions (may be outdated):",
    "user-prompt": "From earlier sessions, may bear on this prompt:",
}


def _content(memory: Memory) -> str:
    from zeromem_cli.pack.format import masked_content

    # A stored memory must not close (or open) the block it is printed in.
    return masked_content(memory).replace("zeromem-memory", "zeromem memory")


def injection(
    store: MemoryStore,
    event: str,
    query: str | None,
    *,
    budget: int,
    exclude: list[int],
    tokenizer: str = "approx",
) -> tuple[str, list[int]]:
    """(text to inject, ids of the memories in it); ("", []) when nothing fits or matches."""
    from zeromem_cli.pack.tokens import get_tokenizer

    if query is not None:
        query = strip_private(query)
        if not query.strip():
            return "", []
    counter = get_tokenizer(tokenizer)
    header = f"{INJECTION_OPEN}\n{TITLES[event]}"
    room = budget - counter.count(INJECTION_CLOSE)
    for _ in range(4):
        if room <= 0:
            return "", []
        result = store.pack(
            query,
            budget=room,
            tokenizer=tokenizer,
            format="text",
            header=header,
            touch=False,
            pool=HOOK_POOL,
            content_of=_content,
            exclude=exclude,
            inherit=True,  # the user's own memories outside the project too
        )
        if not result.memories:
            return "", []
        text = result.text + INJECTION_CLOSE
        tokens = counter.count(text)
        if tokens <= budget and len(text) <= MAX_CONTEXT_CHARS:
            return text, [m.id for m in result.memories]
        # Over by the join of the two parts, or too long for the harness: pack smaller.
        room = min(room - (tokens - budget) - 1, room * MAX_CONTEXT_CHARS // len(text) - 1)
    return "", []
