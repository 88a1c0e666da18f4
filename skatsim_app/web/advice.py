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

__all__ = ["gives_values", "evaluate", "hint", "decision", "words", "HIDDEN"]

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


def hint(spec_text: str, record: dict[str, Any], seat: int, rng: int) -> dict[str, Any] | None:
    """What the agent ``spec_text`` gives each legal action of ``seat`` (a worker-pool job).
    ``record`` is the game so far; the agent sees only ``seat``'s observation and the moves
    as ``seat`` saw them (``reset`` with the stream ``rng``, then ``observe`` each move)."""
    from agents import AgentSpec

    state = SkatState.from_record(record)
    agent = AgentSpec.parse(spec_text).make()
    reset = getattr(agent, "reset", None)
    if reset is not None:
        reset(0, seat, rng)
    observe = getattr(agent, "observe", None)
    if observe is not None:
        for p, a in _seen(state, seat):
            observe(p, a)
    return evaluate(agent, state.observation(seat))


def decision(spec_text: str, record: dict[str, Any], step: int, deal_id: int, deal_seed: int | None,
             replay_own: bool) -> dict[str, Any] | None:
    """What agent ``spec_text`` gives each legal action of the decision before move ``step``
    of the game ``record`` (a worker-pool job). With ``replay_own`` the agent is the seat's
    own: reset with the seat's stream (``seat_stream(deal_seed, seat)``) and asked again for
    each of its decisions before ``step`` (so its stream and its memory are as they were);
    otherwise an analysis agent told the moves as the seat saw them."""
    from agents import AgentSpec

    full = SkatState.from_record(record)
    moves = full.history()
    state = SkatState.new_game(deal=full.deal, rules=full.rules)
    seat = None
    agent = AgentSpec.parse(spec_text).make()
    for n in range(step + 1):
        p = state.current_player()
        if n == 0:
            seat = _decider(full, step)
            reset = getattr(agent, "reset", None)
            if reset is not None:
                reset(deal_id, seat, seat_stream(deal_seed, seat) if replay_own and deal_seed is not None else 0)
        if n == step:
            break
        phase = state.phase
        if replay_own and p == seat:
            agent.act(state.observation(seat))  # the same stream and memory as in the game
        state.apply_action(moves[n])
        observe = getattr(agent, "observe", None)
        if observe is not None:
            observe(p, HIDDEN if phase == "discard" and p != seat else moves[n])
    assert seat is not None
    out = evaluate(agent, state.observation(seat))
    if out is not None:
        out["seat"] = seat
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
    return {"values": vals, "shown": shown, "best": best, "chosen": chosen, "played": played_text,
            "labels": {action_to_string(a): action_words(a, deck, bid) for a in out["values"]},
            "legend": f"Values by {by}" + (f", in {unit}" if unit else "") + " (higher is better for "
                      f"{who}); ★ the best" + ("; ◆ its own choice" if chosen else "") + ".",
            "summary": summary}
