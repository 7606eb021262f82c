"""Hooks on an encrypted store: the key comes from the environment the harness passes on; a
missing key is a silent exit 0 with one stderr line, never the key, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hooks.conftest import context_of, hook_env, payload, run_hook
from zeromem_cli import MemoryStore

pytest.importorskip("sqlcipher3")

KEY = "hook test passphrase"


def test_user_prompt_injects_from_an_encrypted_store(tmp_path: Path) -> None:
    db = tmp_path / "memories.db"
    with MemoryStore(db, key=KEY) as store:
        store.add("The staging database is db-2.internal", category="fact", importance=8)
    body = payload("claude-code", "user-prompt", prompt="which staging database do we use?")
    answer = run_hook("claude-code", "user-prompt", body, db=db, env=hook_env(ZEROMEM_KEY=KEY))
    assert "db-2.internal" in context_of(answer, "UserPromptSubmit")
    assert b"db-2.internal" not in db.read_bytes()

    without = {k: v for k, v in hook_env().items() if not k.startswith("ZEROMEM_KEY")}
    for env in (without, {**without, "ZEROMEM_KEY": "not it"}):
        failed = run_hook("claude-code", "user-prompt", body, db=db, env=env)
        assert failed.returncode == 0 and failed.stdout == b""
        assert failed.stderr.count(b"\n") == 1 and b"encrypted" in failed.stderr, failed.stderr
        assert b"not it" not in failed.stderr and b"Traceback" not in failed.stderr


def test_the_hook_takes_key_file(tmp_path: Path) -> None:
    db = tmp_path / "memories.db"
    key_file = tmp_path / "store.key"
    key_file.write_text("ab" * 32 + "\n")
    key_file.chmod(0o600)
    with MemoryStore(db, key_file=key_file) as store:
        store.add("The staging database is db-2.internal", category="fact", importance=8)
    body = payload("claude-code", "user-prompt", prompt="which staging database do we use?")
    env = {k: v for k, v in hook_env().items() if not k.startswith("ZEROMEM_KEY")}
    answer = run_hook(
        "claude-code", "user-prompt", body, db=db, args=("--key-file", str(key_file)), env=env
    )
    assert "db-2.internal" in context_of(answer, "UserPromptSubmit")
