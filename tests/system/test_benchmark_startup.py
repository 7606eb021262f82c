"""The start-up instruction count (``startup_compare --callgrind``) runs end to end on this
checkout's own ``zeromem`` script, so its code cannot rot."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from benchmarks import startup_compare


@pytest.mark.slow
def test_callgrind_mode_prints_each_command_beside_the_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    script = Path(sys.executable).with_name("zeromem")
    startup_compare.main(["--callgrind", f"here={script}"])
    lines = capsys.readouterr().out.splitlines()
    rows = {line[:18].strip(): line[18:].split() for line in lines[3:]}
    assert set(rows) == {"Typer floor app", "zeromem search", "zeromem pack"}
    floor, search = float(rows["Typer floor app"][0]), float(rows["zeromem search"][0])
    assert floor > 50 and search > floor  # millions of instructions: each process really ran
    ratio, target = rows["zeromem search"][1:]
    assert abs(float(ratio) - search / floor) < 0.002 and target == "<=1.10"
    assert rows["Typer floor app"][1] == "1.000"
