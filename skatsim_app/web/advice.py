"""What an AI player makes of a decision: the values it gives each legal action.

An agent may offer ``action_values(observation)``, an optional method of the agent protocol:
it returns ``None`` (no values here) or an object with ``values`` (action id -> value, the
higher the better for the seat to move), ``unit`` (what a value counts, e.g. "SF points")
and ``chosen`` (the action the agent would take, or ``None``). PIMC gives per-card values
over its sampled worlds; the bidders and the skat, discard and declaration search give
values per action. Two screens use it:

- the **hint** in play (:func:`hint`): an agent seated, in its mind, in the person's seat,
  told only what that seat saw (its own observation and the moves as that seat saw them,
  the others' discards hidden): never the open-hand solver on the true deal, which would
  reveal cards;
- the **decisions** of a replay before the card play (:func:`decision`): the bids, the
  pickup or hand, the discards and the declaration, each judged by the seat's own agent
  where the game was played by agents that give values (it is reset with the seat's stream
  and replays its earlier decisions, so it says what it said then), else by the server's
  analysis agent.

Both run in the server's worker pool (plain, picklable arguments and results).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from skatsim.actions import BID_BASE, DECLARE_BASE, HAND, HOLD, KONTRA, PASS, PICKUP, RE, action_to_string
from skatsim.bits import seat_stream
from skatsim.state import SEAT_NAMES, SkatState

from .names import card_label, contract_label

__all__ = ["gives_values", "evaluate", "hint", "decision", "skat_lookahead", "decider", "make", "words", "HIDDEN",
           "DEFAULT_ANALYSIS", "PICKUP_SKATS"]

#: What a seat observes of another seat's discard (agents.arena.play's convention).
HIDDEN = -1


def gives_values(spec: Any) -> bool:
    """Does the agent of ``spec`` (an :class:`~agents.AgentSpec` or an offer entry) offer
    ``action_values``? (Looked up on its class or factory, without making it.)"""
    from agents import agent_info

    spec = getattr(spec, "spec", spec)
    try:
        info = agent_info(spec.name)
        factory = info.factory
        if isinstance(factory, str):
            import importlib

            mod, _, attr = factory.partition(":")
            factory = getattr(importlib.import_module(mod), attr)
    except Exception:  # noqa: BLE001 - an agent that cannot be looked up gives no values
        return False
    return callable(getattr(factory, "action_values", None))


def _result(out: Any) -> dict[str, Any] | None:
    if out is None:
        return None
    values = {int(a): float(v) for a, v in dict(getattr(out, "values", {}) or {}).items()
              if v is not None and math.isfinite(float(v))}
    if not values:
        return None
    chosen = getattr(out, "chosen", None)
    return {"values": values, "unit": str(getattr(out, "unit", "") or ""),
            "chosen": None if chosen is None else int(chosen)}


def evaluate(agent: Any, obs: Any) -> dict[str, Any] | None:
    """``agent.action_values(obs)`` as plain data (``None`` when it has none)."""
    fn = getattr(agent, "action_values", None)
    return _result(fn(obs)) if callable(fn) else None


def _seen(state: SkatState, seat: int) -> list[tuple[int, int]]:
    """The moves so far as ``seat`` observed them (the others' discards hidden)."""
    return [(p, HIDDEN if ph == "discard" and p != seat else a) for p, a, ph in state.phase_history()]


#: The analysis agent a server runs unless told otherwise (``skatsim serve --analysis-agent``):
#: the neural bidder's evaluation for the bids; skat_search's expected score over sampled
#: worlds (open-hand searches) for the discards and the declaration, and through them for the
#: pickup (:func:`skat_lookahead`); PIMC's per-card values over sampled worlds for the cards
#: (the hint). The searches are small (2 worlds a candidate, 4 more for 2 finalists) so that
#: an answer takes seconds on a loaded machine.
DEFAULT_ANALYSIS = ("compose:bidding=neural_bidder,discard=skat_search(worlds=2,final_worlds=4,finalists=2),"
                    "declare=skat_search(worlds=2,final_worlds=4,finalists=2),card_play=pimc(worlds=16)")

#: Skats sampled (from the cards the seat cannot see) to value a pickup by looking ahead.
PICKUP_SKATS = 4

_AGENTS: dict[str, Any] = {}  # spec text -> agent, per worker process (reset before every use)


def make(spec_text: str) -> Any:
    """The agent of ``spec_text``, made once per process (a network is loaded once); every
    use resets it for its deal first."""
    from agents import AgentSpec

    if spec_text not in _AGENTS:
        if len(_AGENTS) >= 8:
            _AGENTS.clear()
        _AGENTS[spec_text] = AgentSpec.parse(spec_text).make()
    return _AGENTS[spec_text]


def _tell(agent: Any, seat: int, rng: int, seen: Sequence[tuple[int, int]], deal_id: int = 0) -> None:
    """Start ``agent``'s deal in ``seat`` with stream ``rng`` and tell it the moves ``seen``."""
    reset = getattr(agent, "reset", None)
    if reset is not None:
        reset(deal_id, seat, rng)
    observe = getattr(agent, "observe", None)
    if observe is not None:
        for p, a in seen:
            observe(p, a)


def decider(agent: Any, obs: Any) -> str:
    """Which agent gives the values at ``obs``: the deciding part's name for a composed
    agent (``skat_search``), else the agent's own name.

    >>> from agents import make_agent
    >>> from skatsim import SkatState
    >>> decider(make_agent("compose:bidding=random"), SkatState.new_game(seed=1).observation(1))
    'random'
    """
    parts = getattr(agent, "parts", None)
    if isinstance(parts, dict):
        from agents.players.compose import nested_spec, part_of

        part = parts.get(part_of(obs))
        if isinstance(part, str):
            return nested_spec(part).name
    return str(getattr(agent, "name", type(agent).__name__))


def skat_lookahead(agent: Any, state: SkatState, seat: int, rng: int,
                   skats: int = PICKUP_SKATS) -> dict[str, Any] | None:
    """Pick up or hand, valued by what ``agent`` gives the best choice one step later: the
    hand game its best declaration after *hand*; the pickup the mean, over ``skats`` skats
    drawn from the cards ``seat`` cannot see (:meth:`SkatState.resample_from_infostate`),
    of its best discard after picking that skat up. Only ``seat``'s information is used;
    ``None`` when the agent gives no values there."""
    import numpy as np

    gen = np.random.default_rng(rng)
    legal = state.legal_actions()
    vals: dict[int, float] = {}
    unit = ""
    found: list[float] = []
    tries = [(HAND, state)] if HAND in legal else []
    if PICKUP in legal:
        tries += [(PICKUP, state.resample_from_infostate(seat, gen)) for _ in range(skats)]
    for action, world in tries:
        after = world.child(action)  # the hand game with ``rng``: the declaration's own numbers
        _tell(agent, seat, rng if action == HAND else int(gen.integers(2 ** 62)), _seen(after, seat))
        out = evaluate(agent, after.observation(seat))
        if out is None:
            continue
        unit = out["unit"]
        best = max(out["values"].values())
        if action == HAND:
            vals[HAND] = best
        else:
            found.append(best)
    if found:
        vals[PICKUP] = float(np.mean(found))
    if not vals:
        return None
    return {"values": vals, "unit": unit, "chosen": max(sorted(vals), key=lambda a: vals[a]),
            "by": decider(agent, after.observation(seat)) + ", one step ahead" + (
                f"; the pickup over {len(found)} sampled skats" if found else "")}


def _judge(agent: Any, state: SkatState, seat: int, rng: int) -> dict[str, Any] | None:
    """The analysis agent's values at ``state``'s decision (told only what ``seat`` saw);
    the skat decision by :func:`skat_lookahead` where it gives none there. The discard is one
    decision in two moves: at the second card the agent has first been asked at the first
    (a search plans both cards there and values the second within that plan)."""
    moves = state.history()
    phases = state.phase_history()
    if state.phase == "discard" and phases and phases[-1][2] == "discard":
        first = _at(state, len(moves) - 1)
        _tell(agent, seat, rng, _seen(first, seat))
        evaluate(agent, first.observation(seat))
        observe = getattr(agent, "observe", None)
        if observe is not None:
            observe(seat, moves[-1])
    else:
        _tell(agent, seat, rng, _seen(state, seat))
    obs = state.observation(seat)
    out = evaluate(agent, obs)
    if out is not None:
        out["by"] = decider(agent, obs)
    elif state.phase == "skat":
        out = skat_lookahead(agent, state, seat, rng)
    return out


def hint(spec_text: str, record: dict[str, Any], seat: int, rng: int) -> dict[str, Any] | None:
    """What the agent ``spec_text`` gives each legal action of ``seat`` (a worker-pool job).
    ``record`` is the game so far; the agent sees only ``seat``'s observation and the moves
    as ``seat`` saw them (``reset`` with the stream ``rng``, then ``observe`` each move); at
    the skat decision, where it gives no values, :func:`skat_lookahead`."""
    return _judge(make(spec_text), SkatState.from_record(record), seat, rng)


def decision(spec_text: str, record: dict[str, Any], step: int, deal_id: int, deal_seed: int | None,
             replay_own: bool) -> dict[str, Any] | None:
    """What agent ``spec_text`` gives each legal action of the decision before move ``step``
    of the game ``record`` (a worker-pool job). With ``replay_own`` the agent is the seat's
    own: reset with the seat's stream (``seat_stream(deal_seed, seat)``) and asked again for
    each of its decisions before ``step`` (so its stream and its memory are as they were);
    otherwise an analysis agent told the moves as the seat saw them (:func:`hint`'s rules)."""
    full = SkatState.from_record(record)
    moves = full.history()
    seat = _decider(full, step)
    if not replay_own:
        state = _at(full, step)
        agent = make(spec_text)
        out = _judge(agent, state, seat, 0)
        if out is not None and state.phase == "discard" and moves[step] not in out["values"]:
            _value_played_discard(agent, full, step, seat, out)
        if out is not None and state.phase == "declare" and moves[step] not in out["values"]:
            _value_played_declaration(agent, state, seat, moves[step], out)
    else:
        from agents import AgentSpec

        agent = AgentSpec.parse(spec_text).make()  # fresh: its memory as in the game
        _tell(agent, seat, seat_stream(deal_seed, seat) if deal_seed is not None else 0, (), deal_id)
        replay = SkatState.new_game(deal=full.deal, rules=full.rules)
        observe = getattr(agent, "observe", None)
        for n in range(step):
            p, phase = replay.current_player(), replay.phase
            if p == seat:
                agent.act(replay.observation(seat))  # the same stream and memory as in the game
            replay.apply_action(moves[n])
            if observe is not None:
                observe(p, HIDDEN if phase == "discard" and p != seat else moves[n])
        obs = replay.observation(seat)
        out = evaluate(agent, obs)
        if out is not None:
            out["by"] = decider(agent, obs)
    if out is not None:
        out["seat"] = seat
    return out


def _value_played_declaration(agent: Any, state: SkatState, seat: int, action: int, out: dict[str, Any]) -> None:
    """A declaration the search did not consider (a few games, announcements only where it
    would make them): valued by a search of that declaration alone, where the deciding agent
    can (``value_declaration``), and added for the action played."""
    part = agent.part_agent("declare") if hasattr(agent, "part_agent") else agent
    f = getattr(part, "value_declaration", None)
    if f is None or out.get("unit") != "SF points":
        return
    v = f(state.observation(seat), action)
    if v is not None:
        out["values"][action] = float(v)
        out["note"] = "the declaration made was not among the contracts searched: it is valued by a search of its own"


def _value_played_discard(agent: Any, full: SkatState, step: int, seat: int, out: dict[str, Any]) -> None:
    """A discard the search did not consider (it searches a few per game): the pair put
    away valued by the agent's best declaration after it, added for the card played."""
    moves, phases = full.history(), full.phase_history()
    n = next((k for k in range(step, len(phases)) if phases[k][2] == "declare"), None)
    if n is None:
        return
    after = _judge(agent, _at(full, n), seat, 0)
    if after is not None and after["unit"] == out["unit"]:
        out["values"][moves[step]] = max(after["values"].values())
        out["note"] = "the discard made was not among the pairs searched: it is valued by the best declaration " \
                      "after it"


def _at(game: SkatState, n: int) -> SkatState:
    """``game`` before its move ``n`` (the same deal and rules, the first ``n`` moves)."""
    out = SkatState.new_game(deal=game.deal, rules=game.rules)
    for a in game.history()[:n]:
        out.apply_action(a)
    return out


def _decider(full: SkatState, step: int) -> int:
    return full.phase_history()[step][0]


def action_words(action: int, deck: str, bid: int = 0) -> dict[str, Any]:
    """An action as the page shows it: ``text`` (short), ``full`` and ``card`` (a card id's
    picture is drawn)."""
    text = action_to_string(action)
    if action < 32:
        return {"text": text, "full": card_label(action, deck), "card": True}
    if BID_BASE <= action < PASS:
        return {"text": text, "full": f"bid {text}", "card": False}
    if DECLARE_BASE <= action < KONTRA:
        label = contract_label(text, deck)
        return {"text": label, "full": label, "card": False}
    full = {PASS: "pass", HOLD: f"hold {bid}" if bid else "hold", PICKUP: "pick up the skat", HAND: "play hand",
            KONTRA: "Kontra", RE: "Re"}.get(action, text)
    return {"text": full, "full": full, "card": False}


def words(out: dict[str, Any] | None, deck: str, *, seat: int, played: int | None = None, bid: int = 0,
          by: str = "", players: Sequence[str] | None = None) -> dict[str, Any]:
    """An evaluation for the page: action tokens as keys, ``shown`` values, ``best``,
    ``chosen`` (the evaluator's) and ``played`` (the move made), a ``legend`` and a
    ``summary``; ``values: None`` with a ``note`` when there is none."""
    if out is None:
        return {"values": None, "note": f"{by or 'the agent'} gives no values for this decision"}
    vals = {action_to_string(a): v for a, v in out["values"].items()}
    top = max(vals.values())
    best = [a for a, v in vals.items() if v >= top - 1e-9]
    unit = out["unit"]
    digits = 0 if all(float(v).is_integer() for v in vals.values()) else 1
    shown = {a: f"{v + 0.0:+.{digits}f}" if unit and "prob" not in unit else f"{v:.2f}" for a, v in vals.items()}
    chosen = action_to_string(out["chosen"]) if out.get("chosen") is not None else None
    played_text = action_to_string(played) if played is not None else None
    who = SEAT_NAMES[seat] + (f" ({players[seat]})" if players else "")
    summary = ""
    if played_text is not None and played_text in vals:
        gap = top - vals[played_text]
        summary = (f"{who} chose {action_words(played, deck, bid)['full']}"  # type: ignore[arg-type]
                   + (": the best by this evaluation." if gap <= 1e-9 else
                      f": {gap:.{digits}f} {unit or 'value'} below the best."))
    if out.get("note"):
        summary += f" ({out['note']}.)"
    elif played_text is not None and played_text not in vals:
        summary = (f"{who} chose {action_words(played, deck, bid)['full']}, which {by or 'the agent'} did "  # type: ignore[arg-type]
                   "not value.")
    return {"values": vals, "shown": shown, "best": best, "chosen": chosen, "played": played_text,
            "labels": {action_to_string(a): action_words(a, deck, bid) for a in out["values"]},
            "legend": f"Values by {by}" + (f", in {unit}" if unit else "") + " (higher is better for "
                      f"{who}); ★ the best" + ("; ◆ its own choice" if chosen else "") + ".",
            "summary": summary}
