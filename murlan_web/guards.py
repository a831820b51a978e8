"""Request guards in front of the app: host names, client ids, body size limit, JSON only, and
safe response headers.

- A request whose ``Host`` is not one the server answers to gets 400 (``HostCheck``): a web
  page cannot reach the server through a DNS name that the page's site points here (DNS
  rebinding). An IP address as the host is safe to allow, since such a page's host is a name;
  ``--allowed-host`` adds the names people use on a LAN.
- Every browser gets a client id in a cookie (``murlan_client``), the owner of the games,
  replays and tournaments it makes (``sessions``); the app reads it as ``scope["client_id"]``.
- A request body larger than ``max_bytes`` gets 413 before the app sees it (the declared
  Content-Length is checked first, then the bytes as they arrive, so a lying client is
  caught too).
- A request with a body must say ``Content-Type: application/json`` (else 415). Browsers
  send cross-site form posts without a preflight only as form or text types, so this also
  keeps other web pages from starting games or tournaments through the person's browser
  (requests without a body act on a session, whose id such a page cannot know).
- Every response forbids framing and sniffing, and the pages may load only their own
  scripts, styles and images.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Sequence
from http.cookies import SimpleCookie

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CLIENT_COOKIE = "murlan_client"
_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")

BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
    ),
]


def host_name(header: str) -> str:
    """The host of a ``Host`` header without its port, lower case ("[::1]:8000" -> "::1")."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class HostCheck:
    """Which ``Host`` headers the server answers: the names in ``names`` ("*": any host), and
    with ``any_ip`` every IP address."""

    def __init__(self, names: Sequence[str], any_ip: bool = False) -> None:
        self.names = {host_name(n) for n in names}
        self.any_ip = any_ip

    def allows(self, header: str) -> bool:
        if "*" in self.names:
            return True
        host = host_name(header)
        return host in self.names or (self.any_ip and is_ip(host))


def client_id(headers: dict[bytes, bytes]) -> str | None:
    """The client id of a request's cookie, None if it has none (or a malformed one)."""
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
    except Exception:  # a cookie header the parser cannot read counts as none
        return None
    found = cookie.get(CLIENT_COOKIE)
    return found.value if found and _CLIENT_ID.fullmatch(found.value) else None


class RequestGuard:
    """ASGI middleware applying the guards of the module docstring (``hosts`` None: no host
    check)."""

    def __init__(self, app: ASGIApp, max_bytes: int, hosts: HostCheck | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        client = client_id(headers)
        extra = list(SECURITY_HEADERS)
        if client is None:
            client = secrets.token_urlsafe(18)
            cookie = f"{CLIENT_COOKIE}={client}; Path=/; HttpOnly; SameSite=Strict"
            extra.append((b"set-cookie", f"{cookie}; Max-Age=31536000".encode()))
        scope["client_id"] = client

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        host = headers.get(b"host", b"").decode("latin-1")
        if self.hosts is not None and not self.hosts.allows(host):
            message = (
                f"this server does not answer to the host name {host[:80]!r}; "
                "start it with --allowed-host NAME to allow a name"
            )
            await _refuse(400, message, scope, receive, send_with_headers)
            return

        if scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send_with_headers)
            return
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _refuse(413, self._too_large(), scope, receive, send_with_headers)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await _refuse(413, self._too_large(), scope, receive, send_with_headers)
                return
        kind = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if body and kind != b"application/json":
            message = "send the request body as JSON (Content-Type: application/json)"
            await _refuse(415, message, scope, receive, send_with_headers)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_headers)

    def _too_large(self) -> str:
        return f"request body larger than the server's limit of {self.max_bytes} bytes"


async def _refuse(status: int, message: str, scope: Scope, receive: Receive, send: Send) -> None:
    await JSONResponse({"error": message}, status_code=status)(scope, receive, send)


__all__ = ["CLIENT_COOKIE", "HostCheck", "RequestGuard", "client_id", "host_name"]
