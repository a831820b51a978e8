"""Request guards in front of the app: body size limit, JSON only, and safe response headers.

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

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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


class RequestGuard:
    """ASGI middleware applying the guards of the module docstring."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        if scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send_with_headers)
            return
        headers = dict(scope.get("headers", []))
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


__all__ = ["RequestGuard"]
