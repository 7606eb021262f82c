"""A URL with a password inside a file path is never echoed (#33): normalising the path folds
its "//" to "/", which the URL-credentials rule now also reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Run

PASSWORD = "Sup3rSecretPW"


@pytest.mark.parametrize(
    "argv",
    [
        ("import", f"/x/postgres://admin:{PASSWORD}@db/f.jsonl"),
        ("ingest", f"/x/mysql://root:{PASSWORD}@db/notes.txt"),
        ("list", "--db", f"/x/postgres://admin:{PASSWORD}@db/f.db"),
        ("search", "x", "--db", f"rel/redis://u:{PASSWORD}@cache/f.db"),
        ("export", "-o", f"/nonexistent/postgres://admin:{PASSWORD}@db/out.jsonl"),
    ],
)
def test_a_password_in_a_path_is_masked(cli: Run, argv: tuple[str, ...]) -> None:
    cli("add", "a memory so the store exists")
    result = cli(*argv, db="--db" not in argv)
    assert result.exit_code != 0
    assert PASSWORD not in result.output
    assert "[secret: url_credentials]" in result.stderr


def test_prose_with_a_colon_slash_is_not_masked(cli: Run, db_path: Path) -> None:
    shown = cli("add", "ratio 3:/4 and C:/Users/me:not@secret is a path", "--json")
    assert shown.exit_code == 0, shown.stderr
