"""Applying rules to text: sentences, guards, matching and cleaning into ``Candidate`` memories.

Storing chatter is the worse failure, so a match is only the start. Guards then drop:

- questions ("do you remember ...?", "你记得...吗", "is my timezone right?"), except polite
  requests ("could you remember that ...?");
- hypotheticals ("suppose I prefer ...", "假如...", "if ..."; a conditional is allowed only
  for standing instructions: "if I ask for code, always use Python");
- reported or quoted speech ("the docs say you should always ...", a trigger inside quotes);
- for facts, discourse that looks like "my X is Y" ("my point is that ...", "我的意思是...")
  and passing states ("my build is failing again", "my internet is slow today");
- for preferences, comments on the conversation ("I like that idea", "我喜欢这个方案");
- for forget requests, targets that name nothing ("forget it", "忘了吧").

Cleaning removes the trigger and filler ("btw", "please", "对了", trailing "吧") and keeps the
user's own words and language: nothing is translated or paraphrased.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from zeromem_cli.ingest.formats import Message
from zeromem_cli.ingest.rules import SENTENCE_SCRIPTS, Rule
from zeromem_cli.text.normalize import has_cjk
from zeromem_cli.text.query import query_terms


@dataclass
class Candidate:
    """Something a rule found: a memory to store, or a forget request (``content`` = target)."""

    action: str  # "store" or "forget"
    content: str
    category: str
    key: str | None
    importance: int
    ttl: str | None
    rule: str
    family: str
    role: str = "user"
    message: int = 0
    sentence: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "content": self.content,
            "category": self.category,
            "key": self.key,
            "importance": self.importance,
            "ttl": self.ttl,
            "rule": self.rule,
            "family": self.family,
            "role": self.role,
            "message": self.message,
        }


@dataclass
class Rejection:
    """A rule matched but a guard said no (collected on request, for debugging rules)."""

    rule: str
    reason: str
    sentence: str


# -- sentences and filler -----------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;…])\s*|\n+|(?<=\.)\s+(?=\S)")
_EN_FILLER = re.compile(
    r"^(?!just\s+so\s+you\s+know)(?:ok(?:ay)?|so|also|and|btw|by\s+the\s+way|oh|hey|hi|hello|well|um+|uh+|anyway|"
    r"actually|one\s+more\s+thing|p\.?s\.?|please|pls|plz|kindly|just|thanks|thank\s+you|"
    r"alright|right|yes|yeah|sure)\b[\s,.:!\-–—]*",
    re.IGNORECASE,
)
_ZH_FILLER = re.compile(
    r"^(?:嗯+|哦+|噢+|啊+|诶|哎|对了|另外|还有|顺便说一下|顺便说一句|顺便提一下|顺便|然后|好的|"
    r"那个|话说|其实|请注意|请|麻烦你|麻烦|谢谢|对)[\s，,。.：:!！~、]*"
)
_TRAILING = re.compile(
    r"(?:[\s.。!！~…,，;；:：、]+|,?\s*(?:please|thanks|thank\s+you)$|"
    r"(?<=[\u4e00-\u9fff])(?:吧|哦|啊|呀|哈|喔|啦|嘛|就行了|就行|就好|就可以了|就可以|谢谢))$",
    re.IGNORECASE,
)
_FINAL_STOP = re.compile(r"[\s.。!！~…]+$")
_QUOTE_PAIRS = (("“", "”"), ("「", "」"), ("『", "』"), ("‘", "’"))


def split_sentences(text: str) -> list[str]:
    text = text.replace("\u2019", "'")
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def strip_filler(sentence: str) -> str:
    previous = None
    while previous != sentence:
        previous = sentence
        sentence = _EN_FILLER.sub("", sentence, count=1)
        sentence = _ZH_FILLER.sub("", sentence, count=1).strip()
    return sentence


def clean(text: str) -> str:
    """Trim what a trigger leaves around the content: punctuation, quotes, tail particles."""
    text = text.strip().lstrip(",:;，：；、-–— ")
    previous = None
    while previous != text:
        previous = text
        text = _TRAILING.sub("", text).strip()
        for opening, closing in (('"', '"'), ("'", "'"), *_QUOTE_PAIRS):
            if len(text) > 2 and text.startswith(opening) and text.endswith(closing):
                text = text[1:-1].strip()
    return text


def make_key(text: str) -> str | None:
    """A key from text: Latin lower-cased with ``_`` between words, CJK as written."""
    key = re.sub(r"'s\b", "", text.strip().casefold())
    key = re.sub(r"[^\w]+", "_", key).strip("_")
    if not key or len(key) > 60:
        return None
    return key


# -- guards -------------------------------------------------------------------------------------

_EN_WH = r"(?:what|who|whom|whose|where|when|why|how|which)"
_EN_QUESTION_START = re.compile(
    rf"^(?:{_EN_WH}\b|(?:do|does|did|can|could|would|will|is|are|am|was|were|should|shall|may|"
    r"have|has|isn't|aren't|don't|doesn't|didn't|won't|can't)\s+"
    r"(?:you|i|we|my|it|this|that|there|he|she|they|your|the)\b)",
    re.IGNORECASE,
)
_ZH_WH = re.compile(
    r"什么|怎么|为什么|哪|谁|多少|几点|几个|是不是|有没有|能不能|可不可以|要不要|会不会|对不对|"
    r"好不好|行不行|来着"
)
_ZH_QUESTION_END = re.compile(r"[吗呢么][\s。.!！~]*$")
_POLITE_EN = re.compile(r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?", re.IGNORECASE)
_POLITE_REQUEST = re.compile(
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:remember|note|keep\s+in\s+mind|"
    r"make\s+a\s+note)(?:\s+(?:that\b|this\s*:)|\s*:)",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"^(?:(?:suppose|supposing|imagine|what\s+if|hypothetically|let's\s+say|pretend|assuming|"
    r"assume|in\s+theory)\b|假如|假设|要是|万一|想象|倘若|如果说|设想)",
    re.IGNORECASE,
)
_CONDITIONAL = re.compile(r"^(?:if\b|如果)", re.IGNORECASE)
_REPORTED = re.compile(
    r"\b(?:say|says|said|tell|tells|told|ask|asks|asked|wrote|writes|mention(?:s|ed)?|"
    r"claim(?:s|ed)?|think|thinks|thought)\b|说|告诉|问|写道|提到|听说|觉得|认为",
    re.IGNORECASE,
)

# "my X is ..." where X is discourse, not a fact about the user.
_EN_NOT_FACT_KEYS = frozenset(
    """point guess bad question concern problem issue idea opinion answer understanding thought
    thoughts feeling fault pleasure turn mistake suggestion take impression worry hope bet
    reasoning argument assumption theory view sense experience code build test tests output
    result results error draft version prompt request day week life head main concern bad
    apologies excuse reaction response reply plan goal""".split()
)
_ZH_NOT_FACT_KEYS = re.compile(
    r"^(?:意思|问题|理解|想法|看法|建议|感觉|观点|猜测|回答|答案|代码|意见|天|错|目的|重点|疑问|困惑|"
    r"担心|顾虑|打算|计划|希望|梦想|经验|印象|结论|判断|原话|想象|回复)$"
)
_ZH_OWNER_VERBS = re.compile(
    r"觉得|认为|想|说|看|知道|猜|希望|发现|听|刚|又|要|不|没|就|也|都|在|已经"
)
# A value that describes a passing state or a manner of speaking, not a lasting fact.
_EN_PASSING = re.compile(
    r"^(?:that|whether|to|not|so|too|very|really|pretty|quite|kind\s+of|sort\s+of|a\s+bit|"
    r"being|getting|still|also|just|probably|maybe|like|broken|down|slow|fine|ok|okay|dead|gone|"
    r"full|empty|stuck|missing|failing|crashing|messed\s+up|a\s+mess|wrong|off|on|out|over|done|"
    r"finished|ready|busy|late|here|there|this|that|it|what|how|acting\s+up)\b|"
    r"\b(?:again|today|tonight|right\s+now|at\s+the\s+moment|currently|anymore|yesterday|"
    r"this\s+morning|these\s+days|lately)\b",
    re.IGNORECASE,
)
_ZH_PASSING = re.compile(
    r"^(?:不是|不|没|说|这样|那样|对的|错的|真的|挺|很|太|好|有点|一样|什么)|今天|刚才|现在|又"
)
_ANAPHORA_END = re.compile(r"(?:\b(?:it|this|that|them|him|her)|这个|那个|它)$", re.IGNORECASE)
# Objects that point at the conversation itself: "the second option you gave", "这个功能".
_CONVERSATIONAL = re.compile(
    r"\b(?:you|your|above|below|earlier|previous|last\s+one|first\s+one|second\s+one|"
    r"(?:first|second|third|last|other)\s+(?:option|one|version|answer|suggestion))\b|[这那]",
    re.IGNORECASE,
)
# Explicit content that points at the current context ("the output below is truncated").
_DEICTIC = re.compile(
    r"\b(?:below|above|attached|the\s+following|here\s+is|this\s+(?:output|log|file|code|"
    r"message|error|snippet))\b|^(?:this|that|it)(?:\s+is|\s+was|'s)\b|如下|以下|上面|下面|"
    r"^(?:这|那)(?:个|是|就是)",
    re.IGNORECASE,
)
# "my team is great", "我的老板是个很严格的人": a judgement, not a fact.
_EN_JUDGEMENT = re.compile(
    r"^(?:(?:a|an|so|very|really|pretty|super|the)\s+)*(?:great|awesome|amazing|terrible|awful|"
    r"horrible|nice|good|bad|cool|annoying|strict|boring|fun|funny|weird|crazy|lovely|beautiful|"
    r"ugly|stupid|smart|best|worst|kind|mean|lazy|difficult|hard|easy|hilarious|cute|the\s+best|"
    r"the\s+worst|fantastic|brilliant|useless|perfect)\b",
    re.IGNORECASE,
)
_ZH_JUDGEMENT = re.compile(r"很|挺|太|非常|特别|超级|真的|好坏|不错|厉害|差劲|讨厌")
_EMPTY_TARGET = re.compile(
    r"^(?:it|that|this|them|everything|all|about\s+it|him|her|他|她|它|这个|那个|这些|那些|"
    r"这件事|那件事|吧|了)$",
    re.IGNORECASE,
)


def is_question(sentence: str) -> bool:
    stripped = sentence.rstrip()
    if stripped.endswith(("?", "？")):
        return True
    if _EN_QUESTION_START.match(stripped):
        return True
    return has_cjk(stripped) and bool(_ZH_QUESTION_END.search(stripped))


def _guard(rule: Rule, sentence: str, match: re.Match[str]) -> str | None:
    """Why this match must not be used, or None."""
    prefix = sentence[: match.start()]
    if rule.guards:
        if _HYPOTHETICAL.match(sentence):
            return "hypothetical"
        if _CONDITIONAL.match(sentence) and rule.family != "instruction":
            return "conditional"
        question = is_question(sentence)
        zh_wh = bool(_ZH_WH.search(sentence)) and rule.family != "instruction"
        if rule.family == "explicit" and has_cjk(sentence):
            # "你能帮我记住...吗" is a request, unless it asks something ("你能记住多少东西").
            if zh_wh:
                return "question"
        elif rule.family == "explicit" and _POLITE_EN.match(sentence):
            # "could you remember that ...?" is a request; "can you remember the name of ...?"
            # asks to recall.
            if not _POLITE_REQUEST.match(sentence):
                return "question"
        elif question or zh_wh:
            return "question"
        if prefix and _REPORTED.search(prefix):
            return "reported speech"
        if _inside_quotes(prefix):
            return "quoted"
    groups = match.groupdict()
    if rule.family == "explicit" and _DEICTIC.search(groups.get("content") or ""):
        return "points at the current context"
    if rule.family == "fact":
        return _fact_guard(groups)
    if rule.family == "preference":
        obj = clean(groups.get("object") or "")
        too_short = len(obj) < (1 if has_cjk(obj) else 2)
        if groups.get("object") is not None and (
            too_short or _ANAPHORA_END.search(obj) or _CONVERSATIONAL.search(obj)
        ):
            return "refers to the conversation"
    return None


def _inside_quotes(prefix: str) -> bool:
    if prefix.count('"') % 2 == 1:
        return True
    return any(prefix.count(a) > prefix.count(b) for a, b in _QUOTE_PAIRS)


def _fact_guard(groups: dict[str, str | None]) -> str | None:
    key = (groups.get("key") or "").strip()
    value = clean(groups.get("value") or "")
    if key:
        if has_cjk(key):
            last = key.split("的")[-1]
            if _ZH_NOT_FACT_KEYS.match(last) or _ZH_OWNER_VERBS.search(key.split("的")[0]):
                return "discourse, not a fact"
        else:
            words = key.casefold().split()
            if len(words) > 4 or words[-1] in _EN_NOT_FACT_KEYS or words[0] in _EN_NOT_FACT_KEYS:
                return "discourse, not a fact"
    if groups.get("value") is not None:
        if not value:
            return "no value"
        if has_cjk(value) and _ZH_PASSING.search(value):
            return "passing state"
        if _ZH_JUDGEMENT.search(value) or _EN_JUDGEMENT.match(value):
            return "judgement, not a fact"
        if not has_cjk(value) and _EN_PASSING.search(value):
            return "passing state"
        if _ANAPHORA_END.search(value):
            return "refers to the conversation"
    return None


# -- matching -----------------------------------------------------------------------------------

_FORGET_LEAD = re.compile(
    r"^(?:about|that|the\s+fact\s+that|what\s+I\s+said\s+about|关于|之前说的|以前说的|我之前说的|"
    r"我说过的|我说的)\s*",
    re.IGNORECASE,
)
_FORGET_TAIL = re.compile(r"(?:这件事|那件事|这条|那条|的事情|的事|这个|那个|了|吧|啦|的)+$")


def _clean_target(text: str) -> str:
    text = clean(text)
    previous = None
    while previous != text:
        previous = text
        text = _FORGET_LEAD.sub("", text).strip()
        text = clean(_FORGET_TAIL.sub("", text))
    return text


def _has_terms(text: str) -> bool:
    return bool(query_terms(text))


def _fill(template: str, groups: dict[str, str | None], *, as_key: bool) -> str:
    values: dict[str, str] = {}
    for name, value in groups.items():
        text = clean(value or "")
        values[name] = (make_key(text) or "") if as_key else text
    return template.format(**values)


def _candidate(
    rule: Rule, sentence: str, match: re.Match[str], role: str, message: int
) -> Candidate | None:
    groups = match.groupdict()
    if rule.content:
        raw = _fill(rule.content, groups, as_key=False)
    elif groups.get("content") is not None:
        raw = groups["content"] or ""
    else:
        raw = match.group(0)
    if rule.action == "forget":
        content = _clean_target(raw)
        if not content or _EMPTY_TARGET.match(content) or not _has_terms(content):
            return None
    else:
        content = clean(raw)
        if len(content) < 2 or not _has_terms(content):
            return None
    key = None
    if rule.key:
        key = make_key(_fill(rule.key, groups, as_key=True))
    return Candidate(
        action=rule.action,
        content=content,
        category=rule.category,
        key=key,
        importance=rule.importance,
        ttl=rule.ttl,
        rule=rule.name,
        family=rule.family,
        role=role,
        message=message,
        sentence=sentence,
    )


def extract_sentence(
    sentence: str,
    rules: Sequence[Rule],
    *,
    role: str = "user",
    message: int = 0,
    rejected: list[Rejection] | None = None,
) -> list[Candidate]:
    """Candidates of one sentence: every rule's non-overlapping matches, first rule first."""
    sentence = _FINAL_STOP.sub("", strip_filler(sentence))
    if not sentence:
        return []
    taken: list[tuple[int, int]] = []
    found: list[Candidate] = []
    absent = {name for name, held in SENTENCE_SCRIPTS.items() if not held.search(sentence)}
    for rule in rules:
        if not rule.enabled or role not in rule.roles or (absent and absent & rule.scripts):
            continue
        for match in rule.regex.finditer(sentence):
            span = match.span()
            if span[0] == span[1] or any(span[0] < end and start < span[1] for start, end in taken):
                continue
            reason = _guard(rule, sentence, match)
            if reason is not None:
                if rejected is not None:
                    rejected.append(Rejection(rule.name, reason, sentence))
                # A sentence-level reason (a question...) stops every rule, not just this one.
                if reason in ("hypothetical", "conditional", "question"):
                    return found
                continue
            candidate = _candidate(rule, sentence, match, role, message)
            if candidate is None:
                continue
            taken.append(span)
            if rule.reclassify:
                found.extend(_reclassify(candidate, rules, rule))
            else:
                found.append(candidate)
    return found


def _reclassify(explicit: Candidate, rules: Sequence[Rule], rule: Rule) -> list[Candidate]:
    """What follows "remember that" is classified by the other store rules; a plain note if
    none of them matches (the user asked explicitly, so it is kept either way)."""
    inner_rules = [
        r
        for r in rules
        if r.enabled and r.action == "store" and r.family in ("instruction", "preference", "fact")
    ]
    inner = extract_sentence(
        explicit.content, inner_rules, role=explicit.role, message=explicit.message
    )
    if not inner:
        return [explicit]
    if len(inner) == 1:
        found = inner[0]
        found.content = explicit.content
        inner = [found]
    for found in inner:
        found.importance = max(found.importance, explicit.importance)
        found.rule = f"{rule.name}+{found.rule}"
        found.family = "explicit"
        found.sentence = explicit.sentence
    return inner


# A sentence longer than this cannot be a memory (64 KiB of text by default): ingest skips
# it before its rules run (a 10 MB line took 89 s to be refused).
MAX_SENTENCE_CHARS = 64 * 1024


def extract_text(
    text: str,
    rules: Sequence[Rule],
    *,
    role: str = "user",
    message: int = 0,
    rejected: list[Rejection] | None = None,
    oversized: list[tuple[int, int]] | None = None,
) -> list[Candidate]:
    """Candidates of one message, without repeats. A sentence over ``MAX_SENTENCE_CHARS`` is
    skipped, and told to ``oversized`` as (message, its length) for the caller to say so."""
    seen: set[tuple[str, str, str | None]] = set()
    found: list[Candidate] = []
    for sentence in split_sentences(text):
        if len(sentence) > MAX_SENTENCE_CHARS:
            if oversized is not None:
                oversized.append((message, len(sentence)))
            continue  # could not be stored: not worth running every rule over (#33)
        for candidate in extract_sentence(
            sentence, rules, role=role, message=message, rejected=rejected
        ):
            identity = (candidate.action, candidate.content.casefold(), candidate.key)
            if identity not in seen:
                seen.add(identity)
                found.append(candidate)
    return found


def extract_messages(
    messages: Iterable[Message],
    rules: Sequence[Rule],
    roles: Sequence[str] = ("user",),
    rejected: list[Rejection] | None = None,
    oversized: list[tuple[int, int]] | None = None,
) -> list[Candidate]:
    """Candidates of every message whose role is in ``roles``, in input order (``oversized``:
    ``extract_text``'s)."""
    found: list[Candidate] = []
    for message in messages:
        if message.role in roles:
            found.extend(
                extract_text(
                    message.content,
                    rules,
                    role=message.role,
                    message=message.index,
                    rejected=rejected,
                    oversized=oversized,
                )
            )
    return found


# -- tool results -------------------------------------------------------------------------------

KV_MAX_VALUE_CHARS = 500


def _flatten(value: Any, path: str, out: list[tuple[str, Any]]) -> None:
    if isinstance(value, dict):
        for name, item in value.items():
            _flatten(item, f"{path}.{name}" if path else str(name), out)
    elif isinstance(value, list):
        if value and all(isinstance(v, (str, int, float, bool)) for v in value):
            out.append((path, ", ".join(_scalar(v) for v in value)))
        # arrays of objects have no single key per value: skipped.
    else:
        out.append((path, value))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def extract_kv(
    records: Iterable[dict[str, Any]],
    *,
    category: str = "fact",
    key_prefix: str = "",
    importance: int = 5,
) -> tuple[list[Candidate], int]:
    """One candidate per scalar field (nested objects flattened with dots): content
    ``field: value``, key ``prefix + field``. Returns (candidates, skipped fields)."""
    found: list[Candidate] = []
    skipped = 0
    for number, record in enumerate(records):
        pairs: list[tuple[str, Any]] = []
        _flatten(record, "", pairs)
        for path, value in pairs:
            text = "" if value is None else _scalar(value).strip()
            key = make_key(key_prefix + path) if path else None
            if not text or not key or len(text) > KV_MAX_VALUE_CHARS:
                skipped += 1
                continue
            found.append(
                Candidate(
                    action="store",
                    content=f"{path}: {text}",
                    category=category,
                    key=key,
                    importance=importance,
                    ttl=None,
                    rule="kv",
                    family="kv",
                    role="tool",
                    message=number,
                    sentence="",
                )
            )
    return found, skipped
