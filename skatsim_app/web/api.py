"""What every route shares: its errors, its body, its query parameters.

A route is a module-level ``async def route(request, web, sess)`` made into a Starlette
endpoint by :func:`endpoint`: ``web`` is the :class:`~skatsim_app.web.webapp.WebApp` of the
app (``request.app.state.web``), ``sess`` this browser's session or ``None`` (no route but
``POST /api/play/new`` makes one). A route returns a dict (sent as JSON) or a response, or
raises :class:`ApiError` (a JSON ``{"error": ...}`` with its status, nothing changed).
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .guard import BodyError, read_body
from .names import DECKS
from .offer import clip, excerpt

__all__ = ["ApiError", "error", "endpoint", "json_body", "int_param", "deck_param", "view_param"]


class ApiError(Exception):
    """A refused request: ``status`` (4xx) and a message for people."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error(status: int, message: str) -> JSONResponse:
    """The JSON error response (a message quotes an excerpt of the input at most, and the
    cut keeps it short whatever it quotes)."""
    return JSONResponse({"error": clip(message, 400)}, status_code=status)


Route = Callable[[Request, Any, Any], Awaitable["Response | dict[str, Any]"]]


def endpoint(fn: Route) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of a route (see the module docstring)."""
    from .game import PlayError

    async def handler(request: Request) -> Response:
        web = request.app.state.web
        try:
            out = await fn(request, web, web.session(request))
        except (ApiError, PlayError) as e:
            return error(e.status, e.message)
        return out if isinstance(out, Response) else JSONResponse(out)

    handler.__name__ = fn.__name__
    handler.__doc__ = fn.__doc__
    return handler


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (``{}`` when empty); 413 over the size limit (counted as
    it arrives), 400 when it is not a JSON object."""
    try:
        raw = await read_body(request)
    except BodyError as e:
        raise ApiError(413, str(e)) from None
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):  # not JSON, or a number over Python's 4300 digits
        raise ApiError(400, "the request body must be a JSON object") from None
    except RecursionError:
        raise ApiError(400, "the request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the request body must be a JSON object, got {type(body).__name__}")
    return body


def int_param(request: Request, name: str, lo: int, hi: int | None, default: int | None = None) -> int:
    """Query parameter ``name`` as an int in ``lo..hi`` (404 for a source or game out of
    range, 400 otherwise)."""
    text = request.query_params.get(name)
    if text is None:
        if default is None:
            raise ApiError(400, f"query parameter '{name}' is required")
        return default
    try:
        v = int(text) if len(text) <= 20 else None
    except ValueError:
        v = None
    if v is None:
        raise ApiError(400, f"query parameter '{name}' must be an integer, got {excerpt(text)}")
    if v < lo or (hi is not None and v > hi):
        raise ApiError(404 if name in ("source", "game") else 400,
                       f"'{name}' must be in {lo}..{hi}, got {v}" if hi is not None else f"'{name}' must be >= {lo}")
    return v


def deck_param(request: Request, default: str) -> str:
    deck = request.query_params.get("deck", default)
    if deck not in DECKS:
        raise ApiError(400, f"'deck' must be one of {', '.join(DECKS)}, got {excerpt(deck)}")
    return deck


def view_param(request: Request) -> str | int:
    """``view``: ``all`` (every card) or a seat 0..2 (what that seat knew)."""
    text = request.query_params.get("view", "all")
    if text not in ("all", "0", "1", "2"):
        raise ApiError(400, f"'view' must be all, 0, 1 or 2, got {excerpt(text)}")
    return text if text == "all" else int(text)
