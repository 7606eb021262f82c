"""Keys, duplicates, history, expiry, forget (soft, bulk, --purge), trash and gc, via the CLI."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import time_machine

from tests.conftest import Run, as_json, stored
from zeromem_cli import MemoryStore, NotFoundError

T0 = datetime(2030, 1, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    """Frozen time at T0; ``clock.shift(timedelta)`` moves it (no sleeps)."""
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


def ids(records: list[dict[str, object]]) -> list[object]:
    return sorted(r["id"] for r in records)


# -- keys, duplicates, history ---------------------------------------------------------------


def test_key_upsert_keeps_one_live_memory_and_full_history(
    cli: Run, clock: time_machine.Traveller
) -> None:
    assert cli("add", "Report due Friday", "-k", "report", "-c", "work").stdout == "1\n"
    clock.shift(timedelta(hours=1))
    second = cli("add", "Report due Thursday", "-k", "report")
    assert (second.stdout, second.stderr) == ("1\n", "updated #1 (key 'report')\n")
    clock.shift(timedelta(hours=1))
    cli("update", "1", "Report due Wednesday")
    live = as_json(cli("list", "--json"))
    assert [(m["id"], m["content"], m["category"]) for m in live] == [
        (1, "Report due Wednesday", "work")
    ]
    versions = as_json(cli("history", "1", "--json"))
    assert [(v["content"], v["valid_from"], v["valid_to"]) for v in versions] == [
        ("Report due Friday", "2030-01-01T09:00:00Z", "2030-01-01T10:00:00Z"),
        ("Report due Thursday", "2030-01-01T10:00:00Z", "2030-01-01T11:00:00Z"),
        ("Report due Wednesday", "2030-01-01T11:00:00Z", None),
    ]
    assert [v["change"] for v in versions] == ["key-update", "update", "current"]


def test_duplicate_add_returns_the_same_id_and_refreshes_it(
    cli: Run, clock: time_machine.Traveller
) -> None:
    cli("add", "Café  Zürich opens at 8")
    clock.shift(timedelta(days=2))
    again = cli("add", "  café zürich OPENS at 8\n")
    assert (again.exit_code, again.stdout) == (0, "1\n")
    assert "duplicate of #1" in again.stderr
    record = as_json(cli("show", "1", "--json"))
    assert record["updated_at"] == "2030-01-03T09:00:00Z"
    assert record["content"] == "Café  Zürich opens at 8"
    assert cli("add", "café zürich opens at 8", "--allow-duplicate").stdout == "2\n"


def test_a_forgotten_identical_memory_is_not_a_duplicate(cli: Run) -> None:
    cli("add", "Bob likes tea")
    cli("forget", "1", "--yes")
    assert cli("add", "Bob likes tea").stdout == "2\n"
    assert cli("restore", "1").exit_code == 0  # the original is intact too


# -- expiry --------------------------------------------------------------------------------


def test_expiry_hides_a_memory_without_gc(cli: Run, clock: time_machine.Traveller) -> None:
    cli("add", "Door code is 4711", "--ttl", "1h")
    cli("add", "Door has a blue frame")
    assert ids(as_json(cli("search", "door", "--json"))) == [1, 2]
    clock.shift(timedelta(minutes=59))
    assert cli("show", "1").exit_code == 0
    clock.shift(timedelta(minutes=1))  # expires_at is now: gone, no gc has run
    assert cli("show", "1").exit_code == 1
    assert ids(as_json(cli("search", "door", "--json"))) == [2]
    assert ids(as_json(cli("list", "--json"))) == [2]
    assert as_json(cli("show", "1", "--include-expired", "--json"))["id"] == 1
    assert ids(as_json(cli("list", "--include-expired", "--json"))) == [1, 2]


def test_ttl_on_update_and_iso_dates(cli: Run, clock: time_machine.Traveller) -> None:
    cli("add", "Conference badge pickup at hall B")
    record = as_json(cli("update", "1", "--ttl", "2030-01-02T12:00:00Z", "--json"))
    assert record["expires_at"] == "2030-01-02T12:00:00Z"
    clock.shift(timedelta(days=2))
    assert stored(cli) == []


# -- forget selectors --------------------------------------------------------------------------


@pytest.fixture
def sample(cli: Run, clock: time_machine.Traveller) -> None:
    cli("add", "Weekly report goes out Fridays", "-c", "work", "-t", "report")
    cli("add", "Quarterly report needs finance sign-off", "-c", "work", "-k", "qr")
    clock.shift(timedelta(days=10))
    cli("add", "Bob likes green tea", "-c", "people", "-t", "bob")
    cli("add", "Bob's birthday is March 3rd", "-c", "people", "-t", "bob")
    cli("add", "Alice's report style: terse", "--user", "alice")


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (["--key", "qr"], [2]),
        (["--category", "people"], [3, 4]),
        (["--tag", "bob"], [3, 4]),
        (["--category", "work", "--tag", "report"], [1]),
        (["--before", "2030-01-05"], [1, 2]),
        (["--before", "5d"], [1, 2]),
        (["--query", "report"], [1, 2]),
        (["--query", "report", "--limit", "1"], [1]),
        (["--all"], [1, 2, 3, 4]),
        (["1", "3"], [1, 3]),
    ],
)
def test_forget_selectors(cli: Run, sample: None, selector: list[str], expected: list[int]) -> None:
    dry = cli("forget", *selector, "--dry-run", "--json")
    assert ids(as_json(dry)) == expected
    assert f"would forget {len(expected)} memor" in dry.stderr
    assert len(as_json(cli("list", "--json"))) == 4  # a dry run changes nothing
    done = cli("forget", *selector, "--yes")
    assert done.exit_code == 0 and f"forgot {len(expected)} memor" in done.stderr
    remaining = ids(as_json(cli("list", "--json")))
    assert remaining == [i for i in [1, 2, 3, 4] if i not in expected]
    assert ids(as_json(cli("list", "--json", "--user", "alice"))) == [5]  # other scope intact


def test_forget_query_selects_only_memories_holding_every_word(cli: Run, sample: None) -> None:
    """search ORs the words (right for finding); forget --query needs all of them (issue 15:
    `forget --query "张伟的手机号"` selected every memory about 张伟)."""
    query = "when is the weekly report due?"  # content words: weekly, report, due
    found = ids(as_json(cli("search", query, "--json", "--limit", "100")))
    assert found == [1, 2]  # search finds both reports
    assert ids(as_json(cli("forget", "--query", "weekly report", "--dry-run", "--json"))) == [1]
    assert ids(as_json(cli("forget", "--query", query, "--dry-run", "--json"))) == []
    assert ids(as_json(cli("forget", "--query", "Reports", "--dry-run", "--json"))) == [1, 2]


def test_forget_query_in_chinese_needs_every_word(cli: Run) -> None:
    cli("add", "张伟的手机号是13800138000")
    cli("add", "张伟的邮箱是zhangwei@example.com")
    cli("add", "张伟喜欢喝茶")
    assert ids(as_json(cli("forget", "--query", "张伟的手机号", "--dry-run", "--json"))) == [1]
    done = cli("forget", "--query", "张伟的手机号", "--yes", "--json")
    assert as_json(done) == {"action": "forgotten", "count": 1, "ids": [1]}
    assert ids(as_json(cli("list", "--json"))) == [2, 3]


def test_forget_all_respects_scope(cli: Run, sample: None) -> None:
    assert "forgot 1 memory" in cli("forget", "--all", "--user", "alice", "--yes").stderr
    assert len(as_json(cli("list", "--json"))) == 4


def test_forget_needs_a_selector_and_confirmation(cli: Run, sample: None) -> None:
    bare = cli("forget", "--yes")
    assert bare.exit_code == 2 and "--all" in bare.stderr
    unconfirmed = cli("forget", "--category", "people")
    assert unconfirmed.exit_code == 2 and "--yes" in unconfirmed.stderr
    assert len(as_json(cli("list", "--json"))) == 4
    assert cli("forget", "--trash", "--all", "--yes").exit_code == 2  # --trash needs --purge
    assert cli("forget", "--limit", "3", "--all", "--yes").exit_code == 2
    nothing = cli("forget", "--category", "nope", "--yes")
    assert nothing.exit_code == 0 and "nothing to forget" in nothing.stderr


def test_forget_an_unknown_id_forgets_nothing(cli: Run, sample: None) -> None:
    result = cli("forget", "1", "99", "--yes")
    assert result.exit_code == 1 and "#99" in result.stderr
    assert len(as_json(cli("list", "--json"))) == 4


@pytest.mark.slow
def test_bulk_forget_processes_every_selected_memory(cli: Run, db_path: Path) -> None:
    total = 10_001
    with MemoryStore(db_path) as store:
        store.connection.execute("PRAGMA synchronous=OFF")  # test set-up speed only
        for number in range(total):
            store.add(f"bulk note {number}", category="bulk", allow_duplicate=True)
        store.add("keep me", category="other")
    forgotten = cli("forget", "--category", "bulk", "--yes")
    assert forgotten.exit_code == 0, forgotten.stderr
    assert f"forgot {total:,}".replace(",", "") in forgotten.stderr
    with MemoryStore(db_path) as store:
        assert [m.content for m in store.list()] == ["keep me"]
    purged = cli("forget", "--trash", "--all", "--purge", "--yes")
    assert f"purged {total} memories" in purged.stderr
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 1
    assert ids(as_json(cli("search", "keep", "--json"))) == [1 + total]


# -- purge ---------------------------------------------------------------------------------


def _raw_bytes(db_path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm"):
        file = Path(str(db_path) + suffix)
        if file.exists():
            data += file.read_bytes()
    return data


def _integrity(db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")


@pytest.mark.parametrize(
    ("secret", "needles"),
    [
        # the word itself is also an FTS token: the index must be rewritten, not only marked
        ("Passport number zqxv93871 belongs to Alice", ["zqxv93871", "Passport number"]),
        ("保险箱密码是鲲鹏七三九", ["鲲鹏七三九", "鲲鹏", "保险箱密码"]),
    ],
)
@pytest.mark.parametrize("trashed_first", [False, True])
def test_purge_leaves_no_bytes_behind(
    cli: Run, db_path: Path, secret: str, needles: list[str], trashed_first: bool
) -> None:
    with MemoryStore(db_path) as store:
        for number in range(12):
            store.add(f"unrelated memory number {number} about gardening")
    cli("add", secret, "-t", "private")
    secret_id = "13"
    cli("update", secret_id, secret + " (renewed)")  # the old text now lives in history too
    # An agent keeps the database open meanwhile, so closing the CLI's connection does not
    # checkpoint and delete the WAL by itself: the purge has to truncate it.
    agent = sqlite3.connect(db_path)
    agent.execute("SELECT count(*) FROM memories").fetchone()
    for needle in needles:  # the test can fail: every needle is there before the purge
        assert needle.encode() in _raw_bytes(db_path)
    if trashed_first:
        cli("forget", secret_id, "--yes")
        result = cli("forget", secret_id, "--trash", "--purge", "--yes")
    else:
        result = cli("forget", secret_id, "--purge", "--yes")
    assert result.exit_code == 0 and "purged 1 memory" in result.stderr
    assert Path(f"{db_path}-wal").exists()
    leftovers = _raw_bytes(db_path)
    assert [n for n in needles if n.encode() in leftovers] == []
    agent.close()
    _integrity(db_path)
    assert cli("restore", secret_id).exit_code == 1
    assert cli("history", secret_id).exit_code == 1
    assert len(as_json(cli("search", "gardening", "--json", "--limit", "50"))) == 12


def test_soft_forget_keeps_the_text_for_restore(cli: Run, db_path: Path) -> None:
    cli("add", "Locker code zzyzx4242")
    cli("forget", "1", "--yes")
    assert b"zzyzx4242" in _raw_bytes(db_path)
    assert cli("restore", "1").stdout == "1\n"


# -- trash, gc -----------------------------------------------------------------------------


def test_gc_moves_expired_to_trash_and_restore_brings_them_back(
    cli: Run, clock: time_machine.Traveller
) -> None:
    cli("add", "Temporary wifi password guest-42", "--ttl", "1d")
    cli("add", "Permanent fact")
    clock.shift(timedelta(days=2))
    dry = cli("gc", "--dry-run", "--json")
    assert as_json(dry)["expired"] == 1 and as_json(dry)["dry_run"] is True
    assert as_json(cli("trash", "--json")) == []
    done = cli("gc")
    assert done.exit_code == 0 and done.stdout.count("\n") == 1
    assert done.stdout.startswith("gc: moved 1 expired to trash, purged 0 from trash")
    trash = as_json(cli("trash", "--json"))
    assert [(m["id"], m["deleted_reason"]) for m in trash] == [(1, "expired")]
    assert as_json(cli("gc", "--json"))["expired"] == 0  # nothing counted twice
    assert cli("restore", "1").exit_code == 0
    record = as_json(cli("show", "1", "--json"))
    assert record["expires_at"] is None and record["deleted_reason"] is None


def test_gc_purges_trash_after_the_retention_period(
    cli: Run, db_path: Path, clock: time_machine.Traveller, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("add", "Old secret to forget")
    cli("add", "Keep this one")
    cli("forget", "1", "--yes")
    clock.shift(timedelta(days=29))
    assert as_json(cli("gc", "--json"))["purged"] == 0
    clock.shift(timedelta(days=2))
    assert as_json(cli("gc", "--json"))["purged"] == 1
    assert b"Old secret to forget" not in _raw_bytes(db_path)
    with MemoryStore(db_path) as store, pytest.raises(NotFoundError):
        store.get(1, include_deleted=True)
    monkeypatch.setenv("ZEROMEM_GC_TRASH_RETENTION_DAYS", "0")
    cli("forget", "2", "--yes")
    assert as_json(cli("gc", "--json"))["purged"] == 1


def test_gc_archives_stale_memories_only_when_enabled(
    cli: Run, clock: time_machine.Traveller, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("add", "Trivial stale note", "-i", "2")
    cli("add", "Important stale fact", "-i", "8")
    cli("add", "Pinned trivial note", "-i", "1", "--pin")
    clock.shift(timedelta(days=170))
    cli("add", "Recent trivial note", "-i", "1")
    clock.shift(timedelta(days=20))
    assert as_json(cli("gc", "--json"))["archived"] == 0  # off by default
    monkeypatch.setenv("ZEROMEM_GC_ARCHIVE_ENABLED", "true")
    assert as_json(cli("gc", "--json"))["archived"] == 1
    archived = as_json(cli("trash", "--reason", "archived", "--json"))
    assert [m["id"] for m in archived] == [1]
    assert ids(as_json(cli("list", "--json"))) == [2, 3, 4]
    clock.shift(timedelta(days=365))  # archived memories outlive the trash retention
    monkeypatch.setenv("ZEROMEM_GC_ARCHIVE_ENABLED", "false")
    assert as_json(cli("gc", "--json"))["purged"] == 0
    assert cli("restore", "1").exit_code == 0


def test_gc_quiet_prints_nothing_and_vacuum_works(cli: Run, clock: time_machine.Traveller) -> None:
    cli("add", "expiring", "--ttl", "1m")
    clock.shift(timedelta(hours=1))
    quiet = cli("gc", "--quiet", "--vacuum")
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
    report = as_json(cli("gc", "--vacuum", "--json"))
    assert report["vacuumed"] is True and report["optimized"] is True


def test_gc_with_a_scope_touches_only_that_scope(cli: Run, clock: time_machine.Traveller) -> None:
    cli("add", "alice temp", "--ttl", "1m", "--user", "alice")
    cli("add", "bob temp", "--ttl", "1m", "--user", "bob")
    clock.shift(timedelta(hours=1))
    assert as_json(cli("gc", "--json", "--user", "alice"))["expired"] == 1
    assert as_json(cli("trash", "--json", "--user", "bob")) == []
    assert as_json(cli("gc", "--json"))["expired"] == 1  # no scope: the whole database


def test_gc_reports_a_locked_database_clearly(
    cli: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("add", "something")
    monkeypatch.setattr("zeromem_cli.storage.sqlite.db.BUSY_TIMEOUT_SECONDS", 0.2)
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = cli("gc", "--quiet")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 1
    assert result.stderr.startswith("zeromem: error: database is locked")
    assert "Traceback" not in result.stderr


# -- forget --query: a broad selection is shown and must be confirmed -----------------------


@pytest.fixture
def reports(cli: Run) -> None:
    for number in range(12):
        assert cli("add", f"report number {number} for the board").exit_code == 0


def test_forget_query_yes_refuses_more_than_query_max_without_limit(
    cli: Run, reports: None
) -> None:
    refused = cli("forget", "--query", "report board", "--yes")
    assert refused.exit_code == 2
    assert "selects 12 memories, more than forget.query_max (10)" in refused.stderr
    assert "--dry-run" in refused.stderr and "--limit 12" in refused.stderr
    assert len(as_json(cli("list", "--json"))) == 12  # nothing forgotten
    done = cli("forget", "--query", "report board", "--limit", "12", "--yes", "--json")
    assert as_json(done)["count"] == 12


def test_forget_query_max_is_a_config_key(cli: Run, reports: None) -> None:
    assert cli("config", "set", "forget.query_max", "20", db=False).exit_code == 0
    assert as_json(cli("forget", "--query", "report", "--yes", "--json"))["count"] == 12


def test_forget_query_without_yes_shows_the_count_and_the_first_few(
    cli: Run, reports: None
) -> None:
    asked = cli("forget", "--query", "report board")  # no terminal: shown, then refused
    assert asked.exit_code == 2
    lines = asked.stderr.splitlines()
    assert lines[0] == "forget would take 12 memories:"
    shown = lines[1:6]  # best match first
    assert all(line.startswith("  #") and "[general] report number" in line for line in shown)
    assert len({line.split()[0] for line in shown}) == 5
    assert lines[6] == "  ... and 7 more (--dry-run lists them all)"
    assert "refusing without confirmation" in lines[-1]
