"""Fixtures of the PostgreSQL tests: a team store (``team``), set up as its owner would."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from tests import pgcluster
from tests.conftest import Run

_databases = itertools.count(1)


class Team:
    def __init__(self, cluster: pgcluster.Cluster, name: str) -> None:
        self.cluster = cluster
        self.name = name

    def url(self, role: str) -> str:
        return self.cluster.url(self.name, user=role)

    def raw(self, role: str) -> Any:
        import psycopg

        return psycopg.connect(self.url(role), autocommit=True)


@pytest.fixture
def team(cluster: pgcluster.Cluster, cli: Run) -> Iterator[Team]:
    """A database owned by ``owner``, members alice and bob, alice in the group ``backend``."""
    number = next(_databases)
    name = f"team{number}"
    roles = {r: f"{r}{number}" for r in ("owner", "alice", "bob", "backend")}
    cluster.psql(
        f"CREATE ROLE {roles['owner']} LOGIN; CREATE ROLE {roles['alice']} LOGIN; "
        f"CREATE ROLE {roles['bob']} LOGIN; CREATE ROLE {roles['backend']} NOLOGIN; "
        f"GRANT {roles['backend']} TO {roles['alice']};"
    )
    cluster.psql(f"CREATE DATABASE {name} OWNER {roles['owner']}")
    created = Team(cluster, name)
    created.roles = roles  # type: ignore[attr-defined]
    result = cli(
        "admin", "init-postgres", created.url(roles["owner"]),
        "--member", roles["alice"], "--member", roles["bob"], db=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "applied migration 001 m001_initial" in result.stdout
    assert "applied migration 002 m002_row_security" in result.stdout
    assert f"granted role {roles['alice']}" in result.stdout
    yield created


def _roles(team: Team) -> dict[str, str]:
    return team.roles  # type: ignore[attr-defined,no-any-return]
