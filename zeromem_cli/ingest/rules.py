"""Ingest rules: the model, the built-in English and Chinese rules, and the user's own rules.

A rule is a regular expression (matched case-insensitively against one sentence, after leading
filler such as "btw" or "对了" is removed) plus what to do with a match: store it with a
category, an optional key template, importance and TTL, or forget the memories it names.

Named groups carry the data: ``content`` is what gets stored (default: the whole match), and
any group can fill the ``key`` template (``"favorite_{thing}"``). Keys are normalised: Latin
text lower-cased with ``_`` between words, CJK kept as written.

Built-in rules come in families (explicit, task, instruction, preference, fact, forget), tried
in that order after the user's own rules. Users add rules or change a built-in by name in the
config file::

    [ingest]
    builtins = true                 # false: only the rules below

    [[ingest.rules]]
    name = "ticket"
    pattern = "^ticket (?P<id>[A-Z]+-\\d+) is (?P<content>.+)$"
    category = "task"
    key = "ticket_{id}"
    ttl = "30d"

    [[ingest.rules]]
    name = "en.like"               # a built-in: switch it off
    enabled = false

Everything is validated when loaded; an error names the rule and the field.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from zeromem_cli.errors import InvalidInputError, ZeromemError

FAMILIES = ("forget", "task", "explicit", "instruction", "preference", "fact", "custom")
ACTIONS = ("store", "forget")


class IngestRuleError(ZeromemError):
    """A rule in the ``[ingest]`` table of the config file is malformed."""

    exit_code = 1


@dataclass(frozen=True)
class Rule:
    """One extraction rule. ``family`` decides which extra guards apply (see ``extract``)."""

    name: str
    pattern: str
    category: str
    family: str = "custom"
    action: str = "store"
    key: str | None = None
    content: str | None = None
    ttl: str | None = None
    importance: int = 5
    enabled: bool = True
    guards: bool = True
    lang: str = "any"
    # Whose messages the rule reads: "my X is Y" in an assistant's reply is not the user's.
    roles: tuple[str, ...] = ("user",)
    source: str = "builtin"
    # explicit requests: classify what follows the trigger with the other rules.
    reclassify: bool = False
    description: str = field(default="", compare=False)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)

    @cached_property
    def scripts(self) -> frozenset[str]:
        """The scripts ("cjk", "latin") every match of the pattern must contain a letter of:
        a sentence without one cannot match, and the rule is not run on it (half the rules
        are Chinese-only, and scanning every sentence with every rule was most of ingest's
        time: ``python -m benchmarks.ingest_speed``)."""
        return frozenset(
            name for name, script in _SCRIPTS.items() if _requires(self.pattern, script)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family,
            "lang": self.lang,
            "action": self.action,
            "category": self.category,
            "key": self.key,
            "ttl": self.ttl,
            "importance": self.importance,
            "enabled": self.enabled,
            "roles": list(self.roles),
            "source": self.source,
            "pattern": self.pattern,
            "description": self.description,
        }


# -- building blocks of the built-in patterns -------------------------------------------------

# Start of a clause: sentence start, after a comma/semicolon, or after "and"/"but".
_CLAUSE = r"(?:^|(?<=[,;，；、])\s*|(?<=\band )|(?<=\bbut ))"
# End of an English clause value (" and I ..." starts a new clause; "X and Y" stays one).
_EN_END = r"(?=$|[,;]|\s+(?:and|but)\s+(?:I|I'm|I've|my|we|you|it|he|she|they|so)\b|\s+but\s+)"
_ZH_VALUE = r"[^，,。；;！!？?]+"
# Words that cannot follow "always"/"never" in an instruction ("never mind", "always the same").
_NOT_AFTER_ALWAYS = (
    r"(?!(?:the|a|an|mind|again|too|ever|before|been|had|was|is|were|got|gets|my|this|that|"
    r"it|so|more|less|once|seen|heard|thought|know|knew|happens|works|fails|happy|glad|welcome|"
    r"here|good|nice|fun)\b)"
)
# Objects that make "I like ..." a comment on the conversation rather than a preference.
_NOT_LIKED = (
    r"(?!(?:it|this|that|these|those|you|your|yours|him|her|them|how|what|when|where|why|"
    r"which|who|the\s+idea|the\s+way|to\s+know|to\s+ask|to\s+see|to\s+hear|it's)\b)"
)
_EN_ADVERB = (
    r"(?:(?:really|truly|much|generally|usually|definitely|absolutely|just|strongly|"
    r"kind\s+of|also|totally|always|still)\s+)?"
)
_EN_LIKE_VERBS = (
    r"(?:prefer|like|love|hate|dislike|enjoy|adore|detest|loathe|don't\s+like|do\s+not\s+like|"
    r"don't\s+enjoy|do\s+not\s+enjoy|can't\s+stand|cannot\s+stand)"
)
_ZH_POLITE = r"(?:请你|请|麻烦你|麻烦|你|帮我|你帮我|给我)*"
# A statement of when something happens once ("we run the tests tomorrow") is a plan, not how
# the project works.
_EN_NOT_ONE_OFF = (
    r"(?!.*\b(?:tomorrow|tonight|today|later|soon|yesterday|next\s+\w+|this\s+(?:morning|"
    r"afternoon|evening|week)|right\s+now)\b)"
)
# "FYI", "Note:", "Heads up:" before a plain statement: a notice, not part of the fact.
_EN_NOTICE = r"^(?:(?:fyi|note|heads\s+up|psa|just\s+so\s+you\s+know)\s*[:,\-]?\s+)?"


def _rule(
    name: str,
    family: str,
    lang: str,
    pattern: str,
    category: str,
    description: str,
    **extra: Any,
) -> Rule:
    return Rule(
        name=name,
        family=family,
        lang=lang,
        pattern=pattern,
        category=category,
        description=description,
        **extra,
    )


_BUILTINS: tuple[Rule, ...] = (
    # -- forget: soft-delete the memories a request names -------------------------------------
    _rule(
        "en.forget",
        "forget",
        "en",
        r"^(?:(?:you\s+can|you\s+may|can\s+you|could\s+you)\s+)?(?:please\s+)?"
        r"(?:forget|stop\s+remembering|no\s+need\s+to\s+remember|unlearn)"
        r"(?:\s+(?:about|that|everything\s+about|what\s+I\s+(?:said|told\s+you)\s+about))?"
        r"\s+(?P<content>[^,;]+)",
        "",
        "forget that X / forget about X / stop remembering X",
        action="forget",
    ),
    _rule(
        "en.delete_memory",
        "forget",
        "en",
        r"^(?:please\s+)?(?:delete|remove|erase|drop|clear)\s+(?:the|that|this|any|all|your)?\s*"
        r"(?:notes?|memor(?:y|ies)|entr(?:y|ies))\s+(?:about|on|of|regarding|that\s+says)\s+"
        r"(?P<content>[^,;]+)",
        "",
        "delete the note/memory about X",
        action="forget",
    ),
    _rule(
        "zh.forget",
        "forget",
        "zh",
        r"^" + _ZH_POLITE + r"(?:忘记|忘掉|忘了|不用再记|不用记|不要再记|不要记|别再记|别记)"
        r"(?:住)?(?:关于)?(?P<content>[^，,。；;！!？?]+)",
        "",
        "忘记 X / 忘掉 X / 不用记 X / 别记 X",
        action="forget",
    ),
    _rule(
        "zh.delete_memory",
        "forget",
        "zh",
        r"^(?:把|将)(?:关于)?(?P<content>[^，,。；;]+?)的?(?:那条|这条)?(?:记忆|记录)"
        r"(?:删掉|删除|删了|清除|忘掉)",
        "",
        "把关于 X 的记忆删掉",
        action="forget",
    ),
    # -- task: reminders and to-dos -------------------------------------------------------------
    _rule(
        "en.remind",
        "task",
        "en",
        r"^(?:please\s+)?remind\s+me\s+(?:to|that|about)\s+(?P<content>.+)",
        "task",
        "remind me to X",
        ttl="90d",
        importance=6,
    ),
    _rule(
        "en.todo",
        "task",
        "en",
        r"^(?:to-?do|task|reminder)\s*[:\-]\s*(?P<content>.+)",
        "task",
        "TODO: X",
        ttl="90d",
        importance=6,
        roles=("user", "assistant"),
    ),
    _rule(
        "en.dont_forget_to",
        "task",
        "en",
        r"^(?:(?:don't|do\s+not)\s+(?:let\s+me\s+)?forget|remember)\s+to\s+(?P<content>.+)",
        "task",
        "don't forget to X / remember to X",
        ttl="90d",
        importance=6,
    ),
    _rule(
        "zh.remind",
        "task",
        "zh",
        r"^(?:到时候)?提醒(?:一下)?我(?:一下)?(?P<content>.+)",
        "task",
        "提醒我 X",
        ttl="90d",
        importance=6,
    ),
    _rule(
        "zh.todo",
        "task",
        "zh",
        r"^(?:待办事项|待办|todo|任务)\s*[:：]\s*(?P<content>.+)",
        "task",
        "待办：X",
        ttl="90d",
        importance=6,
        roles=("user", "assistant"),
    ),
    _rule(
        "zh.dont_forget",
        "task",
        "zh",
        r"^(?:别忘了|别忘记|不要忘了|不要忘记|记得)(?![，,：:])(?P<content>.+)",
        "task",
        "别忘了 X / 记得 X",
        ttl="90d",
        importance=6,
    ),
    # -- explicit: "remember that ..." (what follows is classified by the other rules) -----
    _rule(
        "en.remember",
        "explicit",
        "en",
        r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
        r"(?:remember|memori[sz]e|keep\s+in\s+mind|(?:don't|do\s+not|never)\s+forget)"
        r"(?:\s+(?:this|that))?(?:\s*[:,\-]\s*|\s+that\s+|\s+)"
        r"(?!(?:when|what|how|where|who|why|which|whether|if|to)\b)(?P<content>.+)",
        "note",
        "remember (that) X / keep in mind X",
        importance=7,
        reclassify=True,
    ),
    _rule(
        "en.note",
        "explicit",
        "en",
        r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
        r"(?:note\s+that|make\s+(?:a\s+)?note(?:\s+of\s+this)?|"
        r"take\s+(?:a\s+)?note(?:\s+of\s+this)?|for\s+(?:future\s+)?reference|note\s+to\s+self|"
        r"just\s+so\s+you\s+know|for\s+the\s+record|for\s+your\s+information)"
        r"(?:\s+that\s+|\s*[:,\-]\s*|(?<=that)\s+)(?P<content>.+)",
        "note",
        "note that X / make a note: X / for future reference, X / just so you know, X",
        importance=7,
        reclassify=True,
    ),
    _rule(
        "zh.remember",
        "explicit",
        "zh",
        r"^" + _ZH_POLITE + r"(?:帮我)?(?:记住|记一下|记下来|记下|记着|记好|备忘一下|备忘|"
        r"记录一下|记录下来|存一下)(?!了)(?:这个|这件事|这一点|一点)?[：:，,\s]*(?P<content>.+)",
        "note",
        "记住 X / 帮我记一下 X / 备忘 X",
        importance=7,
        reclassify=True,
    ),
    # -- instruction: standing orders for the assistant -------------------------------------
    _rule(
        "en.from_now_on",
        "instruction",
        "en",
        r"^(?:from\s+now\s+on|going\s+forward|moving\s+forward|in\s+(?:the\s+)?future|"
        r"henceforth|starting\s+(?:now|today)|for\s+all\s+future\s+\w+)\s*[,:]?\s+(?:please\s+)?"
        r"(?!(?:it|this|that|there|things|everything|he|she|they)\b)(?P<content>\w.+)",
        "instruction",
        "from now on X / going forward X",
        importance=7,
    ),
    _rule(
        "en.always_never",
        "instruction",
        "en",
        r"^(?:(?:whenever|when|if)\s+[^,]{1,80},\s*)?(?:please\s+)?"
        r"(?:(?:you\s+should|you\s+must|make\s+sure\s+(?:to|you)|be\s+sure\s+to|"
        r"I\s+want\s+you\s+to|I'd\s+like\s+you\s+to)\s+)?"
        r"(?:always|never|don't\s+ever|do\s+not\s+ever)\s+" + _NOT_AFTER_ALWAYS + r"\w.*",
        "instruction",
        "always X / never X / when Y, always X",
        importance=7,
    ),
    _rule(
        "en.whenever",
        "instruction",
        "en",
        r"^whenever\s+(?:I|you|we)\b[^,]{1,80},\s*(?:please\s+)?"
        r"(?!(?:it|this|that|there|I|he|she|they|we)\b)\w.+",
        "instruction",
        "whenever I X, do Y",
        importance=7,
    ),
    _rule(
        "zh.from_now_on",
        "instruction",
        "zh",
        r"^(?:从今以后|从今往后|从现在开始|从现在起|从今天开始|从今天起|以后|今后|往后)(?:的话)?"
        r"[，,：:\s]*(?!(?:再|的|会|可能|也许|想|还|就知道|有机会|见|呢))(?P<content>.+)",
        "instruction",
        "以后 X / 从现在开始 X / 今后 X",
        importance=7,
    ),
    _rule(
        "zh.always",
        "instruction",
        "zh",
        r"^(?:你)?(?:[^，,。！？!?我他她]{1,15}?(?:的时候|时)[，,]?)?(?:你)?"
        r"(?:始终|永远|一律|总是|务必|每次|每一次|一直|(?:不管|无论)[^，,]{0,12}?[，,]?都)"
        r"(?=.*(?:都|要|不要|别|用|先|必须|请|得))"
        r".+",
        "instruction",
        "始终 X / 永远不要 X / 每次都 X / 不管何时都 X / 回答时一律 X",
        importance=7,
    ),
    # -- preference ------------------------------------------------------------------------------
    _rule(
        "en.favorite",
        "preference",
        "en",
        _CLAUSE + r"my\s+(?P<kind>favou?rite|preferred)\s+(?P<thing>[a-z][\w\- ]{0,30}?)\s+"
        r"(?:is|are)\s+[^,;]+?" + _EN_END,
        "preference",
        "my favorite X is Y (key favorite_X)",
        key="{kind}_{thing}",
        importance=6,
    ),
    _rule(
        "en.like",
        "preference",
        "en",
        _CLAUSE + r"(?:I\s+" + _EN_ADVERB + _EN_LIKE_VERBS + r"|I(?:'d|\s+would)\s+rather|"
        r"I(?:'m|\s+am)\s+(?:not\s+)?a\s+(?:big\s+|huge\s+)?fan\s+of)\s+"
        + _NOT_LIKED
        + r"(?P<object>[^,;]+?)"
        + _EN_END,
        "preference",
        "I prefer / like / love / hate / can't stand / I'd rather X",
        importance=6,
    ),
    _rule(
        "zh.favorite",
        "preference",
        "zh",
        _CLAUSE + r"我最(?:喜欢|爱)的(?P<thing>[^，,。是的]{1,10})是" + _ZH_VALUE,
        "preference",
        "我最喜欢的 X 是 Y (key 最喜欢的X)",
        key="最喜欢的{thing}",
        importance=6,
    ),
    _rule(
        "zh.like",
        "preference",
        "zh",
        _CLAUSE + r"我(?:真的|非常|特别|很|比较|更|还是|一直|一般|向来|从来|也|都|超)?"
        r"(?:不太喜欢|不喜欢|更喜欢|喜欢|偏好|偏爱|讨厌|不爱|爱|习惯|受不了|不习惯|反感)"
        r"(?![的上了过这那你他她它])(?P<object>" + _ZH_VALUE + r")",
        "preference",
        "我喜欢 / 不喜欢 / 偏好 / 讨厌 / 习惯 X",
        importance=6,
    ),
    _rule(
        "zh.diet",
        "preference",
        "zh",
        _CLAUSE
        + r"我(?:从来|一直|也|都)?(?:(?:不吃|不喝)(?![了啦吗呢])(?P<object>"
        + _ZH_VALUE
        + r")"
        r"|吃素|不抽烟|不喝酒)",
        "preference",
        "我不吃 X / 我吃素",
        importance=6,
    ),
    # -- fact: personal facts, keyed so a later statement updates them ----------------------
    # -- how a project works: plain statements of its tools, places, ports and rules --------
    # (measured on benchmarks/project_facts_eval.jsonl: python -m benchmarks.ingest_eval --data
    # benchmarks/project_facts_eval.jsonl). A place must look like a path, a tool like a name
    # written in Latin letters, so that chatter about the work ("the bug is in the parser")
    # stays out; questions, hedges and conditionals are refused by the guards.
    _rule(
        "en.project_uses",
        "fact",
        "en",
        _EN_NOTICE
        + _EN_NOT_ONE_OFF
        + r"(?P<content>(?:in\s+this\s+(?:project|repo(?:sitory)?|codebase|monorepo)"
        r"\s*,?\s+)?(?:we|this\s+(?:project|repo(?:sitory)?|codebase|monorepo|team)|"
        r"our\s+(?:team|project|repo|codebase|monorepo))\s+(?:always\s+|only\s+)?"
        r"(?:use|uses|build|builds|deploy|deploys|release|releases|target|targets|host|hosts|"
        r"ship|ships|run|runs|test|tests|format|formats|lint|lints)\s+(?!it\b|this\b|that\b)"
        r"\S.{1,120})",
        "fact",
        "we use X / this repo uses X / we deploy with X (a project fact)",
        importance=6,
    ),
    _rule(
        "en.project_place",
        "fact",
        "en",
        _EN_NOTICE + r"(?P<content>(?:the|our|all)\s+[a-z][\w\- ]{1,40}?\s+(?:live|lives|are|is|"
        r"go|goes|sit|sits)\s+(?:kept\s+|stored\s+|located\s+)?(?:in|under|at)\s+`?"
        r"[\w.\-~]*/[\w./\-*]*.{0,120})",
        "fact",
        "the X live in some/path (a project fact)",
        importance=6,
    ),
    _rule(
        "en.project_port_branch",
        "fact",
        "en",
        _EN_NOTICE + r"(?P<content>(?:the|our)\s+[\w\- ]{1,40}?\s+(?:(?:listens|runs|is\s+served|"
        r"is\s+exposed)\s+on\s+port\s+\d{2,5}|(?:deploys|is\s+deployed|ships)\s+"
        r"(?:automatically\s+)?to\s+\S+).{0,120})",
        "fact",
        "the X listens on port N / the X branch deploys to Y (a project fact)",
        importance=6,
    ),
    _rule(
        "en.project_done_with",
        "fact",
        "en",
        _EN_NOTICE + r"(?P<content>(?:the\s+|our\s+)?(?:tests?|builds?|docs|documentation|"
        r"releases?|deploys?|deployments?|migrations?|linter|formatter|ci)\s+(?:are|is|runs?)\s+"
        r"(?:run|built|generated|deployed|released|published|applied|checked|written|done)?\s*"
        r"(?:with|via|using|by|from|on|in)\s+`?[A-Za-z][\w.\-/ ]{1,40}.{0,120})",
        "fact",
        "tests are run with X / our linter is ruff (a project fact)",
        importance=6,
    ),
    _rule(
        "en.project_never",
        "instruction",
        "en",
        r"^(?:please\s+)?(?:never|don't|do\s+not)\s+(?:ever\s+)?(?:push|commit|merge|deploy|"
        r"force-push|edit|modify|delete|rebase)\b[^.;]{0,80}?(?:\bto\s+(?:main|master)\b|"
        r"\bin\s+this\s+(?:repo(?:sitory)?|project|codebase)\b|\bdirectly\b).*",
        "instruction",
        "never push to main / don't commit X in this repo (a project rule)",
        importance=7,
    ),
    _rule(
        "zh.project_uses",
        "fact",
        "zh",
        r"^(?:我们|咱们|本项目|这个项目|本仓库|这个仓库|项目里|仓库里)[^，。？?]{0,12}?"
        r"(?:都|统一|一律)?(?:用|使用|采用|走)\s*[A-Za-z][^，。？?]{0,60}",
        "fact",
        "我们用 X / 本项目的测试用 X / 我们的部署走 X (a project fact)",
        importance=6,
    ),
    _rule(
        "zh.project_place",
        "fact",
        "zh",
        r"^(?!帮我|请|先|麻烦)[^，。？?]{1,20}?(?:放在|位于|都在|在)\s*"
        r"(?:[A-Za-z0-9_.\-]+/[A-Za-z0-9_./\-]*|[A-Za-z0-9_.\-]+\s*目录)[^，。？?]{0,20}",
        "fact",
        "X 放在 some/path / X 在 docs 目录 (a project fact)",
        importance=6,
    ),
    _rule(
        "zh.project_port_branch",
        "fact",
        "zh",
        r"^(?!帮我|请|先|麻烦)[^，。？?]{1,20}?(?:(?:端口是|端口为|跑在|运行在|监听)\s*\d{2,5}|"
        r"(?:走|用)\s*[A-Za-z][\w.\-/ ]*\s*(?:分支|生成|部署|发布|做|跑))[^，。？?]{0,20}",
        "fact",
        "X 端口是 N / X 走 Y 分支 / 文档用 X 生成 (a project fact)",
        importance=6,
    ),
    _rule(
        "zh.project_never",
        "instruction",
        "zh",
        r"^(?:请)?(?:不要|别|禁止|不准)(?:直接)?(?:推|push|提交|合并|强推)(?:到)?[^，。？?]{0,20}?"
        r"(?:分支|main|master|仓库)[^，。？?]{0,20}",
        "instruction",
        "不要直接推到 main 分支 (a project rule)",
        importance=7,
    ),
    _rule(
        "en.my_x_is",
        "fact",
        "en",
        _CLAUSE + r"my\s+(?P<key>[a-z][\w'\- ]{0,40}?)\s+(?:is|are)\s+(?P<value>[^,;]+?)" + _EN_END,
        "fact",
        "my X is Y (key X)",
        key="{key}",
        importance=6,
    ),
    _rule(
        "en.live_in",
        "fact",
        "en",
        _CLAUSE + r"I(?:\s+|'m\s+|\s+am\s+)(?:currently\s+)?(?:live|living|reside|based)\s+in\s+"
        r"(?P<value>[^,;]+?)" + _EN_END,
        "fact",
        "I live in X (key location)",
        key="location",
        importance=6,
    ),
    _rule(
        "en.from",
        "fact",
        "en",
        _CLAUSE + r"I(?:'m|\s+am|\s+come)\s+(?:originally\s+)?from\s+(?P<value>[^,;]+?)" + _EN_END,
        "fact",
        "I'm from X (key hometown)",
        key="hometown",
        importance=6,
    ),
    _rule(
        "en.work_at",
        "fact",
        "en",
        _CLAUSE + r"I(?:\s+|'m\s+|\s+am\s+)(?:currently\s+)?(?:work|working)\s+(?:at|for)\s+"
        r"(?P<value>[^,;]+?)" + _EN_END,
        "fact",
        "I work at/for X (key employer)",
        key="employer",
        importance=6,
    ),
    _rule(
        "en.work_as",
        "fact",
        "en",
        _CLAUSE + r"I(?:\s+|'m\s+|\s+am\s+)(?:currently\s+)?(?:work|working)\s+as\s+(?:an?\s+)?"
        r"(?P<value>[^,;]+?)" + _EN_END,
        "fact",
        "I work as X (key job)",
        key="job",
        importance=6,
    ),
    _rule(
        "en.age",
        "fact",
        "en",
        _CLAUSE + r"I(?:'m|\s+am)\s+(?P<value>\d{1,3})\s+(?:years?\s+old|yo)\b",
        "fact",
        "I'm N years old (key age)",
        key="age",
        importance=6,
    ),
    _rule(
        "en.allergic",
        "fact",
        "en",
        _CLAUSE + r"I(?:'m|\s+am)\s+(?:\w+\s+)?allergic\s+to\s+(?P<value>[^,;]+?)" + _EN_END,
        "fact",
        "I'm allergic to X",
        importance=7,
    ),
    _rule(
        "zh.my_x_is",
        "fact",
        "zh",
        _CLAUSE + r"我的(?P<key>[^，,。；;是的\s]{1,10})是(?P<value>" + _ZH_VALUE + r")",
        "fact",
        "我的 X 是 Y (key X)",
        key="{key}",
        importance=6,
    ),
    _rule(
        "zh.my_owner_x_is",
        "fact",
        "zh",
        _CLAUSE
        + r"我(?P<key>[^，,。；;是的我\s]{1,6}的[^，,。；;是的\s]{1,8})是(?P<value>"
        + _ZH_VALUE
        + r")",
        "fact",
        "我 A 的 B 是 Y (key A的B)",
        key="{key}",
        importance=6,
    ),
    _rule(
        "zh.name",
        "fact",
        "zh",
        _CLAUSE + r"我叫(?P<value>[^，,。；;！!？?\s]{1,20})",
        "fact",
        "我叫 X (key name)",
        key="name",
        importance=6,
    ),
    _rule(
        "zh.named",
        "fact",
        "zh",
        _CLAUSE + r"我的?(?P<key>[^，,。；;是的叫\s]{1,6})叫(?P<value>[^，,。；;！!？?\s]{1,20})",
        "fact",
        "我(的) X 叫 Y (key X的名字)",
        key="{key}的名字",
        importance=6,
    ),
    _rule(
        "zh.live_in",
        "fact",
        "zh",
        _CLAUSE + r"我(?:现在|目前|一直)?(?:住在|定居在|生活在)(?P<value>" + _ZH_VALUE + r")",
        "fact",
        "我住在 X (key location)",
        key="location",
        importance=6,
    ),
    _rule(
        "zh.hometown",
        "fact",
        "zh",
        _CLAUSE + r"我(?:的)?(?:老家|家乡|籍贯)(?:在|是)(?P<value>" + _ZH_VALUE + r")|"
        r"(?:^|(?<=[，,；;]))我来自(?P<origin>" + _ZH_VALUE + r")",
        "fact",
        "我老家在 X / 我来自 X (key hometown)",
        key="hometown",
        importance=6,
    ),
    _rule(
        "zh.work_at",
        "fact",
        "zh",
        _CLAUSE + r"我(?:现在|目前)?在(?P<value>[^，,。；;]{2,20}?)(?:工作|上班|任职|实习|"
        r"做[^，,。；;]{0,8}?(?:开发|工程师|设计|研究|产品|运营|销售|测试|老师|医生))",
        "fact",
        "我在 X 工作 (key employer)",
        key="employer",
        importance=6,
    ),
    _rule(
        "zh.i_am_a",
        "fact",
        "zh",
        _CLAUSE + r"我是(?:一名|一位|一个|个)(?P<value>" + _ZH_VALUE + r")",
        "fact",
        "我是一名 X",
        importance=6,
    ),
    _rule(
        "zh.age",
        "fact",
        "zh",
        _CLAUSE + r"我(?:今年|已经|现在)?(?P<value>\d{1,3}|[一二三四五六七八九十]{1,3})岁",
        "fact",
        "我今年 N 岁 (key age)",
        key="age",
        importance=6,
    ),
    _rule(
        "zh.allergic",
        "fact",
        "zh",
        _CLAUSE + r"我对(?P<value>[^，,。；;]{1,20}?)过敏",
        "fact",
        "我对 X 过敏",
        importance=7,
    ),
)


def builtin_rules() -> list[Rule]:
    """The built-in rules, in the order they are tried."""
    return list(_BUILTINS)


# -- loading and validating the user's rules ----------------------------------------------------

_RULE_FIELDS = {
    "name": str,
    "pattern": str,
    "category": str,
    "action": str,
    "key": str,
    "content": str,
    "ttl": str,
    "importance": int,
    "enabled": bool,
    "guards": bool,
    "roles": list,
    "description": str,
}
_TABLE_FIELDS = ("builtins", "rules")


def _template_fields(template: str) -> list[str]:
    names = []
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if spec or conversion:
            raise ValueError(f"{{{name}}} may not have a format spec or conversion")
        if not name.isidentifier():
            raise ValueError(f"{{{name}}} is not a group name")
        names.append(name)
    return names


def check_rule(rule: Rule) -> None:
    """Raise ValueError with a readable reason if the rule cannot work."""
    if not rule.name.strip():
        raise ValueError("name is empty")
    if rule.action not in ACTIONS:
        raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {rule.action!r}")
    if not rule.pattern:
        raise ValueError("pattern is empty")
    try:
        compiled = re.compile(rule.pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"pattern is not a valid regular expression: {exc}") from None
    if compiled.match(""):
        raise ValueError("pattern matches empty text (it would fire on every sentence)")
    groups = set(compiled.groupindex)
    for what, template in (("key", rule.key), ("content", rule.content)):
        if template is None:
            continue
        if not template.strip():
            raise ValueError(f"{what} template is empty")
        try:
            names = _template_fields(template)
        except ValueError as exc:
            raise ValueError(f"{what} template {template!r}: {exc}") from None
        missing = [n for n in names if n not in groups]
        if missing:
            raise ValueError(
                f"{what} template {template!r} uses {{{missing[0]}}}, "
                "which is not a named group of the pattern"
            )
    if rule.action == "store" and not rule.category.strip():
        raise ValueError("category is required for a rule that stores")
    if isinstance(rule.importance, bool) or not 0 <= rule.importance <= 10:
        raise ValueError(f"importance must be an integer from 0 to 10, not {rule.importance!r}")
    if rule.ttl is not None:
        from zeromem_cli.times import parse_duration

        try:
            if parse_duration(rule.ttl).is_zero():
                raise ValueError(f"ttl must be positive, not {rule.ttl!r}")
        except InvalidInputError as exc:
            raise ValueError(f"ttl: {exc}") from None


def _fields_of(raw: Mapping[str, Any], label: str, origin: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, value in raw.items():
        kind = _RULE_FIELDS.get(name)
        if kind is None:
            known = ", ".join(_RULE_FIELDS)
            raise IngestRuleError(f"{origin}: {label}: unknown field {name!r} (known: {known})")
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if not ok:
            expected = {str: "text", int: "an integer", bool: "true or false", list: "a list"}[kind]
            raise IngestRuleError(f"{origin}: {label}: {name} must be {expected}, not {value!r}")
        if name == "roles":
            if not value or not all(isinstance(r, str) and r.strip() for r in value):
                raise IngestRuleError(
                    f"{origin}: {label}: roles must be a non-empty list of role names"
                )
            value = tuple(r.strip().casefold() for r in value)
        values[name] = value
    return values


def load_rules(table: Mapping[str, Any] | None, origin: str = "config") -> list[Rule]:
    """The active rule list: the user's new rules first (file order), then the built-ins with
    the user's overrides applied. ``table`` is the raw ``[ingest]`` table (or None)."""
    table = table or {}
    if not isinstance(table, Mapping):
        raise IngestRuleError(f"{origin}: [ingest] must be a table")
    for name in table:
        if name not in _TABLE_FIELDS:
            raise IngestRuleError(
                f"{origin}: [ingest] has unknown key {name!r} (known: {', '.join(_TABLE_FIELDS)})"
            )
    use_builtins = table.get("builtins", True)
    if not isinstance(use_builtins, bool):
        raise IngestRuleError(f"{origin}: ingest.builtins must be true or false")
    raw_rules = table.get("rules", [])
    if not isinstance(raw_rules, Sequence) or isinstance(raw_rules, str):
        raise IngestRuleError(
            f"{origin}: ingest.rules must be an array of tables ([[ingest.rules]])"
        )
    builtins = {rule.name: rule for rule in _BUILTINS}
    overrides: dict[str, Rule] = {}
    new_rules: list[Rule] = []
    seen: set[str] = set()
    for number, raw in enumerate(raw_rules, start=1):
        where = f"ingest rule #{number}"
        if not isinstance(raw, Mapping):
            raise IngestRuleError(f"{origin}: {where} must be a table")
        rule_name = raw.get("name")
        if not isinstance(rule_name, str) or not rule_name.strip():
            raise IngestRuleError(f"{origin}: {where} has no name")
        label = f"ingest rule {rule_name!r}"
        if rule_name in seen:
            raise IngestRuleError(f"{origin}: {label} is defined twice")
        seen.add(rule_name)
        values = _fields_of(raw, label, origin)
        if rule_name in builtins:
            rule = replace(builtins[rule_name], source="config", **values)
        else:
            if "pattern" not in values:
                raise IngestRuleError(
                    f"{origin}: {label}: pattern is required (no built-in rule has this name)"
                )
            rule = Rule(**{"category": "", **values, "source": "config"})
        try:
            check_rule(rule)
        except ValueError as exc:
            raise IngestRuleError(f"{origin}: {label}: {exc}") from None
        if rule_name in builtins:
            overrides[rule_name] = rule
        else:
            new_rules.append(rule)
    result = list(new_rules)
    if use_builtins:
        result.extend(overrides.get(rule.name, rule) for rule in _BUILTINS)
    else:
        result.extend(overrides.values())
    return result


def active(rules: Sequence[Rule]) -> list[Rule]:
    return [rule for rule in rules if rule.enabled]


# -- which script a pattern needs ---------------------------------------------------------------


def _is_cjk(code: int) -> bool:
    return code >= 0x2E80


def _is_latin(code: int) -> bool:
    return chr(code).isascii() and chr(code).isalpha()


_SCRIPTS = {"cjk": _is_cjk, "latin": _is_latin}
# What a sentence must hold for a rule of each script to have a chance. Latin reaches past
# ASCII: an IGNORECASE ASCII letter also matches a few others (the Kelvin sign, long s,
# dotted/dotless i), all inside these ranges.
SENTENCE_SCRIPTS = {
    "cjk": re.compile(r"[\u2e80-\U0010ffff]"),
    "latin": re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff\u2100-\u214f]"),
}


def _requires(pattern: str, script: Any) -> bool:
    """Whether every match of ``pattern`` holds a character ``script`` accepts (a literal of
    it on every path through the pattern). Unsure (a parse this does not follow): False."""
    try:
        from re import _constants as codes  # type: ignore[attr-defined]
        from re import _parser as parser  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_constants as codes
        import sre_parse as parser
    try:
        parsed = parser.parse(pattern, re.IGNORECASE)
    except Exception:
        return False
    return _needs(list(parsed), codes, script)


def _needs(items: list[Any], codes: Any, script: Any) -> bool:
    for op, value in items:
        if op is codes.LITERAL and script(value):
            return True
        if op is codes.SUBPATTERN and _needs(list(value[-1]), codes, script):
            return True
        if op in (codes.MAX_REPEAT, codes.MIN_REPEAT) and value[0] >= 1:
            if _needs(list(value[2]), codes, script):
                return True
        if op is codes.BRANCH and all(_needs(list(b), codes, script) for b in value[1]):
            return True
        if op is codes.IN and value and all(_in_script(o, a, codes, script) for o, a in value):
            return True
    return False


def _in_script(op: Any, value: Any, codes: Any, script: Any) -> bool:
    if op is codes.LITERAL:
        return bool(script(value))
    if op is codes.RANGE:
        low, high = value
        if script is _is_cjk:
            return _is_cjk(low)  # every code point from low up counts as CJK here
        return high - low < 128 and all(script(code) for code in range(low, high + 1))
    return False
