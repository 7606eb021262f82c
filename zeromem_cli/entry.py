"""The ``zeromem`` command's entry point (the console script and ``python -m zeromem_cli``).

A process runs one command and exits, and most of the objects it ever holds are made while the
CLI is imported (Typer, Click, our command table: tens of thousands, none of them garbage).
Three garbage-collector settings keep the collector from walking them again and again, without
changing what runs:

- automatic collection is off while the CLI is imported (the passes it would trigger there
  find nothing to free);
- then those objects are frozen (``gc.freeze``): the collections the command itself triggers
  look only at what the command allocates;
- before the process exits everything is frozen, so the interpreter's final collection skips
  it instead of walking all of it (the command has closed its store; the interpreter flushes
  the standard streams itself).

Together ~8% of the instructions of a cold ``zeromem search`` (~30 M of ~400 M). Library users
are unaffected: ``zeromem_cli.cli.main`` itself changes no collector setting.

The console script (``console``) then ends the process as soon as the command has returned
and its output is flushed, instead of tearing the interpreter down: taking every module and
object apart one by one costs a cold ``search`` about as much as finding and printing its
results (``python -m benchmarks.startup_compare --callgrind``). The command has closed its
store by then; what it wrote is committed. It does so only when nothing else
waits for the normal exit: no ``atexit`` handler, no other thread; otherwise (and when a flush
fails, or the exit status is not a number) the interpreter exits as usual. ``main`` itself
always raises ``SystemExit``, for callers in the same process.

``zeromem hook ...`` (an agent harness's hook, run on every prompt) skips the CLI altogether:
``integrations.hooks.fastpath`` parses its fixed command line itself.

zeromem's own processes run numpy's BLAS on one thread (unless ``OPENBLAS_NUM_THREADS`` says
otherwise): semantic recall multiplies 1,024 vectors at a time, too few for more threads, and
starting OpenBLAS's threads cost a cold process ~30 ms of CPU when numpy loads (``python -m
benchmarks.semantic --costs``). A library user's process keeps its own setting.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys


def main() -> None:
    """Console-script entry point."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.argv[1:2] == ["hook"]:
        # An agent harness runs this on every prompt: no Typer, no collector (the run is
        # short and bounded by its own time limit); see integrations/hooks/fastpath.py.
        gc.disable()
        from zeromem_cli.integrations.hooks.fastpath import main as hook

        code = hook(sys.argv[2:])
        if code is not None:
            sys.exit(code)
        gc.enable()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from zeromem_cli.cli import main as run
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
    try:
        run()
    finally:
        gc.freeze()


def console() -> None:
    """The ``zeromem`` console script and ``python -m zeromem_cli``: ``main``, then a quick
    exit (see the module docstring)."""
    try:
        main()
    except SystemExit as exc:
        _exit_at_once(exc.code)
        raise


def _exit_at_once(code: object) -> None:
    """End the process with ``code`` now, skipping the interpreter's teardown, when nothing
    depends on it; return (for the normal exit) otherwise."""
    if code is None:
        code = 0
    if not isinstance(code, int):
        return  # a message to print: the interpreter's own exit says it
    pending = getattr(atexit, "_ncallbacks", None)
    if pending is None or pending():
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return  # the normal exit reports it as before
    os._exit(code)
