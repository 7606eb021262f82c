"""What the CLI prints (``cli/render.py``): the plain, json, jsonl, ids and table formats of
list, search, show, history and trash; tables only on a terminal; NO_COLOR; stored text that
cannot drive the terminal (control characters, rich markup).

CLI layer: CliRunner for the formats, and a real pseudo-terminal (a subprocess on a pty) for
what only a terminal gets.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, as_json

MULTILINE = "line one\nline two\tend"


@pytest.fixture
def two(cli: Run) -> list[dict[str, Any]]:
    """Two memories (the first with a newline and a tab, the second pinned with tags), as
    ``list --json`` shows them, newest first."""
    assert cli("add", MULTILINE, "-c", "note").exit_code == 0
    assert cli("add", "second [red]memory[/red]", "-t", "a", "-t", "b", "--pin").exit_code == 0
    return as_json(cli("list", "--json"))  # type: ignore[no-any-return]


# -- the formats -------------------------------------------------------------------------------


def test_plain_is_one_tab_separated_line_per_memory(cli: Run, two: list[dict[str, Any]]) -> None:
    plain = cli("list", "--format", "plain").stdout
    assert plain.splitlines() == [
        "2\tgeneral\tsecond [red]memory[/red]",
        "1\tnote\tline one ⏎ line two end",  # newline shown as ⏎, the tab as a space
    ]
    assert cli("list").stdout == plain  # piped (not a terminal): plain is the default


def test_json_jsonl_and_ids_hold_the_same_records(cli: Run, two: list[dict[str, Any]]) -> None:
    assert [m["id"] for m in two] == [2, 1]
    assert two[1]["content"] == MULTILINE and two[0]["tags"] == ["a", "b"]
    exported = [json.loads(line) for line in cli("export").stdout.splitlines()]
    assert set(two[0]) == set(exported[0]) - {"history"}  # the export format's field names
    lines = cli("list", "--format", "jsonl").stdout.splitlines()
    assert [json.loads(line) for line in lines] == two
    assert json.loads(cli("list", "--format", "json").stdout) == two
    assert cli("list", "--format", "ids").stdout == "2\n1\n"


def test_search_plain_adds_the_score_in_significant_digits(cli: Run) -> None:
    cli("add", "Weekly report goes out Fridays 17:00")
    cells = cli("search", "weekly report").stdout.rstrip("\n").split("\t")
    assert cells[0] == "1" and cells[2:] == ["general", "Weekly report goes out Fridays 17:00"]
    score = float(cells[1])
    assert score > 0 and cells[1] == f"{score:.4g}"  # a tiny BM25 score is not 0.0000
    hit = as_json(cli("search", "weekly report", "--json"))[0]
    assert hit["score"] == pytest.approx(score, abs=1e-6)  # JSON: rounded to 6 decimals
    assert cli("search", "weekly report", "--format", "ids").stdout == "1\n"


def test_show_plain_is_one_aligned_field_per_line(cli: Run, two: list[dict[str, Any]]) -> None:
    record = two[0]
    lines = cli("show", "2").stdout.splitlines()
    width = max(len(name) for name in record)
    assert [line[:width].rstrip() for line in lines] == list(record)
    shown = {line[:width].rstrip(): line[width + 2 :] for line in lines}
    assert shown["tags"] == '["a", "b"]' and shown["meta"] == "" and shown["key"] == ""
    assert shown["pinned"] == "True" and shown["id"] == "2"
    assert as_json(cli("show", "2", "--format", "json")) == record
    assert cli("show", "2", "--format", "ids").stdout == "2\n"


def test_history_formats(cli: Run) -> None:
    cli("add", MULTILINE)
    cli("update", "1", "line one changed")
    versions = as_json(cli("history", "1", "--json"))
    plain = cli("history", "1", "--format", "plain").stdout.splitlines()
    assert plain == [
        "\t".join([str(v["version"]), v["valid_from"], v["valid_to"] or "", v["change"], text])
        for v, text in zip(versions, ["line one ⏎ line two end", "line one changed"], strict=True)
    ]
    assert [v["change"] for v in versions] == ["update", "current"]
    assert cli("history", "1", "--format", "ids").stdout == "1\n2\n"
    lines = cli("history", "1", "--format", "jsonl").stdout.splitlines()
    assert [json.loads(line) for line in lines] == versions


def test_trash_formats(cli: Run, two: list[dict[str, Any]]) -> None:
    assert cli("trash", "--format", "table").stderr.strip() == "the trash is empty"
    cli("forget", "1", "--yes")
    [gone] = as_json(cli("trash", "--json"))
    assert gone["id"] == 1 and gone["deleted_reason"] == "forgotten"
    assert cli("trash", "--format", "plain").stdout == (
        f"1\t{gone['deleted_at']}\tforgotten\tnote\tline one ⏎ line two end\n"
    )
    assert cli("trash", "--format", "ids").stdout == "1\n"


def test_a_table_prints_stored_text_literally(cli: Run, two: list[dict[str, Any]]) -> None:
    table = cli("list", "--format", "table")
    assert table.exit_code == 0 and table.stderr == ""
    assert "second [red]memory[/red]" in table.stdout  # data, not rich markup
    assert "📌 second" in table.stdout and "a, b" in table.stdout
    assert "\x1b" not in table.stdout  # not a terminal: no escape sequences at all
    empty = cli("search", "nothing-matches", "--format", "table")
    assert empty.stdout == "" and empty.stderr.strip() == "no memories"


# -- control characters ------------------------------------------------------------------------

ESCAPES = "\x1b]0;title\x07 \x1b[31mred\x1b[0m \x1b[2J"


def test_control_characters_never_reach_storage_so_never_print(cli: Run) -> None:
    added = cli("add", f"evil {ESCAPES} end", "-t", f"t{ESCAPES}", "-c", f"c{ESCAPES}")
    assert added.exit_code == 0
    for fmt in ("plain", "table", "json", "jsonl", "ids"):
        out = cli("list", "--format", fmt).stdout + cli("show", "1", "--format", fmt).stdout
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out), fmt
    record = as_json(cli("show", "1", "--json"))
    assert record["content"] == "evil ]0;title [31mred[0m [2J end"


def _raw_scope(db_path: Path, user: str) -> None:
    """Give every memory the scope ``user`` as another tool would: raw SQL (zeromem refuses a
    control character in a scope value it is asked to store)."""
    import sqlite3

    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE memories SET user = ?", (user,))
    conn.close()


def test_json_escapes_control_characters_of_scope_names(cli: Run, db_path: Path) -> None:
    user = "al\x1b[31mice"
    assert cli("add", "hello").exit_code == 0
    _raw_scope(db_path, user)
    out = cli("list", "--user", user, "--json").stdout
    assert "\x1b" not in out and json.loads(out)[0]["user"] == user


def test_plain_output_never_carries_a_control_character(cli: Run, db_path: Path) -> None:
    user = "al\x1b[31mice"
    assert cli("add", "hello").exit_code == 0
    _raw_scope(db_path, user)
    out = cli("show", "1", "--user", user, "--format", "plain").stdout
    assert "\x1b" not in out and "al\\x1b[31mice" in out


# -- a terminal --------------------------------------------------------------------------------


def _on_a_terminal(args: list[str], home: Path, **env: str) -> str:
    """stdout of ``zeromem ARGS`` run on a pseudo-terminal (stderr piped apart)."""
    environment = {
        k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")
    }
    environment.update(ZEROMEM_HOME=str(home), TERM="xterm-256color", COLUMNS="100", **env)
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "zeromem_cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.PIPE,
        env=environment,
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert process.wait(timeout=60) == 0, process.stderr.read() if process.stderr else ""
    return out.decode("utf-8")


def _colours(text: str) -> set[str]:
    """The SGR colour parameters in ``text`` (foreground/background, 16, 256 or RGB)."""
    found: set[str] = set()
    for params in re.findall(r"\x1b\[([0-9;]*)m", text):
        found |= {p for p in params.split(";") if re.fullmatch(r"3[0-9]|4[0-9]|9[0-7]|10[0-7]", p)}
    return found


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")
def test_a_terminal_gets_a_coloured_table_unless_no_color(
    cli: Run, two: list[dict[str, Any]], db_path: Path, tmp_path: Path
) -> None:
    args = ["list", "--db", str(db_path)]
    table = _on_a_terminal(args, tmp_path / "home")
    assert "┃" in table and "second [red]memory[/red]" in table  # a table, markup literal
    assert _colours(table)  # ids cyan, categories magenta...
    plain = _on_a_terminal(args, tmp_path / "home", NO_COLOR="1")
    assert "┃" in plain and "second [red]memory[/red]" in plain
    assert _colours(plain) == set()
    assert cli("list", "--format", "table").stdout.count("\n") == plain.count("\n")
