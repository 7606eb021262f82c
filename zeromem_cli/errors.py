"""The error hierarchy of the core library.

Every failure a user can cause or meet is a ``ZeromemError`` carrying the process exit code the
CLI should use, so the CLI edge needs one handler and the library never decides how to print.
"""

from __future__ import annotations

__all__ = [
    "ZeromemError",
    "InvalidInputError",
    "NotFoundError",
    "StoreError",
    "SchemaError",
    "SecretDetectedError",
]


class ZeromemError(Exception):
    """Base class: a message for the user and the exit code that goes with it."""

    exit_code: int = 1


class InvalidInputError(ZeromemError, ValueError):
    """A value the user gave is malformed (bad duration, empty content...): a usage error."""

    exit_code = 2


class NotFoundError(ZeromemError, LookupError):
    """No live memory with that id in this scope."""

    exit_code = 1


class StoreError(ZeromemError):
    """The database cannot be opened, read or written (not SQLite, locked, read-only...)."""

    exit_code = 1


class SchemaError(StoreError):
    """The database schema is newer than this zeromem understands, or a migration failed."""


class SecretDetectedError(InvalidInputError):
    """Text to be stored looks like a credential (see ``zeromem_cli.text.secrets``); refused unless
    the caller allows secrets. ``rules`` names what matched; the secret itself is never echoed.
    Exit code 2, like every other content rule: the input is refused, nothing was written."""

    def __init__(self, message: str, rules: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.rules = rules
