"""``--http HOST:PORT``: where the streamable HTTP transport listens, and whether that is a
loopback address (anything else needs a bearer token)."""

from __future__ import annotations

import ipaddress

from zeromem_cli.errors import InvalidInputError


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


__all__ = ["is_loopback", "parse_address"]
