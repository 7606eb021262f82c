"""The bearer token of the streamable HTTP transport, checked by the SDK's own middleware.

A server bound to anything but a loopback address must be given a token file (``listen``
reads it; the CLI refuses such a bind without one); every HTTP request must then carry
``Authorization: Bearer <token>`` or gets 401 with a ``WWW-Authenticate`` header. The token
is compared in constant time and is never printed.
"""

from __future__ import annotations

import hmac
from typing import Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings


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


__all__ = ["StaticToken", "bearer_auth"]
