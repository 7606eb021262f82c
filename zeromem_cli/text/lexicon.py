"""Word lists the query processor uses: stop words (English, Chinese, Japanese), English
irregular verb forms, month and day names and counts written as words. Plain data, no logic,
so the lists are easy to review.

Stop words are words that say what kind of question is asked ("what", "when", "kind", "什么",
"吗") rather than what it is about. They are dropped from queries, never from the index, so a
memory can still be found by them with ``--fts``.
"""

from __future__ import annotations

ENGLISH_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could did do does doing don't done
    down during each either else ever few for from further had has have having he her here hers
    herself him himself his how i if in into is isn't it its itself just let me more most my
    myself no nor not now of off on once only or other ought our ours ourselves out over own same
    she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what whats when where which while who
    whom whose why will with would you your yours yourself yourselves s t d ll m re ve tell know
    remember please also yet still any anything something someone somebody thing things kind
    kinds type types sort sorts many much describe mention mentioned say said says likely
    might may must shall get got gets whether like""".split()
)

# Chinese question and function words of two or more characters: a query run is split at them.
CHINESE_STOP_PHRASES = sorted(
    """什么时候 为什么 怎么样 是不是 有没有 什么 怎么 哪里 哪儿 哪个 哪些 多少 几点 时候 请问
    告诉 我们 你们 他们 她们 它们 自己 这个 那个 这些 那些 一下 一个 可以 应该 需要 是否 还是
    或者 以及 还有 就是 但是 因为 所以 如果 关于 的话 之前 之后 刚才 哪天 多久 如何
    ですか でした ました ます です ください どこ いつ なに なん どう だれ""".split(),
    key=len,
    reverse=True,
)

# Single characters that are (almost) never part of a content word: a run is split at them.
# Weaker function characters (是, 在, 有, 会...) are kept, because they start or end many real
# words (会议, 过期, 现在); the bigrams they form with a neighbour are rare and BM25 gives them
# little weight.
CJK_PARTICLES = frozenset("的了吗呢吧啊呀么嘛哦哈呗")

# Characters that mean nothing alone: a one-character query piece made of one is dropped.
CJK_WEAK_CHARACTERS = frozenset(
    "是在和与及或也都就还我你他她它把被给让向从对到又很该要会能得地着过这那哪谁几有个吗呢"
)

# Base form -> other forms, for verbs whose past tense stemming cannot reach.
_IRREGULAR = """
be was were been | begin began begun | break broke broken | bring brought | build built |
buy bought | catch caught | choose chose chosen | come came | cost | cut | do did done |
draw drew drawn | drink drank drunk | drive drove driven | eat ate eaten | fall fell fallen |
feel felt | fight fought | find found | fly flew flown | forget forgot forgotten | get got gotten |
give gave given | go went gone | grow grew grown | have had | hear heard | hold held |
hurt | keep kept | know knew known | lead led | learn learnt | leave left | lend lent | lose lost |
make made | mean meant | meet met | pay paid | put | read | ride rode ridden | ring rang rung |
rise rose risen | run ran | say said | see saw seen | sell sold | send sent | set | shake shook |
shoot shot | show showed shown | sing sang sung | sit sat | sleep slept | speak spoke spoken |
spend spent | stand stood | steal stole stolen | swim swam swum | take took taken | teach taught |
tell told | think thought | throw threw thrown | understand understood | wake woke woken |
wear wore worn | win won | write wrote written
"""


# The table's words, each between spaces: a word not in it is answered by one substring test,
# without building the table (most query words are not irregular verbs).
_IRREGULAR_WORDS = " " + " ".join(_IRREGULAR.replace("|", " ").split()) + " "
_IRREGULAR_GROUPS: dict[str, tuple[str, ...]] = {}


def _irregular_groups() -> dict[str, tuple[str, ...]]:
    """Each word -> all the forms of its verb, one tuple per verb, built on first need (a
    cold search starts often: ``python -m benchmarks.startup_compare --callgrind``)."""
    for group in _IRREGULAR.split("|"):
        words = tuple(group.split())
        _IRREGULAR_GROUPS.update(dict.fromkeys(words, words))
    return _IRREGULAR_GROUPS


def irregular_forms(word: str) -> tuple[str, ...]:
    """The other forms of ``word``'s verb (``went`` -> ``go``, ``gone``), in the table's order;
    none for a word not in the table."""
    if " " in word or f" {word} " not in _IRREGULAR_WORDS:
        return ()
    group = (_IRREGULAR_GROUPS or _irregular_groups()).get(word)
    if group is None:
        return ()
    return tuple([form for form in group if form != word])


MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


# Day names, Monday first (``datetime.weekday()`` order), for "last Saturday".
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# Counts as people write them in "two weeks ago", "the past three months", "a few days ago".
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple": 2,
    "a couple": 2,
    "a couple of": 2,
    "couple of": 2,
    "few": 3,
    "a few": 3,
    "several": 3,
}
