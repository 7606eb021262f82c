"""Plain record classes: what ``@dataclass`` gives the records zeromem returns, without its
cost at start-up.

``@dataclass`` writes each class's ``__init__``, ``__repr__`` and ``__eq__`` as source text and
compiles it when its module is imported: 0.2-0.5 ms a class, paid on every command start by
every record on the path (``Memory``, ``Scope``, ``Filters``, the settings schema...). A class
deriving from ``Record`` names its fields in ``__slots__`` (in order) and writes its own
``__init__``; ``Record`` adds equality and a repr over those fields, as a dataclass does
(``Memory(id=1, uid='...', ...)``; equal when of the same class with equal fields).
``FrozenRecord`` is the ``frozen=True`` kind: immutable and hashable. Unlike dataclasses, they
have no ``__dict__`` and ``dataclasses.fields`` / ``asdict`` / ``replace`` do not apply to them
(the records that need one have ``to_dict()``).
"""

from __future__ import annotations

from typing import Any, ClassVar


class Record:
    """Equality and repr over the fields named in ``__slots__``; unhashable, like a
    dataclass with ``eq=True``."""

    __slots__: ClassVar[tuple[str, ...]] = ()
    __hash__: ClassVar[None] = None  # type: ignore[assignment]

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.__slots__])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle and copy by calling the constructor with the fields in order (a frozen
        record cannot have its fields set one by one, as the default protocol would)."""
        return (type(self), self._values())


class FrozenRecord(Record):
    """A ``Record`` that cannot change once built (``__init__`` sets its fields with
    ``object.__setattr__``), hashable by its fields."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())
