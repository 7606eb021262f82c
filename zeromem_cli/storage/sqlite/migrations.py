"""Numbered schema steps, applied in one transaction and recorded in ``PRAGMA user_version``.

Each step is a function ``mNNN_what_it_does(conn)``; append new steps, never edit old ones.
A database whose user_version is higher than the steps we know was written by a newer zeromem:
we refuse to touch it rather than guess.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from zeromem_cli.errors import SchemaError
from zeromem_cli.storage.sqlite import db
from zeromem_cli.storage.sqlite.schema import check_not_newer, schema_version

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one: ``executescript`` would COMMIT our open transaction."""
    statement = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
    if statement.strip():
        raise SchemaError(f"incomplete statement in migration: {statement.strip()[:60]}")


def m001_initial(conn: sqlite3.Connection) -> None:
    """Memories, their FTS5 index, their history and a small key/value table for the store."""
    run_script(
        conn,
        f"""
        CREATE TABLE memories (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL,
            content_hash INTEGER NOT NULL,
            category TEXT NOT NULL DEFAULT 'general',
            tags TEXT NOT NULL DEFAULT '[]',
            key TEXT,
            user TEXT NOT NULL DEFAULT '',
            agent TEXT NOT NULL DEFAULT '',
            session TEXT NOT NULL DEFAULT '',
            importance INTEGER NOT NULL DEFAULT 5 CHECK (importance BETWEEN 0 AND 10),
            pinned INTEGER NOT NULL DEFAULT 0,
            meta TEXT NOT NULL DEFAULT '{{}}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            expires_at TEXT,
            last_accessed_at TEXT,
            access_count INTEGER NOT NULL DEFAULT 0,
            deleted_at TEXT
        );
        CREATE INDEX idx_memories_scope_created ON memories(user, agent, session, created_at);
        CREATE INDEX idx_memories_scope_hash ON memories(user, agent, session, content_hash);
        -- One live memory per key and scope: writing the key again updates that memory.
        CREATE UNIQUE INDEX idx_memories_live_key ON memories(user, agent, session, key)
            WHERE key IS NOT NULL AND deleted_at IS NULL;
        CREATE INDEX idx_memories_expires ON memories(expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX idx_memories_deleted ON memories(deleted_at) WHERE deleted_at IS NOT NULL;

        -- Contentless: the text lives once, in memories; the index holds only segmented tokens,
        -- keyed by memories.id (a real primary key, stable across VACUUM).
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, tags, category, key, content='', tokenize='{FTS_TOKENIZER}'
        );

        CREATE TABLE memory_history (
            id INTEGER PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            content TEXT NOT NULL,
            category TEXT NOT NULL,
            tags TEXT NOT NULL,
            key TEXT,
            importance INTEGER NOT NULL,
            pinned INTEGER NOT NULL,
            meta TEXT NOT NULL,
            expires_at TEXT,
            valid_from TEXT NOT NULL,
            valid_to TEXT NOT NULL,
            change TEXT NOT NULL
        );
        CREATE INDEX idx_history_memory ON memory_history(memory_id, id);

        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    )


def m002_deleted_reason(conn: sqlite3.Connection) -> None:
    """Why a memory is out of sight: 'forgotten' (forget), 'expired' (gc moved it to the trash)
    or 'archived' (gc archived it as stale; never purged by trash retention)."""
    run_script(
        conn,
        """
        ALTER TABLE memories ADD COLUMN deleted_reason TEXT;
        UPDATE memories SET deleted_reason = 'forgotten' WHERE deleted_at IS NOT NULL;
        """,
    )


def m003_operations_log(conn: sqlite3.Connection) -> None:
    """A small log of operations (never memory content) from which `stats` computes savings."""
    run_script(
        conn,
        """
        CREATE TABLE operations_log (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            op TEXT NOT NULL,
            result_count INTEGER NOT NULL DEFAULT 0,
            tokens INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX idx_operations_log_op ON operations_log(op);
        """,
    )


def m004_pinned_index(conn: sqlite3.Connection) -> None:
    """pack reads every pinned memory of a scope on each call: a partial index keeps that a
    lookup instead of a scan of the whole table."""
    conn.execute(
        "CREATE INDEX idx_memories_scope_pinned ON memories(user, agent, session) WHERE pinned = 1"
    )


def m005_live_expiry_index(conn: sqlite3.Connection) -> None:
    """gc looks for live memories whose expiry has passed, in batches. The old index also held
    every memory gc had already moved to the trash, so each batch walked past all of them again
    (quadratic in the memories expired: ``python -m benchmarks.speed --tiers 1000000 --only
    gc``). Index only live expiring memories."""
    run_script(
        conn,
        """
        DROP INDEX IF EXISTS idx_memories_expires;
        CREATE INDEX idx_memories_live_expires ON memories(expires_at)
            WHERE expires_at IS NOT NULL AND deleted_at IS NULL;
        """,
    )


def m006_pinned_rank_index(conn: sqlite3.Connection) -> None:
    """pack reads the pinned memories of a scope most important first (importance, then
    updated_at, then id, all descending), at most budget/2 of them. The m004 index found them
    but left the ordering to a sort of every pinned memory (``python -m benchmarks.speed --tiers
    1000000 --only latency`` times pack); read backwards, this one yields them already in that
    order, so LIMIT stops early."""
    run_script(
        conn,
        """
        DROP INDEX IF EXISTS idx_memories_scope_pinned;
        CREATE INDEX idx_memories_pinned_rank
            ON memories(user, agent, session, importance, updated_at) WHERE pinned = 1;
        """,
    )


def m007_uid_blob(conn: sqlite3.Connection) -> None:
    """Store each memory uid as its 16 bytes instead of 36 characters of text: ~40 bytes less
    per memory in the row and as many in the UNIQUE index (see ``uids``). The column keeps its
    declared type (a BLOB is stored as a BLOB in a TEXT column), so the table needs no rebuild.
    A uid that is not a UUID (only a hand-edited database has one) stays text; ``uid_from_db``
    reads both. SQLite 3.40 has no unhex(): the bytes are computed here, with executemany."""
    import uuid

    def converted(row: tuple[int, str]) -> tuple[bytes, int] | None:
        try:
            return uuid.UUID(row[1]).bytes, row[0]
        except ValueError:
            return None

    last = 0
    while True:  # in batches by id: a million uids never sit in memory at once
        rows = conn.execute(
            "SELECT id, uid FROM memories WHERE id > ? AND typeof(uid) = 'text' "
            "ORDER BY id LIMIT 10000",
            (last,),
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        updates = [pair for pair in map(converted, rows) if pair is not None]
        conn.executemany("UPDATE memories SET uid = ? WHERE id = ?", updates)


def m008_project_scope(conn: sqlite3.Connection) -> None:
    """The project scope, and indexes for reading a whole owner (user and project) across its
    agents and sessions. Every existing memory keeps its user, agent and session and gets no
    project (''), so none changes owner; the key index now includes the project."""
    run_script(
        conn,
        """
        ALTER TABLE memories ADD COLUMN project TEXT NOT NULL DEFAULT '';
        DROP INDEX IF EXISTS idx_memories_scope_created;
        DROP INDEX IF EXISTS idx_memories_scope_hash;
        DROP INDEX IF EXISTS idx_memories_live_key;
        DROP INDEX IF EXISTS idx_memories_pinned_rank;
        CREATE INDEX idx_memories_owner_created ON memories(user, project, created_at);
        CREATE INDEX idx_memories_scope_created
            ON memories(user, project, agent, session, created_at);
        CREATE INDEX idx_memories_owner_hash ON memories(user, project, content_hash);
        CREATE UNIQUE INDEX idx_memories_live_key ON memories(user, project, agent, session, key)
            WHERE key IS NOT NULL AND deleted_at IS NULL;
        CREATE INDEX idx_memories_pinned_rank
            ON memories(user, project, importance, updated_at) WHERE pinned = 1;
        """,
    )


def m009_memory_vectors(conn: sqlite3.Connection) -> None:
    """Vectors of the semantic extra (``storage.sqlite.vectors`` describes the layout): blocks
    of one owner's vectors, and where each memory's vector is, of which content version.
    Empty until a model writes them; a store used without the extra keeps them empty."""
    run_script(
        conn,
        """
        CREATE TABLE vector_blocks (
            id INTEGER PRIMARY KEY,
            user TEXT NOT NULL,
            project TEXT NOT NULL,
            size INTEGER NOT NULL,
            ids BLOB NOT NULL,
            scales BLOB NOT NULL,
            vectors BLOB NOT NULL
        );
        CREATE INDEX idx_vector_blocks_owner ON vector_blocks(user, project, size);
        CREATE TABLE memory_vectors (
            memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
            block_id INTEGER NOT NULL,
            content_hash INTEGER NOT NULL
        );
        CREATE INDEX idx_memory_vectors_block ON memory_vectors(block_id);
        """,
    )


def m010_key_first_index(conn: sqlite3.Connection) -> None:
    """The live-key index with the key right after the owner (user, project): a scope reads
    every agent and session of its owner, so a look-up by key constrains only user, project
    and key, and with agent and session before the key it walked every keyed memory of the
    owner (#33: ingest's look-ups grew with the store; ``python -m benchmarks.ingest_speed``).
    Same columns, so the same uniqueness and the same size."""
    run_script(
        conn,
        """
        DROP INDEX IF EXISTS idx_memories_live_key;
        CREATE UNIQUE INDEX idx_memories_live_key ON memories(user, project, key, agent, session)
            WHERE key IS NOT NULL AND deleted_at IS NULL;
        """,
    )


def m011_owner_importance_index(conn: sqlite3.Connection) -> None:
    """Indexes that read an owner in pack's orders and fit in less room.

    pack without a query (a session-start hook) reads an owner's most important and most
    recent memories (by importance, then last change); no index had those orders, so SQLite
    sorted every memory of the owner twice (``python -m benchmarks.hook_latency``). One
    index of (user, project, importance, created_at) gives both for every memory never
    changed since written (its last change is its creation), and a small one holds the
    changed ones by last change; merged, LIMIT stops early (``memories.pack_candidates``).
    It replaces the owner's (user, project, created_at) index: newest first is the newest of
    each importance, merged (importance is one of eleven values). The origin index (agent,
    session) holds only memories that have an origin: for the others it repeated the owner
    index (``python -m benchmarks.speed --only footprint``)."""
    run_script(
        conn,
        """
        DROP INDEX IF EXISTS idx_memories_owner_created;
        DROP INDEX IF EXISTS idx_memories_scope_created;
        CREATE INDEX idx_memories_owner_importance
            ON memories(user, project, importance, created_at);
        CREATE INDEX idx_memories_owner_changed ON memories(user, project, importance, updated_at)
            WHERE updated_at != created_at;
        CREATE INDEX idx_memories_origin_created
            ON memories(user, project, agent, session, created_at)
            WHERE agent != '' OR session != '';
        """,
    )


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_initial,
    m002_deleted_reason,
    m003_operations_log,
    m004_pinned_index,
    m005_live_expiry_index,
    m006_pinned_rank_index,
    m007_uid_blob,
    m008_project_scope,
    m009_memory_vectors,
    m010_key_first_index,
    m011_owner_importance_index,
]
LATEST_VERSION = len(MIGRATIONS)  # schema.LATEST_VERSION, which an open reads without this module


# A one-time job on at least this many memories is announced (``notice``): on 1M memories an
# upgrade takes tens of seconds, which must not look like a hang.
NOTICE_MIN_MEMORIES = 10_000


def migrate(conn: sqlite3.Connection, notice: Callable[[str], None] | None = None) -> bool:
    """Bring the schema up to date; return True when any step ran. Caller holds no transaction.

    ``notice`` is told, before the steps run, when they will rework a large existing store.
    """
    version = schema_version(conn)
    check_not_newer(version)
    if version == LATEST_VERSION:
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(conn)  # another process may have migrated while we waited
        check_not_newer(version)
        if notice is not None and version > 0:
            count = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
            if count >= NOTICE_MIN_MEMORIES:
                notice(
                    f"upgrading the database of {count:,} memories to schema {LATEST_VERSION} "
                    "(once; nothing is lost if it is interrupted)"
                )
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            try:
                step(conn)
            except db.ERRORS as exc:
                raise SchemaError(
                    f"schema migration {number} ({step.__name__}) failed: {exc}; "
                    "the database was left unchanged"
                ) from exc
            conn.execute(f"PRAGMA user_version = {number}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return True
