"""The play routes: the server's offer, this browser's deal, its moves and the AIs' moves.

==========================  =============================================================
``GET /api/config``         the agents offered (registry and operator), defaults, deck
                            styles, rules, replay sources
``GET /api/play``           this browser's game (``{"view": null}`` before the first deal)
``POST /api/play/new``      a new deal: ``opponents`` (two names of the offer), ``seat``
                            (0..2), ``rotate``, ``deck``, ``kontra``, ``ramsch``, ``seed``;
                            after a deal: the next one (the running list is kept; the seat
                            rotates if asked). The only route that makes a session
``POST /api/play/act``      the person's move ``{"action": "18", "expect": n}``
``POST /api/play/advance``  one AI decision (202 ``{"thinking": true}`` while it takes long)
``POST /api/play/deck``     switch the deck style ``{"deck": "french"}``
``POST /api/play/verdict``  the open-hand solver's verdict on the finished deal
``POST /api/play/hint``     what an AI player gives each of the person's legal moves, from
                            the person's own observation only (``{"agent": name}``, a name
                            of ``hint_agents`` in the config; ``"analysis"``, the server's
                            analysis agent, first and the default)
==========================  =============================================================
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from . import advice, jobs
from .api import ApiError, endpoint, json_body
from .game import PlayGame, PlayError, PlaySettings
from .names import DECKS
from .offer import AgentOffer, excerpt
from .webapp import ANALYSIS, COOKIE, Session, WebApp

__all__ = ["ROUTES", "settings_from"]


def settings_from(body: dict[str, Any], base: PlaySettings, offer: AgentOffer) -> tuple[PlaySettings, dict[str, Any]]:
    """The table a ``/api/play/new`` body asks for (``base`` where it is silent) and its
    ``seat``, ``seed`` and ``rotate``; :class:`ApiError` for anything malformed. Opponents
    are names of the server's ``offer`` only: nothing a request sends is imported or called."""
    specs: tuple[Any, ...] = base.opponents
    if "opponents" in body:
        opp = body["opponents"]
        if not isinstance(opp, list) or len(opp) != 2:
            raise ApiError(400, "'opponents' must be a list of two agent names (left, right), e.g. "
                                f"[\"rule_based\", \"pimc\"], got {excerpt(opp)}")
        try:
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


def _game(sess: Session | None) -> tuple[Session, PlayGame]:
    if sess is None or sess.game is None:
        raise ApiError(404, "no game yet: start one with POST /api/play/new")
    return sess, sess.game


async def config(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    s = web.default
    return {"agents": web.offer.info(), "default_opponents": [o.to_text() for o in s.opponents],
            "decks": list(DECKS), "deck": s.deck, "rules": {"kontra": s.rules.kontra, "ramsch": s.rules.ramsch},
            "time_limit": s.time_limit, "sources": [src.info() for src in web.sources],
            "hint_agents": web.hint_agents, "analysis_agent": web.analysis_agent}


async def play_get(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    return {"view": web.view(sess) if sess is not None else None}


async def play_new(request: Request, web: WebApp, sess: Session | None) -> Response:
    body = await json_body(request)
    new = sess is None
    if sess is None:  # the only route that makes a session (after the body is read and checked)
        web.check_room()
        sess = Session(web.default)
    async with sess.lock:
        if sess.pending is not None and not sess.pending.done():
            raise ApiError(409, "an AI is still thinking about the current deal; try again in a moment")
        settings, extra = settings_from(body, sess.settings, web.offer)
        rotate = extra.get("rotate", sess.rotate)
        if "seat" in extra:
            seat = extra["seat"]
        elif sess.game is not None and rotate:
            seat = (sess.game.seat + 1) % 3
        else:
            seat = sess.seat
        seed = extra.get("seed", secrets.randbits(62))
        old = sess.game
        deal_no = sess.deal_no + 1
        game = await asyncio.get_running_loop().run_in_executor(
            web.threads, lambda: PlayGame(settings, seat, seed, deal_no))
        if old is not None:
            old.close()
        sess.game, sess.settings, sess.seat, sess.rotate = game, settings, seat, rotate
        sess.deal_no = deal_no
        sess.pending, sess.verdict, sess.asked_verdict, sess.recorded = None, None, False, False
    resp = JSONResponse({"view": web.view(sess), "events": []})
    if new:
        try:
            sid = web.add_session(sess)
        except ApiError:
            sess.close()
            raise
        resp.set_cookie(COOKIE, sid, httponly=True, samesite="strict")
    return resp


async def play_act(request: Request, web: WebApp, sess_: Session | None) -> dict[str, Any]:
    body = await json_body(request)
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


async def play_advance(request: Request, web: WebApp, sess_: Session | None) -> Response | dict[str, Any]:
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


async def play_deck(request: Request, web: WebApp, sess_: Session | None) -> dict[str, Any]:
    body = await json_body(request)
    sess, _ = _game(sess_)
    deck = body.get("deck")
    if deck not in DECKS:
        raise ApiError(400, f"'deck' must be one of {', '.join(DECKS)}, got {excerpt(deck)}")
    sess.settings = dataclasses.replace(sess.settings, deck=deck)
    return {"view": web.view(sess)}


async def play_verdict(request: Request, web: WebApp, sess_: Session | None) -> dict[str, Any]:
    sess, game = _game(sess_)
    if not game.over:
        raise ApiError(409, "the solver's verdict comes after the deal")
    res = game.snapshot["result"]
    if not res or not res.get("verdict_available"):
        raise ApiError(409, "there is no declarer's contract to judge (passed in, Ramsch or a game stopped "
                            "by an AI's failure)")
    if not sess.asked_verdict:
        rec = game.record()
        sess.verdict = await web.run_job(("verdict", game.deal_seed, len(rec["moves"]), id(game)),
                                         jobs.verdict, rec)
        sess.asked_verdict = True
    view = web.view(sess)
    assert view is not None
    return {"verdict": view["verdict"], "view": view}


async def play_hint(request: Request, web: WebApp, sess_: Session | None) -> dict[str, Any]:
    """What an AI player gives each of the person's legal moves, computed from the person's
    own information only (:func:`.advice.hint`: the seat's observation and the moves as it
    saw them; never the open-hand solver on the true deal)."""
    body = await json_body(request)
    sess, game = _game(sess_)
    unknown = sorted(set(body) - {"agent", "expect"})
    if unknown:
        raise ApiError(400, f"unknown field(s) {excerpt(unknown)}; a hint request is {{\"agent\": name}}")
    if not web.hint_agents:
        raise ApiError(404, "no agent on this server gives values per move (action_values)")
    name = body.get("agent") or web.hint_agents[0]
    if name not in web.hint_agents:
        raise ApiError(400, f"'agent' must be one of {', '.join(web.hint_agents)}, got {excerpt(name)}")
    expect = body.get("expect")
    if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int)):
        raise ApiError(400, f"'expect' must be the number of moves seen (an int), got {excerpt(expect)}")
    if game.over or game.state.current_player() != game.seat or (sess.pending is not None and not sess.pending.done()):
        raise ApiError(409, "a hint is for your own move: it is not your turn")
    n = len(game.state.history())
    if expect is not None and expect != n:
        raise ApiError(409, f"your page is out of date: it has seen {expect} moves, the game has {n}")
    spec = web.analysis_agent if name == ANALYSIS else web.offer.resolve(name).spec.to_text()
    assert spec is not None
    out = await web.run_job(("hint", id(game), n, spec), advice.hint, spec, game.state.to_record(), game.seat,
                            secrets.randbits(63))
    who = name + (f" ({out['by']})" if out and out.get("by") not in (None, name) else "")
    res = advice.words(out, sess.settings.deck, seat=game.seat, bid=game.state.bid, by=who)
    legal = {t for t in game.snapshot["legal"]}
    if res["values"] is not None and not set(res["values"]) <= legal:  # an agent's values name only legal moves
        raise ApiError(409, f"{name} gave values for moves that are not legal now")
    res.update({"agent": name, "n": n,
                "note": f"{who} from your cards and the moves so far only" + (f" ({res['legend']})" if res.get(
                    "legend") else "")})
    return res


ROUTES = [
    Route("/api/config", endpoint(config)),
    Route("/api/play", endpoint(play_get)),
    Route("/api/play/new", endpoint(play_new), methods=["POST"]),
    Route("/api/play/act", endpoint(play_act), methods=["POST"]),
    Route("/api/play/advance", endpoint(play_advance), methods=["POST"]),
    Route("/api/play/deck", endpoint(play_deck), methods=["POST"]),
    Route("/api/play/verdict", endpoint(play_verdict), methods=["POST"]),
    Route("/api/play/hint", endpoint(play_hint), methods=["POST"]),
]
