"""How a memory's uid is stored: 16 raw bytes in the database, the canonical UUID text everywhere
else (``Memory.uid``, CLI output, export and import files).

As text the uid took 36 bytes in its row and again in its UNIQUE index (~80 bytes a memory, the
biggest item after the content and its index); as a BLOB it takes 16 in each. The store layer
converts at its edge with this pair and nothing else: ``uid_to_db`` on the way in,
``uid_from_db`` on the way out. Both avoid the ``uuid`` module, which pulls in ``platform`` and
would slow every read command's start-up.
"""

from __future__ import annotations

UID_BYTES = 16


def uid_to_db(uid: str) -> bytes:
    """The stored form of a canonical uid (``xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx``)."""
    if len(uid) != 36 or uid[8] != "-" or uid[13] != "-" or uid[18] != "-" or uid[23] != "-":
        raise ValueError(f"not a canonical UUID: {uid!r}")
    raw = bytes.fromhex(uid.replace("-", ""))  # ValueError on anything but hex digits
    if len(raw) != UID_BYTES:  # fromhex skips whitespace: "  " in place of digits
        raise ValueError(f"not a canonical UUID: {uid!r}")
    return raw


def uid_from_db(value: bytes | str) -> str:
    """The canonical text of a stored uid.

    A text value is returned unchanged: a uid that never was a UUID (hand-edited databases)
    stays text through the migration that turned every other uid into bytes.
    """
    if isinstance(value, bytes):
        h = value.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return value
