"""The records written as plain classes (``zeromem_cli.plain``) behave as the dataclasses they
replace: the same constructor, defaults, equality, repr, immutability and hashing; each is of
the kind plain.py's rule gives it, and takes its ``__init__`` from the generated
``record_inits.py``."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from zeromem_cli.config import Setting
from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope, WriteResult
from zeromem_cli.oplog import OperationSummary
from zeromem_cli.pack.select import Candidate, PackResult, Weights
from zeromem_cli.plain import FrozenRecord, Record
from zeromem_cli.search import Ranking
from zeromem_cli.storage.sqlite.window import Window
from zeromem_cli.text.dates import DateHint
from zeromem_cli.text.query import Term
from zeromem_cli.text.secrets import SecretMatch, SecretRule

REPO = Path(__file__).resolve().parents[2]
MEMORY = Memory(1, "u-1", "text")
SAMPLES: list[Any] = [
    Scope("alice", None, "s1"),
    MEMORY,
    HistoryEntry(1, 1, "text", "fact", ["t"], None, 5, False, {}, None, "2026", None, "current"),
    WriteResult(MEMORY, "added"),
    OperationSummary("search", 3, 10, 0),
    Weights(importance=0.5),
    Candidate(MEMORY, 1.0, 0.5, 0.2, 0.0, 1.4),
    PackResult("- x\n", 3, 100, "approx", "text"),
    Setting("search.limit", int, 10, "Results.", 1, 100),
    Filters(category="fact", tags=["a"]),
    Term("report", prefix=True),
    Ranking(pool=0, prefix=False),
    SecretRule("token", "A token", re.compile("tok_[a-z]+")),
    SecretMatch("token", "A token", (3, 9)),
    Window('("report")', 41, (3, 7)),
    DateHint(str.isdigit),
]


def _frozen(record: Any) -> bool:
    return isinstance(record, FrozenRecord)


def _dataclass_twin(record: Any) -> Any:
    """The same record as a dataclass built from the class's own constructor signature."""
    cls = type(record)
    parameters = list(inspect.signature(cls).parameters.values())
    fields = [(p.name, Any, dataclasses.field(default=None)) for p in parameters]
    twin = dataclasses.make_dataclass(cls.__qualname__, fields, frozen=_frozen(record))
    return twin(**{p.name: getattr(record, p.name) for p in parameters})


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: type(r).__name__)
def test_record_matches_its_dataclass_twin(record: Any) -> None:
    cls = type(record)
    parameters = list(inspect.signature(cls).parameters)
    assert parameters == list(cls._fields) == list(cls.__slots__)  # fields in constructor order
    twin = _dataclass_twin(record)
    assert repr(record) == repr(twin)
    copy = cls(**{name: getattr(record, name) for name in parameters})
    assert copy == record and not (copy != record)
    assert record != twin  # another class is never equal, as with dataclasses
    first = parameters[0]
    other = cls(**{**{n: getattr(record, n) for n in parameters}, first: object()})
    assert other != record
    import copy as copying
    import pickle

    assert pickle.loads(pickle.dumps(record)) == record
    assert copying.copy(record) == record and copying.deepcopy(record) == record
    if _frozen(record):
        assert hash(copy) == hash(record)
        with pytest.raises(AttributeError):
            setattr(record, first, None)
        with pytest.raises(AttributeError):
            delattr(record, first)
    else:
        with pytest.raises(TypeError):
            hash(record)
        with pytest.raises(AttributeError):
            record.not_a_field = 1


def test_defaults_are_fresh_per_record_and_scope_treats_empty_as_unset() -> None:
    first, second = Memory(1, "a", "x"), Memory(2, "b", "y")
    first.tags.append("t")
    first.meta["k"] = 1
    assert second.tags == [] and second.meta == {}
    assert WriteResult(first, "added").similar is not WriteResult(first, "added").similar
    assert PackResult("", 0, 1, "approx", "text").memories == []
    assert Scope("", "", "") == Scope() and Scope("", "bot").agent == "bot"
    assert Scope(user="").user is None
    assert len({Scope("a"), Scope("a"), Scope("b")}) == 2
    assert Memory(1, "a", "x").category == "general" and Memory(1, "a", "x").importance == 5


MUTABLE = (Memory, HistoryEntry, WriteResult, Filters, PackResult, Candidate, OperationSummary)
VALUES = (Weights, Ranking, DateHint, Window, Term, SecretRule, SecretMatch, Setting)


def test_each_record_is_of_the_kind_the_rule_gives_it() -> None:
    """plain.py's rule: mutable returned records are Records, small immutable values
    FrozenRecords (and every sample above is one of these)."""
    assert all(issubclass(c, Record) and not issubclass(c, FrozenRecord) for c in MUTABLE)
    assert all(issubclass(c, FrozenRecord) for c in (*VALUES, Scope))
    assert {type(r) for r in SAMPLES} == {*MUTABLE, *VALUES, Scope}
    changed = Weights(importance=0.5)._replace(context=0.0)
    assert changed == Weights(importance=0.5, context=0.0) and changed != Weights(importance=0.5)
    assert Term("a")._replace(prefix=True) == Term("a", True)


def test_the_generated_inits_match_the_classes() -> None:
    from zeromem_cli import plain

    text = (REPO / "zeromem_cli" / "plain.py").read_text(encoding="utf-8")
    assert text[text.index(plain.GENERATED) :] == plain.generated_inits(), (
        "the generated section of zeromem_cli/plain.py is stale: run "
        "`python -m zeromem_cli.plain --write`"
    )


@pytest.mark.parametrize("cls", [*MUTABLE[:-1], *VALUES], ids=lambda c: c.__name__)
def test_package_records_take_the_generated_init(cls: type[Record]) -> None:
    """Nothing is compiled at start-up: each declared record's __init__ is the generated one
    (OperationSummary writes its own)."""
    from zeromem_cli import plain

    cls(**{name: None for name in cls._fields})  # the first record puts the __init__ in place
    init = cls.__init__
    assert init.__code__.co_filename == plain.__file__
    assert init.__code__.co_name == f"_init_{cls.__qualname__}"
    assert init.__qualname__ == f"{cls.__qualname__}.__init__"


def test_a_record_declares_its_fields_once() -> None:
    from zeromem_cli.plain import field

    class Point(Record):
        x: int
        y: int = 0
        seen: list[int] = field(default_factory=list)
        label: dict[str, int] = field(default_factory=lambda: {"n": 1})

    assert Point.__slots__ == Point._fields == ("x", "y", "seen", "label")
    first, second = Point(1), Point(x=2, y=3, seen=[4])
    assert (first.x, first.y, first.seen, first.label) == (1, 0, [], {"n": 1})
    assert first.seen is not Point(1).seen and first.label is not Point(1).label
    assert (second.x, second.y, second.seen) == (2, 3, [4])
    assert str(inspect.signature(Point)) == "(x, y=0, seen=<factory>, label=<factory>)"
    assert repr(first).endswith(".Point(x=1, y=0, seen=[], label={'n': 1})")
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(AttributeError):
        first.z = 1  # type: ignore[attr-defined]

    class Frozen(FrozenRecord):
        name: str
        size: int = 1

    assert Frozen("a") == Frozen("a", 1) and hash(Frozen("a")) == hash(Frozen("a", 1))
    with pytest.raises(AttributeError):
        Frozen("a").name = "b"


def test_record_declarations_that_cannot_work_are_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Bad(Record):
            x: int = 0
            y: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="cannot be subclassed"):

        class Wider(Memory):
            extra: int = 0
