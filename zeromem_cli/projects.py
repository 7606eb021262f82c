"""The project scope's name: given (``--project NAME``) or derived from a git repository
(``--project auto``).

A derived name must be the same in every clone and worktree of one repository and must never
carry a credential, so it is the normalised URL of the repository's remote (``origin``, else
the first one): scheme, user name, password or token, port, a trailing ``.git`` and slash
dropped, the host lower-cased (``git@github.com:Acme/App.git`` and
``https://token@github.com/Acme/App`` are both ``github.com/Acme/App``). A repository without a
remote is named by its common git directory (the main ``.git`` that every worktree of it
shares), as an absolute path.

Git's files are read directly (``.git``, ``gitdir:``, ``commondir``, ``config``) instead of
running ``git``: a hook runs on every prompt, and a process start would cost more than the
whole lookup.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

AUTO = "auto"
# Values of --project that mean "no project" (a project-less session of the user).
NONE_VALUES = frozenset({"none", "off"})


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    """Compiled on first use (a git config read): most commands never read one. No
    IGNORECASE: beside ``\\s`` and ``.`` it makes ``re`` build Unicode case tables, a cost
    every start would pay (``python -m benchmarks.speed --only cold``)."""
    return (
        re.compile(r'^\s*\[\s*remote\s+"(?P<name>[^"]*)"\s*\]\s*$'),  # a remote's section
        re.compile(r"^\s*\["),  # any section
        re.compile(r"^\s*[uU][rR][lL]\s*=\s*(?P<url>.*?)\s*$"),  # url = ... (any case)
        re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!//).+)$"),  # scp-like
        re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?(?P<host>[^/:]*)(?::\d*)?(?P<path>/.*)?$"),
    )


def resolve_project(value: str | None, cwd: str | Path | None = None) -> str | None:
    """The project a store works in: ``value`` itself, or for ``auto`` the repository
    around ``cwd`` (None outside one); ``none``/``off``/unset: no project."""
    if value is None or not value.strip() or value.strip().lower() in NONE_VALUES:
        return None
    if value.strip().lower() != AUTO:
        return value
    return project_of(Path.cwd() if cwd is None else Path(cwd))


def project_of(directory: Path) -> str | None:
    """The derived project name of the git repository holding ``directory``, or None."""
    common = common_git_dir(directory)
    if common is None:
        return None
    url = remote_url(common / "config")
    if url is not None:
        normalised = normalise_remote(url)
        if normalised:
            return normalised
    return str(common)


def common_git_dir(directory: Path) -> Path | None:
    """The common git directory of the repository holding ``directory`` (a worktree's
    ``gitdir:`` file followed to its main repository), or None outside any repository."""
    try:
        here = directory.expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    for folder in (here, *here.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                return _common(dot_git)
            if dot_git.is_file():
                line = dot_git.read_text("utf-8", "replace").splitlines()[0:1]
                if line and line[0].startswith("gitdir:"):
                    gitdir = Path(line[0][len("gitdir:") :].strip())
                    return _common(gitdir if gitdir.is_absolute() else folder / gitdir)
                return None
        except OSError:
            return None
    return None


def _common(gitdir: Path) -> Path:
    """``gitdir``'s common directory: what its ``commondir`` file names, else itself."""
    try:
        named = (gitdir / "commondir").read_text("utf-8", "replace").strip()
    except OSError:
        return gitdir.resolve()
    common = Path(named)
    return (common if common.is_absolute() else gitdir / common).resolve()


def remote_url(config: Path) -> str | None:
    """The url of remote ``origin`` in a git config file, else of its first remote."""
    try:
        lines = config.read_text("utf-8", "replace").splitlines()
    except OSError:
        return None
    remote, section_start, url_line = _patterns()[:3]
    urls: dict[str, str] = {}
    current: str | None = None
    for line in lines:
        section = remote.match(line)
        if section:
            current = section["name"]
            continue
        if section_start.match(line):
            current = None
            continue
        url = url_line.match(line)
        if current is not None and url and current not in urls:
            urls[current] = url["url"].strip('"')
    return urls.get("origin") or next(iter(urls.values()), None)


def normalise_remote(url: str) -> str | None:
    """``host/path`` of a remote URL without credentials, port, ``.git`` or slashes; a local
    path remote stays a path. None for an empty URL."""
    url = url.strip()
    if not url:
        return None
    scp_like, url_like = _patterns()[3:]
    found = url_like.match(url)
    if found and found["host"]:
        host, path = found["host"], found["path"] or ""
    elif found:  # file:///srv/repo.git
        host, path = "", found["path"] or ""
    else:
        scp = scp_like.match(url)
        if scp and not url.startswith(("/", ".")):
            host, path = scp["host"], scp["path"]
        else:
            host, path = "", url
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")].rstrip("/")
    name = f"{host.lower()}/{path}" if host else "/" + path if url.startswith("/") else path
    return name or None


__all__ = ["AUTO", "common_git_dir", "normalise_remote", "project_of", "resolve_project"]
