"""Reading stdin as a person and as a script would (issue 15, part B): `add -` on a terminal
says it is waiting, a UTF-8 BOM is dropped as import drops it, Ctrl-C in an import says that
nothing was imported. Real terminals (a pty) and real signals, in subprocesses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore

ZEROMEM = [sys.executable, "-m", "zeromem_cli"]


def test_add_dash_drops_a_utf8_bom_as_import_does(cli: Run) -> None:
    added = as_json(cli("add", "-", "--json", input=b"\xef\xbb\xbfthe weekly report is due"))
    assert added["content"] == "the weekly report is due"
    imported = cli("import", "-", "--format", "jsonl", input=b'\xef\xbb\xbf{"content": "x y"}\n')
    assert imported.exit_code == 0, imported.stderr
    assert [m["content"] for m in as_json(cli("list", "--json"))] == [
        "x y",
        "the weekly report is due",
    ]


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals on this system")
def test_add_dash_on_a_terminal_says_it_is_reading_stdin(db_path: Path) -> None:
    leader, follower = os.openpty()
    try:
        process = subprocess.Popen(
            [*ZEROMEM, "add", "-", "--db", str(db_path)],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        os.write(leader, b"typed at the terminal\n")
        os.write(leader, b"\x04")  # Ctrl-D at the start of a line: end of input
        out, err = process.communicate(timeout=60)
    finally:
        os.close(leader)
        os.close(follower)
    assert process.returncode == 0, err
    assert err.decode() == "zeromem: reading from stdin, Ctrl-D to end\n"
    with MemoryStore(db_path) as store:
        assert [m.content for m in store.list()] == ["typed at the terminal"]


def test_add_dash_from_a_pipe_says_nothing(cli: Run) -> None:
    result = cli("add", "-", input="piped text")
    assert result.exit_code == 0 and result.stderr == ""


def _wait_until_reading_a_pipe(pid: int) -> None:
    """Until the process blocks reading stdin (Linux names the kernel function it waits in);
    without /proc, a generous pause."""
    wchan = Path(f"/proc/{pid}/wchan")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if "pipe" in wchan.read_text():
                time.sleep(0.1)
                return
        except OSError:
            break
        time.sleep(0.05)
    time.sleep(3)


def _ctrl_c_reaches_it() -> None:
    """In the child: SIGINT back to its default, so Python installs its Ctrl-C handler even
    when the test run itself was started with SIGINT ignored (a background job of a shell)."""
    import signal as signals

    signals.signal(signals.SIGINT, signals.SIG_DFL)


def test_ctrl_c_in_an_import_says_nothing_was_imported(db_path: Path) -> None:
    process = subprocess.Popen(
        [*ZEROMEM, "import", "-", "--format", "jsonl", "--db", str(db_path)],
        preexec_fn=_ctrl_c_reaches_it,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.write(b'{"content": "half of an import"}\n')
    process.stdin.flush()
    _wait_until_reading_a_pipe(process.pid)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.decode().strip() == "zeromem: error: interrupted: nothing was imported"
    with MemoryStore(db_path) as store:
        assert store.list() == []
