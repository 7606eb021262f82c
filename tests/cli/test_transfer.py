"""export / import end to end through the CLI on real database files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import Run, as_json, stored
from zeromem_cli.cli import app


def _seed(cli: Run) -> None:
    cli("add", "Weekly report goes out Fridays", "-c", "preference", "-k", "report", "-t", "work")
    cli("add", "周报发送时间改为每周五下午五点", "-t", "周报", "--meta", "source=chat")
    cli("update", "1", "Weekly report goes out Thursdays", "--pin")
    cli("add", "Old scratch note")
    cli("forget", "3", "--yes")
    cli("add", "Alice likes tea", "--user", "alice", "--importance", "8")


def _run(db: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [*args, "--db", str(db)], input=input)
    return result.exit_code, result.stdout, result.stderr


def test_jsonl_round_trip_is_byte_identical(cli: Run, tmp_path: Path) -> None:
    _seed(cli)
    first = cli("export", "--all-scopes", "--include-deleted", "--with-history")
    assert first.exit_code == 0, first.stderr
    records = [json.loads(line) for line in first.stdout.splitlines()]
    assert [r["id"] for r in records] == [1, 2, 3, 4]
    assert records[0]["history"][0]["content"] == "Weekly report goes out Fridays"
    assert records[2]["deleted_at"] is not None and records[3]["user"] == "alice"
    source = tmp_path / "backup.jsonl"
    source.write_text(first.stdout, encoding="utf-8")
    other = tmp_path / "other.db"
    code, _, err = _run(other, "import", str(source), "--all-scopes")
    assert code == 0 and "4 added" in err
    code, again, _ = _run(other, "export", "--all-scopes", "--include-deleted", "--with-history")
    assert again == first.stdout
    # The imported copy is searchable (its FTS index was written) and keeps its history.
    code, hits, _ = _run(other, "search", "周报", "--json")
    assert [h["id"] for h in json.loads(hits)] == [2]
    code, versions, _ = _run(other, "history", "1", "--json")
    assert [v["change"] for v in json.loads(versions)] == ["update", "current"]


def test_reimport_changes_nothing(cli: Run, tmp_path: Path) -> None:
    _seed(cli)
    path = tmp_path / "out.jsonl"
    assert cli("export", "-o", str(path)).exit_code == 0
    before = cli("export", "--all-scopes", "--include-deleted", "--with-history").stdout
    for policy in ("skip", "update"):
        result = cli("import", str(path), "--on-conflict", policy, "--json")
        report = as_json(result)
        assert report["added"] == 0 and report["updated"] == 0
    assert cli("export", "--all-scopes", "--include-deleted", "--with-history").stdout == before


def test_records_without_uid_are_idempotent_too(cli: Run) -> None:
    data = '{"content": "first"}\n{"content": "second", "tags": ["x"]}\n'
    assert as_json(cli("import", "-", "--json", input=data))["added"] == 2
    assert as_json(cli("import", "-", "--json", input=data))["skipped"] == 2
    assert len(as_json(cli("list", "--json"))) == 2


def test_export_to_file_is_atomic_and_private(cli: Run, tmp_path: Path) -> None:
    cli("add", "something")
    target = tmp_path / "export.json"
    result = cli("export", "-f", "json", "-o", str(target))
    assert result.exit_code == 0 and result.stdout == ""
    assert "exported 1 memories" in result.stderr
    assert json.loads(target.read_text())[0]["content"] == "something"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_export_filters(cli: Run) -> None:
    _seed(cli)
    only = cli("export", "--category", "preference").stdout.splitlines()
    assert [json.loads(line)["id"] for line in only] == [1]
    tagged = cli("export", "--tag", "周报").stdout.splitlines()
    assert [json.loads(line)["id"] for line in tagged] == [2]
    assert cli("export", "--until", "2000-01-01").stdout == ""
    assert len(cli("export", "--include-deleted").stdout.splitlines()) == 3
    alice = cli("export", "--user", "alice").stdout.splitlines()
    assert [json.loads(line)["content"] for line in alice] == ["Alice likes tea"]


def test_csv_round_trip(cli: Run, tmp_path: Path) -> None:
    _seed(cli)
    path = tmp_path / "out.csv"
    cli("export", "-f", "csv", "-o", str(path))
    code, _, err = _run(tmp_path / "csv.db", "import", str(path))
    assert code == 0, err
    original = as_json(cli("list", "--json"))
    code, out, _ = _run(tmp_path / "csv.db", "list", "--json")
    assert json.loads(out) == original


def test_markdown_is_grouped_by_category(cli: Run) -> None:
    _seed(cli)
    text = cli("export", "-f", "markdown").stdout
    assert text.index("## general") < text.index("## preference")
    assert "- Weekly report goes out Thursdays" in text
    assert "key `report`" in text and "pinned" in text


def test_invalid_records_name_line_and_field_and_import_nothing(cli: Run) -> None:
    data = "\n".join(
        [
            '{"content": "fine"}',
            '{"content": "bad time", "created_at": "yesterday"}',
            '{"content": "bad importance", "importance": 11}',
            '{"content": "bad tags", "tags": "x"}',
            '{"content": "typo", "catgory": "fact"}',
            '{"tags": ["no content"]}',
            "{not json",
        ]
    )
    result = cli("import", "-", input=data)
    assert result.exit_code == 2
    err = result.stderr
    assert "line 2: field 'created_at': not an ISO-8601" in err
    assert "line 3: field 'importance': must be from 0 to 10" in err
    assert "line 4: field 'tags': expected an array" in err
    assert "line 5: field 'catgory': unknown field" in err
    assert "line 6: field 'content': is missing" in err
    assert "line 7: not valid JSON" in err
    assert "6 invalid records; nothing was imported" in err
    assert stored(cli) == []
    skipped = cli("import", "-", "--skip-invalid", input=data)
    assert skipped.exit_code == 0
    assert "1 added" in skipped.stderr and "6 invalid" in skipped.stderr
    assert [m["content"] for m in as_json(cli("list", "--json"))] == ["fine"]


def test_json_array_errors_name_the_line(cli: Run) -> None:
    data = '[\n  {"content": "ok"},\n  {"content": "x",\n   "pinned": "yes"}\n]\n'
    result = cli("import", "-", "--format", "json", input=data)
    assert result.exit_code == 2
    assert "line 3: field 'pinned': expected true or false" in result.stderr


@pytest.mark.parametrize(
    ("fmt", "data"),
    [
        ("jsonl", '{"content": "x", "score": NaN}\n'),  # an ignored field: once an internal error
        ("jsonl", '{"content": "x", "meta": {"ratio": Infinity}}\n'),
        ("json", '[{"content": "x", "history": [{"version": -Infinity}]}]'),
        ("csv", 'content,meta\nx,"{""ratio"": NaN}"\n'),
    ],
)
def test_nan_and_infinity_are_not_json(cli: Run, fmt: str, data: str) -> None:
    result = cli("import", "-", "--format", fmt, input=data)
    assert result.exit_code == 2
    assert "not valid JSON" in result.stderr and "internal error" not in result.stderr
    assert stored(cli) == []


def test_content_rules_of_add_apply(cli: Run) -> None:
    big = "x" * (64 * 1024 + 1)
    result = cli("import", "-", input=json.dumps({"content": big}) + "\n")
    assert result.exit_code == 2 and "over the limit" in result.stderr
    cleaned = cli("import", "-", input=json.dumps({"content": "  a\u0000b\r\n"}) + "\n")
    assert cleaned.exit_code == 0
    assert as_json(cli("list", "--json"))[0]["content"] == "ab"


def test_scope_of_records_is_checked(cli: Run) -> None:
    data = '{"content": "bob note", "user": "bob"}\n'
    refused = cli("import", "-", "--user", "alice", input=data)
    assert refused.exit_code == 2
    assert "field 'user': 'bob' is outside the scope of this import" in refused.stderr
    assert cli("import", "-", "--user", "bob", input=data).exit_code == 0
    assert as_json(cli("list", "--user", "bob", "--json"))[0]["content"] == "bob note"
    unscoped = cli("import", "-", "--user", "carol", input='{"content": "no scope"}\n')
    assert unscoped.exit_code == 0
    assert as_json(cli("list", "--user", "carol", "--json"))[0]["user"] == "carol"
    both = cli("import", "-", "--all-scopes", "--user", "x", input=data)
    assert both.exit_code == 2


def test_conflict_policies(cli: Run) -> None:
    cli("add", "Theme is dark", "-k", "theme")
    record = as_json(cli("show", "1", "--json"))
    changed = json.dumps({**record, "content": "Theme is light"}) + "\n"
    skip = as_json(cli("import", "-", "--json", input=changed))
    assert skip["skipped"] == 1
    assert as_json(cli("show", "1", "--json"))["content"] == "Theme is dark"
    update = as_json(cli("import", "-", "--on-conflict", "update", "--json", input=changed))
    assert update["updated"] == 1
    assert as_json(cli("show", "1", "--json"))["content"] == "Theme is light"
    history = as_json(cli("history", "1", "--json"))
    assert [h["change"] for h in history] == ["import", "current"]
    duplicate = as_json(cli("import", "-", "--on-conflict", "duplicate", "--json", input=changed))
    assert duplicate["added"] == 1 and duplicate["keys_dropped"] == 1
    rows = as_json(cli("list", "--json"))
    assert len(rows) == 2 and len({r["uid"] for r in rows}) == 2
    # A new uid whose key is taken: conflict by key.
    by_key = '{"content": "Theme is blue", "key": "theme"}\n'
    assert as_json(cli("import", "-", "--json", input=by_key))["skipped"] == 1
    updated = as_json(cli("import", "-", "--on-conflict", "update", "--json", input=by_key))
    assert updated["updated"] == 1
    assert as_json(cli("list", "--key", "theme", "--json"))[0]["content"] == "Theme is blue"


def test_dry_run_writes_nothing(cli: Run) -> None:
    result = cli("import", "-", "--dry-run", input='{"content": "a"}\n')
    assert result.exit_code == 0 and "would import 1" in result.stderr
    assert stored(cli) == []


MEM0 = {
    "results": [
        {
            "id": "3c90c3cc-0d44-4b50-8888-8dd25736052a",
            "memory": "Prefers vegetarian food",
            "hash": "abc",
            "metadata": {"source": "onboarding"},
            "categories": ["food"],
            "created_at": "2024-07-20T01:30:33.233344-07:00",
            "updated_at": None,
            "user_id": "alice",
            "agent_id": None,
            "run_id": None,
        },
        {
            "id": "mem-2",
            "memory": "Works at Acme",
            "metadata": None,
            "created_at": "2024-07-21T10:00:00Z",
            "updated_at": "2024-07-22T10:00:00Z",
            "user_id": "alice",
            "agent_id": "helper",
            "run_id": "run-7",
        },
    ]
}


def test_mem0_get_all_imports(cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(MEM0))
    result = cli("import", str(path), "--all-scopes")
    assert result.exit_code == 0, result.stderr
    [food] = as_json(cli("list", "--user", "alice", "--isolate", "--json"))
    assert food["content"] == "Prefers vegetarian food"
    assert food["uid"] == "3c90c3cc-0d44-4b50-8888-8dd25736052a"
    assert food["meta"] == {"mem0_id": food["uid"], "source": "onboarding"}
    assert food["tags"] == ["food"]
    assert food["created_at"] == "2024-07-20T08:30:33Z"
    [acme] = as_json(
        cli(
            "list",
            "--user",
            "alice",
            "--agent",
            "helper",
            "--session",
            "run-7",
            "--isolate",
            "--json",
        )
    )
    assert acme["meta"]["mem0_id"] == "mem-2" and acme["updated_at"] == "2024-07-22T10:00:00Z"
    again = as_json(cli("import", str(path), "--all-scopes", "--json"))
    assert again["skipped"] == 2 and again["added"] == 0


def test_unreadable_inputs(cli: Run, tmp_path: Path) -> None:
    missing = cli("import", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    binary = tmp_path / "bad.jsonl"
    binary.write_bytes(b'{"content": "caf\xe9"}\n')
    assert cli("import", str(binary)).exit_code == 2
    unknown = tmp_path / "data.txt"
    unknown.write_text("hello\n")
    assert "--format" in cli("import", str(unknown)).stderr


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
def test_every_import_format_reads_its_export(cli: Run, tmp_path: Path, fmt: str) -> None:
    cli("add", 'line one\nline two, with "quotes"', "-t", "a", "-t", "b")
    path = tmp_path / f"out.{fmt}"
    cli("export", "-f", fmt, "-o", str(path))
    code, _, err = _run(tmp_path / f"{fmt}.db", "import", str(path))
    assert code == 0, err
    code, out, _ = _run(tmp_path / f"{fmt}.db", "export")
    assert out == cli("export").stdout


def test_derived_uid_is_a_uuid5() -> None:
    import uuid

    from zeromem_cli.transfer.read import _UID_NAMESPACE, derived_uid

    for basis in ("", "abc", "周报 ✓" * 50):
        assert derived_uid(basis) == str(uuid.uuid5(_UID_NAMESPACE, basis))
