"""``python -m benchmarks.agent_memory [--quick]``: the agent-memory benchmark's table."""

from __future__ import annotations

import sys

from benchmarks.agent_memory import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
