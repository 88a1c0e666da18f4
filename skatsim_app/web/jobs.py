"""Work the server hands to its worker processes: solver verdicts and re-played games.

The solver and the agents are numba code that keeps Python's GIL while it runs, so the
server runs these functions in a process pool (:class:`concurrent.futures.ProcessPoolExecutor`)
and its event loop stays free. Each function takes and returns plain picklable data; each
worker keeps one :class:`skatsim.solver.Solver` (its transposition table serves every
position of a game).

>>> from agents import play_game
>>> rec = play_game(["rule_based"] * 3, seed=9).to_record()
>>> sorted(verdict(rec))
['best', 'contract', 'wins', 'won']
"""

from __future__ import annotations

from typing import Any

from .replay import GameMoves, analyse, card_values

__all__ = ["verdict", "values", "analysis", "call"]


def verdict(record: dict[str, Any]) -> dict[str, Any] | None:
    """:func:`~skatsim_app.web.settle.verdict` of a finished game given as its record."""
    from skatsim.state import SkatState

    from .settle import verdict as judge

    return judge(SkatState.from_record(record))


def values(moves: GameMoves, step: int) -> dict[str, Any] | None:
    """:func:`~skatsim_app.web.replay.card_values` of one card decision."""
    return card_values(moves, step)


def analysis(moves: GameMoves) -> dict[str, Any]:
    """:func:`~skatsim_app.web.replay.analyse` of a whole game."""
    return analyse(moves)


def call(fn: Any, args: tuple[Any, ...]) -> Any:
    """``fn(*args)`` (for jobs described as a function and its arguments)."""
    return fn(*args)
