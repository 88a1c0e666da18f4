"""The end of a deal in words, for the browser: the settlement and the solver's verdict.

The figures are the rules core's (:class:`skatsim.scoring.GameResult`,
:func:`skatsim.solver.target_for`); only the words are made here, with the seats named as
the table names them (``names``: "You", "pimc (left)" in play; "forehand (pimc)" in a
replay) and the contract named as the deck names it (:func:`.names.contract_label`), never
by its ISS token.

>>> from agents import play_game
>>> s = play_game(["rule_based"] * 3, seed=9)
>>> text = explain(s, ["You", "left", "right"], "german")
>>> text.splitlines()[0]
'Right played Grün at a bid of 18.'
>>> "Result: right won" in text or "Result: right lost" in text
True
"""

from __future__ import annotations

from typing import Any, Sequence

from skatsim.cards import card_points
from skatsim.contracts import Contract
from skatsim.scoring import GameResult
from skatsim.state import SkatState

from .names import contract_label, deck_text

__all__ = ["explain", "forfeit_text", "verdict", "verdict_text"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sf(r: GameResult, names: Sequence[str]) -> str:
    return "Seeger-Fabian points: " + ", ".join(f"{names[s]} {r.seeger_fabian[s]:+d}" for s in range(3)) + "."


def explain(state: SkatState, names: Sequence[str], deck: str) -> str:
    """The settlement of the finished deal ``state`` in words (one fact per line)."""
    from skatsim.solver import describe_target, target_for

    r = state.result
    if r.passed_in:
        return "Everybody passed: the deal is passed in, nobody scores."
    if r.ramsch:
        pts = list(r.card_points or (0, 0, 0))
        top = max(pts)
        losers = [names[s] for s in range(3) if pts[s] == top]
        return deck_text(
            "Ramsch: card points " + ", ".join(f"{names[s]} {pts[s]}" for s in range(3))
            + " (the skat goes to the last trick's winner); the most points lose: " + " and ".join(losers)
            + f" score -{top}.\n" + _sf(r, names), deck)
    c = Contract.parse(r.contract or "")
    d = r.declarer
    assert d is not None  # a declared game has a declarer
    who = names[d]
    lines = [f"{_cap(who)} played {contract_label(c, deck)} at a bid of {r.bid}"
             + ("" if state.skat_picked_up or c.hand else ", hand") + "."]
    goal = target_for(c)
    if c.is_null:
        took = "took none" if r.declarer_tricks == 0 else f"took {r.declarer_tricks}"
        lines.append(f"Null: the declarer must not take a trick; {took}: "
                     f"{'reached' if r.declarer_tricks == 0 else 'missed'}. Game value {r.game_value}.")
    else:
        m = abs(r.matadors)
        w = "with" if r.matadors > 0 else "without"
        parts = [f"{w} {m}", "game 1"]
        parts += ["hand 1"] if c.hand else []
        parts += ["schneider 1"] if r.schneider or c.schneider_announced else []
        parts += ["schneider announced 1"] if c.schneider_announced else []
        parts += ["schwarz 1"] if r.schwarz or c.schwarz_announced else []
        parts += ["schwarz announced 1"] if c.schwarz_announced else []
        parts += ["ouvert 1"] if c.ouvert else []
        lines.append(f"Matadors: {w} {m} (the top trumps in sequence, in the declarer's cards and the skat). "
                     f"Multiplier {r.multiplier} = {' + '.join(parts)}; game value {r.multiplier} × "
                     f"{c.base_value} = {r.game_value}.")
        skat_pts = card_points(state.skat_mask())
        reached = r.declarer_tricks == 10 if goal == "schwarz" else r.declarer_points >= int(goal)
        lines.append(f"The declarer took {r.declarer_points} card points ({skat_pts} in the skat) and "
                     f"{r.declarer_tricks} trick{'' if r.declarer_tricks == 1 else 's'}; the goal was "
                     f"{describe_target(goal)}"
                     + (" (schwarz announced)" if goal == "schwarz" else " (schneider announced)" if goal == 90
                        else " (60 is a loss)") + f": {'reached' if reached else 'missed'}.")
    if r.overbid:
        lines.append(f"But the game value {r.game_value} is below the bid {r.bid}: overbid, the game is lost and "
                     f"charged {r.charged_value} (the bid rounded up to a multiple of {c.base_value}).")
    if r.kontra:
        lines.append(f"{'Kontra' if r.kontra == 1 else 'Kontra and Re'}: the list score is doubled "
                     f"{'once' if r.kontra == 1 else 'twice'}.")
    lost = f"-2 × {r.charged_value}" + (" × 2" * r.kontra)
    lines.append(f"Result: {who} {'won' if r.won else 'lost'}, list score {r.list_score:+d}"
                 + (f" ({r.charged_value}" + (" × 2" * r.kontra) + ")" if r.won else f" ({lost})") + ". "
                 + _sf(r, names) + " (the declarer ±50 on top of the list score; each defender +40 when the "
                 "declarer loses)")
    return deck_text("\n".join(lines), deck)


def forfeit_text(result: GameResult, errors: str, names: Sequence[str], deck: str) -> str:
    """A game stopped by an AI's failure, settled by rule (ISkO 4.1.4/4.1.5)."""
    head = ("Everybody passed." if result.passed_in else
            f"{_cap(names[result.declarer])} declared {contract_label(result.contract, deck)} at {result.bid}."
            if result.declarer is not None and result.contract else "")
    return deck_text(f"The game was stopped: {errors}. By the rules for a failing player (ISkO 4.1.4/4.1.5) it is "
                     f"settled at the simple level. {head} List score {result.list_score:+d}. "
                     + _sf(result, names), deck)


def verdict(state: SkatState) -> dict[str, Any] | None:
    """The open-hand solver on the declarer's contract (a worker-pool job: plain data):
    from the start of the card play, with every hand open and best play by all, does the
    declarer reach the goal (``wins``), and the card points best play gives him (``best``,
    not in null). ``None`` without a declarer's contract."""
    from skatsim.solver import solve, target_for

    r = state.result
    if r.passed_in or r.ramsch or r.contract is None:
        return None
    start = SkatState.new_game(deal=state.deal, rules=state.rules)
    for a in state.history():
        if start.phase == "play":
            break
        start.apply_action(a)
    c = Contract.parse(r.contract)
    wins = bool(solve(start, mode="threshold", threshold=target_for(c)).declarer_wins)
    best = None if c.is_null else solve(start, mode="exact", threshold=61).declarer_points
    return {"contract": r.contract, "wins": wins, "best": best, "won": bool(r.won)}


def verdict_text(v: dict[str, Any] | None, deck: str) -> str:
    """:func:`verdict` in words."""
    from skatsim.solver import describe_target, target_for

    if v is None:
        return "No declarer's contract to judge (passed in or Ramsch)."
    c = Contract.parse(v["contract"])
    text = (f"Open-hand solver: with all cards visible and best play by everybody, the declarer "
            f"{'wins' if v['wins'] else 'loses'} {contract_label(c, deck)} (goal: {describe_target(target_for(c))})")
    if v["best"] is not None:
        text += f"; best play gives the declarer {v['best']} card points"
    return deck_text(text + f". At the table the game was {'won' if v['won'] else 'lost'}.", deck)
