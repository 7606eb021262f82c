"""`zeromem import` of the memory files people already keep: CLAUDE.md (with its @imports),
AGENTS.md, GEMINI.md and the MCP reference memory server's memory.jsonl, on realistic fixtures
(tests/cli/fixtures/memory_files) copied into a git repository under tmp_path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import Run, as_json, stored
from zeromem_cli import MemoryStore

FIXTURES = Path(__file__).parent / "fixtures" / "memory_files"
SECRET = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"  # a GitHub token's shape


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture project inside a git repository, and a home folder with the personal
    file its CLAUDE.md imports as @~/.claude/acme-personal.md."""
    root = tmp_path / "acme"
    shutil.copytree(FIXTURES / "project", root)
    (root / ".git").mkdir()
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "acme-personal.md").write_text("- I prefer short commit messages\n")
    monkeypatch.setenv("HOME", str(home))
    return root


def plan(cli: Run, path: Path | str, *options: str) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    report = as_json(cli("import", str(path), "--dry-run", "--json", *options))
    rows = [(r["where"], r["category"], r["tags"], r["content"]) for r in report["plan"]]
    return rows, report


CLAUDE = ["CLAUDE.md", "Acme Billing"]
CLAUDE_PLAN = [
    (
        "CLAUDE.md line 10",
        "Acme Billing",
        CLAUDE,
        "Acme Billing is the invoicing API of the Acme storefront. It runs on\n"
        "Python 3.12 and PostgreSQL 16.",
    ),
    (
        "CLAUDE.md line 13",
        "Acme Billing",
        CLAUDE,
        "See @README.md for the overview and @package.json for the scripts; ask @alice for access.",
    ),
    (
        "CLAUDE.md line 17",
        "Commands",
        [*CLAUDE, "Commands"],
        "`make test` runs the unit tests; `make e2e` needs Docker",
    ),
    (
        "CLAUDE.md line 18",
        "Commands",
        [*CLAUDE, "Commands"],
        "Start the dev server with `make dev` (port 8080)",
    ),
    (
        "CLAUDE.md line 29",
        "Python",
        [*CLAUDE, "Code style", "Python"],
        "Type hints everywhere; `mypy --strict` must pass",
    ),
    (
        "CLAUDE.md line 30",
        "Python",
        [*CLAUDE, "Code style", "Python"],
        "Prefer f-strings over `%` formatting, and no `@property` setters with side effects",
    ),
    (
        "CLAUDE.md line 31",
        "Python",
        [*CLAUDE, "Code style", "Python"],
        "Tests:\n- pytest with fixtures, no unittest classes\n"
        "- property tests with hypothesis for parsers",
    ),
    (
        "CLAUDE.md line 36",
        "SQL",
        [*CLAUDE, "Code style", "SQL"],
        "Every migration is reversible",
    ),
    (
        "CLAUDE.md line 37",
        "SQL",
        [*CLAUDE, "Code style", "SQL"],
        "Name indexes `ix_<table>_<columns>`:\n```sql\n-- @docs/not-an-import.md\n"
        "CREATE INDEX ix_invoice_customer ON invoice (customer_id);\n```",
    ),
    (
        "CLAUDE.md line 44",
        "团队约定",
        [*CLAUDE, "团队约定"],
        "周报每周五下午五点前发到 #billing 频道",
    ),
    ("CLAUDE.md line 45", "团队约定", [*CLAUDE, "团队约定"], "代码评审至少需要一位同事批准"),
    (
        "CLAUDE.md line 49",
        "Deployment",
        [*CLAUDE, "Deployment"],
        "Production deploys happen on Tuesdays and Thursdays only.",
    ),
    (
        "CLAUDE.md line 56",
        "Imports",
        [*CLAUDE, "Imports"],
        "Team conventions: @docs/conventions.md",
    ),
    # Imported files follow, breadth first, each with its own place, tags and category.
    (
        "README.md line 2",
        "Acme Billing",
        ["README.md", "Acme Billing"],
        "Invoicing for the Acme storefront.",
    ),
    (
        "docs/conventions.md line 2",
        "Conventions",
        ["conventions.md", "Conventions"],
        "Branch names: `feature/<ticket>-<slug>`",
    ),
    (
        "~/.claude/acme-personal.md line 1",
        "general",
        ["acme-personal.md"],
        "I prefer short commit messages",
    ),
    ("docs/chain/1.md line 1", "general", ["1.md"], "Chain level 1"),
    (
        "docs/testing.md line 2",
        "Testing",
        ["testing.md", "Testing"],
        "Coverage must not drop below 90%",
    ),
    ("docs/chain/2.md line 1", "general", ["2.md"], "Chain level 2"),
    ("docs/chain/3.md line 1", "general", ["3.md"], "Chain level 3"),
    ("docs/chain/4.md line 1", "general", ["4.md"], "Chain level 4"),
    ("docs/chain/5.md line 1", "general", ["5.md"], "Chain level 5"),
]


def test_claude_md_plan_one_memory_per_item_or_paragraph(cli: Run, project: Path) -> None:
    rows, report = plan(cli, project / "CLAUDE.md")
    # Not memories: the front matter, both HTML comments, the fenced and the indented code
    # blocks, the thematic break, the lines that are only imports (nor the @ inside code).
    assert rows == CLAUDE_PLAN
    assert report["format"] == "claude-md" and report["added"] == len(CLAUDE_PLAN)
    assert report["notes"] == [
        "CLAUDE.md line 13: @package.json: not a markdown or text file, not read",
        "CLAUDE.md line 13: @alice: no such file, kept as text",
        "docs/testing.md line 3: @conventions.md: an import cycle, not followed again",
        "docs/chain/5.md line 2: @6.md: more than 5 imports deep, not read",
    ]
    assert report["files"][:4] == [
        "CLAUDE.md",
        "README.md",
        "docs/conventions.md",
        "~/.claude/acme-personal.md",
    ]
    assert stored(cli) == []  # a dry run writes nothing


def test_claude_md_import_is_searchable_and_idempotent(
    cli: Run, project: Path, db_path: Path
) -> None:
    result = cli("import", str(project / "CLAUDE.md"))
    assert result.exit_code == 0, result.stderr
    assert f"imported {len(CLAUDE_PLAN)} of {len(CLAUDE_PLAN)} records" in result.stderr
    # The repository's files land in its project scope (no remote: its common git dir).
    in_project = ("--project", str((project / ".git").resolve()))
    assert as_json(cli("search", "周报什么时候发？", "--json")) == []
    hits = as_json(cli("search", "周报什么时候发？", *in_project, "--json"))
    assert hits[0]["content"] == "周报每周五下午五点前发到 #billing 频道"
    assert hits[0]["project"] == in_project[1]
    assert hits[0]["category"] == "团队约定" and hits[0]["meta"] == {
        "source": "claude-md",
        "file": str((project / "CLAUDE.md").resolve()),
        "project": str(project.resolve()),  # the repository root
    }
    personal = as_json(cli("search", "commit messages", "--json"))[0]
    assert "project" not in personal["meta"]  # the home file belongs to no repository
    assert personal["project"] is None  # so it is the user's, in every project
    assert "[Python] Type hints everywhere" in cli("pack", "python type hints", *in_project).stdout
    # Again, and after an edit above every memory: nothing new, nothing duplicated.
    again = cli("import", str(project / "CLAUDE.md"))
    assert f"0 added, 0 updated, 0 unchanged, {len(CLAUDE_PLAN)} skipped" in again.stderr
    text = (project / "CLAUDE.md").read_text()
    (project / "CLAUDE.md").write_text(text.replace("# Acme Billing\n", "# Acme Billing\n\n\n"))
    edited = cli("import", str(project / "CLAUDE.md"))
    assert "0 added" in edited.stderr
    with MemoryStore(db_path) as store:
        assert store.count() == 1  # the personal file's memory
        assert store.scoped(project=in_project[1]).count() == len(CLAUDE_PLAN) - 1
    # --project names where a file's memories go instead.
    named = cli("import", str(project / "CLAUDE.md"), "--project", "acme", "--db", str(db_path))
    assert named.exit_code == 0, named.stderr
    assert len(as_json(cli("list", "--project", "acme", "--json"))) == len(CLAUDE_PLAN)


def test_agents_md_has_no_imports_and_gemini_md_has(cli: Run, project: Path) -> None:
    rows, report = plan(cli, project / "AGENTS.md")
    assert report["format"] == "agents-md" and report["files"] == ["AGENTS.md"]
    assert rows == [
        (
            "AGENTS.md line 4",
            "Setup commands",
            ["AGENTS.md", "Setup commands"],
            "Install deps: `uv sync`",
        ),
        (
            "AGENTS.md line 5",
            "Setup commands",
            ["AGENTS.md", "Setup commands"],
            "Run tests: `uv run pytest -q`",
        ),
        (
            "AGENTS.md line 8",
            "PR instructions",
            ["AGENTS.md", "PR instructions"],
            "Title format: [billing] <Title>. See @docs/conventions.md for the rest.",
        ),
    ]
    rows, report = plan(cli, project / "GEMINI.md")
    assert report["format"] == "gemini-md"
    assert report["files"] == ["GEMINI.md", "docs/conventions.md", "docs/testing.md"]
    assert [row[3] for row in rows] == [
        "Answer in English unless asked otherwise",
        "Branch names: `feature/<ticket>-<slug>`",
        "Coverage must not drop below 90%",
    ]


def test_format_by_name_or_option_and_from_stdin(cli: Run, project: Path) -> None:
    renamed = project / "team-notes.txt"
    shutil.copy(project / "AGENTS.md", renamed)
    rows, report = plan(cli, renamed, "--format", "agents-md")
    assert report["format"] == "agents-md" and len(rows) == 3
    text = "# Notes\n- 记住：周报用表格格式\n"
    result = cli("import", "-", "--format", "claude-md", "--dry-run", input=text)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "line 2\tNotes\tNotes\t记住：周报用表格格式\n"
    assert "read stdin" in result.stderr


def test_a_secret_is_refused_by_line_and_nothing_is_imported(
    cli: Run, project: Path, db_path: Path
) -> None:
    claude = project / "CLAUDE.md"
    claude.write_text(claude.read_text() + f"\n## Access\n- The CI token is {SECRET}\n")
    result = cli("import", str(claude))
    assert result.exit_code == 2
    assert (
        "zeromem: error: CLAUDE.md line 61: field 'content': likely secret: GitHub" in result.stderr
    )
    assert SECRET not in result.stderr + result.stdout
    assert stored(cli) == []  # one transaction: nothing at all
    dry = cli("import", str(claude), "--dry-run", "--skip-invalid")
    assert dry.exit_code == 0 and SECRET not in dry.stdout + dry.stderr
    assert "CLAUDE.md line 61" not in dry.stdout  # the refused record is not in the plan
    skipped = cli("import", str(claude), "--skip-invalid")
    assert f"{len(CLAUDE_PLAN)} added" in skipped.stderr and "1 invalid" in skipped.stderr
    assert SECRET.encode() not in db_path.read_bytes()


def test_an_unreadable_import_is_one_error_line(cli: Run, project: Path) -> None:
    (project / "docs" / "conventions.md").write_bytes(b"- caf\xe9\n")
    result = cli("import", str(project / "CLAUDE.md"))
    assert result.exit_code == 2
    assert result.stderr == (
        "zeromem: error: CLAUDE.md line 56: @docs/conventions.md: not valid UTF-8 (byte 5); "
        "nothing was imported\n"
    )


def test_mcp_memory_graph(cli: Run, tmp_path: Path, db_path: Path) -> None:
    graph = tmp_path / "memory.jsonl"
    shutil.copy(FIXTURES / "mcp" / "memory.jsonl", graph)
    rows, report = plan(cli, graph)
    assert report["format"] == "mcp-memory"
    assert rows == [
        ("line 1 observation 1", "person", ["John_Smith"], "John_Smith: Speaks fluent Spanish"),
        ("line 1 observation 2", "person", ["John_Smith"], "John_Smith: Graduated in 2019"),
        ("line 1 observation 3", "person", ["John_Smith"], "John_Smith: Prefers morning meetings"),
        ("line 2", "organization", ["Anthropic"], "Anthropic: organization"),
        ("line 3 observation 1", "person", ["李雷"], "李雷: 住在上海"),
        ("line 3 observation 2", "person", ["李雷"], "李雷: 喜欢喝乌龙茶"),
        ("line 4", "relation", ["John_Smith", "Anthropic"], "John_Smith works at Anthropic"),
        ("line 5", "relation", ["李雷", "John_Smith"], "李雷 mentors John_Smith"),
    ]
    assert cli("import", str(graph)).exit_code == 0
    hit = as_json(cli("search", "where does John work", "--json"))[0]
    assert hit["content"] == "John_Smith works at Anthropic"
    assert hit["meta"] == {
        "source": "mcp-memory",
        "from": "John_Smith",
        "to": "Anthropic",
        "relation": "works_at",
    }
    assert as_json(cli("search", "李雷住在哪里", "--json"))[0]["content"] == "李雷: 住在上海"
    assert [m["content"] for m in as_json(cli("list", "--tag", "John_Smith", "--json"))][-1] == (
        "John_Smith: Speaks fluent Spanish"
    )
    # The server adds an observation; importing the graph again adds only that one.
    lines = graph.read_text().split("\n")
    lines[0] = lines[0].replace(
        '"Prefers morning meetings"', '"Prefers morning meetings","Owns a cat"'
    )
    graph.write_text("\n".join(lines))
    again = cli("import", str(graph))
    assert "1 added, 0 updated, 0 unchanged, 8 skipped" in again.stderr
    with MemoryStore(db_path) as store:
        assert store.count() == 9


def test_mcp_read_graph_object_and_errors_by_line(cli: Run, tmp_path: Path) -> None:
    graph = {
        "entities": [{"name": "Ada", "entityType": "person", "observations": ["Writes Rust"]}],
        "relations": [{"from": "Ada", "to": "Acme", "relationType": "consults_for"}],
    }
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(graph, indent=2))
    rows, report = plan(cli, path)
    assert report["format"] == "mcp-memory"
    assert [row[0] for row in rows] == ["entity 1 observation 1", "relation 1"]
    assert rows[1][3] == "Ada consults for Acme"
    broken = tmp_path / "memory.jsonl"
    broken.write_text(
        '{"type":"entity","name":"Ada","entityType":"person","observations":["Writes Rust"]}\n'
        "not json\n"
        '{"type":"rumour","name":"x"}\n'
        '{"type":"relation","from":"Ada","relationType":"knows"}\n'
        '{"type":"entity","name":"Bob","entityType":"person","observations":["ok", 7]}\n'
    )
    result = cli("import", str(broken))
    assert result.exit_code == 2
    errors = [
        line for line in result.stderr.splitlines() if line.startswith("zeromem: error: line")
    ]
    assert errors == [
        "zeromem: error: line 2: not valid JSON (Expecting value: line 1 column 1 (char 0))",
        "zeromem: error: line 3: field 'type': expected 'entity' or 'relation', not 'rumour'",
        "zeromem: error: line 4: field 'to': expected non-empty text",
        "zeromem: error: line 5 observation 2: field 'observations': expected non-empty text",
    ]
    assert "4 invalid records; nothing was imported" in result.stderr


def test_markdown_export_round_trips_through_the_claude_md_importer(
    cli: Run, tmp_path: Path, db_path: Path
) -> None:
    with MemoryStore(db_path) as store:
        store.add(
            "Weekly report goes out Fridays 17:00",
            category="preference",
            key="report_time",
            tags=["work", "周报"],
            importance=8,
            pinned=True,
        )
        store.add(
            "Multi-line memory\n\nwith a blank line,\n# a heading-like line\n"
            "- and a bullet\n```\ncode fence, never closed\n   indented 3\n\tand a tab",
            category="notes",
        )
        store.add("周报发送时间改为每周五下午五点", category="preference")
        store.add("Email me at a@b.com, ping @alice, see @README.md", category="C# (3)")
    exported = cli("export", "--format", "markdown", "-o", str(tmp_path / "memories.md"))
    assert exported.exit_code == 0, exported.stderr
    other = tmp_path / "other.db"
    result = cli(
        "import",
        str(tmp_path / "memories.md"),
        "--format",
        "claude-md",
        "--db",
        str(other),
        db=False,
    )
    assert result.exit_code == 0 and "4 added" in result.stderr, result.stderr
    fields = ("content", "category", "key", "tags", "importance", "pinned", "created_at")

    def records(path: Path) -> list[tuple[Any, ...]]:
        with MemoryStore(path) as store:
            found = sorted(store.list(limit=None), key=lambda m: m.content)
            return [tuple(getattr(m, name) for name in fields) for m in found]

    before, after = records(db_path), records(other)
    # Times come back as the day the export shows; everything else exactly.
    assert [r[:-1] for r in after] == [r[:-1] for r in before]
    assert [r[-1] for r in after] == [r[-1][:10] + "T00:00:00Z" for r in before]


# What a memory may hold and still come back exactly: any line of these characters (markdown
# structure included), but no HTML comment, no trailing spaces (trimmed from every line) and
# no line that is only whitespace.
_PIECES = [*"ab Z9#-*+>|`~_=.:)(@<!/\\[]\t", "1.", "周报", "\u3000", "```", "    "]
_LINE = (
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=10)
    .map(lambda pieces: "".join(pieces).rstrip())
    .filter(lambda line: bool(line.strip()) and "<!--" not in line and "<sub>" not in line)
)


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(contents=st.lists(st.lists(_LINE, min_size=1, max_size=4), min_size=1, max_size=4))
@example(contents=[["--"]])  # "- --" is a thematic break to CommonMark (found by CI's run)
@example(contents=[["* *"], ["_ _ _"]])
def test_any_markdown_looking_content_survives_the_round_trip(
    contents: list[list[str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    from typer.testing import CliRunner

    from zeromem_cli.cli import app
    from zeromem_cli.transfer.markdown_memory import read_markdown

    folder = tmp_path_factory.mktemp("round")
    texts = list(dict.fromkeys("\n".join(lines).strip() for lines in contents))
    with MemoryStore(folder / "a.db") as store:
        for text in texts:
            store.add(text, allow_duplicate=True, allow_secret=True)
        stored = sorted(m.content for m in store.list(limit=None))
    exported = CliRunner().invoke(app, ["export", "-f", "markdown", "--db", str(folder / "a.db")])
    assert exported.exit_code == 0, exported.stderr
    read = read_markdown("claude-md", folder / "memories.md", exported.stdout)
    assert sorted(r["content"] for _, r in read.records) == stored


def test_a_missing_import_alone_on_its_line_is_not_said_to_be_kept(
    cli: Run, tmp_path: Path
) -> None:
    """#33: "kept as text" was said of an import-only line, which no record holds."""
    memory_file = tmp_path / "CLAUDE.md"
    memory_file.write_text("Deploys go out on Fridays.\n\n@missing-notes.md\n\nAsk @alice first.\n")
    result = cli("import", str(memory_file), "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    notes = report["notes"]
    assert (
        "CLAUDE.md line 3: @missing-notes.md: no such file, not read (the line is only imports)"
        in notes
    )
    assert "CLAUDE.md line 5: @alice: no such file, kept as text" in notes
