"""The console script runs hooks without Typer; the Typer `hook` command must accept exactly the
same command line, so `zeromem hook --help` describes what really runs."""

from __future__ import annotations

import subprocess
import sys

from zeromem_cli.cli import _build_command
from zeromem_cli.integrations.hooks.fastpath import FLAGS, STORE_OPTIONS, parse


def test_the_fast_parser_takes_the_typer_commands_options() -> None:
    __import__("zeromem_cli.cli.hook")
    command = _build_command("hook")
    options = {
        opt: param.envvar
        for param in command.params
        if param.param_type_name == "option"
        for opt in [*param.opts, *param.secondary_opts]
        if opt.startswith("--") and opt != "--help"
    }
    assert options == {**STORE_OPTIONS, **dict.fromkeys(FLAGS)}
    arguments = [p.name for p in command.params if p.param_type_name == "argument"]
    assert arguments == ["harness", "event"]


def test_the_fast_parser_reads_values_and_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ZEROMEM_USER", "ada")
    monkeypatch.delenv("ZEROMEM_DB", raising=False)
    monkeypatch.delenv("ZEROMEM_KEY_FILE", raising=False)
    positionals, options = parse(["codex", "stop", "--db=/tmp/x.db", "--agent", "bot"])  # type: ignore[misc]
    assert positionals == ["codex", "stop"]
    assert options == {
        "--db": "/tmp/x.db",
        "--user": "ada",
        "--agent": "bot",
        "--session": None,
        "--key-file": None,
        "--project": None,
        "--isolate": None,
    }
    _, flagged = parse(["codex", "stop", "--project", "app", "--isolate"])  # type: ignore[misc]
    assert flagged["--project"] == "app" and flagged["--isolate"] == "1"


def test_help_goes_to_typer() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", "hook", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0
    assert "Usage: zeromem hook [OPTIONS] {harness} {event}" in result.stdout
    assert "--db" in result.stdout and "--session" in result.stdout
