"""A hook never breaks its harness: every failure is exit 0, nothing injected (Gemini CLI's
JSON-only "nothing", ``{}``), one line on stderr, and within ``hooks.timeout_ms``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hooks.conftest import copy_transcript, hook_env, payload, run_hook
from zeromem_cli import MemoryStore

# A busy loop sharing the crowded hook's one CPU; the hook runs at nice 19, so the loop
# gets about 70 times its share and its wall time is many times its limit plus the grace.
CROWD = 1
NOTHING = {"claude-code": b"", "codex": b"", "gemini": b"{}"}
HOLD_LOCK = (
    "import sqlite3, sys\n"
    "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "conn.execute('BEGIN EXCLUSIVE')\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


def failed(result: subprocess.CompletedProcess[bytes], harness: str = "claude-code") -> str:
    """The one stderr line of a failed run, after checking the rest of its shape."""
    assert result.returncode == 0
    assert result.stdout == NOTHING[harness]
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("zeromem hook ")
    return lines[0]


@pytest.fixture
def locked(seeded: Path) -> Iterator[Path]:
    """The seeded database with another process holding BEGIN EXCLUSIVE on it."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(seeded)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
    yield seeded
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=10)


def test_a_capture_blocked_by_a_locked_database_stops_at_the_time_limit(
    tmp_path: Path, locked: Path
) -> None:
    transcript = copy_transcript("claude-code", tmp_path)
    env = hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="700")
    result = run_hook(
        "claude-code", "stop", payload("claude-code", "stop", transcript), db=locked, env=env
    )
    # The watchdog ended the wait (the store's own busy timeout would have waited 30 s and
    # then failed with its own message).
    assert "timed out after 700 ms waiting" in failed(result)


def test_injection_still_reads_a_database_another_process_is_writing(locked: Path) -> None:
    # WAL: readers are not blocked by a writer, and an injecting hook only reads.
    env = hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="3000")
    result = run_hook(
        "claude-code", "session-start", payload("claude-code", "session-start"), db=locked, env=env
    )
    assert result.returncode == 0 and b"db-2.internal" in result.stdout, result.stderr


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_stdin_that_never_ends_times_out(harness: str, seeded: Path) -> None:
    env = hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="400")
    command = [
        sys.executable,
        "-m",
        "zeromem_cli",
        "hook",
        harness,
        "user-prompt",
        "--db",
        str(seeded),
    ]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        # stdin is never written to or closed, as by a harness that hangs: only the watchdog
        # ends the hook (the bound is for a machine at any load, not a time budget).
        process.wait(timeout=120)
    finally:
        process.kill()
    assert process.stdout is not None and process.stderr is not None
    stdout, stderr = process.stdout.read(), process.stderr.read()
    assert process.stdin is not None
    process.stdin.close()
    result = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    assert "timed out after 400 ms waiting" in failed(result, harness)


def test_a_missing_database_injects_nothing_and_is_not_created(tmp_path: Path) -> None:
    db = tmp_path / "absent" / "memories.db"
    result = run_hook(
        "claude-code", "session-start", payload("claude-code", "session-start"), db=db
    )
    assert "no database at" in failed(result)
    assert not db.exists() and not db.parent.exists()


def test_a_database_that_cannot_be_created_fails_quietly(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the database folder should be")
    transcript = copy_transcript("claude-code", tmp_path)
    result = run_hook(
        "claude-code",
        "stop",
        payload("claude-code", "stop", transcript),
        db=blocker / "memories.db",
    )
    assert "memories.db" in failed(result)


def test_a_corrupt_database_is_reported_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "memories.db"
    junk = b"this is not a database\n" * 200
    db.write_bytes(junk)
    for event in ("session-start", "user-prompt", "stop"):
        transcript = copy_transcript("claude-code", tmp_path)
        result = run_hook("claude-code", event, payload("claude-code", event, transcript), db=db)
        assert "not a SQLite database" in failed(result), event
    assert db.read_bytes() == junk


@pytest.mark.parametrize(
    "stdin, message",
    [
        (b"{not json", "not JSON"),
        (b"", "no hook input"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"prompt": "caf\xe9"}', "not UTF-8"),
    ],
)
@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_bad_input_on_stdin(harness: str, stdin: bytes, message: str, seeded: Path) -> None:
    result = run_hook(harness, "user-prompt", stdin, db=seeded)
    assert message in failed(result, harness)


@pytest.mark.parametrize(
    "transcript", ["/nonexistent/session.jsonl", "{folder}"], ids=["missing", "a-folder"]
)
def test_an_unreadable_transcript(tmp_path: Path, db_path: Path, transcript: str) -> None:
    path = transcript.replace("{folder}", str(tmp_path))
    body = payload("claude-code", "stop", transcript_path=path)
    assert "transcript" in failed(run_hook("claude-code", "stop", body, db=db_path))
    with MemoryStore(db_path) as store:
        assert store.list() == []


def test_a_transcript_of_garbage_lines_stores_nothing(tmp_path: Path, db_path: Path) -> None:
    transcript = tmp_path / "garbage.jsonl"
    transcript.write_bytes(b"\x00\xff garbage\n{half a record\n[1,2,3]\n")
    result = run_hook("claude-code", "stop", payload("claude-code", "stop", transcript), db=db_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize(
    "args, message",
    [
        (["vscode", "stop"], "unknown harness 'vscode'"),
        (["claude-code", "post-tool-use"], "unknown event 'post-tool-use'"),
        (["claude-code", "stop", "--verbose"], "unknown option '--verbose'"),
        (["claude-code"], "usage: zeromem hook"),
        (["claude-code", "stop", "--db"], "--db needs a value"),
    ],
)
def test_a_misconfigured_hook_command_still_exits_0(args: list[str], message: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "hook", *args],
        input=b"{}",
        capture_output=True,
        env=hook_env(),
        timeout=30,
    )
    assert result.returncode == 0
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


def test_a_bad_config_file_does_not_break_the_harness(seeded: Path, isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text("[hooks\nprompt_budget = 'lots'\n")
    result = run_hook(
        "claude-code", "user-prompt", payload("claude-code", "user-prompt"), db=seeded
    )
    assert "not valid TOML" in failed(result)
    (isolated_home / "config.toml").write_text("[hooks]\nprompt_budget = 'lots'\n")
    result = run_hook("gemini", "user-prompt", payload("gemini", "user-prompt"), db=seeded)
    assert "hooks.prompt_budget" in failed(result, "gemini")


def test_a_secret_in_an_error_is_never_echoed(tmp_path: Path) -> None:
    secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    folder = tmp_path / secret
    result = run_hook(
        "claude-code", "session-start", payload("claude-code", "session-start"), db=folder / "m.db"
    )
    line = failed(result)
    assert secret not in line and "[secret:" in line


def _ctrl_c_reaches_it() -> None:
    """In the child: SIGINT back to its default, so Python installs its Ctrl-C handler even
    when the test run itself was started with SIGINT ignored (a background job of a shell)."""
    import signal as signals

    signals.signal(signals.SIGINT, signals.SIG_DFL)


def _wait_until_blocked_reading(pid: int) -> None:
    """Until the process waits on its stdin pipe (Linux names the kernel function it waits
    in), so the signal lands in the read on a loaded machine too; without /proc, a pause."""
    wchan = Path(f"/proc/{pid}/wchan")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if "pipe" in wchan.read_text():
                time.sleep(0.2)
                return
        except OSError:
            break
        time.sleep(0.05)
    time.sleep(3)


def test_an_interrupted_hook_exits_0_without_a_traceback(seeded: Path) -> None:
    import signal

    command = [sys.executable, "-m", "zeromem_cli", "hook", "claude-code", "user-prompt"]
    env = hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="20000")
    process = subprocess.Popen(
        [*command, "--db", str(seeded)],
        preexec_fn=_ctrl_c_reaches_it,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    _wait_until_blocked_reading(process.pid)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=10)
    result = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    assert "interrupted" in failed(result)


def test_a_harness_that_stops_reading_gets_no_traceback(seeded: Path) -> None:
    import json as _json

    command = [sys.executable, "-m", "zeromem_cli", "hook", "claude-code", "session-start"]
    process = subprocess.Popen(
        [*command, "--db", str(seeded)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=hook_env(),
    )
    assert process.stdout is not None and process.stdin is not None
    process.stdout.close()  # gone before the answer is written
    process.stdin.write(_json.dumps(payload("claude-code", "session-start")).encode())
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    assert process.stderr is not None and process.stderr.read() == b""


@pytest.mark.slow
@pytest.mark.skipif(
    not Path("/proc/self/schedstat").exists() or shutil.which("taskset") is None,
    reason="needs Linux's schedstat and taskset to crowd one CPU",
)
def test_a_hook_crowded_off_its_cpu_still_injects(seeded: Path) -> None:
    # The hook shares one CPU with busy loops that outrank it (nice 19), so it waits for that
    # CPU far longer than its limit plus the watchdog's grace for waiting, while doing well
    # under its CPU limit of work and never blocking: a loaded machine, not a stuck lock. It
    # must still answer.
    spinners = [
        subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"])
        for _ in range(CROWD)
    ]
    try:
        command = ["taskset", "-c", "0", "nice", "-n", "19", sys.executable, "-m", "zeromem_cli"]
        command += ["hook"]
        command += ["claude-code", "session-start", "--db", str(seeded)]
        result = subprocess.run(
            command,
            input=json.dumps(payload("claude-code", "session-start")).encode(),
            capture_output=True,
            env=hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="1000"),
            timeout=600,
        )
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    assert result.stderr == b"", result.stderr
    assert b"db-2.internal" in result.stdout
