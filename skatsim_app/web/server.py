"""The web app: a Starlette application with a JSON API and the static page.

:func:`create_app` builds it; ``skatsim serve`` runs it with uvicorn. Routes:

==========================  =============================================================
``GET /``                   the page (``static/index.html``; everything ships in the package)
``GET /api/config``         agents of the registry, defaults, deck styles, rules, sources
``GET /api/play``           this browser's game (``{"view": null}`` before the first deal)
``POST /api/play/new``      a new deal: ``opponents`` (two specs), ``seat`` (0..2), ``rotate``,
                            ``deck``, ``kontra``, ``ramsch``, ``seed``; after a deal: the next
                            one (the running list is kept; the seat rotates if asked)
``POST /api/play/act``      the person's move ``{"action": "18", "expect": n}``
``POST /api/play/advance``  one AI decision (202 ``{"thinking": true}`` while it takes long)
``POST /api/play/deck``     switch the deck style ``{"deck": "french"}``
``POST /api/play/verdict``  the open-hand solver's verdict on the finished deal
``GET /api/replay/games``   a source's games (``source``, filters ``agent``, ``contract``,
                            ``won``; ``offset``, ``limit``)
``GET /api/replay/game``    one game's moves and result (``source``, ``game``, ``deck``)
``GET /api/replay/position`` the table after ``step`` moves (``view``: ``all`` or a seat)
``GET /api/replay/values``  the solver's value of every legal card at a card decision
``GET /api/replay/analysis`` every card decision's values and the points lost per seat
==========================  =============================================================

Every error is JSON ``{"error": "..."}`` with a 4xx status (400 malformed, 403 not this
server's host or origin, 404 unknown game or source, 409 not now / out of turn, 413 body too
large, 415 a change not sent as JSON, 422 not a legal move) and changes nothing. Before a
route sees a request, :class:`~skatsim_app.web.guard.Guard` checks its Host, Origin, type
and size (:mod:`skatsim_app.web.guard`); opponents are names of the server's
:class:`~skatsim_app.web.offer.AgentOffer`, never code.
Games live on the server, one per browser, found by a random session cookie
(``skatsim_session``; at most ``max_sessions``, the least recently used are dropped). The
AIs run in their own processes and the solver in a worker pool, so no request waits for
another browser's AI (:mod:`skatsim_app.web.seats`, :mod:`skatsim_app.web.jobs`).
Replay reads only the paths given to :func:`create_app`; the browser names a source and a
game by number.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import multiprocessing as mp
import os
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping, Sequence

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from skatsim.options import ISKO, SkatRules

from . import jobs
from .game import DEFAULT_OPPONENTS, PlayError, PlayGame, PlaySettings, present
from .names import DECKS, card_label, contract_label, deck_text
from .guard import BodyError, Guard, HostPolicy, read_body
from .offer import AgentOffer, clip, excerpt
from .replay import DEFAULT_LIMIT, GameMoves, Source, move_entries, open_source, position
from .seats import detach_from_server

__all__ = ["create_app", "WebApp", "STATIC", "COOKIE"]

STATIC = Path(__file__).parent / "static"
COOKIE = "skatsim_session"


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _error(status: int, message: str) -> JSONResponse:
    # a message quotes an excerpt of the input at most (the cut keeps it short whatever it quotes)
    return JSONResponse({"error": clip(message, 400)}, status_code=status)


@dataclass
class Session:
    """One browser: its game, its table settings and its running list."""

    settings: PlaySettings
    game: PlayGame | None = None
    seat: int = 0
    rotate: bool = True
    deal_no: int = 0
    scores: list[dict[str, Any]] = field(default_factory=list)
    pending: Any = None
    verdict: str | None = None
    recorded: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    used: float = field(default_factory=time.monotonic)

    def close(self) -> None:
        if self.game is not None:
            self.game.close()


class _LRU(OrderedDict):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class WebApp:
    """The server's state behind the routes (see the module docstring for the options)."""

    def __init__(self, *, replay: Sequence[str | Path] = (), rules: SkatRules = ISKO,
                 opponents: Sequence[str] = DEFAULT_OPPONENTS, agents: Mapping[str, str] | None = None,
                 deck: str = "german", time_limit: float = 30.0,
                 agent_mode: str = "process", max_sessions: int = 32, session_idle: float = 4 * 3600.0,
                 replay_limit: int = DEFAULT_LIMIT,
                 workers: int = 1, wait: float = 5.0, host: str = "127.0.0.1", port: int | None = None,
                 allow_hosts: Sequence[str] = ()) -> None:
        if deck not in DECKS:
            raise ValueError(f"unknown deck style {deck!r}; deck styles: {', '.join(DECKS)}")
        if len(opponents) != 2:
            raise ValueError(f"give two opponents (left, right), got {list(opponents)!r}")
        self.offer = AgentOffer(agents, opponents)
        self.hosts = HostPolicy(host, port, allow_hosts)
        self.default = PlaySettings((self.offer.defaults[0], self.offer.defaults[1]), rules, deck,
                                    float(time_limit), agent_mode)
        self.sources: list[Source] = [open_source(p, replay_limit) for p in replay]
        self.max_sessions = int(max_sessions)
        self.session_idle = float(session_idle)
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.workers = int(workers)
        self.wait = float(wait)
        self.threads = ThreadPoolExecutor(max_workers=16, thread_name_prefix="skatsim-ai")
        self._pool: ProcessPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._cache = _LRU(512)
        self._inflight: dict[Any, asyncio.Future] = {}

    # ------------------------------------------------------------------ plumbing
    def pool(self) -> ProcessPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                methods = mp.get_all_start_methods()
                ctx = mp.get_context("fork" if "fork" in methods else "spawn")
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                                 initializer=detach_from_server, initargs=(os.getpid(),))
            return self._pool

    async def run_job(self, key: Any, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the worker pool, cached under ``key`` (concurrent asks share one run)."""
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        if key in self._inflight:
            return await asyncio.shield(self._inflight[key])
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._inflight[key] = fut
        try:
            try:
                value = await loop.run_in_executor(self.pool(), fn, *args)
            except BrokenProcessPool:  # a worker died: start a new pool once
                with self._pool_lock:
                    self._pool = None
                value = await loop.run_in_executor(self.pool(), fn, *args)
            self._cache.put(key, value)
            fut.set_result(value)
            return value
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # retrieved: no "never retrieved" warning
            raise
        finally:
            self._inflight.pop(key, None)

    def close(self) -> None:
        for s in self.sessions.values():
            s.close()
        self.sessions.clear()
        if self._pool is not None:
            procs = list(getattr(self._pool, "_processes", {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:  # a job still running (a long solve) is not waited for
                p.terminate()
        self.threads.shutdown(wait=False, cancel_futures=True)

    def expire(self) -> None:
        """Drop the sessions idle for longer than ``session_idle`` seconds (their AIs stop)."""
        now = time.monotonic()
        while self.sessions:
            sid, s = next(iter(self.sessions.items()))  # the least recently used first
            if now - s.used <= self.session_idle:
                break
            del self.sessions[sid]
            s.close()

    def session(self, request: Request) -> Session | None:
        """This browser's session (by its cookie), or ``None``: a request never makes one,
        only :meth:`add_session` does (``POST /api/play/new``)."""
        self.expire()
        sid = request.cookies.get(COOKIE)
        sess = self.sessions.get(sid) if sid else None
        if sess is not None:
            sess.used = time.monotonic()
            self.sessions.move_to_end(sid)  # type: ignore[arg-type]
        return sess

    def check_room(self) -> None:
        """A new session fits, or 503: a table in use is never dropped to make room."""
        self.expire()
        if len(self.sessions) >= self.max_sessions:
            raise ApiError(503, f"this server already holds {self.max_sessions} tables, its limit; a table idle for "
                                f"{self.session_idle / 60:g} minutes is closed: try again later")

    def add_session(self, sess: Session) -> str:
        self.check_room()
        sid = secrets.token_urlsafe(24)
        sess.used = time.monotonic()
        self.sessions[sid] = sess
        return sid

    # ------------------------------------------------------------------ play
    def view(self, sess: Session, deck: str | None = None) -> dict[str, Any] | None:
        if sess.game is None:
            return None
        deck = deck or sess.settings.deck
        v = present(sess.game.snapshot, deck)
        v["thinking"] = sess.pending is not None and not sess.pending.done()
        v["list"] = [dict(e, contract_label=contract_label(e["contract"], deck)
                          if e["contract"] not in ("passed", "R", None) else
                          ("Ramsch" if e["contract"] == "R" else "passed in")) for e in sess.scores]
        v["totals"] = [sum(e["sf"][k] for e in sess.scores) for k in range(3)]
        v["verdict"] = deck_text(sess.verdict, deck) if sess.verdict else None
        v["settings"] = {"opponents": [o.to_text() for o in sess.settings.opponents], "deck": deck,
                         "rotate": sess.rotate, "kontra": sess.settings.rules.kontra,
                         "ramsch": sess.settings.rules.ramsch, "time_limit": sess.settings.time_limit}
        return v

    def record_if_over(self, sess: Session) -> None:
        g = sess.game
        if g is None or not g.over or sess.recorded:
            return
        sess.recorded = True
        r = g.table.result
        me = g.seat
        order = [me, (me + 1) % 3, (me + 2) % 3]  # you, left, right
        d = r.declarer
        contract = "passed" if r.passed_in else "R" if r.ramsch else r.contract
        sess.scores.append({"deal_no": g.deal_no, "seed": str(g.deal_seed), "seat": me,
                            "declarer": None if d is None else order.index(d), "contract": contract,
                            "won": bool(r.won) if d is not None else None, "list_score": int(r.list_score),
                            "bid": int(r.bid), "sf": [int(r.seeger_fabian[s]) for s in order],
                            "forfeit": g.table.forfeit is not None})


def _settings_from(body: dict[str, Any], base: PlaySettings,
                   offer: AgentOffer) -> tuple[PlaySettings, dict[str, Any]]:
    specs: tuple[Any, ...] = base.opponents
    if "opponents" in body:
        opp = body["opponents"]
        if not isinstance(opp, list) or len(opp) != 2:
            raise ApiError(400, "'opponents' must be a list of two agent names (left, right), e.g. "
                                f"[\"rule_based\", \"pimc\"], got {excerpt(opp)}")
        try:  # names from the server's offer only: nothing a request sends is imported or called
            specs = tuple(offer.resolve(o) for o in opp)
        except ValueError as e:
            raise ApiError(400, f"bad opponent: {e}") from None
    deck = body.get("deck", base.deck)
    if deck not in DECKS:
        raise ApiError(400, f"'deck' must be one of {', '.join(DECKS)}, got {excerpt(deck)}")
    flags = {}
    for k in ("kontra", "ramsch"):
        v = body.get(k, getattr(base.rules, k))
        if not isinstance(v, bool):
            raise ApiError(400, f"'{k}' must be true or false, got {excerpt(v)}")
        flags[k] = v
    rules = dataclasses.replace(base.rules, **flags)
    extra = {}
    for k in ("seat", "seed"):
        if k in body and body[k] is not None:
            v = body[k]
            if k == "seed" and isinstance(v, str) and len(v) <= 24 and v.lstrip("-").isdigit():
                v = int(v)
            if isinstance(v, bool) or not isinstance(v, int) or (k == "seat" and v not in (0, 1, 2)):
                raise ApiError(400, f"'{k}' must be " + ("0, 1 or 2" if k == "seat" else "an int")
                               + f", got {excerpt(v)}")
            extra[k] = v
    if "rotate" in body:
        if not isinstance(body["rotate"], bool):
            raise ApiError(400, f"'rotate' must be true or false, got {excerpt(body['rotate'])}")
        extra["rotate"] = body["rotate"]
    return PlaySettings(specs, rules, deck, base.time_limit, base.mode), extra  # type: ignore[arg-type]


async def _body(request: Request) -> dict[str, Any]:
    try:
        raw = await read_body(request)
    except BodyError as e:
        raise ApiError(413, str(e)) from None
    if not raw:
        return {}
    import json

    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):  # not JSON, or a number over Python's 4300 digits
        raise ApiError(400, "the request body must be a JSON object") from None
    except RecursionError:
        raise ApiError(400, "the request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the request body must be a JSON object, got {type(body).__name__}")
    return body


def _int_param(request: Request, name: str, lo: int, hi: int | None, default: int | None = None) -> int:
    text = request.query_params.get(name)
    if text is None:
        if default is None:
            raise ApiError(400, f"query parameter '{name}' is required")
        return default
    try:
        v = int(text)
    except ValueError:
        raise ApiError(400, f"query parameter '{name}' must be an integer, got {excerpt(text)}") from None
    if v < lo or (hi is not None and v > hi):
        raise ApiError(404 if name in ("source", "game") else 400,
                       f"'{name}' must be in {lo}..{hi}, got {v}" if hi is not None else f"'{name}' must be >= {lo}")
    return v


def create_app(**options: Any) -> Starlette:
    """The Starlette app (``options``: those of :class:`WebApp`). ``app.state.web`` is the
    :class:`WebApp`."""
    web = WebApp(**options)

    def endpoint(fn: Callable[[Request, Any], Awaitable[Response | dict[str, Any]]]) -> Callable[..., Any]:
        async def handler(request: Request) -> Response:
            try:
                out = await fn(request, web.session(request))
            except (ApiError, PlayError) as e:
                return _error(e.status, e.message)
            return out if isinstance(out, Response) else JSONResponse(out)

        return handler

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def config(request: Request, sess: Session | None) -> dict[str, Any]:
        s = web.default
        return {"agents": web.offer.info(), "default_opponents": [o.to_text() for o in s.opponents],
                "decks": list(DECKS),
                "deck": s.deck, "rules": {"kontra": s.rules.kontra, "ramsch": s.rules.ramsch},
                "time_limit": s.time_limit, "sources": [src.info() for src in web.sources]}

    async def play_get(request: Request, sess: Session | None) -> dict[str, Any]:
        return {"view": web.view(sess) if sess is not None else None}

    async def play_new(request: Request, sess: Session | None) -> Response:
        body = await _body(request)
        new = sess is None
        if sess is None:  # the only route that makes a session (after the body is read)
            web.check_room()
            sess = Session(web.default)
        async with sess.lock:
            if sess.pending is not None and not sess.pending.done():
                raise ApiError(409, "an AI is still thinking about the current deal; try again in a moment")
            settings, extra = _settings_from(body, sess.settings, web.offer)
            rotate = extra.get("rotate", sess.rotate)
            if "seat" in extra:
                seat = extra["seat"]
            elif sess.game is not None and rotate:
                seat = (sess.game.seat + 1) % 3
            else:
                seat = sess.seat
            seed = extra.get("seed", secrets.randbits(62))
            old = sess.game
            loop = asyncio.get_running_loop()
            game = await loop.run_in_executor(web.threads, lambda: PlayGame(settings, seat, seed, sess.deal_no + 1))
            if old is not None:
                old.close()
            sess.game, sess.settings, sess.seat, sess.rotate = game, settings, seat, rotate
            sess.deal_no += 1
            sess.pending, sess.verdict, sess.recorded = None, None, False
        resp = JSONResponse({"view": web.view(sess), "events": []})
        if new:
            try:
                sid = web.add_session(sess)
            except ApiError:
                sess.close()
                raise
            resp.set_cookie(COOKIE, sid, httponly=True, samesite="strict")
        return resp

    def _game(sess: Session | None) -> tuple[Session, PlayGame]:
        if sess is None or sess.game is None:
            raise ApiError(404, "no game yet: start one with POST /api/play/new")
        return sess, sess.game

    async def play_act(request: Request, sess_: Session | None) -> dict[str, Any]:
        body = await _body(request)
        sess, game = _game(sess_)
        if sess.pending is not None and not sess.pending.done():
            raise ApiError(409, "not your turn: an AI is thinking")
        if "action" not in body:
            raise ApiError(400, "the body needs 'action', e.g. {\"action\": \"18\"} or {\"action\": \"S10\"}")
        unknown = sorted(set(body) - {"action", "expect"})
        if unknown:
            raise ApiError(400, f"unknown field(s) {excerpt(unknown)}; a move is {{\"action\": ..., \"expect\": n}}")
        events = game.human_act(body["action"], body.get("expect"))
        web.record_if_over(sess)
        return {"events": len(events), "view": web.view(sess)}

    async def play_advance(request: Request, sess_: Session | None) -> Response | dict[str, Any]:
        sess, game = _game(sess_)
        if sess.pending is None:
            if not game.ai_to_move:
                raise ApiError(409, "the deal is over" if game.over else "it is your turn")
            sess.pending = asyncio.get_running_loop().run_in_executor(web.threads, game.ai_step)
        fut = sess.pending
        try:
            events = await asyncio.wait_for(asyncio.shield(fut), timeout=web.wait)
        except asyncio.TimeoutError:
            return JSONResponse({"thinking": True, "view": web.view(sess)}, status_code=202)
        except PlayError as e:
            if sess.pending is fut:
                sess.pending = None
            raise ApiError(e.status, e.message) from None
        if sess.pending is fut:
            sess.pending = None
        web.record_if_over(sess)
        return {"events": len(events), "view": web.view(sess)}

    async def play_deck(request: Request, sess_: Session | None) -> dict[str, Any]:
        body = await _body(request)
        sess, _ = _game(sess_)
        deck = body.get("deck")
        if deck not in DECKS:
            raise ApiError(400, f"'deck' must be one of {', '.join(DECKS)}, got {excerpt(deck)}")
        s = sess.settings
        sess.settings = PlaySettings(s.opponents, s.rules, deck, s.time_limit, s.mode)
        return {"view": web.view(sess)}

    async def play_verdict(request: Request, sess_: Session | None) -> dict[str, Any]:
        sess, game = _game(sess_)
        if not game.over:
            raise ApiError(409, "the solver's verdict comes after the deal")
        res = game.snapshot["result"]
        if not res or not res.get("verdict_available"):
            raise ApiError(409, "there is no declarer's contract to judge (passed in, Ramsch or a game stopped "
                                "by an AI's failure)")
        if sess.verdict is None:
            rec = game.record()
            sess.verdict = await web.run_job(("verdict", game.deal_seed, len(rec["moves"]), id(game)),
                                             jobs.verdict, rec)
        return {"verdict": deck_text(sess.verdict, sess.settings.deck), "view": web.view(sess)}

    # ------------------------------------------------------------------ replay
    def _source(request: Request) -> tuple[int, Source]:
        if not web.sources:
            raise ApiError(404, "no replay source: start the server with skatsim serve --replay PATH")
        k = _int_param(request, "source", 0, len(web.sources) - 1, 0)
        return k, web.sources[k]

    def _game_index(request: Request, src: Source) -> int:
        return _int_param(request, "game", 0, len(src.games) - 1)

    def _deck(request: Request) -> str:
        deck = request.query_params.get("deck", web.default.deck)
        if deck not in DECKS:
            raise ApiError(400, f"'deck' must be one of {', '.join(DECKS)}, got {excerpt(deck)}")
        return deck

    def _view(request: Request) -> str | int:
        text = request.query_params.get("view", "all")
        if text not in ("all", "0", "1", "2"):
            raise ApiError(400, f"'view' must be all, 0, 1 or 2, got {excerpt(text)}")
        return text if text == "all" else int(text)

    async def replay_sources(request: Request, sess: Session | None) -> dict[str, Any]:
        return {"sources": [s.info() for s in web.sources]}

    async def replay_games(request: Request, sess: Session | None) -> dict[str, Any]:
        k, src = _source(request)
        deck = _deck(request)
        agent = request.query_params.get("agent") or None
        contract = request.query_params.get("contract") or None
        won = request.query_params.get("won") or None
        if won not in (None, "yes", "no"):
            raise ApiError(400, f"'won' must be yes or no, got {excerpt(won)}")
        offset = _int_param(request, "offset", 0, None, 0)
        limit = _int_param(request, "limit", 1, 1000, 200)
        rows = src.games
        if agent:
            rows = [g for g in rows if agent in g["players"]]
        if contract:
            rows = [g for g in rows if g["contract"] == contract or
                    (len(contract) == 1 and g["contract"][:1] == contract and g["contract"] not in ("passed",))]
        if won:
            rows = [g for g in rows if g["won"] is (won == "yes")]
        page = rows[offset:offset + limit]
        out = []
        for g in page:
            e = {k2: v for k2, v in g.items() if k2 != "row"}
            c = g["contract"]
            e["contract_label"] = ("passed in" if c == "passed" else "Ramsch" if c == "R" else contract_label(c, deck))
            out.append(e)
        return {"source": k, "count": len(rows), "offset": offset, "games": out}

    async def _moves(k: int, src: Source, i: int) -> tuple[GameMoves, list[str], dict[str, Any]]:
        if i in src.moves:
            return src.moves[i], [], {}
        assert src.job is not None
        fn, args = src.job(i)
        moves, replayed = await web.run_job(("moves", k, i), jobs.call, fn, args)
        return moves, src.check(i, replayed), replayed

    async def replay_game(request: Request, sess: Session | None) -> dict[str, Any]:
        k, src = _source(request)
        i = _game_index(request, src)
        deck = _deck(request)
        view = _view(request)
        moves, mismatch, replayed = await _moves(k, src, i)
        players = src.players(i)
        out_moves = move_entries(moves, players, deck, view, 0)
        final = moves.state()
        if final.is_terminal():
            from agents.players.human import explain_result

            explanation = explain_result(final)
        else:
            g = src.games[i]
            err = g.get("error") or replayed.get("error") or ""
            explanation = (f"The game was stopped ({err}) and settled by rule: " if err else
                           "The game ended early: ") + f"{g['contract']}, list score {g['list_score']:+d}."
        meta = {k2: v for k2, v in src.games[i].items() if k2 != "row"}
        c = meta["contract"]
        meta["contract_label"] = "passed in" if c == "passed" else "Ramsch" if c == "R" else contract_label(c, deck)
        return {"source": k, "game": i, "players": players, "meta": meta, "moves": out_moves,
                "n_moves": len(moves.actions), "card_steps": [m["n"] for m in out_moves if m["card"]],
                "explanation": deck_text(explanation, deck), "mismatch": mismatch,
                # the seed rebuilds every hand: not in a seat's view
                "seed": None if moves.seed is None or view != "all" else str(moves.seed),
                "rules": moves.rules, "view": view}

    async def replay_position(request: Request, sess: Session | None) -> dict[str, Any]:
        k, src = _source(request)
        i = _game_index(request, src)
        moves, _, _ = await _moves(k, src, i)
        step = _int_param(request, "step", 0, len(moves.actions), 0)
        return position(moves, step, _view(request), src.players(i), _deck(request))

    async def replay_values(request: Request, sess: Session | None) -> dict[str, Any]:
        k, src = _source(request)
        i = _game_index(request, src)
        moves, _, _ = await _moves(k, src, i)
        step = _int_param(request, "step", 0, max(len(moves.actions) - 1, 0), 0)
        deck = _deck(request)
        view = _view(request)
        if view != "all" and step < len(moves.actions) and moves.state(step).current_player() != view:
            # the values name the mover's cards: only in its own view or with all cards open
            return {"values": None, "labels": {}, "hidden": True}
        a = web._cache.get(("analysis", k, i))
        if a is not None:
            v = a["steps"].get(step)
        else:
            v = await web.run_job(("values", k, i, step), jobs.values, moves, step)
        labels = {c: card_label(c, deck) for c in v["values"]} if v else {}
        return {"values": v, "labels": labels}

    async def replay_analysis(request: Request, sess: Session | None) -> dict[str, Any]:
        k, src = _source(request)
        i = _game_index(request, src)
        moves, _, _ = await _moves(k, src, i)
        a = await web.run_job(("analysis", k, i), jobs.analysis, moves)
        return {"kind": a["kind"], "lost": a["lost"], "mistakes": a["mistakes"],
                "steps": {str(n): {"lost": v["lost"], "mover": v["mover"]} for n, v in a["steps"].items()}}

    routes = [
        Route("/", index),
        Route("/api/config", endpoint(config)),
        Route("/api/play", endpoint(play_get)),
        Route("/api/play/new", endpoint(play_new), methods=["POST"]),
        Route("/api/play/act", endpoint(play_act), methods=["POST"]),
        Route("/api/play/advance", endpoint(play_advance), methods=["POST"]),
        Route("/api/play/deck", endpoint(play_deck), methods=["POST"]),
        Route("/api/play/verdict", endpoint(play_verdict), methods=["POST"]),
        Route("/api/replay/sources", endpoint(replay_sources)),
        Route("/api/replay/games", endpoint(replay_games)),
        Route("/api/replay/game", endpoint(replay_game)),
        Route("/api/replay/position", endpoint(replay_position)),
        Route("/api/replay/values", endpoint(replay_values)),
        Route("/api/replay/analysis", endpoint(replay_analysis)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        try:
            yield
        finally:
            web.close()

    async def not_found(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return _error(404, f"no such API route: {excerpt(request.method, 12)} {excerpt(request.url.path, 60)}")
        return Response("not found", status_code=404, media_type="text/plain")

    async def bad_method(request: Request, exc: Exception) -> Response:
        return _error(405, f"{excerpt(request.method, 12)} is not allowed on {excerpt(request.url.path, 60)}")

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: not_found, 405: bad_method},
                    middleware=[Middleware(Guard, policy=lambda: web.hosts)])
    app.state.web = web
    return app

