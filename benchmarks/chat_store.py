"""A store of real chat turns, for speed figures on text people write: every distinct turn of
the LongMemEval_S dev haystacks and every LoCoMo turn (~52k memories), each session its own
session scope, cached under benchmarks/.cache/ like the synthetic stores.

The synthetic stores (``benchmarks.synthetic``) repeat a small vocabulary in short memories,
so every query word is common there. Chat turns are longer (LongMemEval's average ~1,000
characters), their vocabulary is open and their questions are full sentences: searches rank
more words over longer texts. Read from ../shared/datasets; None when a dataset is absent.
"""

from __future__ import annotations

import random
import uuid
from datetime import datetime
from pathlib import Path

from benchmarks import synthetic
from benchmarks.datasets import load_locomo, load_longmemeval
from zeromem_cli import MemoryStore
from zeromem_cli.storage.sqlite import fts
from zeromem_cli.storage.uids import uid_to_db
from zeromem_cli.text.normalize import content_hash

# Bump when what goes into the store changes: cached files are named after it.
VERSION = 1


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000000+00:00")


def _turns() -> list[tuple[str, str, datetime]] | None:
    """(session, memory text, when) of every distinct turn, oldest haystack first."""
    stacks, conversations = load_longmemeval(), load_locomo()
    if stacks is None or conversations is None:
        return None
    seen: dict[tuple[str, str], tuple[str, str, datetime]] = {}
    for stack in stacks:
        for turn in stack.turns:  # haystacks share sessions: each turn is stored once
            seen.setdefault(
                (turn.session_id, turn.memory_text), (turn.session_id, turn.memory_text, turn.when)
            )
    turns = list(seen.values())
    for conversation in conversations:
        for said in conversation.turns:
            session = f"{conversation.sample_id}/{said.dia_id.split(':')[0]}"
            turns.append((session, said.memory_text, said.when))
    return turns


def cached_database() -> Path | None:
    """The chat store, built on first use (about half a minute); None without the datasets."""
    path = synthetic.CACHE / f"chats-v{VERSION}.db"
    if path.exists():
        return path
    turns = _turns()
    if turns is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    for suffix in ("", "-wal", "-shm"):
        Path(str(partial) + suffix).unlink(missing_ok=True)
    rows = [
        {
            "id": number,
            "uid": uid_to_db(str(uuid.UUID(int=number))),
            "content": text,
            "content_hash": content_hash(text),
            "session": session,
            "created_at": _stamp(when),
        }
        for number, (session, text, when) in enumerate(turns, start=1)
    ]
    with MemoryStore(partial) as store:
        store.connection.execute("PRAGMA synchronous=OFF")  # a throwaway file until renamed
        with store.transaction():
            conn = store.connection
            conn.executemany(
                "INSERT INTO memories (id, uid, content, content_hash, session, created_at, "
                "updated_at) VALUES (:id, :uid, :content, :content_hash, :session, "
                ":created_at, :created_at)",
                rows,
            )
            fts.index_rows(
                conn, [{**row, "tags": "[]", "category": "general", "key": None} for row in rows]
            )
        with store.transaction():
            conn = store.connection
            conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
        store.connection.execute("VACUUM")
        store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    partial.rename(path)
    return path


def questions(count: int, seed: int = 7) -> list[str]:
    """``count`` of the datasets' questions (LongMemEval_S and LoCoMo), in a fixed shuffle."""
    stacks, conversations = load_longmemeval(), load_locomo()
    asked = [s.question for s in stacks or []]
    asked += [q.question for c in conversations or [] for q in c.questions]
    random.Random(seed).shuffle(asked)
    return asked[:count]


__all__ = ["cached_database", "questions"]
