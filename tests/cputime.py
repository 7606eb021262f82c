"""CPU time per test, for a loaded machine where ``--durations`` (wall time) mostly measures
the wait for a core: ``python -m pytest -p tests.cputime --cpu-durations=30`` lists the 30
tests that cost most CPU (user + system of the test process and of every process it started
and waited for) and the total, with or without ``-n``. Opt-in: not loaded by the suite."""

from __future__ import annotations

import resource
from collections.abc import Generator

import pytest

_START = pytest.StashKey[float]()


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-durations", type=int, default=0, metavar="N", help="list the N costliest tests"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    item.stash[_START] = _cpu()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "teardown" and _START in item.stash:
        report.user_properties.append(("cpu", _cpu() - item.stash[_START]))
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    count = terminalreporter.config.getoption("cpu_durations")
    if not count:
        return
    costs = [
        (float(value), report.nodeid)
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "teardown"
        for name, value in getattr(report, "user_properties", ())
        if name == "cpu"
    ]
    costs.sort(reverse=True)
    terminalreporter.write_sep("=", f"costliest {count} tests in CPU seconds")
    for seconds, nodeid in costs[:count]:
        terminalreporter.write_line(f"{seconds:8.2f}  {nodeid}")
    total = sum(seconds for seconds, _ in costs)
    terminalreporter.write_line(f"{total:8.1f}  in all, {len(costs)} tests")
