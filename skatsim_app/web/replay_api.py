"""The replay routes: the recorded games given at start-up, read by number, never by path.

=============================  ==========================================================
``GET /api/replay/sources``    the sources (``--replay PATH``) and their games' counts
``GET /api/replay/games``      a source's games (``source``, filters ``agent``,
                               ``contract``, ``won``; ``offset``, ``limit``)
``GET /api/replay/game``       one game's moves and result (``source``, ``game``, ``deck``,
                               ``view``: ``all`` or a seat, which names only what it knew)
``GET /api/replay/position``   the table after ``step`` moves as ``view`` sees it
``GET /api/replay/values``     the solver's value of every legal card at a card decision
                               (in a seat's view: only at that seat's own card)
``GET /api/replay/analysis``   every card decision's values and what was lost per seat, in
                               the unit of the contract's goal (card points, or games thrown)
``GET /api/replay/decision``   a bid, pickup, discard, declaration or Kontra/Re: the values an
                               agent gives each legal action (:mod:`.advice`), the move made
                               marked
=============================  ==========================================================
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from skatsim.state import SEAT_NAMES

from . import advice, jobs
from .api import ApiError, deck_param, endpoint, int_param, view_param
from .names import card_label, contract_label
from .offer import excerpt
from .replay import Source, move_entries, position
from .settle import explain
from .webapp import Session, WebApp

__all__ = ["ROUTES"]


def _source(request: Request, web: WebApp) -> tuple[int, Source]:
    if not web.sources:
        raise ApiError(404, "no replay source: start the server with skatsim serve --replay PATH")
    k = int_param(request, "source", 0, len(web.sources) - 1, 0)
    return k, web.sources[k]


def _game(request: Request, web: WebApp) -> tuple[int, Source, int]:
    k, src = _source(request, web)
    return k, src, int_param(request, "game", 0, len(src.games) - 1)


def _summary(g: dict[str, Any], deck: str) -> dict[str, Any]:
    e = {k: v for k, v in g.items() if k != "row"}
    e["contract_label"] = contract_label(g["contract"], deck)
    e["position"] = SEAT_NAMES[g["declarer"]] if g["declarer"] >= 0 else None
    return e


async def sources(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    return {"sources": [s.info() for s in web.sources]}


async def games(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    k, src = _source(request, web)
    deck = deck_param(request, web.default.deck)
    agent = request.query_params.get("agent") or None
    contract = request.query_params.get("contract") or None
    won = request.query_params.get("won") or None
    if won not in (None, "yes", "no"):
        raise ApiError(400, f"'won' must be yes or no, got {excerpt(won)}")
    offset = int_param(request, "offset", 0, None, 0)
    limit = int_param(request, "limit", 1, 1000, 200)
    rows = src.games
    if agent:
        rows = [g for g in rows if agent in g["players"]]
    if contract:
        rows = [g for g in rows if g["contract"] == contract or
                (len(contract) == 1 and g["contract"][:1] == contract and g["contract"] not in ("passed",))]
    if won:
        rows = [g for g in rows if g["won"] is (won == "yes")]
    return {"source": k, "count": len(rows), "offset": offset,
            "games": [_summary(g, deck) for g in rows[offset:offset + limit]]}


async def game(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    k, src, i = _game(request, web)
    deck = deck_param(request, web.default.deck)
    view = view_param(request)
    moves, mismatch, replayed = await web.moves(k, i)
    players = src.players(i)
    out_moves = move_entries(moves, players, deck, view, 0)
    final = moves.state()
    g = src.games[i]
    if final.is_terminal():
        explanation = explain(final, [f"{SEAT_NAMES[s]} ({players[s]})" for s in range(3)], deck)
    else:
        err = g.get("error") or replayed.get("error") or ""
        explanation = (f"The game was stopped ({err}) and settled by rule: " if err else
                       "The game ended early: ") + f"{contract_label(g['contract'], deck)}, list score " \
                                                   f"{g['list_score']:+d}."
    return {"source": k, "game": i, "players": players, "positions": list(SEAT_NAMES), "meta": _summary(g, deck),
            "moves": out_moves, "n_moves": len(moves.actions), "card_steps": [m["n"] for m in out_moves if m["card"]],
            "explanation": explanation, "mismatch": mismatch,
            # the seed rebuilds every hand: not in a seat's view
            "seed": None if moves.seed is None or view != "all" else str(moves.seed),
            "rules": moves.rules, "view": view}


async def replay_position(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    k, src, i = _game(request, web)
    moves, _, _ = await web.moves(k, i)
    step = int_param(request, "step", 0, len(moves.actions), 0)
    return position(moves, step, view_param(request), src.players(i), deck_param(request, web.default.deck))


async def values(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    k, src, i = _game(request, web)
    moves, _, _ = await web.moves(k, i)
    step = int_param(request, "step", 0, max(len(moves.actions) - 1, 0), 0)
    deck = deck_param(request, web.default.deck)
    view = view_param(request)
    if view != "all" and step < len(moves.actions) and moves.state(step).current_player() != view:
        # the values name the mover's cards: only in its own view or with all cards open
        return {"values": None, "labels": {}, "hidden": True}
    a = web.cached(("analysis", k, i))
    if a is not None:
        v = a["steps"].get(step)
    else:
        v = await web.run_job(("values", k, i, step), jobs.values, moves, step)
    labels = {c: card_label(c, deck) for c in v["values"]} if v else {}
    return {"values": v, "labels": labels}


async def decision(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    """A decision before the card play (a bid, pickup or hand, a discard, the declaration,
    Kontra/Re): the values an agent gives each legal action, the move made marked. The
    evaluator is the seat's own agent where the game was played by agents that give values,
    else the server's analysis agent."""
    k, src, i = _game(request, web)
    moves, _, _ = await web.moves(k, i)
    step = int_param(request, "step", 0, max(len(moves.actions) - 1, 0), 0)
    deck = deck_param(request, web.default.deck)
    view = view_param(request)
    state = moves.state(step)
    seat, phase = state.current_player(), state.phase
    title = {"bidding": "The bid", "skat": "Pick up or hand", "discard": "The discard", "declare": "The declaration",
             "kontra": "Kontra or Re"}.get(phase, "Decision")
    if phase == "play":
        return {"values": None, "title": title, "note": "a card decision: see the solver's values"}
    if view != "all" and seat != view:
        return {"values": None, "labels": {}, "hidden": True}
    players = src.players(i)
    own = web.own_evaluator(src, i, seat)
    if own is None and web.analysis_agent is None:
        return {"values": None, "title": title, "step": step,
                "note": "no agent on this server gives values for a decision (action_values); the card play is "
                        "judged by the solver"}
    g = src.games[i]
    seed = g.get("deal_seed")
    record = moves.state().to_record()
    out = None
    if own is not None:  # the seat's own agent, asked again as in the game
        out = await web.run_job(("decision", k, i, step, own), advice.decision, own, record, step,
                                int(g.get("deal_id", 0) or 0), int(seed) if seed not in (None, "") else None, True)
        by = f"{players[seat]}'s own evaluation"
    if out is None and web.analysis_agent is not None:  # none, or none here: the server's analysis agent
        out = await web.run_job(("decision", k, i, step, web.analysis_agent), advice.decision, web.analysis_agent,
                                record, step, 0, None, False)
        by = "the analysis agent" + (f" ({out['by']})" if out and out.get("by") else "")
    res = advice.words(out, deck, seat=seat, played=moves.actions[step], bid=state.bid, by=by, players=players)
    res.update({"title": title, "step": step, "by": by})
    return res


async def analysis(request: Request, web: WebApp, sess: Session | None) -> dict[str, Any]:
    k, src, i = _game(request, web)
    moves, _, _ = await web.moves(k, i)
    a = await web.run_job(("analysis", k, i), jobs.analysis, moves)
    return {"kind": a["kind"], "unit": a["unit"], "note": a["note"], "lost": a["lost"], "mistakes": a["mistakes"],
            "steps": {str(n): {"lost": v["lost"], "mover": v["mover"]} for n, v in a["steps"].items()}}


ROUTES = [
    Route("/api/replay/sources", endpoint(sources)),
    Route("/api/replay/games", endpoint(games)),
    Route("/api/replay/game", endpoint(game)),
    Route("/api/replay/position", endpoint(replay_position)),
    Route("/api/replay/values", endpoint(values)),
    Route("/api/replay/analysis", endpoint(analysis)),
    Route("/api/replay/decision", endpoint(decision)),
]
