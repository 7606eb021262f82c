"""What a zeromem connection sets on its server session: enough memory that a large search's
bitmaps stay exact, never less than the server (or the URL) already gives."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg", reason="psycopg is not installed (zeromem[postgres])")

from tests import pgcluster  # noqa: E402
from zeromem_cli import MemoryStore  # noqa: E402
from zeromem_cli.storage.postgres import db  # noqa: E402


def _work_mem(url: str) -> str:
    with MemoryStore(url) as store:
        return str(store.connection.execute("SHOW work_mem").fetchone()["work_mem"])


def test_work_mem_is_raised_to_16mb_and_a_larger_setting_kept(
    cluster: pgcluster.Cluster, pg_url: str
) -> None:
    assert db.WORK_MEM_KIB == 16 * 1024
    assert _work_mem(pg_url) == "16MB"  # the throwaway server keeps PostgreSQL's 4MB
    assert _work_mem(pg_url.replace("options=", "options=-cwork_mem%3D64MB%20")) == "64MB"
