"""Settings as commands use them: ``Config.choose(flag, key)``, and the renamed ``ranking.*``
keys (now ``pack.weights.*``) still working with one deprecation note per run."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli.config import RENAMED, SETTINGS, Config


class Choice(str, Enum):
    xml = "xml"


def _config(tmp_path: Path, text: str = "", **env: str) -> tuple[Config, list[str]]:
    path = tmp_path / "config.toml"
    if text:
        path.write_text(text, encoding="utf-8")
    notes: list[str] = []
    return Config(path, env=env, note=notes.append), notes


def test_choose_takes_the_flag_when_given_else_the_setting(tmp_path: Path) -> None:
    config, _ = _config(tmp_path, "[search]\nlimit = 7\n[pack]\ninherit = true\n")
    assert config.choose(None, "search.limit") == 7
    assert config.choose(3, "search.limit") == 3
    assert config.choose(0, "search.limit") == 0  # given: 0 is not "unset"
    assert config.choose(False, "pack.inherit") is False
    assert config.choose(None, "pack.inherit") is True
    assert config.choose(None, "pack.budget") == 1000  # the default
    assert config.choose(Choice.xml, "pack.format") == "xml"  # an Enum choice: its value
    assert config.choose(None, "pack.format") == "text"


def test_choose_treats_an_empty_text_setting_as_no_value(tmp_path: Path) -> None:
    config, _ = _config(tmp_path)
    assert config.get("add.default_ttl") == ""
    assert config.choose(None, "add.default_ttl") is None
    assert config.choose("", "add.default_ttl") == ""  # an empty flag is given (and refused)
    ninety, _ = _config(tmp_path, ZEROMEM_ADD_DEFAULT_TTL="90d")
    assert ninety.choose(None, "add.default_ttl") == "90d"
    assert ninety.choose("1d", "add.default_ttl") == "1d"


def test_add_ttl_flag_and_default_behave_as_before(
    cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert as_json(cli("add", "no ttl", "--json"))["expires_at"] is None
    monkeypatch.setenv("ZEROMEM_ADD_DEFAULT_TTL", "7d")
    assert as_json(cli("add", "default ttl", "--json"))["expires_at"] is not None
    refused = cli("add", "empty ttl", "--ttl", "")
    assert refused.exit_code == 2 and "not a TTL" in refused.stderr


def test_every_old_ranking_key_maps_to_a_pack_weights_key() -> None:
    assert sorted(RENAMED) == sorted(
        k.replace("pack.weights.", "ranking.") for k in SETTINGS if k.startswith("pack.weights.")
    )
    assert all(new in SETTINGS and old not in SETTINGS for old, new in RENAMED.items())


def test_old_keys_in_the_file_still_work_and_are_noted_once(tmp_path: Path) -> None:
    config, notes = _config(tmp_path, "[ranking]\ncontext = 0.25\nrelevance = 2.0\n")
    assert config.get("pack.weights.context") == 0.25
    assert config.get("ranking.context") == 0.25
    assert config.source("pack.weights.relevance") == "file"
    assert config.get("pack.weights.access") == 0.1  # untouched keys keep their default
    config.get("ranking.context")
    assert sorted(notes) == [
        "config key ranking.context in " + str(tmp_path / "config.toml") + " is deprecated: "
        "rename it pack.weights.context",
        "config key ranking.relevance in " + str(tmp_path / "config.toml") + " is deprecated: "
        "rename it pack.weights.relevance",
    ]


def test_the_new_name_wins_over_the_old_one(tmp_path: Path) -> None:
    both = "[ranking]\ncontext = 0.25\n\n[pack.weights]\ncontext = 0.5\n"
    config, notes = _config(tmp_path, both)
    assert config.get("pack.weights.context") == 0.5 and len(notes) == 1
    env, _ = _config(
        tmp_path / "none",
        ZEROMEM_RANKING_CONTEXT="0.1",
        ZEROMEM_PACK_WEIGHTS_CONTEXT="0.2",
    )
    assert env.get("pack.weights.context") == 0.2


def test_old_environment_variables_still_work_and_are_noted_once(tmp_path: Path) -> None:
    config, notes = _config(tmp_path, ZEROMEM_RANKING_RECENCY="0.7")
    assert config.get("pack.weights.recency") == 0.7
    assert config.source("pack.weights.recency") == "env"
    assert config.get("pack.weights.recency") == 0.7
    assert notes == [
        "environment variable ZEROMEM_RANKING_RECENCY is deprecated: "
        "use ZEROMEM_PACK_WEIGHTS_RECENCY"
    ]
    bad, _ = _config(tmp_path, ZEROMEM_RANKING_RECENCY="lots")
    with pytest.raises(Exception, match="from ZEROMEM_RANKING_RECENCY: expected a number"):
        bad.get("pack.weights.recency")


def test_without_a_note_callback_old_names_work_silently(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[ranking]\naccess = 0.4\n", encoding="utf-8")
    assert Config(tmp_path / "config.toml", env={}).get("pack.weights.access") == 0.4


def test_config_commands_accept_old_names_with_one_note(cli: Run, isolated_home: Path) -> None:
    result = cli("config", "set", "ranking.context", "0.2", db=False)
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "zeromem: warning: config key ranking.context is deprecated: use pack.weights.context"
    )
    assert lines[1].startswith("set pack.weights.context = 0.2 in ") and len(lines) == 2
    assert "[pack.weights]\ncontext = 0.2\n" in (isolated_home / "config.toml").read_text()
    got = cli("config", "get", "ranking.context", db=False)
    assert got.stdout == "0.2\n" and got.stderr.count("deprecated") == 1
    assert cli("config", "get", "pack.weights.context", db=False).stderr == ""
    unset = cli("config", "unset", "ranking.context", db=False)
    assert unset.exit_code == 0 and "unset pack.weights.context (now 0.6" in unset.stderr
    assert unset.stderr.count("deprecated") == 1


def test_pack_reads_an_old_key_from_the_file_and_notes_it_once_per_run(
    cli: Run, isolated_home: Path
) -> None:
    cli("add", "John: How was the waterfall in Oregon?", "--session", "s1")
    cli("add", "Maria: I felt like I was in a fairy tale!", "--session", "s1")
    query = ("pack", "waterfall in Oregon", "--session", "s1", "--no-touch", "--format", "json")
    lent = as_json(cli(*query))
    assert len(lent) == 2  # the neighbour borrows relevance by default
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text("[ranking]\ncontext = 0\n", encoding="utf-8")
    old = cli(*query)
    assert [m["content"] for m in as_json(old)] == ["John: How was the waterfall in Oregon?"]
    note = f"config key ranking.context in {isolated_home / 'config.toml'} is deprecated"
    assert old.stderr.count(note) == 1 and len(old.stderr.splitlines()) == 1
    (isolated_home / "config.toml").write_text("[pack.weights]\ncontext = 0\n", encoding="utf-8")
    new = cli(*query)
    assert as_json(new) == as_json(old) and new.stderr == ""
