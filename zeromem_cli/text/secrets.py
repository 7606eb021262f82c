"""Detecting and masking likely credentials in memory text.

A memory store that agents write to is a place where API keys and passwords end up by
accident ("the staging key is sk-..."), and from where they would later be pasted into a prompt.
So writes refuse text that looks like a credential (``MemoryStore.write`` / ``update`` raise
``SecretDetectedError`` unless ``allow_secret=True``), and output meant for a prompt can mask
what is already stored with ``mask_secrets``.

Every rule is a named regular expression for a credential with a recognisable shape (a vendor
prefix, a PEM block, a JWT) or an assignment such as ``password=...``, plus an optional check
of the captured value that keeps ordinary text quiet: hashes, UUIDs, version strings and prose
about passwords do not match. Rules never see more than the text they are given and never
echo a secret: a ``SecretMatch`` carries the rule name and a span, and messages name the rule.

Public API, used by the store and by import / pack:
``find_secrets(text) -> list[SecretMatch]``, ``mask_secrets(text) -> str``,
``refuse_secrets({"content": text})`` (raises ``SecretDetectedError``), ``first_secret(fields)``
(import: the first field of a record holding a secret) and ``RULES``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from zeromem_cli.errors import SecretDetectedError
from zeromem_cli.plain import FrozenRecord
from zeromem_cli.text.display import maybe_secret_pattern

__all__ = [
    "RULES",
    "SecretMatch",
    "SecretRule",
    "find_secrets",
    "first_secret",
    "has_secret",
    "mask_secrets",
    "refuse_secrets",
]


class SecretRule(FrozenRecord):
    """One kind of credential: a pattern and, optionally, a check on the captured value.

    When the pattern has a group named ``secret``, only that group is the secret (the
    ``password=`` before it stays readable when masked); otherwise the whole match is.
    """

    name: str
    description: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None = None
    # Literals one of which every match holds (casefolded with ``folded``): a text holding
    # none of them is not scanned with ``pattern``.
    needs: tuple[str, ...] = ()
    folded: bool = False


class SecretMatch(FrozenRecord):
    """Where a rule matched: ``text[span[0]:span[1]]`` is the secret. Never holds the secret."""

    rule: str
    description: str
    span: tuple[int, int]

    @property
    def start(self) -> int:
        return self.span[0]

    @property
    def end(self) -> int:
        return self.span[1]


# -- value checks ------------------------------------------------------------------------------

_PLACEHOLDER_PATTERN = r"""^(?:
        [$%<{\[(]          # $VAR, ${VAR}, %VAR%, <password>, {{ secret }}, [redacted], (hidden)
        | \*+ | x+ | \.+ | -+ | _+ | \#+   # ****, xxxx, ..., ----
        | (?:none|null|nil|true|false|empty|redacted|hidden|changeme_?later|required|optional
           |string|str|example|placeholder|your[_-]?\w*|todo|tbd|unset|undefined|n/?a)$
    )"""


@functools.cache
def _placeholder() -> re.Pattern[str]:
    """Compiled on first use, like the rules (only a rule's match is ever checked)."""
    return re.compile(_PLACEHOLDER_PATTERN, re.IGNORECASE | re.VERBOSE)


def _shannon_entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


# Code that reads a secret from somewhere else: ``os.environ[...]``, ``getpass.getpass()``.
_CODE_EXPRESSION = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*[(\[]")


def _not_placeholder(value: str) -> bool:
    return not _placeholder().match(value) and not _CODE_EXPRESSION.match(value)


def _password_value(value: str) -> bool:
    """A password after ``=``: anything of 4+ characters that is not a placeholder."""
    return len(value) >= 4 and _not_placeholder(value)


def _password_after_colon(value: str) -> bool:
    """After ``:`` prose is common ("Password: required", "secret: Tuesday"), so a short
    plain word is taken for prose; digits, symbols or 12+ letters make it a password."""
    return _password_value(value) and not (value.isalpha() and len(value) < 12)


def _mixed_token(value: str) -> bool:
    """A generated token mixes letters and digits (hyphenated words do not)."""
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return has_digit and has_alpha and _shannon_entropy(value) >= 3.0


def _high_entropy(value: str) -> bool:
    """An API key value: long, letters and digits, and close to random."""
    return len(value) >= 16 and _mixed_token(value) and _shannon_entropy(value) >= 3.5


def _not_all_hex_lower_or_upper(value: str) -> bool:
    """Cloud secrets are base64: a pure hex string of that length is a hash, not a key."""
    return not re.fullmatch(r"[0-9a-f]+|[0-9A-F]+", value) and _mixed_token(value)


# -- the rules ---------------------------------------------------------------------------------

# Characters that may continue a token: used as a right-hand boundary so "ghp_..." inside a
# longer identifier is still one token, and "\b" is not fooled by a trailing "-".
_END = r"(?![A-Za-z0-9_\-])"
_START = r"(?<![A-Za-z0-9_\-])"
_PASSWORD_NAME = (
    r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*"
    r"(?:password|passwd|pwd|passphrase|secret{extra})(?![A-Za-z0-9])"
)
_KEY_NAME = (
    r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*"
    r"(?:api[_-]?key|api[_-]?secret|apikey|access[_-]?token|auth[_-]?token|secret[_-]?key"
    r"|client[_-]?secret|private[_-]?key|token)(?![A-Za-z0-9])"
)
# `name = value`, `name: value`, `"name": "value"`, `NAME='value'`; the value is group `secret`.
_VALUE = r"""(?:"(?P<q1>[^"\n]{1,200})"|'(?P<q2>[^'\n]{1,200})'|(?P<bare>[^\s"',;&]{1,200}))"""
_ASSIGN = r"""["']?\s*(?::=|=|:)\s*""" + _VALUE
_ASSIGN_EQUALS = r"""["']?\s*:?=\s*""" + _VALUE
_ASSIGN_COLON = r"""["']?\s*:\s*""" + _VALUE


def _rule(
    name: str,
    description: str,
    pattern: str,
    check: Callable[[str], bool] | None = None,
    flags: int = 0,
    *,
    needs: tuple[str, ...],
    folded: bool = False,
) -> tuple[str, str, str, Callable[[str], bool] | None, int, tuple[str, ...], bool]:
    """One rule's source. ``needs``: literals one of which every match holds (in the text as
    written, or with ``folded``, in its casefolded form: rules that ignore case), so a text
    holding none of them skips the rule's scan."""
    return (name, description, pattern, check, flags, needs, folded)


# The rules as source; ``RULES`` compiles them on first use (17 patterns cost ~4 ms to compile,
# and most commands, like most texts, never need them: see ``_has_mark``).
_RULE_SOURCES = (
    _rule(
        "private_key",
        "private key block",
        r"-----BEGIN (?P<kind>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
        r"[\s\S]*?(?:-----END (?P=kind)-----|\Z)",
        needs=("-----BEGIN ",),
    ),
    _rule(
        "aws_access_key_id",
        "AWS access key id",
        _START
        + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}"
        + _END,
        needs=(
            "AKIA",
            "ASIA",
            "ABIA",
            "ACCA",
            "AGPA",
            "AIDA",
            "AIPA",
            "ANPA",
            "ANVA",
            "APKA",
            "AROA",
            "ASCA",
        ),
    ),
    _rule(
        "aws_secret_access_key",
        "AWS secret access key",
        r"(?i:aws)[A-Za-z0-9_.\-]{0,20}(?i:secret)[A-Za-z0-9_.\-]{0,20}"
        + r"""["']?\s*(?::=|=|:|\s)\s*["']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
        _not_all_hex_lower_or_upper,
        needs=("secret",),
        folded=True,
    ),
    _rule(
        "github_token",
        "GitHub token",
        _START
        + r"(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})"
        + _END,
        needs=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _rule(
        "gitlab_token",
        "GitLab token",
        _START + r"(?:glpat|gldt|glrt|glptt|glcbt|glft|glsoat)-[A-Za-z0-9_\-]{20,}" + _END,
        _mixed_token,
        needs=("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glsoat-"),
    ),
    _rule(
        "slack_token",
        "Slack token",
        _START + r"(?:xox[baprse]|xapp)-[A-Za-z0-9]{1,40}-[A-Za-z0-9\-]{8,}" + _END,
        needs=("xox", "xapp-"),
    ),
    _rule(
        "slack_webhook",
        "Slack webhook URL",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"T[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]{16,}",
        needs=("https://hooks.slack.com/",),
    ),
    _rule(
        "anthropic_key",
        "Anthropic API key",
        _START + r"sk-ant-(?:[a-z]+\d\d-)?[A-Za-z0-9_\-]{32,}" + _END,
        needs=("sk-ant-",),
    ),
    _rule(
        "openai_key",
        "OpenAI API key",
        _START + r"sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{32,}" + _END,
        _mixed_token,
        needs=("sk-",),
    ),
    _rule(
        "google_api_key",
        "Google API key",
        _START + r"AIza[0-9A-Za-z_\-]{35}" + _END,
        needs=("AIza",),
    ),
    _rule(
        "stripe_key",
        "Stripe secret key",
        _START
        + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"
        + _END
        + r"|"
        + _START
        + r"whsec_[0-9A-Za-z]{24,}"
        + _END,
        needs=("sk_", "rk_", "whsec_"),
    ),
    _rule(
        "npm_token",
        "npm access token",
        _START + r"npm_[A-Za-z0-9]{36}" + _END,
        _mixed_token,
        needs=("npm_",),
    ),
    _rule(
        "huggingface_token",
        "Hugging Face token",
        _START + r"hf_[A-Za-z0-9]{34,}" + _END,
        _mixed_token,
        needs=("hf_",),
    ),
    _rule(
        "pypi_token",
        "PyPI API token",
        _START + r"pypi-AgE[A-Za-z0-9_\-]{50,}" + _END,
        needs=("pypi-AgE",),
    ),
    _rule(
        "docker_token",
        "Docker personal access token",
        _START + r"dckr_pat_[A-Za-z0-9_\-]{20,}" + _END,
        _mixed_token,
        needs=("dckr_pat_",),
    ),
    _rule(
        "sendgrid_key",
        "SendGrid API key",
        _START + r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}" + _END,
        needs=("SG.",),
    ),
    _rule(
        "twilio_key",
        "Twilio API key",
        _START + r"SK[0-9a-f]{32}" + _END,
        lambda value: not value[2:].isdigit(),
        needs=("SK",),
    ),
    _rule(
        "azure_storage_key",
        "Azure storage account key",
        r"(?i:AccountKey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{40,}={0,2})",
        _mixed_token,
        needs=("accountkey",),
        folded=True,
    ),
    _rule(
        "basic_auth",
        "HTTP basic credentials",
        r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})",
        _not_placeholder,
        needs=("auth",),
        folded=True,
    ),
    _rule(
        "password_phrase",
        "password in a sentence",
        r"\b(?:my|our|the)\s+(?:[A-Za-z-]+\s+){0,2}(?:password|passcode|passphrase|pin)\s+"
        r"(?:is|was)\s*:?\s+[\"'`]?(?P<secret>[^\s\"'`,;]{4,200})",
        _password_after_colon,
        re.IGNORECASE,
        needs=("pass", "pin"),
        folded=True,
    ),
    _rule(
        "password_phrase",
        "password in a sentence",
        r"密码(?:是|为|：|:)\s*[\"'“「]?(?P<secret>[!-~]{4,200})",
        lambda value: _not_placeholder(value.rstrip(".,;!?")),
        needs=("密码",),
    ),
    _rule(
        "jwt",
        "JSON Web Token",
        _START + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}" + _END,
        needs=("eyJ",),
    ),
    _rule(
        "url_credentials",
        "password in a URL",
        # ":/" too: a URL inside a file path loses a slash when the path is normalised
        # (#33: `import "/x/postgres://admin:PW@db/f"` echoed "postgres:/admin:PW@db").
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://?[^\s:/@]{1,100}:(?P<secret>[^\s/@]{3,200})@[^\s@]",
        _not_placeholder,
        needs=(":/",),
    ),
    _rule(
        "bearer_token",
        "bearer token",
        r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9._~+/\-]{20,}=*)",
        _mixed_token,
        needs=("earer",),
    ),
    _rule(
        "password_assignment",
        "password assignment",
        _PASSWORD_NAME.format(extra="|pass") + _ASSIGN_EQUALS,
        _password_value,
        re.IGNORECASE,
        needs=("pass", "pwd", "secret"),
        folded=True,
    ),
    _rule(
        "password_assignment",
        "password assignment",
        _PASSWORD_NAME.format(extra="") + _ASSIGN_COLON,
        _password_after_colon,
        re.IGNORECASE,
        needs=("pass", "pwd", "secret"),
        folded=True,
    ),
    _rule(
        "api_key_assignment",
        "API key or token assignment",
        _KEY_NAME + _ASSIGN,
        _high_entropy,
        re.IGNORECASE,
        needs=("key", "token", "secret"),
        folded=True,
    ),
)


@functools.cache
def _compiled_rules() -> tuple[SecretRule, ...]:
    return tuple(
        SecretRule(name, description, re.compile(pattern, flags), check, needs, folded)
        for name, description, pattern, check, flags, needs, folded in _RULE_SOURCES
    )


if TYPE_CHECKING:
    RULES: tuple[SecretRule, ...]


def __getattr__(name: str) -> Any:
    if name == "RULES":  # compiled on first use
        return _compiled_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    groups = match.re.groupindex
    for name in ("secret", "q1", "q2", "bare"):
        if name in groups and match.group(name) is not None:
            return match.span(name)
    return match.span()


# Every rule needs one of these: an assignment sign (password=, api_key:, scheme://user:pw@),
# a run of 12+ token characters (every vendor token, key and JWT is longer), or a PEM header.
# Text without any of them (most prose) skips the 17 rule scans: import checks every field.
_MAYBE_SECRET = maybe_secret_pattern()  # shared with ``display``, which skips importing this module
# And every rule holds a literal of its own: a vendor prefix, "://", "earer" (Bearer), a PEM
# header, or, for the rules that ignore case, a password / passphrase / pwd / secret / key /
# token name. Most text that passes the check above (a colon, a long word) holds none of them
# and skips the rule scans, which were most of a bulk import's cost. Plain ``in`` tests: an
# alternation regex of these costs several times more. A rule added to _RULE_SOURCES needs its
# literal here (its sample in tests/test_secrets.py fails otherwise).
# They are searched with one pattern, compiled on first use: each alternative starts with a
# rarely seen character or a literal ("-", "_", "A", "xox", "://", "yJ", "arer"; lookbehinds
# check what comes before it), so the regex engine skips along the text in C and stops at few
# places: ~2x faster than an ``in`` test per literal, on text of any length.
_MARKS_BY_CHAR = (
    (
        "-",
        (
            "-----BEGIN ",  # private_key
            *("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glsoat-"),  # gitlab_token
            "xapp-",  # slack_token
            "sk-",  # anthropic_key, openai_key
            "pypi-",  # pypi_token
        ),
    ),
    (
        "_",
        (
            *("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),  # github_token
            *("sk_", "rk_", "whsec_"),  # stripe_key
            "npm_",  # npm_token
            "hf_",  # huggingface_token
            "dckr_pat_",  # docker_token
        ),
    ),
    (
        "A",
        (
            *("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA"),  # aws_access_key_id
            *("AIPA", "ANPA", "ANVA", "APKA", "AROA", "ASCA"),
            "AIza",  # google_api_key
        ),
    ),
)
_OTHER_MARKS = (
    "SG.",  # sendgrid_key
    "SK",  # twilio_key
    "密码",  # password_phrase (Chinese)
    "xox",  # slack_token
    ":/",  # slack_webhook, url_credentials (":/": a URL folded by a path)
    "eyJ",  # jwt
    "earer",  # bearer_token
)
_MARKS = (*(mark for _, marks in _MARKS_BY_CHAR for mark in marks), *_OTHER_MARKS)
# The IGNORECASE rules (aws_secret_access_key, password_assignment, api_key_assignment) name
# one of these. casefold() maps every character that IGNORECASE matches to one of these
# letters (the Kelvin sign, the long s) to that letter, so the test holds for them too.
_FOLDED_MARKS = ("secret", "pass", "pwd", "key", "token", "basic", "pin")


def _ending_with(char: str, marks: tuple[str, ...]) -> str:
    """``char`` preceded by one of ``marks`` (each holding ``char``), found from ``char``."""
    options = []
    for mark in marks:
        at = mark.index(char)  # the first occurrence: match there, look back, look ahead
        behind, ahead = re.escape(mark[: at + 1]), re.escape(mark[at + 1 :])
        options.append(f"(?<={behind}){ahead}" if at else ahead)
    return re.escape(char) + "(?:" + "|".join(options) + ")"


_cased_marks_search: Callable[[str], re.Match[str] | None] | None = None  # compiled on first use


def _cased_marks() -> Callable[[str], re.Match[str] | None]:
    global _cased_marks_search
    groups = [_ending_with(char, marks) for char, marks in _MARKS_BY_CHAR]
    literals = [r"SG\.", "SK", "密码", "xox", ":/", "yJ(?<=eyJ)", "arer(?<=earer)"]
    pattern = re.compile("|".join([*groups, *literals]))
    _cased_marks_search = pattern.search
    return _cased_marks_search


def _has_mark(text: str) -> bool:
    if (_cased_marks_search or _cased_marks())(text) is not None:
        return True
    folded = text.lower() if text.isascii() else text.casefold()  # equal on ASCII, cheaper
    for mark in _FOLDED_MARKS:
        if mark in folded:
            return True
    return False


def _may_hold_secret(text: str) -> bool:
    """False when no rule can match ``text`` (the two cheap pre-checks above)."""
    return _has_mark(text) and _MAYBE_SECRET.search(text) is not None


def find_secrets(text: str) -> list[SecretMatch]:
    """Every likely credential in ``text``, in order of position; overlaps keep the first
    rule listed in ``RULES`` (the most specific)."""
    if not _may_hold_secret(text):
        return []
    return _scan(text)


def first_secret(fields: Iterable[tuple[str, str | None]]) -> tuple[str, SecretMatch] | None:
    """The first field (name, text pairs; None or empty skipped) holding a likely credential,
    with its first match; None when no field does.

    The pre-checks run once over all the texts joined by newlines (no literal and no token run
    spans a newline, so the joined text passes them exactly when one of the texts does): a
    bulk import checks four fields of every record at the cost of one.
    """
    present = [(name, text) for name, text in fields if text]
    if not present or not _may_hold_secret("\n".join([text for _, text in present])):
        return None
    for name, text in present:
        matches = find_secrets(text)
        if matches:
            return name, matches[0]
    return None


def _scan(text: str, *, every_rule: bool = False) -> list[SecretMatch]:
    """``find_secrets`` without the pre-checks (tests compare the two).

    Each rule scans only a text holding one of its literals (``SecretRule.needs``): a text
    that passes the pre-checks usually holds one mark ("key", "://"), and scanning it with
    every rule cost ~1.4 ms per 1,700 characters of chat (most of a pack's time on the store
    of real chat turns, ``benchmarks.chat_store``). ``every_rule``: scan with all of them
    (what tests compare with)."""
    found: list[SecretMatch] = []
    folded_text = text.lower() if text.isascii() else text.casefold()
    for rule in _compiled_rules():
        if not every_rule and not any(
            need in (folded_text if rule.folded else text) for need in rule.needs
        ):
            continue
        for match in rule.pattern.finditer(text):
            start, end = _secret_span(match)
            if start == end:
                continue
            if rule.check is not None and not rule.check(text[start:end]):
                continue
            if any(start < other.end and other.start < end for other in found):
                continue
            found.append(SecretMatch(rule.name, rule.description, (start, end)))
    return sorted(found, key=lambda m: m.span)


def has_secret(text: str) -> bool:
    return bool(find_secrets(text))


def mask_secrets(text: str, template: str = "[secret: {rule}]") -> str:
    """``text`` with every likely credential replaced by ``template`` (``{rule}`` is the
    rule name): ``password=hunter22`` becomes ``password=[secret: password_assignment]``."""
    matches = find_secrets(text)
    if not matches:
        return text
    pieces: list[str] = []
    position = 0
    for match in matches:
        pieces.append(text[position : match.start])
        pieces.append(template.format(rule=match.rule))
        position = match.end
    pieces.append(text[position:])
    return "".join(pieces)


def refuse_secrets(fields: Mapping[str, str | None], *, doing: str = "store") -> None:
    """Raise ``SecretDetectedError`` naming the first field and rule that matched.

    ``fields`` maps a field name ("content", "meta"...) to its text; None is skipped. Used by
    the store on every write that does not allow secrets, and by import for each record.
    """
    for field, text in fields.items():
        if not text:
            continue
        matches = find_secrets(text)
        if not matches:
            continue
        rules = tuple(dict.fromkeys(m.rule for m in matches))
        first = matches[0]
        more = f" and {len(rules) - 1} other rule(s)" if len(rules) > 1 else ""
        raise SecretDetectedError(
            f"refusing to {doing} a likely secret in {field}: {first.description} "
            f"(rule {first.rule}){more}; remove it, or pass --allow-secret to {doing} it anyway",
            rules,
        )
