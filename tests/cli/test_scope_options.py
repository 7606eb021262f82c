"""The scope options of every command: --project NAME|auto|none (ZEROMEM_PROJECT), --isolate
(config scope.isolate_sessions), and the project field through export and import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run, as_json

TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"


def _repo(path: Path, url: str | None) -> Path:
    """A git repository as git lays it out (only the files zeromem reads)."""
    (path / ".git").mkdir(parents=True)
    config = "[core]\n\trepositoryformatversion = 0\n"
    if url is not None:
        config += f'[remote "upstream"]\n\turl = /elsewhere\n[remote "origin"]\n\turl = {url}\n'
    (path / ".git" / "config").write_text(config)
    return path


@pytest.mark.parametrize(
    "url, name",
    [
        ("git@github.com:Acme/App.git", "github.com/Acme/App"),
        (f"https://{TOKEN}@GitHub.com/Acme/App.git/", "github.com/Acme/App"),
        (f"https://x-access-token:{TOKEN}@github.com/Acme/App", "github.com/Acme/App"),
        ("ssh://git@gitlab.example.org:2222/team/app.git", "gitlab.example.org/team/app"),
        ("/srv/git/app.git", "/srv/git/app"),
    ],
)
def test_project_auto_is_the_normalised_remote_without_credentials(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, name: str
) -> None:
    monkeypatch.chdir(_repo(tmp_path / "app", url) / ".")
    (tmp_path / "app" / "src").mkdir()
    monkeypatch.chdir(tmp_path / "app" / "src")
    added = as_json(cli("add", "Deploy with make ship", "--project", "auto", "--json"))
    assert added["project"] == name
    assert TOKEN not in json.dumps(added)
    assert [m["id"] for m in as_json(cli("list", "--project", name, "--json"))] == [added["id"]]
    monkeypatch.setenv("ZEROMEM_PROJECT", "auto")
    assert [m["id"] for m in as_json(cli("list", "--json"))] == [added["id"]]


def test_project_auto_without_a_remote_is_the_common_git_dir(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = _repo(tmp_path / "main", None)
    worktree_gitdir = main / ".git" / "worktrees" / "wt"
    worktree_gitdir.mkdir(parents=True)
    (worktree_gitdir / "commondir").write_text("../..\n")
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {worktree_gitdir}\n")
    monkeypatch.chdir(main)
    first = as_json(cli("add", "Shared by every worktree", "--project", "auto", "--json"))
    assert first["project"] == str((main / ".git").resolve())
    monkeypatch.chdir(worktree)
    assert [m["id"] for m in as_json(cli("list", "--project", "auto", "--json"))] == [first["id"]]
    monkeypatch.chdir(tmp_path)  # outside any repository: no project
    assert as_json(cli("add", "No project here", "--project", "auto", "--json"))["project"] is None


def test_projects_never_read_each_other_nor_the_projectless_scope(cli: Run) -> None:
    cli("add", "App fact about deploys", "--user", "ada", "--project", "app")
    cli("add", "Site fact about deploys", "--user", "ada", "--project", "site")
    cli("add", "Ada's own fact about deploys", "--user", "ada")

    def found(*scope: str) -> list[str]:
        return [h["content"] for h in as_json(cli("search", "deploys", *scope, "--json"))]

    assert found("--user", "ada", "--project", "app") == ["App fact about deploys"]
    assert found("--user", "ada", "--project", "site") == ["Site fact about deploys"]
    assert found("--user", "ada") == ["Ada's own fact about deploys"]
    assert found("--user", "ada", "--project", "none") == ["Ada's own fact about deploys"]
    packed = cli("pack", "deploys", "--user", "ada", "--project", "app", "--inherit")
    assert "App fact" in packed.stdout and "Ada's own fact" in packed.stdout
    assert "Site fact" not in packed.stdout
    stats = as_json(cli("stats", "--all-scopes", "--json"))
    assert {s["project"] for s in stats["by_scope"]} == {"app", "site", None}


def test_isolate_flag_and_config(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    cli("add", "Monday's note", "--user", "ada", "--session", "mon")
    tuesday = ("list", "--user", "ada", "--session", "tue", "--json")
    assert len(as_json(cli(*tuesday))) == 1  # a new session recalls the earlier one
    assert as_json(cli(*tuesday, "--isolate")) == []
    monkeypatch.setenv("ZEROMEM_SCOPE_ISOLATE_SESSIONS", "true")
    assert as_json(cli(*tuesday)) == []
    assert len(as_json(cli(*tuesday, "--no-isolate"))) == 1


def test_export_and_import_carry_the_project(cli: Run, tmp_path: Path) -> None:
    cli("add", "App fact", "--user", "ada", "--project", "app", "--session", "s1")
    cli("add", "Ada fact", "--user", "ada")
    backup = tmp_path / "backup.jsonl"
    assert cli("export", "--all-scopes", "-o", str(backup)).exit_code == 0
    records = [json.loads(line) for line in backup.read_text().splitlines()]
    assert [r["project"] for r in records] == ["app", None]
    restored = tmp_path / "restored.db"
    assert cli("import", str(backup), "--all-scopes", "--db", str(restored)).exit_code == 0
    again = as_json(
        cli("list", "--user", "ada", "--project", "app", "--db", str(restored), "--json")
    )
    assert [(m["content"], m["session"], m["uid"]) for m in again] == [
        ("App fact", "s1", records[0]["uid"])
    ]
    # A scoped import keeps each record's session but never moves it to another owner.
    wrong = cli("import", str(backup), "--user", "ada", "--db", str(tmp_path / "x.db"))
    assert wrong.exit_code != 0 and "'app' is outside the scope of this import" in wrong.stderr
    assert "--all-scopes" in cli("export", "--all-scopes", "--project", "app").stderr
