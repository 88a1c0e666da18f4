"""The web app: a Starlette application with a JSON API and the static page.

:func:`create_app` builds it; ``skatsim serve`` runs it with uvicorn. ``GET /`` is the page
(``static/index.html``; everything ships in the package); the API's routes are module-level
functions in :mod:`.play_api` (``/api/config``, ``/api/play/*``) and :mod:`.replay_api`
(``/api/replay/*``), each reading the server's state, a :class:`~.webapp.WebApp`, from
``request.app.state.web``.

Every error is JSON ``{"error": "..."}`` with a 4xx status (400 malformed, 403 not this
server's host or origin, 404 unknown game or source, 409 not now / out of turn, 413 body too
large, 415 a change not sent as JSON, 422 not a legal move; 503 when all tables are in use)
and changes nothing. Before a route sees a request, :class:`~.guard.Guard` checks its Host,
Origin, type and size (:mod:`.guard`); opponents are names of the server's
:class:`~.offer.AgentOffer`, never code. Games live on the server, one per browser, found by
a random session cookie (:mod:`.webapp`). The AIs run in their own processes and the solver
in a worker pool, so no request waits for another browser's AI (:mod:`.seats`,
:mod:`.jobs`). Replay reads only the paths given to :func:`create_app`; the browser names a
source and a game by number.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import play_api, replay_api
from .api import error
from .guard import Guard
from .offer import excerpt
from .webapp import COOKIE, WebApp

__all__ = ["create_app", "WebApp", "STATIC", "COOKIE", "ROUTES"]

STATIC = Path(__file__).parent / "static"


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


async def not_found(request: Request, exc: Exception) -> Response:
    if request.url.path.startswith("/api/"):
        return error(404, f"no such API route: {excerpt(request.method, 12)} {excerpt(request.url.path, 60)}")
    return Response("not found", status_code=404, media_type="text/plain")


async def bad_method(request: Request, exc: Exception) -> Response:
    return error(405, f"{excerpt(request.method, 12)} is not allowed on {excerpt(request.url.path, 60)}")


#: Every route of the app.
ROUTES = [Route("/", index), *play_api.ROUTES, *replay_api.ROUTES,
          Mount("/static", StaticFiles(directory=STATIC), name="static")]


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> Any:
    try:
        yield
    finally:
        app.state.web.close()


def create_app(**options: Any) -> Starlette:
    """The Starlette app (``options``: those of :class:`~.webapp.WebApp`). ``app.state.web``
    is the :class:`~.webapp.WebApp`."""
    web = WebApp(**options)
    app = Starlette(routes=ROUTES, lifespan=_lifespan, exception_handlers={404: not_found, 405: bad_method},
                    middleware=[Middleware(Guard, policy=lambda: web.hosts)])
    app.state.web = web
    return app
