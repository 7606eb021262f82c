"""Encryption at rest through the CLI: an encrypted store's files never hold the text, every
command works on it, and a missing, wrong or badly protected key is one line, exit 1, with the
store unchanged. Real SQLCipher (the ``encryption`` extra), real files in tmp_path."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore

pytest.importorskip("sqlcipher3")

CANARY = "canary-7f3a9c-marmot"
KEY = "correct horse battery staple"
HINT = "this store is encrypted: set ZEROMEM_KEY or --key-file"
REPO = Path(__file__).resolve().parents[2]


def _files(db: Path) -> list[Path]:
    return [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]


def _holds(db: Path, text: str) -> list[str]:
    """Which of the store's files contain ``text`` (UTF-8 bytes) anywhere."""
    needle = text.encode()
    return [p.name for p in _files(db) if needle in p.read_bytes()]


def _digest(db: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in _files(db)}


def _one_line_error(result: object, expected: str) -> None:
    err = result.stderr  # type: ignore[attr-defined]
    assert result.exit_code == 1, err  # type: ignore[attr-defined]
    assert err.count("\n") == 1 and err.startswith("zeromem: error: ") and expected in err, err
    assert KEY not in err and "Traceback" not in err


def _key_file(tmp_path: Path, text: str = KEY, mode: int = 0o600) -> Path:
    path = tmp_path / "store.key"
    path.write_text(text + "\n", encoding="utf-8")
    path.chmod(mode)
    return path


def test_a_new_store_with_a_key_is_encrypted_and_holds_no_plain_text(
    cli: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    assert cli("add", f"the {CANARY} lives in 東京タワー").exit_code == 0
    with MemoryStore(db_path) as store:  # open: the WAL and shm exist while it is
        store.add(f"second note about the {CANARY}", allow_duplicate=True)
        assert Path(f"{db_path}-wal").exists()
        assert _holds(db_path, CANARY) == [] and _holds(db_path, "SQLite format 3") == []
    assert _holds(db_path, CANARY) == []
    found = as_json(cli("search", CANARY, "--json"))
    assert len(found) == 2
    assert [m["content"] for m in as_json(cli("search", "東京", "--json"))] == [
        f"the {CANARY} lives in 東京タワー"
    ]
    assert db_path.stat().st_mode & 0o777 == 0o600


def test_encrypt_a_plain_store_leaves_no_plain_file_behind(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("add", f"plain {CANARY} 周报每周五发送").exit_code == 0
    assert _holds(db_path, CANARY) == ["memories.db"]  # the test can fail: it is there in plain
    key_file = _key_file(tmp_path)
    done = cli("encrypt", "--key-file", str(key_file))
    assert done.exit_code == 0, done.stderr
    assert f"encrypted {db_path}" in done.stderr and KEY not in done.stderr + done.stdout
    assert _holds(db_path, CANARY) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memories.db", "store.key"]
    assert db_path.stat().st_mode & 0o777 == 0o600
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(db_path).execute("SELECT count(*) FROM sqlite_master").fetchone()
    hits = as_json(cli("search", CANARY, "--json", "--key-file", str(key_file)))
    assert [h["content"] for h in hits] == [f"plain {CANARY} 周报每周五发送"]
    monkeypatch.setenv("ZEROMEM_KEY_FILE", str(key_file))
    assert [h["content"] for h in as_json(cli("search", "周报", "--json"))] == [
        f"plain {CANARY} 周报每周五发送"
    ]
    _one_line_error(cli("encrypt"), "already encrypted")


def test_no_key_or_a_wrong_key_is_one_line_and_changes_nothing(
    cli: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    assert cli("add", CANARY).exit_code == 0
    monkeypatch.delenv("ZEROMEM_KEY")
    before = _digest(db_path)
    for args in (["search", "x"], ["add", "new text"], ["list"], ["stats"], ["export"]):
        _one_line_error(cli(*args), HINT)
    monkeypatch.setenv("ZEROMEM_KEY", "not the key")
    _one_line_error(cli("add", "new text"), "wrong key")
    assert "not the key" not in cli("list").stderr
    assert _digest(db_path) == before


def test_a_plain_store_with_a_key_configured_is_refused_not_encrypted(
    cli: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("add", CANARY).exit_code == 0
    before = _digest(db_path)
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    _one_line_error(cli("search", "canary"), "is not encrypted, but a key is configured")
    assert _digest(db_path) == before and _holds(db_path, CANARY) == ["memories.db"]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_file_others_can_read_is_refused(
    cli: Run, db_path: Path, tmp_path: Path, mode: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = _key_file(tmp_path, mode=mode)
    _one_line_error(cli("search", CANARY, "--key-file", str(key_file)), "chmod 600")
    monkeypatch.setenv("ZEROMEM_KEY_FILE", str(key_file))
    _one_line_error(cli("add", CANARY), "chmod 600")
    assert not db_path.exists()


def test_a_missing_unreadable_or_odd_key_file_is_one_line(
    cli: Run, db_path: Path, tmp_path: Path
) -> None:
    _one_line_error(cli("search", CANARY, "--key-file", str(tmp_path / "absent")), "does not exist")
    _one_line_error(cli("search", CANARY, "--key-file", str(tmp_path)), "not a regular file")
    empty = _key_file(tmp_path, "")
    _one_line_error(cli("search", CANARY, "--key-file", str(empty)), "is empty")
    empty.unlink()
    binary = tmp_path / "binary.key"
    binary.write_bytes(b"\xff\xfe\x00key")
    binary.chmod(0o600)
    _one_line_error(cli("search", CANARY, "--key-file", str(binary)), "not UTF-8")
    assert not db_path.exists()


def test_a_key_file_without_read_permission_is_one_line(db_path: Path, tmp_path: Path) -> None:
    """A real process that cannot read the key file. Root reads a mode-000 file anyway, so as
    root the process runs without the capabilities that let it (setpriv's bounding set)."""
    key_file = _key_file(tmp_path, mode=0o000)
    command = [sys.executable, "-m", "zeromem_cli", "search", CANARY]
    command += ["--db", str(db_path), "--key-file", str(key_file)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "util-linux's setpriv drops root's file-reading override"
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    env = {**os.environ, "ZEROMEM_HOME": str(tmp_path / "home")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "permission denied" in done.stderr
    assert "Traceback" not in done.stderr and not db_path.exists()


@pytest.mark.parametrize(
    ("location", "says"),
    [
        ("/dev/null", "not a regular file"),
        # a server store: refused before connecting (encryption at rest is a file's)
        ("postgresql://user@/db", "encryption at rest is for SQLite files"),
        ("file:///tmp/x.db", "file:// is not a database"),
    ],
)
def test_a_location_that_is_not_a_file_is_refused_with_a_key_too(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, location: str, says: str
) -> None:
    """The checks of a plain store's --db run before SQLCipher sees the path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    before = set(os.listdir("/dev"))
    for command in (["add", "hello"], ["list"], ["encrypt"], ["decrypt"]):
        _one_line_error(cli(*command, "--db", location, db=False), says)
    assert list(tmp_path.iterdir()) == []
    assert set(os.listdir("/dev")) == before


@pytest.mark.slow
def test_every_command_works_on_an_encrypted_store(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    first = as_json(cli("add", f"the {CANARY} report goes out Fridays", "--json"))["id"]
    as_json(cli("add", "周报每周五发送", "--key", "report-zh", "--json"))
    assert as_json(cli("show", str(first), "--json"))["content"].startswith("the canary")
    assert len(as_json(cli("list", "--json"))) == 2
    assert cli("update", str(first), f"the {CANARY} report goes out Thursdays").exit_code == 0
    assert len(as_json(cli("history", str(first), "--json"))) == 2
    assert "Thursdays" in cli("pack", "report", "--no-touch").stdout
    assert cli("forget", str(first), "--yes").exit_code == 0
    assert cli("restore", str(first)).exit_code == 0
    assert cli("forget", str(first), "--yes").exit_code == 0
    assert len(as_json(cli("trash", "--json"))) == 1
    assert cli("gc", "--quiet").exit_code == 0
    assert as_json(cli("stats", "--json"))
    exported = tmp_path / "out.jsonl"
    assert cli("export", "-o", str(exported)).exit_code == 0
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    assert "周报每周五发送" in exported.read_text(encoding="utf-8")  # exports are plain text
    other = tmp_path / "other.db"
    assert cli("import", str(exported), "--db", str(other)).exit_code == 0
    assert [m["content"] for m in as_json(cli("search", "周报", "--json", "--db", str(other)))] == [
        "周报每周五发送"
    ]
    assert _holds(other, "周报每周五发送") == []
    # purge: the text is gone from the pages too (seen once decrypted), not only unreadable.
    assert cli("forget", str(first), "--trash", "--purge", "--yes").exit_code == 0
    assert cli("decrypt").exit_code == 0
    monkeypatch.delenv("ZEROMEM_KEY")
    assert _holds(db_path, CANARY) == [] and _holds(db_path, "周报每周五发送") == ["memories.db"]


def test_rekey_and_decrypt(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    assert cli("add", CANARY).exit_code == 0
    new_key = tmp_path / "new.key"
    made = cli("key", "new", str(new_key), db=False)
    assert made.exit_code == 0 and stat.S_IMODE(new_key.stat().st_mode) == 0o600
    assert new_key.read_text().strip() not in made.stdout + made.stderr
    _one_line_error(cli("key", "new", str(new_key), db=False), "not overwriting")
    assert cli("rekey", "--new-key-file", str(new_key)).exit_code == 0
    _one_line_error(cli("list"), "wrong key")
    monkeypatch.delenv("ZEROMEM_KEY")
    monkeypatch.setenv("ZEROMEM_KEY_FILE", str(new_key))
    assert [m["content"] for m in as_json(cli("search", CANARY, "--json"))] == [CANARY]
    _one_line_error(cli("rekey", "--new-key-file", str(new_key)), "already has")
    assert cli("decrypt").exit_code == 0
    monkeypatch.delenv("ZEROMEM_KEY_FILE")
    assert _holds(db_path, CANARY) == ["memories.db"]
    assert sqlite3.connect(db_path).execute("SELECT content FROM memories").fetchone() == (CANARY,)
    _one_line_error(cli("decrypt"), "is not encrypted")


def test_a_store_written_with_sqlcipher_3_defaults_opens(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlcipher3 import dbapi2

    plain = tmp_path / "plain.db"
    with MemoryStore(plain) as store:
        store.add(f"old format {CANARY}")
    # In a process of its own: cipher_default_* settings are process-wide in SQLCipher.
    script = (
        "import sys\nfrom sqlcipher3 import dbapi2\n"
        "conn = dbapi2.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('PRAGMA cipher_default_compatibility = 3')\n"
        f"conn.execute(\"ATTACH DATABASE ? AS old KEY '{KEY}'\", (sys.argv[2],))\n"
        "conn.execute(\"SELECT sqlcipher_export('old')\")\n"
        "version = conn.execute('PRAGMA main.user_version').fetchone()[0]\n"
        "conn.execute(f'PRAGMA old.user_version = {version}')\n"
        "assert conn.execute('PRAGMA old.kdf_iter').fetchone()[0] == '64000'\n"
        "conn.execute('DETACH DATABASE old')\n"
    )
    subprocess.run([sys.executable, "-c", script, str(plain), str(db_path)], check=True)
    v4 = dbapi2.connect(str(db_path))  # the test can fail: today's defaults cannot read it
    v4.execute(f"PRAGMA key = '{KEY}'")
    with pytest.raises(dbapi2.DatabaseError):
        v4.execute("SELECT count(*) FROM sqlite_master").fetchone()
    v4.close()
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    assert [m["content"] for m in as_json(cli("search", CANARY, "--json"))] == [
        f"old format {CANARY}"
    ]
    assert cli("add", "a new memory in the old format").exit_code == 0
    assert len(as_json(cli("list", "--json"))) == 2
    assert _holds(db_path, CANARY) == []


def _reads(db: Path, *settings: str) -> bool:
    """Whether SQLCipher, keyed with KEY and given ``settings`` (PRAGMAs), reads ``db``."""
    from sqlcipher3 import dbapi2

    conn = dbapi2.connect(str(db))
    try:
        conn.execute("PRAGMA cipher_log_level = NONE")
        conn.execute(f"PRAGMA key = '{KEY}'")
        for setting in settings:
            conn.execute(f"PRAGMA {setting}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return True
    except dbapi2.DatabaseError:
        return False
    finally:
        conn.close()


def test_new_encrypted_and_rekeyed_stores_use_hmac_sha256_pages(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/encryption.md names these settings for opening a store with the sqlcipher shell."""
    sha256 = "cipher_hmac_algorithm = HMAC_SHA256"
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    assert cli("add", CANARY).exit_code == 0  # created encrypted
    assert _reads(db_path, sha256) and not _reads(db_path)
    assert cli("decrypt").exit_code == 0
    assert cli("encrypt").exit_code == 0  # sqlcipher_export into a copy
    assert _reads(db_path, sha256) and not _reads(db_path)
    new_key = tmp_path / "new.key"
    new_key.write_text(KEY + " 2\n", encoding="utf-8")
    new_key.chmod(0o600)
    assert cli("rekey", "--new-key-file", str(new_key)).exit_code == 0
    assert not _reads(db_path, sha256)  # under the new key now
    monkeypatch.setenv("ZEROMEM_KEY", KEY + " 2")
    assert [m["content"] for m in as_json(cli("search", CANARY, "--json"))] == [CANARY]


def test_a_store_written_with_sqlcipher_4_defaults_opens(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlcipher3 import dbapi2

    plain = tmp_path / "plain.db"
    with MemoryStore(plain) as store:
        store.add(f"default settings {CANARY}")
    conn = dbapi2.connect(str(plain), isolation_level=None)
    conn.execute(f"ATTACH DATABASE ? AS other KEY '{KEY}'", (str(db_path),))
    conn.execute("SELECT sqlcipher_export('other')")
    version = conn.execute("PRAGMA main.user_version").fetchone()[0]
    conn.execute(f"PRAGMA other.user_version = {version}")
    conn.execute("DETACH DATABASE other")
    conn.close()
    assert _reads(db_path) and not _reads(db_path, "cipher_hmac_algorithm = HMAC_SHA256")
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    assert [m["content"] for m in as_json(cli("search", CANARY, "--json"))] == [
        f"default settings {CANARY}"
    ]
    assert cli("add", "a new memory beside it").exit_code == 0
    assert len(as_json(cli("list", "--json"))) == 2
    assert _reads(db_path)  # written on in the settings it has, not half converted


def test_an_old_schema_upgrades_inside_an_encrypted_store(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zeromem_cli.encryption import encrypt
    from zeromem_cli.storage.sqlite.migrations import LATEST_VERSION, MIGRATIONS

    conn = sqlite3.connect(db_path, isolation_level=None)
    MIGRATIONS[0](conn)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO memories (id, uid, content, content_hash, category, tags, created_at, "
        "updated_at) VALUES (1, 'u1', ?, 'h', 'note', '[]', '2026-01-01T00:00:00Z', "
        "'2026-01-01T00:00:00Z')",
        (f"{CANARY} from schema one",),
    )
    conn.close()
    monkeypatch.setenv("ZEROMEM_KEY", KEY)
    encrypt(db_path)
    with MemoryStore(db_path) as store:
        assert store.connection.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        assert [m.content for m in store.search(CANARY)] == [f"{CANARY} from schema one"]
    assert _holds(db_path, CANARY) == []


def test_encrypt_refuses_while_another_process_has_the_store_open(
    cli: Run, db_path: Path, tmp_path: Path
) -> None:
    assert cli("add", CANARY).exit_code == 0
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom zeromem_cli import MemoryStore\n"
            f"s = MemoryStore({str(db_path)!r})\ns.search('canary')\n"
            "print('open', flush=True)\ntime.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        key_file = _key_file(tmp_path)
        result = cli("encrypt", "--key-file", str(key_file))
        _one_line_error(result, f"in use by another process ({holder.pid})")
        assert "nothing was changed" in result.stderr
    finally:
        holder.kill()
        holder.wait()
    assert _holds(db_path, CANARY) == ["memories.db"]


def test_key_store_puts_a_new_key_in_a_real_keyring(
    cli: Run, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("keyrings.alt")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # where this backend keeps keys
    import keyring
    from keyrings.alt.file import PlaintextKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    try:
        assert cli("add", CANARY).exit_code == 0
        _one_line_error(cli("encrypt"), "no key")
        stored = cli("key", "store", db=False)
        assert stored.exit_code == 0 and "PlaintextKeyring" in stored.stderr, stored.stderr
        secret = keyring.get_password("zeromem", "store-key")
        assert secret and len(secret) == 64 and secret not in stored.stdout + stored.stderr
        _one_line_error(cli("key", "store", db=False), "already holds")
        assert keyring.get_password("zeromem", "store-key") == secret
        assert cli("encrypt").exit_code == 0
        assert _holds(db_path, CANARY) == []
        assert [m["content"] for m in as_json(cli("search", CANARY, "--json"))] == [CANARY]
        keyring.delete_password("zeromem", "store-key")
        _one_line_error(cli("search", CANARY), HINT)
    finally:
        keyring.set_keyring(previous)
