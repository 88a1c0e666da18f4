"""What the server checks before a route sees a request: its own host, its own origin,
JSON for every change, a small body.

- **Host** (every request): the ``Host`` header must name this server, as it was bound
  (:class:`HostPolicy`): for a loopback bind ``localhost``, ``127.0.0.1``, ``[::1]`` and the
  bound address, with the bound port. A page on another site that makes its own name point
  at 127.0.0.1 (DNS rebinding) sends its own name and is refused (403).
- **Origin** (every request that has one): a browser's ``Origin`` must be this server's
  (``http(s)://`` + the request's own ``Host``); a cross-site ``fetch`` or form is refused
  (403), whatever the cookie.
- **JSON only** (every ``POST``): ``Content-Type: application/json``, else 415. A page on
  another site cannot send that without the browser's preflight, which this server never
  answers, so no cross-site form or "simple" request changes anything here.
- **Small bodies**: a ``Content-Length`` over :data:`MAX_BODY` is refused with 413 before
  anything is read; a streamed body is counted as it arrives (:func:`read_body`).

>>> p = HostPolicy("127.0.0.1", 8765)
>>> [p.allows(h) for h in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "evil.example:8765", "127.0.0.1:9")]
[True, True, True, False, False]
>>> HostPolicy("0.0.0.0", 80).allows("192.168.1.20"), is_loopback("0.0.0.0"), is_loopback("localhost")
(True, False, True)
"""

from __future__ import annotations

import ipaddress
import json
import socket
from typing import Any, Awaitable, Callable, Iterable
from urllib.parse import urlsplit

__all__ = ["Guard", "HostPolicy", "MAX_BODY", "BodyError", "read_body", "is_loopback", "WILDCARDS"]

#: The largest request body accepted, in bytes (a move or a table's settings is < 1 KB).
MAX_BODY = 16 * 1024
#: Addresses that listen on every interface.
WILDCARDS = ("0.0.0.0", "::", "")
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def _ip(text: str) -> Any:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """``host`` reaches this machine only (``localhost``, ``127.x.y.z``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    ip = _ip(host)
    return ip is not None and ip.is_loopback


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _split(host: str) -> tuple[str, int | None]:
    """``name[:port]`` of a Host header (IPv6 in brackets), the port ``None`` when absent
    or not a number."""
    if host.startswith("["):
        end = host.find("]")
        name, rest = host[:end + 1], host[end + 1:]
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port_text = host.partition(":")
    return name, int(port_text) if port_text.isdigit() and len(port_text) <= 5 else None


class HostPolicy:
    """The ``Host`` values this server answers to: bound to ``host`` and ``port`` (``None``:
    any port, for an app whose port is not known), plus ``extra`` names (``--allow-host``,
    matched with or without a port: a reverse proxy's name)."""

    def __init__(self, host: str = "127.0.0.1", port: int | None = None, extra: Iterable[str] = ()) -> None:
        self.host, self.port = host, port
        self.wildcard = host in WILDCARDS
        names = {_bracket(host).lower()}
        if is_loopback(host) or self.wildcard:
            names.update(_LOOPBACK_NAMES)
        if self.wildcard:
            names.add(socket.gethostname().lower())
        self.names = names
        self.extra = {e.strip().lower() for e in extra if e.strip()}

    def allows(self, host: str) -> bool:
        h = host.strip().lower()
        if not h:
            return False
        name, port = _split(h)
        if h in self.extra or name in self.extra:
            return True
        if self.port is not None and (port if port is not None else 80) != self.port:
            return False
        if name in self.names:
            return True
        # bound to every interface: any address literal of this machine (a DNS-rebinding
        # page always sends a name of its own, never an address)
        return self.wildcard and _ip(name) is not None

    def describe(self) -> str:
        names = sorted(self.names | self.extra)
        port = "" if self.port is None else f" (port {self.port})"
        return ", ".join(names) + (", or any address of this machine" if self.wildcard else "") + port


class BodyError(Exception):
    """A request body over :data:`MAX_BODY` (413)."""


async def read_body(request: Any, limit: int = MAX_BODY) -> bytes:
    """The body of a Starlette ``request``, refused (:class:`BodyError`) as soon as more
    than ``limit`` bytes arrived, whatever ``Content-Length`` said."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyError(f"the request body is over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


Send = Callable[[dict[str, Any]], Awaitable[None]]


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware applying the checks of the module docstring; ``policy()`` gives the
    current :class:`HostPolicy` (the port is known once the server is bound)."""

    def __init__(self, app: Any, policy: Callable[[], HostPolicy]) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        for k, v in scope.get("headers", ()):
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
        host = headers.get("host", "")
        policy = self.policy()
        if not policy.allows(host):
            await _refuse(send, 403, f"this server answers to {policy.describe()} only, not to the host "
                                     f"{host[:60]!r} (start it with --allow-host NAME to add a name)")
            return
        origin = headers.get("origin")
        if origin is not None:
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.strip().lower():
                await _refuse(send, 403, f"cross-site request refused: origin {origin[:60]!r} is not this server")
                return
        length = headers.get("content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > MAX_BODY):
            await _refuse(send, 413, f"the request body is over {MAX_BODY} bytes")
            return
        if scope["method"] == "POST":
            media = headers.get("content-type", "").split(";")[0].strip().lower()
            if media != "application/json":
                await _refuse(send, 415, "a change is sent as JSON: Content-Type: application/json, got "
                                         f"{media[:40]!r}")
                return
        await self.app(scope, receive, send)
