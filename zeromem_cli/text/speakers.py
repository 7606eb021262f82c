"""Speaker labels: "Ana: we repainted the shed", "user: ...", "assistant: ...".

A conversation stored turn by turn (``ingest``, an agent's hooks, an imported chat) opens
each memory with who said it. ``pack`` ranks the turns of a speaker the question names
(``pack.speakers``).
"""

from __future__ import annotations

import re

from zeromem_cli.text.normalize import fold

# A speaker label opening a memory: one or two words ("Ana", "Dr. Li", "user"), a colon,
# a space. Longer openings before a colon are sentences, not names.
_LONGEST = 70  # two words of up to 31 characters, spaces, the colon
_LABEL = re.compile(r"\s*([^\W\d_][\w'.-]{0,30}(?: [^\W\d_][\w'.-]{0,30})?):\s")


def speaker_of(content: str) -> tuple[str, ...]:
    """The words of the speaker label ``content`` opens with, folded (``("dr", "li")``), or
    () when it opens with none."""
    head = content[:_LONGEST]
    if ":" not in head:  # most memories: no label, no pattern run
        return ()
    found = _LABEL.match(head)
    if found is None:
        return ()
    label = found.group(1)
    label = label.casefold() if label.isascii() else fold(label)
    return tuple(word.strip(".'-") for word in label.split())


__all__ = ["speaker_of"]
