"""Lexical near-duplicate detection: is a new memory a rephrasing of one already stored?

Both texts become sets of features: content words (casefolded, stop words dropped, a light
suffix strip so "deploys"/"deploy" and "mornings"/"morning" meet) and CJK character bigrams
(Chinese function words removed first, as in search). Similarity is the overlap coefficient
blended with Jaccard::

    score = (|A & B| / min(|A|, |B|) + |A & B| / |A | B|) / 2

The overlap coefficient forgives a rephrasing that adds or drops a word; Jaccard keeps a short
memory from matching every longer one that happens to contain its two words. The threshold was
measured on the labelled pairs in ``tests/similarity_pairs.py`` (English and Chinese
rephrasings vs distinct facts); ``tests/test_similarity.py`` prints and checks the figures.

Similarity only ever *reports* (``add`` says "similar to #12") or, on request (``--merge``),
makes the new text the next version of the nearest memory. Nothing is deleted on similarity.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from zeromem_cli.models import Memory
from zeromem_cli.text.lexicon import ENGLISH_STOP_WORDS
from zeromem_cli.text.normalize import has_cjk, latin_words
from zeromem_cli.text.query import Term, expand_terms, query_words

# Measured on tests/similarity_pairs.py (42 pairs): rephrasings score 0.486-1.0, distinct
# facts 0.0-0.393. The threshold sits in the middle of that gap.
SIMILARITY_THRESHOLD = 0.44
# Candidates come from the FTS index (best BM25 matches of the new text), so checking a new
# memory costs one indexed query, not a scan of the store.
CANDIDATES = 20
# Candidate search uses the new text's rarest terms: each term's document count is probed up to
# RARE_CAP, and terms are taken rarest first while their counts add up to at most RARE_BUDGET
# (at least one term). Ranking every memory that shares a common word ("the report", "发送")
# would make each add on a large store slow (``python -m benchmarks.speed --only writes``).
RARE_CAP = 2_000
RARE_BUDGET = 5_000

_SUFFIXES = ("ing", "ed", "es", "s")


@functools.lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    """A deliberately crude suffix strip: enough for plurals and simple verb forms.

    Cached: words repeat across texts, and pack stems every word of a few hundred memories."""
    if has_cjk(word) or not word.isalpha():
        return word
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stripped = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(stripped) > 3 and stripped[-1] == stripped[-2]:
                stripped = stripped[:-1]  # "planned" -> "plan"
            return stripped
    return word


# Texts whose features are kept (a few MB at most): pack computes them for the memories it
# compares for near-duplicates, and a long-lived process (the MCP server, a library user)
# packs the same memories again and again. A one-shot command gains nothing.
FEATURE_CACHE = 4096


@functools.lru_cache(maxsize=FEATURE_CACHE)
def features(text: str) -> frozenset[str]:
    """The comparable features of ``text``: stemmed content words and CJK bigrams (cached:
    see ``FEATURE_CACHE``; the result is immutable)."""
    if text.isascii():  # most memories: no CJK, nothing to normalise, case folded at once
        words = set(latin_words(text.lower()))
        return frozenset(map(_stem, words - ENGLISH_STOP_WORDS or words))
    return word_features(query_words(text))


def word_features(words: Iterable[str]) -> frozenset[str]:
    """``features`` of a text already cut into words (``query.query_words``)."""
    return frozenset(_stem(t.casefold()) for t in words)


def similarity(a: str | frozenset[str], b: str | frozenset[str]) -> float:
    """0.0 (nothing in common) to 1.0 (same features); symmetric."""
    fa = features(a) if isinstance(a, str) else a
    fb = features(b) if isinstance(b, str) else b
    if not fa or not fb:
        return 0.0
    shared = len(fa & fb)
    if not shared:
        return 0.0
    overlap = shared / min(len(fa), len(fb))
    jaccard = shared / len(fa | fb)
    return (overlap + jaccard) / 2


def is_similar(score: float, threshold: float = SIMILARITY_THRESHOLD) -> bool:
    return score >= threshold


def nearest(
    mine: frozenset[str],
    candidates: Iterable[Memory],
    threshold: float = SIMILARITY_THRESHOLD,
) -> list[tuple[Memory, float]]:
    """Those of ``candidates`` (the best ``CANDIDATES`` matches of ``candidate_terms``) similar
    to the text whose features are ``mine``, most similar first."""
    scored = [(m, similarity(mine, m.content)) for m in candidates]
    hits = [(m, score) for m, score in scored if is_similar(score, threshold)]
    hits.sort(key=lambda pair: (-pair[1], -pair[0].id))
    return hits


def candidate_terms(
    words: Sequence[str], count: Callable[[Term], int]
) -> tuple[list[Term], list[Term]]:
    """The terms finding likely near-duplicates of a text cheaply: its rarest terms (see
    RARE_BUDGET), any of which a candidate holds, and its common ones, all of which a
    candidate holds otherwise (cheap: an intersection). Both empty when the text has no terms.

    ``words`` are the text's ``query_words``; ``count(term)`` is how many memories hold the
    term, counted up to ``RARE_CAP`` (``Backend.count_matches``). A rephrasing shares most of
    its features with the original, so it shares its rare terms.
    """
    terms = {word.casefold(): _term(word.casefold()) for word in words}
    counts = sorted((count(term), -len(word), word) for word, term in terms.items())
    rare: list[Term] = []
    total = 0
    for found, _, word in counts:
        if found == 0 or found >= RARE_CAP or (rare and total + found > RARE_BUDGET):
            continue
        rare.append(terms[word])
        total += found
    common = [terms[word] for found, _, word in counts if found >= RARE_CAP]
    return rare, common


def _term(word: str) -> Term:
    """One word as search spells it (a lone CJK character as a prefix), no variants."""
    return expand_terms([word], prefix=False, variants=False)[0]
