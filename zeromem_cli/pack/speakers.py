"""Speakers for ``pack``: a turn spoken by someone the question names ranks up.

A conversation stored turn by turn labels each memory with its speaker ("Ana: we repainted
the shed", "user: ...", as ``ingest`` and the benchmarks write chat turns). Between two
people, the turns that name one of them are as often the other's, speaking to them ("Wow,
Ana, that's amazing!"), and BM25 cannot tell the two apart: the name is one word of
the text either way. A question about one of them ("what did Ana repaint?") is answered
by that person's own turns, so those turns gain ``Tuning.speaker`` of their score. It applies only
when the candidates' speakers differ in being named: with no label, no name asked, or every
speaker named ("what do Ana and Ben both like?"), nothing changes. Chosen on the LoCoMo
tuning half (``python -m benchmarks.pack_recall``); LongMemEval's ``user`` and
``assistant`` are never named by its questions, so it is untouched there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from zeromem_cli.models import Memory
from zeromem_cli.text.normalize import fold
from zeromem_cli.text.speakers import speaker_of


# A speaker label opening a memory: one or two words ("Ana", "Dr. Li", "user"), a colon,
# a space. Longer openings before a colon are sentences, not names.
def spoken_by_named(words: Iterable[str], memories: Mapping[int, Memory]) -> set[int]:
    """The ids of the turns of a speaker that ``words`` (the question's content words)
    names, when some other speaker is not named; empty when nothing tells the speakers
    apart. Their relevance gains ``ranking.factors.speaker_factor``."""
    asked = {fold(word) for word in words}
    if not asked:
        return set()
    speakers = {memory_id: speaker_of(m.content) for memory_id, m in memories.items()}
    labels = {label for label in speakers.values() if label}
    named = {label for label in labels if not asked.isdisjoint(label)}
    if not named or named == labels:
        return set()
    return {memory_id for memory_id, label in speakers.items() if label in named}


__all__ = ["spoken_by_named"]
