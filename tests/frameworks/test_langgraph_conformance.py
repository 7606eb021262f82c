"""LangGraph's own store tests, run against ``ZeromemStore`` with their files untouched.

The tests come from the sdists on PyPI of the versions the test extra pins (pip downloads them
once into ``.cache/langgraph-tests``; ``ZEROMEM_LANGGRAPH_TESTS_CACHE`` moves it); they are
LangGraph's code and never committed here. They run in a pytest of their own, through
``langgraph_suite/zeromem_langgraph_plugin.py``, which rebinds the store classes they construct
to ``ZeromemStore``'s and applies ``langgraph_suite/not_applicable.toml``: a listed test must
fail, every other must pass. Without network the tests skip, saying why, except in CI
(``CI`` or ``ZEROMEM_REQUIRE_LANGGRAPH_TESTS`` set: .ci/run sets it), where they fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from collections import Counter
from importlib import metadata
from pathlib import Path

import pytest

from tests import pgcluster

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
SUITE = Path(__file__).parent / "langgraph_suite"
FILES = {
    "langgraph-checkpoint": ["tests/test_store.py"],
    "langgraph-checkpoint-sqlite": [
        "tests/test_store.py",
        "tests/test_async_store.py",
        "tests/test_ttl.py",
    ],
}

pytestmark = pytest.mark.slow


def _required() -> bool:
    return bool(os.environ.get("CI") or os.environ.get("ZEROMEM_REQUIRE_LANGGRAPH_TESTS"))


def _cache() -> Path:
    configured = os.environ.get("ZEROMEM_LANGGRAPH_TESTS_CACHE")
    return Path(configured) if configured else REPO / ".cache" / "langgraph-tests"


def pinned(dist: str) -> str:
    """The version whose tests run: the one not_applicable.toml was written for, which must be
    the one installed (the test extra pins it)."""
    with (SUITE / "not_applicable.toml").open("rb") as handle:
        version = str(tomllib.load(handle)["versions"][dist])
    installed = metadata.version(dist)
    assert installed == version, (
        f"{dist} {installed} is installed, not_applicable.toml is for {version}: "
        "pin the test extra to it, or run the new version's tests and update the list"
    )
    return version


def sources(dist: str, tmp_path: Path) -> Path:
    """The unpacked sdist of ``dist`` at its pinned version, downloaded once."""
    version = pinned(dist)
    stem = f"{dist.replace('-', '_')}-{version}"
    folder = _cache() / stem
    if (folder / "tests").is_dir():
        return folder
    download = tmp_path / "sdist"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
         "--disable-pip-version-check", "-q", "-d", str(download), f"{dist}=={version}"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    archives = sorted(download.glob(f"{stem}.tar.gz"))
    if done.returncode != 0 or not archives:
        why = f"could not download the {dist} {version} sdist: {done.stderr.strip()[-300:]}"
        if _required():
            pytest.fail(why)
        pytest.skip(why)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archives[0]) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(folder.parent, filter="data")
        else:  # pragma: no cover - Pythons before the extraction filters
            archive.extractall(folder.parent)  # noqa: S202
    return folder


def run_suite(dist: str, tmp_path: Path, pg_url: str | None = None) -> Counter[str]:
    """Run ``dist``'s store tests against ZeromemStore; the outcome of each, counted."""
    folder = sources(dist, tmp_path)
    report = tmp_path / "report.xml"
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(SUITE),
        "TMPDIR": str(tmp_path / "tmp"),
        "ZEROMEM_HOME": str(tmp_path / "home"),
        "ZEROMEM_SEARCH_SEMANTIC": "off",
    }
    env.pop("ZEROMEM_LANGGRAPH_PG", None)
    if pg_url:
        env["ZEROMEM_LANGGRAPH_PG"] = pg_url
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(SUITE / "suite.ini"), "--rootdir", str(folder),
         "--zeromem-package", dist, f"--junitxml={report}", "-q", "-rfEX", *FILES[dist]],
        cwd=folder, env=env, capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    outcomes = _outcomes(report) if report.exists() else Counter()
    print(f"{dist} ({'PostgreSQL' if pg_url else 'SQLite'}): {dict(outcomes)}")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    return outcomes


def _outcomes(report: Path) -> Counter[str]:
    """passed, not applicable (failed as listed), no store (skipped as listed), failed."""
    counted: Counter[str] = Counter()
    for case in ET.parse(report).iter("testcase"):
        skipped = case.find("skipped")
        if case.find("failure") is not None or case.find("error") is not None:
            counted["failed"] += 1
        elif skipped is not None and skipped.get("type") == "pytest.xfail":
            counted["not applicable"] += 1
        elif skipped is not None:
            counted["no store"] += 1
        else:
            counted["passed"] += 1
    return counted


@pytest.mark.parametrize("dist", sorted(FILES))
def test_langgraph_store_suite(dist: str, tmp_path: Path) -> None:
    outcomes = run_suite(dist, tmp_path)
    assert outcomes["failed"] == 0
    assert outcomes["passed"] > 0


@pytest.mark.postgres
@pytest.mark.skipif(
    not os.environ.get("ZEROMEM_LANGGRAPH_ON_POSTGRES"),
    reason="LangGraph's suite on PostgreSQL takes ~8 min: set ZEROMEM_LANGGRAPH_ON_POSTGRES=1 "
    "(CI runs it on SQLite; tests/frameworks runs the Mem0 and store faces on PostgreSQL)",
)
@pytest.mark.parametrize("dist", sorted(FILES))
def test_langgraph_store_suite_on_postgres(
    dist: str, tmp_path: Path, cluster: pgcluster.Cluster
) -> None:
    """The same tests with every store a new schema of the throwaway PostgreSQL server."""
    outcomes = run_suite(dist, tmp_path, cluster.url())
    assert outcomes["failed"] == 0
    assert outcomes["passed"] > 0
