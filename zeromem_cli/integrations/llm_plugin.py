"""The ``llm`` plugin: zeromem memory in simonw's ``llm`` CLI, at zero tokens of upkeep.

``llm`` finds this module through the ``llm`` entry-point group of zeromem's package metadata
(``pyproject.toml``), so installing zeromem where ``llm`` runs enables it (``llm plugins``
lists it). It is the only module of zeromem that imports ``llm``, and nothing imports it but
``llm``. ``llm`` loads every plugin on each of its commands, so this module defines its hooks
and loads zeromem's store only when a fragment or a tool is used. The work is done in
``llm_memory``.

- ``llm -f zeromem:QUERY ...``: the memories packed for QUERY (``zeromem:`` alone: the core
  memory), as ``zeromem pack QUERY --no-touch`` prints them.
- ``llm -T Zeromem ...``: tools ``Zeromem_search``, ``Zeromem_remember``, ``Zeromem_forget``;
  ``-T 'Zeromem(user="alice", project="auto", max_tokens=800)'`` sets the store, scope and
  result budget.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click
import llm

from zeromem_cli.errors import ZeromemError
from zeromem_cli.integrations import llm_memory

MIN_TOOL_TOKENS = 20


@contextmanager
def _one_line() -> Iterator[None]:
    """zeromem's errors as ``llm`` shows them (to the person, or to the model as the tool's
    output): one line, a likely secret quoted from the call masked, a long value cut
    (``text.display.message_line``, as the CLI, MCP and hooks show theirs)."""
    try:
        yield
    except ZeromemError as exc:
        from zeromem_cli.text.display import message_line

        raise type(exc)(message_line(str(exc))) from None


@llm.hookimpl
def register_fragment_loaders(register: Callable[..., Any]) -> None:
    register(llm_memory.PREFIX, zeromem_fragment)


def zeromem_fragment(argument: str) -> llm.Fragment:
    """Memories from zeromem packed for a query, within a token budget.

    zeromem:QUERY packs what QUERY needs; zeromem: alone the core memory (pinned, important,
    recent). Options after the last '?': budget, format, tokenizer, category, tag, inherit,
    header, user, agent, session, project, isolate, e.g.
    zeromem:weekly report?budget=300&format=markdown
    """
    with _one_line():
        text = llm_memory.fragment_text(argument)
    return llm.Fragment(text, f"{llm_memory.PREFIX}:{argument}")


@llm.hookimpl
def register_tools(register: Callable[..., Any]) -> None:
    register(Zeromem)


class Zeromem(llm.Toolbox):
    """Long-term memory that lasts across conversations: search it before answering questions
    about the user or their projects, remember durable facts, preferences and instructions,
    forget what is wrong or outdated."""

    def __init__(
        self,
        db: str | None = None,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        project: str | None = None,
        isolate: bool | None = None,
        max_tokens: int = llm_memory.DEFAULT_TOOL_TOKENS,
    ) -> None:
        # A bad -T 'Zeromem(...)' is the person's mistake, shown by llm (a click program) as
        # one "Error: ..." line rather than a traceback.
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
            raise click.ClickException(
                f"Zeromem: max_tokens must be a number of tokens, not {max_tokens!r}"
            )
        if max_tokens < MIN_TOOL_TOKENS:
            raise click.ClickException(f"Zeromem: max_tokens must be at least {MIN_TOOL_TOKENS}")
        if isolate is not None and not isinstance(isolate, bool):
            raise click.ClickException(f"Zeromem: isolate must be true or false, not {isolate!r}")
        self._where = llm_memory.Where(db, user, agent, session, project, isolate)
        self._max_tokens = max_tokens

    def search(self, query: str, limit: int = llm_memory.DEFAULT_SEARCH_LIMIT) -> str:
        """Find stored memories relevant to a query (any language, plain words or a question).
        Returns one line per memory, best first: #id [category] key date: text."""
        with _one_line():
            return llm_memory.search(self._where, query, limit, self._max_tokens)

    def remember(
        self,
        text: str,
        key: str | None = None,
        category: str | None = None,
        tags: list[str] | None = None,
    ) -> str:
        """Store one durable fact, preference or instruction, in one self-contained sentence.
        Give a short key (like "timezone") for something that has one current value: storing
        the same key again replaces the old value. Never store passwords, keys or tokens."""
        with _one_line():
            return llm_memory.remember(self._where, text, key, category, tags)

    def forget(self, id: int | None = None, key: str | None = None) -> str:
        """Forget one memory that is wrong or outdated, by its #id (from search) or its key."""
        with _one_line():
            return llm_memory.forget(self._where, id, key)


# ``llm`` sends a tool's docstring to the model as its description, indentation and all
# (Python 3.13 strips docstrings at compile time; earlier versions do not): tokens for nothing.
for _tool in (Zeromem.search, Zeromem.remember, Zeromem.forget):
    _tool.__doc__ = inspect.cleandoc(_tool.__doc__ or "")
