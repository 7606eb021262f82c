"""One SQL boundary: no SQL is written or run anywhere in the package but ``storage/``.

The rule, checked on the source of every module outside ``zeromem_cli/storage/`` (parsed with
``ast``, so comments never count and string concatenation is seen whole):

- no string literal, and no literal part of an f-string, starts (after whitespace) with an SQL
  statement keyword in upper case followed by a word boundary: ``SELECT``, ``INSERT``, ``PRAGMA
  busy_timeout``, ``f"SAVEPOINT {name}"``. The match is case-sensitive on purpose: the package
  writes SQL keywords in upper case, and English starts a sentence with "Update", "Select" or
  "With", which must not count (a one-word upper-case literal such as ``"COMMIT"`` does);
- no call of ``.execute``, ``.executemany`` or ``.executescript``: SQL text kept in a
  variable or built elsewhere is still run by storage alone.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import zeromem_cli

PACKAGE = Path(zeromem_cli.__file__).parent
KEYWORDS = (
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "REPLACE",
    "CREATE",
    "DROP",
    "ALTER",
    "PRAGMA",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "RELEASE",
    "WITH",
    "VACUUM",
    "ANALYZE",
    "ATTACH",
)
_STATEMENT = re.compile(rf"\s*(?:{'|'.join(KEYWORDS)})(?![\w])")
_RUNS_SQL = {"execute", "executemany", "executescript"}


def sql_in(source: str) -> list[tuple[int, str]]:
    """(line, what) for each SQL literal or SQL call in ``source``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _STATEMENT.match(node.value):
                found.append((node.lineno, node.value.strip()[:60]))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _RUNS_SQL
        ):
            found.append((node.lineno, f".{node.func.attr}(...)"))
    return found  # f-string parts are ast.Constant nodes too: ast.walk visits them


def _modules_outside_storage() -> list[Path]:
    storage = PACKAGE / "storage"
    return sorted(p for p in PACKAGE.rglob("*.py") if storage not in p.parents)


def test_no_sql_outside_storage() -> None:
    modules = _modules_outside_storage()
    assert len(modules) > 30  # the walk found the package
    offences = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {what}"
        for path in modules
        for line, what in sql_in(path.read_text(encoding="utf-8"))
    ]
    assert not offences, "SQL outside zeromem_cli/storage/:\n" + "\n".join(offences)


def test_storage_is_where_the_sql_is() -> None:
    """The same check finds the SQL that storage holds (the rule is not blind)."""
    for backend in ("sqlite", "postgres"):
        storage = PACKAGE / "storage" / backend
        counted = {
            path.name: len(sql_in(path.read_text(encoding="utf-8")))
            for path in storage.glob("*.py")
        }
        for name in ("memories.py", "candidates.py", "bulk.py", "fts.py", "migrations.py"):
            assert counted[name] > 0, (backend, name)


@pytest.mark.parametrize(
    "source",
    [
        'conn.execute("SELECT m.* FROM memories m WHERE m.id = ?", (1,))',
        "sql = \"  INSERT INTO memories_fts(memories_fts) VALUES ('optimize')\"",
        'sql = (\n    "UPDATE memories SET updated_at = ? "\n    "WHERE id = ?"\n)',
        'sql = f"SAVEPOINT {name}"',
        'sql = f"  ROLLBACK TO {name}"',
        'sql = f"{base} ORDER BY m.id"\nsql2 = f"PRAGMA busy_timeout = {ms}"',
        'sql = f"x {a} SELECT {b}"',  # a literal part that starts a statement
        'statement = "COMMIT"',
        'text = """\n    WITH recent AS (SELECT 1) SELECT * FROM recent\n"""',
        "conn.executemany(statement, rows)",  # SQL kept in a variable is still run here
    ],
)
def test_the_rule_catches_sql(source: str) -> None:
    assert sql_in(source), source


@pytest.mark.parametrize(
    "source",
    [
        '"""Update a memory; the old version is kept in history."""',
        'message = "Select what to forget: ids, --key or --all"',
        'help = "With --all, every scope."',
        'text = "Delete the trash for good (see gc)."',
        'line = "Replaced #3"',
        'name = "SELECTION"',  # a longer word, not the keyword
        'sql_free = "INSERTED 3 rows"',
        'match = \'"report"* OR "weekly"\'',  # an FTS5 expression is not SQL
        "run(conn.executemany, rows)",  # passed along, not called
    ],
)
def test_the_rule_ignores_english(source: str) -> None:
    assert not sql_in(source), source
