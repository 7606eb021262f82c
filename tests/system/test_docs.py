"""The docs: README is a short front page whose commands are true, the command reference is
generated from the CLI and cannot drift, and every link between the pages resolves."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import typer
from typer._click import Context

from zeromem_cli.cli import app
from zeromem_cli.cli.reference import commands_markdown

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
README = REPO / "README.md"

# Pages other work streams are writing; docs/index.md links them already, and a link to one
# may dangle until it exists.
PENDING_PAGES = {
    "ranking.md",
    "backends.md",
    "agent-memory-benchmark.md",
    "semantic.md",
    "agents.md",
    "python-frameworks.md",
}


def test_command_reference_has_not_drifted() -> None:
    committed = (DOCS / "commands.md").read_text(encoding="utf-8")
    assert committed == commands_markdown(), (
        "docs/commands.md is stale: run `python -m zeromem_cli.cli.reference > docs/commands.md`"
    )


def _walk(command: typer.core.TyperGroup, ctx: Context, path: str) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = [(path, command)]
    for name in command.list_commands(ctx) if hasattr(command, "list_commands") else []:
        sub = command.get_command(ctx, name)
        found += _walk(sub, Context(sub, info_name=name, parent=ctx), f"{path} {name}")
    return found


def test_every_command_and_option_is_documented() -> None:
    """Independently of the generator: each command has a section and each of its options
    appears in that section."""
    page = (DOCS / "commands.md").read_text(encoding="utf-8")
    root = typer.main.get_command(app)
    commands = _walk(root, Context(root, info_name="zeromem"), "zeromem")[1:]
    assert len(commands) > 20
    for path, command in commands:
        heading = f"`{path}`\n"
        assert heading in page, f"{path} is undocumented in docs/commands.md"
        start = page.index(heading)
        following = page.find("\n#", start + len(heading))
        section = page[start : following if following > 0 else len(page)]
        for param in command.params:  # type: ignore[attr-defined]
            if param.param_type_name != "option" or param.hidden:
                continue
            for opt in param.opts:
                in_store_line = "[store options]" in section and f"`{param.opts[0]}`" in section
                assert opt in section or in_store_line, f"{path} {opt} is undocumented"


def test_readme_is_a_front_page_with_the_two_commands_first() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 400
    blocks = re.findall(r"\n\n    (.+)\n", text)
    install, tests = blocks[0], blocks[1]
    assert install.startswith("python3 -m pip install . && zeromem add")
    assert "pip install -e '.[test]'" in tests
    # CI runs exactly the test command README gives.
    test_command = tests.split(" && ", 1)[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == test_command
    assert shlex.split(test_command)[:3] == ["python", "-m", "pytest"]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, spaces
    to hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"\n    .*", "", page.read_text(encoding="utf-8"))  # not in code blocks
    return {_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}


def _links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return re.findall(r"\]\(([^)\s]+)\)", text)


def test_every_link_between_the_pages_resolves() -> None:
    pages = [README, *sorted(DOCS.glob("*.md"))]
    broken = []
    for page in pages:
        for link in _links(page):
            if re.match(r"[a-z]+:", link):
                continue  # a web address
            target_name, _, anchor = link.partition("#")
            target = (page.parent / target_name).resolve() if target_name else page
            if not target.exists():
                if target.parent == DOCS and target.name in PENDING_PAGES:
                    continue
                broken.append(f"{page.name}: {link}")
            elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
                broken.append(f"{page.name}: {link} (no such heading)")
    assert not broken, broken


def test_docs_index_links_every_page() -> None:
    linked = set(re.findall(r"\]\(([\w\-]+\.md)\)", (DOCS / "index.md").read_text("utf-8")))
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    assert pages <= linked, f"docs/index.md does not link {sorted(pages - linked)}"
    assert PENDING_PAGES <= linked
