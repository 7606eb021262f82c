"""British and American spellings of one word, so ``favorite color`` finds ``favourite colour``.

Query side only: each Latin query word also searches its other spelling (``query.expand_terms``
and the coverage test in ``search``), so the index is unchanged and no store rebuilds. A rule
set for the regular patterns (-our/-or stems, -ise/-ize, -yse/-yze, -isation/-ization) and a
word list for the rest (-re/-er, -ogue/-og, -ence/-ense, doubled l, odd pairs). A variant that
is not a real word costs nothing: it matches no memory.
"""

from __future__ import annotations

import functools

# British -our stems; the American stem drops the u (colour -> color, colourful -> colorful).
_OUR_STEMS = (
    "colour", "favour", "behaviour", "honour", "labour", "neighbour", "flavour", "humour",
    "rumour", "harbour", "armour", "savour", "vapour", "endeavour", "odour", "rigour", "vigour",
    "parlour", "clamour", "splendour", "tumour", "valour", "candour", "fervour",
)  # fmt: skip
# British -> American whole words; plurals and -d/-ed/-ing forms are derived below.
_PAIRS = {
    "centre": "center", "theatre": "theater", "metre": "meter", "litre": "liter",
    "fibre": "fiber", "calibre": "caliber", "sombre": "somber", "spectre": "specter",
    "lustre": "luster", "meagre": "meager", "sabre": "saber", "kilometre": "kilometer",
    "centimetre": "centimeter", "millimetre": "millimeter",
    "catalogue": "catalog", "dialogue": "dialog", "analogue": "analog", "prologue": "prolog",
    "epilogue": "epilog", "monologue": "monolog",
    "defence": "defense", "offence": "offense", "licence": "license", "pretence": "pretense",
    "travelled": "traveled", "travelling": "traveling", "traveller": "traveler",
    "cancelled": "canceled", "cancelling": "canceling", "modelled": "modeled",
    "modelling": "modeling", "labelled": "labeled", "labelling": "labeling",
    "fuelled": "fueled", "counselling": "counseling", "jewellery": "jewelry",
    "grey": "gray", "programme": "program", "pyjamas": "pajamas", "aluminium": "aluminum",
    "mum": "mom", "plough": "plow", "mould": "mold", "moustache": "mustache",
    "sceptical": "skeptical", "aeroplane": "airplane", "cosy": "cozy", "doughnut": "donut",
    "ageing": "aging", "judgement": "judgment", "enrol": "enroll", "fulfil": "fulfill",
    "cheque": "check", "manoeuvre": "maneuver", "oestrogen": "estrogen",
    "paediatric": "pediatric", "anaesthesia": "anesthesia", "encyclopaedia": "encyclopedia",
}  # fmt: skip
# Suffixes that turn -ise into -ize (and back), longest first.
_ISE = ("isations", "isation", "ising", "ised", "iser", "isers", "ises", "ise")
_YSE = ("ysing", "ysed", "yses", "yse")
# -ise words that are never -ize (and would only add dead terms).
_ISE_ONLY = frozenset(
    "advise arise comprise compromise concise despise devise disguise enterprise exercise "
    "expertise franchise improvise merchandise otherwise paradise praise precise premise "
    "promise raise revise supervise surprise televise treatise wise noise poise cruise "
    "chastise incise excise".split()
)


# Every listed word, each after a space: every form in ``_word_pairs`` starts with the first
# three letters of one, so a word starting otherwise (most words) is answered by one substring
# test, without building the table.
_LISTED = " " + " ".join([*_PAIRS, *_PAIRS.values()])


def _may_be_listed(word: str) -> bool:
    return f" {word[:3]}" in _LISTED


@functools.cache
def _word_pairs() -> dict[str, str]:
    """Every listed form, both ways (built on first use: most queries never need it)."""
    pairs: dict[str, str] = {}
    for british, american in _PAIRS.items():
        if british == american:
            continue
        for suffix in ("", "s"):
            pairs[british + suffix] = american + suffix
            pairs[american + suffix] = british + suffix
        if british.endswith("re") and american.endswith("er"):
            pairs[british + "d"] = american + "ed"  # centred / centered
            pairs[american + "ed"] = british + "d"
    return pairs


@functools.lru_cache(maxsize=4096)
def spelling_variants(word: str) -> tuple[str, ...]:
    """The other spellings of ``word`` (lower-case), British <-> American; () for most words."""
    if len(word) < 3 or not word.isascii() or not word.isalpha():
        return ()
    word = word.lower()
    found: list[str] = []
    other = _word_pairs().get(word) if _may_be_listed(word) else None
    if other:
        found.append(other)
    for stem in _OUR_STEMS:
        american = stem[:-2] + "r"
        if word.startswith(stem):
            found.append(american + word[len(stem) :])
        elif word.startswith(american):
            found.append(stem + word[len(american) :])
    if len(word) >= 6:
        for suffixes, british, american in ((_ISE, "is", "iz"), (_YSE, "ys", "yz")):
            for suffix in suffixes:
                zed = american + suffix[2:]
                if word.endswith(suffix):
                    base = word[: -len(suffix)] + british + "e"
                    if base not in _ISE_ONLY and word not in _ISE_ONLY:
                        found.append(word[: -len(suffix)] + zed)
                    break
                if word.endswith(zed):
                    found.append(word[: -len(zed)] + suffix)
                    break
    return tuple(dict.fromkeys(f for f in found if f != word))
