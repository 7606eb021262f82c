"""A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temporary folder, the
server on a Unix socket in that folder (no TCP port), stopped and removed by ``stop``.

PostgreSQL refuses to run as root: when we are root (CI, this machine) the server runs as the
unprivileged ``nobody`` user, which owns the folder. ``start`` returns None with the reason in
``Cluster.why_not`` when no server can be started (no initdb on PATH or in
/usr/lib/postgresql/*/bin, or it fails), so callers skip with that reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

SUPERUSER = "postgres"


def _bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


class Cluster:
    """One running server: ``url(dbname)`` connects as the superuser over its socket."""

    why_not = ""
    _schemas = 0

    def __init__(self, folder: Path, as_user: list[str], keep: bool = False) -> None:
        self.folder = folder
        self.keep = keep  # a cached cluster (benchmarks): stopped, never removed
        self.data = folder / "data"
        self.socket = folder / "sock"
        self._as_user = as_user

    def url(self, dbname: str = "postgres", user: str = SUPERUSER, **options: str) -> str:
        query = "&".join([f"host={self.socket}", *(f"{k}={v}" for k, v in options.items())])
        return f"postgresql://{user}@/{dbname}?{query}"

    def fresh_store(self) -> str:
        """The URL of an empty store: a new schema, made the connection's search path."""
        Cluster._schemas += 1
        schema = f"t{Cluster._schemas}"
        self.psql(f"CREATE SCHEMA {schema}")
        return self.url(options=f"-csearch_path%3D{schema}")

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self._as_user, *argv], capture_output=True, text=True, timeout=120, check=False
        )

    def psql(self, sql: str, dbname: str = "postgres", user: str = SUPERUSER) -> str:
        """Run ``sql`` through psql (for set-up that must not depend on zeromem)."""
        psql = _bin("psql") or "psql"
        done = subprocess.run(
            [psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", str(self.socket), "-U",
             user, "-d", dbname, "-c", sql],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout

    def stop(self) -> None:
        pg_ctl = _bin("pg_ctl")
        if pg_ctl and (self.data / "postmaster.pid").exists():
            mode = "fast" if self.keep else "immediate"
            self._run(pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop")
        if not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)


def start(settings: dict[str, str] | None = None, folder: Path | None = None) -> Cluster | None:
    """A new cluster, running; None (reason in ``Cluster.why_not``) when none can start.
    ``folder``: keep the cluster there and reuse it when it exists (the benchmarks' cache)."""
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        Cluster.why_not = "PostgreSQL is not installed (no initdb/pg_ctl found)"
        return None
    keep = folder is not None
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="zeromem-pg-"))
    folder.mkdir(parents=True, exist_ok=True)
    as_user: list[str] = []
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            Cluster.why_not = "running as root and runuser is missing: cannot start PostgreSQL"
            if not keep:
                shutil.rmtree(folder, ignore_errors=True)
            return None
        as_user = [runuser, "-u", "nobody", "--"]
        folder.chmod(0o755)
        shutil.chown(folder, "nobody")
    cluster = Cluster(folder, as_user, keep)
    cluster.socket.mkdir(exist_ok=True)
    if as_user:
        shutil.chown(cluster.socket, "nobody")
    if (cluster.data / "PG_VERSION").exists():
        return _serve(cluster, pg_ctl, settings)
    done = cluster._run(
        initdb, "-D", str(cluster.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
        "--locale=C.UTF-8", "--no-sync",
    )  # fmt: skip
    if done.returncode != 0:
        Cluster.why_not = f"initdb failed: {done.stderr.strip()[-300:]}"
        cluster.stop()
        return None
    return _serve(cluster, pg_ctl, settings)


def _serve(cluster: Cluster, pg_ctl: str, settings: dict[str, str] | None) -> Cluster | None:
    folder = cluster.folder
    options = {
        "listen_addresses": "''",
        "unix_socket_directories": f"'{cluster.socket}'",
        "fsync": "off",
        "max_connections": "100",
        **(settings or {}),
    }
    opts = " ".join(f"-c {k}={v}" for k, v in options.items())
    done = cluster._run(
        pg_ctl, "-D", str(cluster.data), "-l", str(folder / "log"), "-o", opts, "-w", "start"
    )
    if done.returncode != 0:
        log = (
            (folder / "log").read_text(errors="replace")[-300:] if (folder / "log").exists() else ""
        )
        Cluster.why_not = f"pg_ctl start failed: {done.stderr.strip()[-200:]} {log}"
        cluster.stop()
        return None
    for _ in range(50):
        if (cluster.socket / ".s.PGSQL.5432").exists():
            break
        time.sleep(0.1)
    return cluster
