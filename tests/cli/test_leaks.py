"""No secret gets out and no stored byte drives the terminal (issue 15, part A).

Every stored field that is printed (content, category, tags, key, scope) is checked for
secrets on every write path (add, update, import, config set) and masked on every print path
that a person reads (list / show / search / history / trash tables and plain, pack's four
formats, export csv and markdown, stats --all-scopes). Control and bidi characters that another
tool wrote into the database are shown as visible escapes. A usage error never echoes a secret.

CLI layer: CliRunner on a real database in tmp_path; raw SQL plays "another tool".
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import Run

# Built by concatenation so repository scanners do not flag this file.
TOKEN = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
KEY_FILE = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)


def _leaked(result: object, secret: str = TOKEN) -> bool:
    out = getattr(result, "stdout", "") + getattr(result, "stderr", "")
    return secret in out


# -- refused on write --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["add", "hello", "-c", TOKEN],
        ["add", "hello", "--user", TOKEN],
        ["add", "hello", "--agent", TOKEN],
        ["add", "hello", "--session", TOKEN],
        ["add", "hello", "--project", TOKEN],
    ],
)
def test_a_secret_in_category_or_scope_is_refused(cli: Run, args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert "likely secret" in result.stderr and not _leaked(result)
    assert cli("list", "--all-scopes", "--json").stdout.strip() in ("[]", "")


def test_update_refuses_a_secret_category(cli: Run) -> None:
    assert cli("add", "hello").exit_code == 0
    result = cli("update", "1", "-c", TOKEN)
    assert result.exit_code == 2 and not _leaked(result)
    assert json.loads(cli("show", "1", "--json").stdout)["category"] == "general"


@pytest.mark.parametrize("field", ["category", "user", "agent", "session", "project"])
def test_import_refuses_a_secret_in_category_and_scope_fields(
    cli: Run, tmp_path: Path, field: str
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"content": "hello", field: TOKEN}) + "\n", encoding="utf-8")
    result = cli("import", str(source), "--all-scopes")
    assert not _leaked(result), result.output
    assert "likely secret" in result.output
    assert cli("stats", "--all-scopes", "--json").stdout.count('"live": 0') >= 1


@pytest.mark.parametrize("option", ["--user", "--project"])
def test_a_control_character_in_a_scope_value_is_refused(cli: Run, option: str) -> None:
    result = cli("add", "hello", option, "al\x1b[31mice")
    assert result.exit_code == 2 and "control character" in result.stderr


def test_config_set_refuses_a_secret(cli: Run) -> None:
    result = cli("config", "set", "add.default_category", TOKEN, db=False)
    assert result.exit_code == 2 and not _leaked(result)
    assert TOKEN not in cli("config", "show", db=False).stdout


# -- masked on print ---------------------------------------------------------------------------


@pytest.fixture
def stored_secret(cli: Run) -> None:
    """A memory whose category, tag and scope hold a token (stored with --allow-secret)."""
    result = cli(
        "add", f"deploy with {TOKEN}", "-c", TOKEN, "-t", TOKEN, "--user", TOKEN,
        "--allow-secret",
    )  # fmt: skip
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "xml"])
def test_pack_masks_the_category_in_every_format(cli: Run, stored_secret: None, fmt: str) -> None:
    result = cli("pack", "deploy", "--format", fmt, "--user", TOKEN)
    assert result.exit_code == 0, result.output
    assert "deploy" in result.stdout and not _leaked(result)


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--format", "plain"],
        ["list", "--format", "table"],
        ["search", "deploy", "--format", "plain"],
        ["search", "deploy", "--format", "table"],
        ["show", "1", "--format", "plain"],
        ["history", "1", "--format", "plain"],
        ["export", "--format", "csv"],
        ["export", "--format", "markdown"],
    ],
)
def test_every_person_readable_print_masks(cli: Run, stored_secret: None, args: list[str]) -> None:
    result = cli(*args, "--user", TOKEN)
    assert result.exit_code == 0, result.output
    assert result.stdout and not _leaked(result), result.stdout


def test_stats_all_scopes_masks_scope_and_category(cli: Run, stored_secret: None) -> None:
    result = cli("stats", "--all-scopes")
    assert result.exit_code == 0 and "scope user=" in result.stdout
    assert not _leaked(result)


# -- usage errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "secret"),
    [
        (["add", KEY_FILE], "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
        (["add", "--" + TOKEN, "x"], TOKEN),
        (["add", "--bogus", "my password is hunter22"], "hunter22"),
    ],
)
def test_a_usage_error_never_echoes_a_secret(cli: Run, args: list[str], secret: str | None) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    if secret is not None:
        assert secret not in result.stderr, result.stderr


def test_an_error_quoting_a_huge_value_stays_short(cli: Run) -> None:
    """A 100,000-character bad value is quoted by its start and its length, not whole."""
    result = cli("add", "the otter naps", "--ttl", "7" * 100_000 + "x")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.startswith("zeromem: error: not a TTL: '777") and len(line) < 300
    assert "(100001 characters)" in line


# -- terminal safety ---------------------------------------------------------------------------


def _raw(db_path: Path, sql: str, *params: str) -> None:
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute(sql, params)
    conn.close()


BAD = "x\x1b]0;owned\x07\x1b[2J\u202ey"


@pytest.fixture
def hostile(cli: Run, db_path: Path) -> None:
    """A memory whose every text column another tool filled with ESC and a bidi override."""
    assert cli("add", "plain text").exit_code == 0
    bad = BAD
    _raw(
        db_path,
        "UPDATE memories SET content = ?, category = ?, user = ?, key = ?, tags = ?",
        "deploy " + bad, bad, bad, bad, json.dumps([bad]),
    )  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--format", "plain", "--user", BAD],
        ["list", "--format", "table", "--user", BAD],
        ["show", "1", "--format", "plain", "--user", BAD],
        ["stats", "--all-scopes"],
        ["export", "--format", "csv", "--all-scopes"],
        ["export", "--format", "markdown", "--all-scopes"],
    ],
)
def test_no_control_or_bidi_character_reaches_the_terminal(
    cli: Run, hostile: None, args: list[str]
) -> None:
    result = cli(*args)
    if result.exit_code == 2 and "No such option" in result.stderr:
        pytest.fail(f"{args}: {result.stderr}")
    assert result.exit_code == 0, result.output
    for char in ("\x1b", "\x07", "\u202e"):
        assert char not in result.stdout, (args, result.stdout)
    assert "\\x1b" in result.stdout and "\\u202e" in result.stdout
