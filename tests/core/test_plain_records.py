"""The records written as plain classes (``zeromem_cli.plain``) behave as the dataclasses they
replace: the same constructor, defaults, equality, repr, immutability and hashing."""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

import pytest

from zeromem_cli.config import Setting
from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope, WriteResult
from zeromem_cli.oplog import OperationSummary
from zeromem_cli.pack.select import Candidate, PackResult, Weights
from zeromem_cli.plain import FrozenRecord, Record
from zeromem_cli.search import Ranking
from zeromem_cli.storage.window import Window
from zeromem_cli.text.query import Term
from zeromem_cli.text.secrets import SecretMatch, SecretRule

MEMORY = Memory(1, "u-1", "text")
SAMPLES: list[Record] = [
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
]


def _dataclass_twin(record: Record) -> Any:
    """The same record as a dataclass built from the class's own constructor signature."""
    cls = type(record)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = [(p.name, Any, dataclasses.field(default=None)) for p in parameters]
    twin = dataclasses.make_dataclass(
        cls.__qualname__, fields, frozen=isinstance(record, FrozenRecord)
    )
    return twin(**{p.name: getattr(record, p.name) for p in parameters})


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: type(r).__name__)
def test_record_matches_its_dataclass_twin(record: Record) -> None:
    cls = type(record)
    parameters = list(inspect.signature(cls.__init__).parameters)[1:]
    assert parameters == list(cls.__slots__)  # fields in constructor order
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
    if isinstance(record, FrozenRecord):
        assert hash(copy) == hash(record)
        with pytest.raises(AttributeError):
            setattr(record, first, None)
        with pytest.raises(AttributeError):
            delattr(record, first)
    else:
        with pytest.raises(TypeError):
            hash(record)
        with pytest.raises(AttributeError):
            record.not_a_field = 1  # type: ignore[attr-defined]


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
