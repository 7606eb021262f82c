"""``--http HOST:PORT`` and ``--token-file``: where the streamable HTTP transport listens,
whether that is a loopback address (anything else needs a bearer token), and the token.
Checked before the SDK loads, so a bad option fails fast."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

from zeromem_cli.errors import InvalidInputError, ZeromemError


def parse_address(text: str) -> tuple[str, int]:
    """``127.0.0.1:8765``, ``localhost:8765``, ``[::1]:8765`` or ``0.0.0.0:8765``."""
    host, sep, port_text = text.strip().rpartition(":")
    if not sep or not host:
        raise InvalidInputError(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765, not {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise InvalidInputError("--http: write an IPv6 address in brackets, e.g. [::1]:8765")
    try:
        port = int(port_text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise InvalidInputError(f"--http: port must be from 1 to 65535, not {port_text!r}")
    return host, port


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


def read_token(path: Path) -> str:
    """The token in ``path``: its first line, at least 16 characters, in a file only its owner
    can read."""
    try:
        text = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode
    except OSError as exc:
        raise ZeromemError(f"cannot read token file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InvalidInputError(f"token file {path} is not UTF-8 text") from None
    if sys.platform != "win32" and mode & 0o077:
        raise InvalidInputError(
            f"token file {path} can be read by others (mode {mode & 0o777:o}); run chmod 600 {path}"
        )
    lines = text.strip().splitlines()
    token = lines[0].strip() if lines else ""
    if len(token) < 16 or any(c.isspace() for c in token):
        raise InvalidInputError(
            f"token file {path} must hold one token of at least 16 characters and no spaces "
            "(e.g. from: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return token


class ListenError(ZeromemError):
    """The HTTP address is taken or not ours to bind."""

    exit_code = 1


def check_port(host: str, port: int) -> None:
    """Bind ``host:port`` once (as uvicorn will: SO_REUSEADDR) and let it go, so a busy or
    forbidden address is an error before the server says it is serving."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            shown = f"[{host}]" if ":" in host else host
            raise ListenError(
                f"--http {shown}:{port}: cannot listen there: {exc.strerror}"
            ) from None


__all__ = ["ListenError", "check_port", "is_loopback", "parse_address", "read_token"]
