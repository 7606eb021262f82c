"""`zeromem setup HARNESS` on fixture settings files: merged with what is there, idempotent,
backed up, undone exactly by --uninstall, shown as a diff by --dry-run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from tests.hooks.conftest import FIXTURES
from zeromem_cli.cli import app

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SETTINGS = FIXTURES / "settings"
ZEROMEM = "/opt/zeromem/bin/zeromem"


def setup(*args: str, cwd: Path | None = None, env: dict[str, str | None] | None = None) -> Result:
    """``zeromem setup ARGS`` (``--command ZEROMEM`` unless given or ``--command ""``), with
    no ZEROMEM_HOME or ZEROMEM_DB unless ``env`` sets them."""
    argv = ["setup", *args]
    if "--command" not in argv:
        argv += ["--command", ZEROMEM]
    elif argv[argv.index("--command") + 1] == "":
        at = argv.index("--command")
        del argv[at : at + 2]
    before = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(
            app, argv, env={"ZEROMEM_HOME": None, "ZEROMEM_DB": None, **(env or {})}
        )
    finally:
        os.chdir(before)


def place(source: str, target: Path) -> str:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SETTINGS / source, target)
    return target.read_text()


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.zeromem-*.bak"))


def ours(handler: dict, harness: str) -> bool:
    return f"{ZEROMEM} hook {harness} " in handler.get("command", "")


def test_claude_code_merge_keeps_everything_else(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    original = place("claude-settings.json", settings)
    mcp = home / ".claude.json"
    mcp_original = place("claude.json", mcp)
    result = setup("claude-code")
    assert result.exit_code == 0, result.stderr
    data = json.loads(settings.read_text())
    before = json.loads(original)
    # Everything that was there is still there, in the same order.
    assert list(data) == list(before)
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }
    assert data["hooks"]["PreToolUse"] == before["hooks"]["PreToolUse"]
    assert data["hooks"]["Stop"][0] == before["hooks"]["Stop"][0]
    assert list(data["hooks"]) == [
        "PreToolUse",
        "Stop",
        "SessionStart",
        "UserPromptSubmit",
        "PreCompact",
        "SessionEnd",
    ]
    for event, name in (
        ("SessionStart", "session-start"),
        ("UserPromptSubmit", "user-prompt"),
        ("PreCompact", "pre-compact"),
        ("Stop", "stop"),
        ("SessionEnd", "session-end"),
    ):
        [handler] = [h for g in data["hooks"][event] for h in g["hooks"] if ours(h, "claude-code")]
        assert handler == {
            "type": "command",
            "command": f"{ZEROMEM} hook claude-code {name}",
            "timeout": 5,
        }
    # Untouched text stays byte for byte: the one-line arrays are still one line.
    assert '"allow": ["Bash(git status)", "Bash(npm run test:*)"]' in settings.read_text()
    servers = json.loads(mcp.read_text())["mcpServers"]
    assert list(servers) == ["github", "zeromem"]
    assert servers["zeromem"] == {"type": "stdio", "command": ZEROMEM, "args": ["mcp"]}
    assert json.loads(mcp.read_text())["projects"] == json.loads(mcp_original)["projects"]
    # Backups of both files, holding what they held.
    [settings_backup] = backups(settings.parent)
    assert settings_backup.read_text() == original
    [mcp_backup] = backups(home)
    assert mcp_backup.read_text() == mcp_original


def test_setup_twice_changes_nothing_the_second_time(home: Path) -> None:
    place("claude-settings.json", home / ".claude" / "settings.json")
    assert setup("claude-code").exit_code == 0
    first = (home / ".claude" / "settings.json").read_text()
    again = setup("claude-code")
    assert again.exit_code == 0 and "nothing to change" in again.stderr
    assert (home / ".claude" / "settings.json").read_text() == first
    assert len(backups(home / ".claude")) == 1  # no backup when nothing changed


@pytest.mark.parametrize(
    "harness, files",
    [
        (
            "claude-code",
            {".claude/settings.json": "claude-settings.json", ".claude.json": "claude.json"},
        ),
        (
            "codex",
            {".codex/hooks.json": "codex-hooks.json", ".codex/config.toml": "codex-config.toml"},
        ),
        ("gemini", {".gemini/settings.json": "gemini-settings.json"}),
    ],
)
def test_uninstall_restores_every_file_exactly(harness: str, files: dict, home: Path) -> None:
    originals = {name: place(source, home / name) for name, source in files.items()}
    assert setup(harness, "--memory-user", "ada").exit_code == 0
    assert all((home / n).read_text() != text for n, text in originals.items())
    result = setup(harness, "--uninstall")
    assert result.exit_code == 0, result.stderr
    for name, text in originals.items():
        assert (home / name).read_text() == text, name


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_files_setup_created_are_removed_by_uninstall(harness: str, home: Path) -> None:
    assert setup(harness).exit_code == 0
    created = sorted(p for p in home.rglob("*") if p.is_file())
    assert created
    assert setup(harness, "--uninstall").exit_code == 0
    left = [p for p in home.rglob("*") if p.is_file() and not p.name.endswith(".bak")]
    assert left == []


def test_uninstall_removes_only_zeromem_entries(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    place("claude-settings.json", settings)
    assert setup("claude-code").exit_code == 0
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"][-1]["hooks"].append({"type": "command", "command": "say added later"})
    data["hooks"]["Notification"] = [{"hooks": [{"type": "command", "command": "say hi"}]}]
    settings.write_text(json.dumps(data, indent=2))
    assert setup("claude-code", "--uninstall").exit_code == 0
    after = json.loads(settings.read_text())
    commands = [
        h["command"] for groups in after["hooks"].values() for g in groups for h in g["hooks"]
    ]
    assert "say added later" in commands and "say hi" in commands
    assert not any("hook claude-code" in c for c in commands)


def test_dry_run_prints_the_diff_and_writes_nothing(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    original = place("claude-settings.json", settings)
    result = setup("claude-code", "--dry-run")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"--- {settings}\n+++ {settings}\n")
    added = [
        line
        for line in result.stdout.splitlines()
        if line.startswith("+") and "hook claude-code" in line
    ]
    assert len(added) == 5
    assert not any(
        line.startswith("-") and not line.startswith("---") for line in result.stdout.splitlines()
    )
    assert f"--- /dev/null\n+++ {home / '.claude.json'}" in result.stdout
    assert settings.read_text() == original and not (home / ".claude.json").exists()
    assert backups(settings.parent) == []
    undo = setup("claude-code", "--uninstall", "--dry-run")
    assert undo.exit_code == 0 and "nothing to change" in undo.stderr


def test_codex_config_keeps_its_comments(home: Path) -> None:
    config = home / ".codex" / "config.toml"
    original = place("codex-config.toml", config)
    place("codex-hooks.json", home / ".codex" / "hooks.json")
    assert setup("codex", "--memory-user", "ada", "--db", str(home / "m.db")).exit_code == 0
    text = config.read_text()
    assert text.startswith(original)  # appended: not one byte before it moved
    assert "# documentation lookups" in text and "# Servers Codex can call" in text
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["zeromem"] == {
        "command": ZEROMEM,
        "args": ["mcp", "--db", str(home / "m.db"), "--user", "ada"],
    }
    assert parsed["mcp_servers"]["docs"]["command"] == "npx"
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())
    assert hooks["description"] == "Ada's hooks"
    [end] = hooks["hooks"]["SessionEnd"][0]["hooks"]
    assert end["timeout"] == 3  # Codex caps SessionEnd hooks at 3 s
    assert end["command"].endswith(
        "hook codex session-end --db " + str(home / "m.db") + " --user ada"
    )
    # A changed scope updates the entry in place, comments still there.
    assert setup("codex", "--memory-user", "bob").exit_code == 0
    text = config.read_text()
    assert '"mcp", "--user", "bob"' in text and "# documentation lookups" in text
    assert text.count("[mcp_servers.zeromem]") == 1


def test_gemini_settings_get_hooks_and_server_in_one_file(home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    place("gemini-settings.json", settings)
    assert setup("gemini").exit_code == 0
    data = json.loads(settings.read_text())
    assert list(data["hooks"]) == [
        "BeforeTool",
        "SessionStart",
        "BeforeAgent",
        "PreCompress",
        "AfterAgent",
        "SessionEnd",
    ]
    [before_agent] = data["hooks"]["BeforeAgent"][0]["hooks"]
    assert before_agent == {
        "type": "command",
        "command": f"{ZEROMEM} hook gemini user-prompt",
        "name": "zeromem-user-prompt",
        "timeout": 4500,
    }
    assert data["mcpServers"]["zeromem"] == {"command": ZEROMEM, "args": ["mcp"]}
    assert data["mcpServers"]["weather"]["timeout"] == 15000


def test_a_json_file_with_comments_is_refused_untouched(home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    text = '{\n  // my theme\n  "ui": {"theme": "GitHub"}\n}\n'
    settings.write_text(text)
    result = setup("gemini")
    assert result.exit_code == 2
    assert "not plain JSON" in result.stderr and "--dry-run" in result.stderr
    assert settings.read_text() == text and backups(settings.parent) == []


def test_a_server_named_zeromem_that_is_not_ours_is_kept(home: Path) -> None:
    mcp = home / ".claude.json"
    mcp.write_text(json.dumps({"mcpServers": {"zeromem": {"command": "my-fork", "args": []}}}))
    result = setup("claude-code")
    assert result.exit_code == 0
    assert "did not write is kept" in result.stderr
    assert json.loads(mcp.read_text())["mcpServers"]["zeromem"]["command"] == "my-fork"


def test_project_level_writes_into_the_repository(home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    result = setup("claude-code", "--project", cwd=repo / "src")
    assert result.exit_code == 0, result.stderr
    assert (repo / ".claude" / "settings.json").is_file()
    assert json.loads((repo / ".mcp.json").read_text())["mcpServers"]["zeromem"]["args"] == ["mcp"]
    assert not (home / ".claude").exists()
    assert setup("codex", "--dir", str(repo)).exit_code == 0
    assert (repo / ".codex" / "hooks.json").is_file() and (
        repo / ".codex" / "config.toml"
    ).is_file()


def test_no_hooks_installs_the_server_and_an_instruction_block(home: Path) -> None:
    agents = home / ".codex" / "AGENTS.md"
    agents.parent.mkdir(parents=True)
    agents.write_text("# My agent rules\n\nAlways run the tests.\n")
    assert setup("codex").exit_code == 0
    assert setup("codex", "--no-hooks").exit_code == 0
    text = agents.read_text()
    assert text.startswith("# My agent rules\n\nAlways run the tests.\n\n<!-- zeromem:begin")
    assert "zeromem" in tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert not (home / ".codex" / "hooks.json").exists()  # the hooks it had are taken out
    assert setup("codex", "--no-hooks").exit_code == 0
    assert agents.read_text() == text
    assert setup("codex", "--uninstall").exit_code == 0
    assert agents.read_text() == "# My agent rules\n\nAlways run the tests.\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["vscode"], "unknown harness 'vscode' (use claude-code, codex, gemini, cursor)"),
        (["codex", "--project", "--user"], "not both"),
        (["codex", "--no-hooks", "--no-mcp"], "nothing to set up"),
    ],
)
def test_bad_setup_arguments(args: list[str], message: str, home: Path) -> None:
    result = setup(*args)
    assert result.exit_code == 2 and message in result.stderr


def test_setup_writes_hooks_that_really_run(home: Path, tmp_path: Path) -> None:
    # The entries as written, run the way a harness runs them: through the shell.
    assert setup("claude-code", "--command", f"{sys.executable} -m zeromem_cli").exit_code == 0
    data = json.loads((home / ".claude" / "settings.json").read_text())
    command = data["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "My shell is fish."}})
        + "\n"
    )
    # Outside a git repository: no project, so the user's project-less store holds it.
    body = json.dumps({"session_id": "s", "transcript_path": str(transcript), "cwd": str(tmp_path)})
    result = subprocess.run(
        command, shell=True, input=body.encode(), capture_output=True, timeout=60
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    from zeromem_cli import MemoryStore

    with MemoryStore() as store:
        assert [m.content for m in store.list()] == ["My shell is fish"]


def test_user_entries_carry_zeromem_home_and_db(home: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    env: dict[str, str | None] = {"ZEROMEM_HOME": str(data), "ZEROMEM_DB": str(data / "m.db")}
    for harness in ("claude-code", "codex", "gemini"):
        assert setup(harness, env=env).exit_code == 0
    hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    command = hooks["SessionStart"][0]["hooks"][0]["command"]
    assert command == (
        f"env ZEROMEM_HOME={data} {ZEROMEM} hook claude-code session-start --db {data / 'm.db'}"
    )
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]["zeromem"]
    assert server["env"] == {"ZEROMEM_HOME": str(data)}
    assert server["args"] == ["mcp", "--db", str(data / "m.db")]
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["zeromem"]["env"] == {"ZEROMEM_HOME": str(data)}
    gemini = json.loads((home / ".gemini" / "settings.json").read_text())
    assert gemini["mcpServers"]["zeromem"]["env"] == {"ZEROMEM_HOME": str(data)}
    # Run again without them: the entries follow (the env goes, nothing else is touched).
    assert setup("claude-code").exit_code == 0
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]["zeromem"]
    assert "env" not in server and server["args"] == ["mcp"]


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_project_files_hold_no_machine_path_and_uninstall_leaves_nothing(
    harness: str, home: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "CLAUDE.md").write_text("# Notes\n")
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    env: dict[str, str | None] = {"ZEROMEM_HOME": str(tmp_path / "data")}
    result = setup(harness, "--project", "--command", "", cwd=repo, env=env)
    assert result.exit_code == 0, result.stderr
    assert "not written into project files" in result.stderr
    written = [p for p in repo.rglob("*") if p.is_file() and p not in before]
    assert written
    for path in written:
        text = path.read_text()
        assert str(tmp_path) not in text and sys.executable not in text, path
        assert "zeromem hook" in text or '"zeromem"' in text or "zeromem mcp" in text, path
    assert setup(harness, "--project", "--uninstall", "--command", "", cwd=repo).exit_code == 0
    after = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    assert after == before  # no backup, no emptied file, every other byte as it was


def test_cursor_gets_the_mcp_server_in_its_mcp_json(home: Path, tmp_path: Path) -> None:
    assert setup("cursor").exit_code == 0
    data = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert data == {"mcpServers": {"zeromem": {"command": ZEROMEM, "args": ["mcp"]}}}
    assert sorted(p.name for p in home.rglob("*") if p.is_file()) == ["mcp.json"]
    assert "--no-mcp" in setup("cursor", "--no-mcp").stderr
    assert setup("cursor", "--uninstall").exit_code == 0
    assert not (home / ".cursor" / "mcp.json").exists()
