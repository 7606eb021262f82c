"""The bearer token of the streamable HTTP transport, checked by the SDK's own middleware.

A server bound to anything but a loopback address must be given a token file (the CLI
refuses otherwise); every HTTP request must then carry ``Authorization: Bearer <token>`` or
gets 401 with a ``WWW-Authenticate`` header. The token is compared in constant time and is
never printed.
"""

from __future__ import annotations

import hmac
import sys
from pathlib import Path
from typing import Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

from zeromem_cli.errors import InvalidInputError, ZeromemError


class StaticToken:
    """A ``TokenVerifier`` that accepts exactly one token."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode("utf-8"), self._token):
            return AccessToken(token="", client_id="zeromem", scopes=[])
        return None


def bearer_auth(token: str, issuer: str) -> dict[str, Any]:
    """The ``MCPServer`` arguments that make every HTTP request need ``token``."""
    return {
        "token_verifier": StaticToken(token),
        "auth": AuthSettings(issuer_url=issuer, resource_server_url=None),  # type: ignore[arg-type]
    }


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


__all__ = ["StaticToken", "bearer_auth", "read_token"]
