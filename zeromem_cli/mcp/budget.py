"""Token budgets of MCP tool results: a default, a hard cap, and the fill that keeps to them.

A client may hand a model either form of a result, the text content or the structured content
(Codex CLI passes the structured JSON, Claude Code the text), so both must fit: each is counted
with zeromem's own tokenizer (config ``pack.tokenizer``), the structured form as the compact
JSON the protocol carries. A call's ``max_tokens`` defaults to ``mcp.max_tokens`` and is
lowered to ``mcp.max_tokens_cap``; the ``max_tokens`` a result reports is the one it kept to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.pack.tokens import Tokenizer

# The smallest budget a call may ask for: every result's fixed part (its envelope, counts,
# notes) fits in it, so a result never has to exceed its budget: a smaller one gets what fits
# (possibly nothing) and `truncated` (the stats report alone may need more: an error then).
MIN_TOKENS = 100

T = TypeVar("T")
Rendered = tuple[str, dict[str, Any]]


def dumps(data: Any) -> str:
    """The structured form as the wire carries it: compact JSON, non-ASCII kept."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def resolve(requested: Any, default: int, cap: int) -> int:
    """The budget of one call: ``requested`` (tokens) or the default, never over the cap."""
    if requested is None:
        return max(MIN_TOKENS, min(default, cap))
    if isinstance(requested, bool) or not isinstance(requested, int):
        raise InvalidInputError(f"max_tokens must be a whole number of tokens, not {requested!r}")
    if requested < MIN_TOKENS:
        raise InvalidInputError(f"max_tokens must be at least {MIN_TOKENS}, not {requested}")
    return min(requested, max(MIN_TOKENS, cap))


class Budget(NamedTuple):
    """``max_tokens`` for one result and the counter that measures it."""

    max_tokens: int
    counter: Tokenizer

    def text_tokens(self, text: str) -> int:
        return self.counter.count(text)

    def data_tokens(self, data: dict[str, Any]) -> int:
        return self.counter.count(dumps(data))

    def fits(self, data: dict[str, Any]) -> bool:
        """Whether a result ``stamp`` measured keeps to the budget in both forms."""
        return int(data["tokens"]) <= self.max_tokens

    def stamp(self, text: str, data: dict[str, Any]) -> Rendered:
        """Set ``data["tokens"]`` to the larger count of the two forms (and ``max_tokens``).
        The structured form is measured with the budget itself in that field, whose digits are
        as many or more than the count's: the form sent never counts more than measured."""
        data["tokens"] = self.max_tokens
        data["max_tokens"] = self.max_tokens
        data["tokens"] = max(self.text_tokens(text), self.data_tokens(data))
        return text, data

    def fill(
        self,
        items: Sequence[T],
        unit_text: Callable[[T], str],
        unit_data: Callable[[T], Any],
        render: Callable[[list[T], bool], Rendered],
    ) -> tuple[list[T], bool, str, dict[str, Any]]:
        """The items, in order, that fit both forms; skips one that does not fit and goes on
        (a smaller one may). ``render(chosen, truncated)`` builds both forms; its data must
        hold ``tokens`` and ``max_tokens`` (set here). Returns (chosen, truncated, text, data).

        When everything fits (the usual case) that is two counts. Otherwise each item's cost is
        its own count less the tokenizer's per-text overhead; the whole result is then counted
        once more and the last items dropped until it fits.
        """
        everything = list(items)
        text, data = self.stamp(*render(everything, False))
        if self.fits(data):
            return everything, False, text, data
        overhead = self.counter.overhead
        text, data = self.stamp(*render([], True))
        if not self.fits(data):
            raise InvalidInputError(
                f"max_tokens {self.max_tokens} is too small for this result's envelope"
            )
        used_text, used_data = self.text_tokens(text), self.data_tokens(data)
        chosen: list[T] = []
        truncated = False
        for item in everything:
            cost_text = max(1, self.text_tokens(unit_text(item)) - overhead)
            cost_data = max(1, self.counter.count(dumps(unit_data(item))) - overhead) + 1
            if used_text + cost_text > self.max_tokens or used_data + cost_data > self.max_tokens:
                truncated = True
                continue
            chosen.append(item)
            used_text += cost_text
            used_data += cost_data
        while True:
            text, data = self.stamp(*render(chosen, truncated))
            if self.fits(data) or not chosen:
                return chosen, truncated, text, data
            chosen.pop()
            truncated = True


def shorten_to_fit(
    budget: Budget, content: str, build: Callable[[str, bool], Rendered]
) -> tuple[str, dict[str, Any]] | None:
    """Both forms of a single item whose ``content`` alone would not fit: the longest prefix of
    the content that fits (binary search); None when not even a few characters fit.
    ``build(content, cut)`` renders the result with that content."""
    low, high = 0, len(content)
    best: Rendered | None = None
    while low < high:
        middle = (low + high + 1) // 2
        text, data = budget.stamp(*build(content[:middle] + "…", True))
        if budget.fits(data):
            low, best = middle, (text, data)
        else:
            high = middle - 1
    return best if low > 0 else None


__all__ = ["MIN_TOKENS", "Budget", "dumps", "resolve", "shorten_to_fit"]
