"""The game loop: agents at a table play one deal through the state API.

:func:`play_game` deals, calls each agent's ``reset(deal_id, seat, rng)`` with the seat's
stream ``skatsim.bits.seat_stream(deal_seed, seat)``, then loops: the observation of the
seat to move -> ``agent.act`` -> validation -> ``apply_action`` -> every agent's
``observe(seat, action)`` (the declarer's discards shown to the other seats as ``-1``).
Agents only ever see ``SkatState.observation(seat)``. :class:`Table` is the same loop one
decision at a time (the shared agent test and the tournament runner use it); :func:`play`
also returns the decision time per seat.

Misbehaving agents
------------------
By default an agent that raises or returns an illegal action stops the game with
:class:`AgentError` / :class:`IllegalActionError`. With ``on_error="forfeit"`` (what
tournaments use) the error is recorded (:attr:`PlayedGame.errors`) and the game goes on by
the failure rule of the seating contract (:mod:`agents.arena.seat`): a pass in the bidding
and at Kontra/Re, anywhere else the end of the game, settled by the forfeit rule
(:func:`forfeit_result`, as ISkO 4.1.4/4.1.5 rule a violation: the guilty side loses at the
simple level; the rule in full at :func:`skatsim.kernels.game.settle_forfeit`).
``time_limit=`` seconds per decision makes a decision that takes longer an error of the
same kind (:class:`TimeLimitError`; on POSIX the agent is interrupted when it runs in the
main thread, otherwise its late answer is discarded). The limit counts the agent's own CPU
time (:func:`agent_clock`: neither the machine's load nor the table's work, garbage
collection included, counts; resolution about 1 µs), and so do the decision times the table
reports.

>>> from agents import RandomAgent
>>> g = play([RandomAgent(), RandomAgent(), RandomAgent()], seed=5)
>>> g.state.is_terminal(), sum(g.decisions) == len(g.state.history())
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from skatsim._random import SeedLike, to_seed
from skatsim.actions import PASS
from skatsim.bits import mix64
from skatsim.deal import SEED_MASK, Deal
from skatsim.kernels.game import settle_forfeit
from skatsim.layout import N_RESULT, PHASE_NAMES
from skatsim.options import ISKO, SkatRules
from skatsim.rules import RAMSCH
from skatsim.scoring import GameResult
from skatsim.state import SkatState

from .base import AgentSpec, make_agent
from .seat import (FORFEIT, HIDDEN, ON_ERROR, AgentError, IllegalActionError, Seat, TimeLimitError, agent_clock,
                   check_action, decide, error_seats, error_traceback, failure_action, time_limit_of)

# the seating contract's names, here where the table uses them (their home: agents.arena.seat)
__all__ = ["play_game", "play", "PlayedGame", "Table", "AgentError", "IllegalActionError", "TimeLimitError",
           "HIDDEN", "deal_seed_of_deal", "forfeit_result", "ON_ERROR", "agent_clock", "error_traceback", "decide",
           "check_action"]

def deal_seed_of_deal(deal: Deal) -> int:
    """A deal seed derived from the cards of an explicit deal (agents' streams for
    ``play_game(..., deal=...)`` without ``rng``): deterministic for the same cards."""
    h0, h1, h2, sk = deal.masks()
    z = mix64(h0 | h1 << 32)
    z = mix64(z ^ (h2 | sk << 32))
    return z >> 1


def _resolve_agents(agents: Sequence[Any]) -> list[Any]:
    if isinstance(agents, (str, AgentSpec)) or len(agents) != 3:
        raise ValueError(f"a table needs 3 agents (one per seat), got {agents!r}")
    out = [make_agent(a) if isinstance(a, (str, AgentSpec)) else a for a in agents]
    ids = [id(a) for a in out]
    if len(set(ids)) < 3:
        raise ValueError("pass a distinct agent object for each seat (an agent keeps per-seat state "
                         "between reset() and the end of the deal); names or specs make new agents")
    for s, a in enumerate(out):
        if not callable(getattr(a, "act", None)):
            raise TypeError(f"agent for seat {s} ({a!r}) has no act(obs) method")
    return out


class Table:
    """Three agents and one game, stepped one decision at a time.

    ``Table(agents, state, deal_seed, deal_id)`` resets the agents; :meth:`step` asks the
    seat to move, validates and applies its action; :meth:`run` plays to the end.
    ``decision_time`` and ``decisions`` accumulate per seat.

    ``time_limit``: seconds per decision (``None`` or 0: no limit). ``on_error``: ``"raise"``
    (an :class:`AgentError` leaves the table) or ``"forfeit"`` (recorded in ``errors``, and
    the game is settled by the rules of the module docstring; ``result`` is then the
    settlement, ``over`` tells whether the game has ended).
    """

    def __init__(self, agents: Sequence[Any], state: SkatState, deal_seed: int, deal_id: int = 0,
                 on_action: Callable[[SkatState, int, int], None] | None = None, *,
                 time_limit: float | None = None, on_error: str = "raise") -> None:
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, got {on_error!r}")
        self.time_limit = time_limit_of(time_limit)
        self.on_error = on_error
        self.errors: list[AgentError] = []
        self.forfeit: GameResult | None = None
        self.agents = _resolve_agents(agents)
        self.state = state
        self.deal_seed = int(deal_seed)
        self.deal_id = int(deal_id)
        self.on_action = on_action
        self.seats = [Seat(s, self.deal_id, self.deal_seed) for s in range(3)]
        for seat, a in zip(self.seats, self.agents):
            seat.sit(a)

    @property
    def decision_time(self) -> list[float]:
        """CPU seconds each seat's agent spent deciding."""
        return [s.time for s in self.seats]

    @property
    def decisions(self) -> list[int]:
        """Decisions each seat's agent took."""
        return [s.decisions for s in self.seats]

    @property
    def over(self) -> bool:
        """The game has ended: played out, or settled after an agent's error."""
        return self.forfeit is not None or self.state.is_terminal()

    @property
    def result(self) -> GameResult:
        """The game's settlement (the forfeit outcome after an agent's error)."""
        return self.forfeit if self.forfeit is not None else self.state.result

    def step(self) -> tuple[int, int]:
        """One decision: ``(seat, action)``. Raises :class:`AgentError` when the agent fails
        (``on_error="raise"``); with ``"forfeit"`` the error is recorded and the outcome
        applied: ``action`` is then the substituted pass, or -1 when the game ended."""
        if self.forfeit is not None:
            raise ValueError("the game is over (settled after an agent's error)")
        try:
            return self._step()
        except AgentError as e:
            if self.on_error == "raise":
                raise
            return self._after_error(e)

    def _after_error(self, e: AgentError) -> tuple[int, int]:
        self.errors.append(e)
        action = failure_action(e, PASS in self.state.legal_actions())
        if action == FORFEIT:
            self.forfeit = forfeit_result(self.state, e.seat)
        else:
            self._apply(e.seat, action, e.phase)
        return e.seat, action

    def _step(self) -> tuple[int, int]:
        state = self.state
        seat = state.current_player()
        if seat < 0:
            raise ValueError("the game is over")
        phase = state.phase
        action = self.seats[seat].act(state.observation(seat), phase, state.legal_actions(), self.time_limit)
        self._apply(seat, action, phase)
        return seat, action

    def _apply(self, seat: int, action: int, phase: str) -> None:
        state = self.state
        state.apply_action(action)
        code = PHASE_NAMES.index(phase)
        for s in self.seats:
            s.observe(seat, action, code)
        if self.on_action is not None:
            self.on_action(state, seat, action)

    def run(self) -> "PlayedGame":
        while not self.over:
            self.step()
        t0, t1, t2 = self.decision_time
        n0, n1, n2 = self.decisions
        return PlayedGame(self.state, (t0, t1, t2), (n0, n1, n2), self.deal_seed,
                          self.deal_id, tuple(self.errors), self.forfeit)


@dataclass(frozen=True)
class PlayedGame:
    """A finished game with the time each seat spent deciding (seconds) and its decisions.

    ``errors``: the agents' errors (``on_error="forfeit"``); ``forfeit``: the settlement
    after an error that ended the game (``None``: played out; :attr:`result` is the
    game's settlement either way).
    """

    state: SkatState
    decision_time: tuple[float, float, float]
    decisions: tuple[int, int, int]
    deal_seed: int
    deal_id: int
    errors: tuple[AgentError, ...] = ()
    forfeit: GameResult | None = None

    @property
    def result(self) -> GameResult:
        return self.forfeit if self.forfeit is not None else self.state.result

    @property
    def error_seats(self) -> int:
        """Bit ``s`` set when seat ``s``'s agent erred."""
        return error_seats(self.errors)

    @property
    def error_text(self) -> str:
        """The errors, ``"; "``-separated (empty: none)."""
        return "; ".join(str(e) for e in self.errors)

    @property
    def error_traceback(self) -> str:
        """The agents' own tracebacks of the errors (:func:`error_traceback`; empty: none)."""
        return error_traceback(self.errors)


def forfeit_result(state: SkatState, offender: int) -> GameResult:
    """The settlement of a game that ends because ``offender``'s agent failed (raised,
    returned an illegal action or ran out of time): the forfeit rule of the core
    (:func:`skatsim.kernels.game.settle_forfeit`) on the state's vector.

    >>> from skatsim import SkatState
    >>> s = SkatState.new_game(seed=3)
    >>> for a in ("18", "yes", "pass", "pass", "hand", "GH"):   # seat 0 plays grand hand
    ...     s.apply_action(s.string_to_action(a))
    >>> lost = forfeit_result(s, 0)     # the declarer fails: lost at the simple level
    >>> lost.won, lost.multiplier * 24 == lost.game_value, lost.list_score == -2 * lost.game_value
    (False, True, True)
    >>> won = forfeit_result(s, 1)      # a defender fails: the declarer wins at the simple level
    >>> won.won, won.game_value == lost.game_value, won.seeger_fabian[0] == won.game_value + 50
    (True, True, True)
    """
    r = np.zeros(N_RESULT, dtype=np.int64)
    settle_forfeit(state.vector, int(offender), r)
    # nobody declared (and no Ramsch): no game, and no card points either
    return GameResult.from_result_fields(r, state.rules, card_points=state.declarer is not None
                                         or state.game_type == RAMSCH)


def _setup(seed: SeedLike, deal: Deal | None, rules: SkatRules, rng: SeedLike) -> tuple[SkatState, int]:
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    if deal is not None:
        if seed is not None:
            raise ValueError("pass either a deal or a seed, not both")
        state = SkatState.new_game(deal=deal, rules=rules)
        ds = deal_seed_of_deal(deal) if rng is None else to_seed(rng, name="rng") & SEED_MASK
        return state, ds
    if seed is None:
        seed = to_seed(rng, name="rng")  # None: fresh entropy
    elif rng is not None:
        raise ValueError("pass either a seed or an rng for the deal, not both")
    ds = to_seed(seed) & SEED_MASK
    return SkatState.new_game(seed=ds, rules=rules), ds


def play(agents: Sequence[Any], seed: SeedLike = None, *, deal: Deal | None = None, rules: SkatRules = ISKO,
         rng: SeedLike = None, deal_id: int = 0,
         on_action: Callable[[SkatState, int, int], None] | None = None,
         time_limit: float | None = None, on_error: str = "raise") -> PlayedGame:
    """Like :func:`play_game`, returning a :class:`PlayedGame` (state, timings, errors and
    the settlement); ``time_limit`` and ``on_error`` as for :class:`Table`."""
    state, ds = _setup(seed, deal, rules, rng)
    return Table(agents, state, ds, deal_id, on_action, time_limit=time_limit, on_error=on_error).run()


def play_game(agents: Sequence[Any], seed: SeedLike = None, *, deal: Deal | None = None, rules: SkatRules = ISKO,
              rng: SeedLike = None, deal_id: int = 0,
              on_action: Callable[[SkatState, int, int], None] | None = None) -> SkatState:
    """Play one deal to the end with three agents (seat 0 forehand, 1 middle, 2 rear).

    Args:
        agents: three agents (objects with ``act(obs)``; one object per seat), or registry
            names / spec texts / :class:`AgentSpec` (a new agent is made for each).
        seed: the deal seed (any int; the same cards as ``skatsim.deal(seed)`` and a
            simulation row's ``deal_seed``); or a Generator / None (drawn, as ``rng``).
        deal: an explicit :class:`~skatsim.Deal` instead of ``seed``.
        rules: :class:`~skatsim.SkatRules`.
        rng: with ``deal``: the seed of the agents' streams (default: derived from the
            cards, :func:`deal_seed_of_deal`); without: draws the deal seed.
        deal_id: passed to each agent's ``reset``.
        on_action: ``on_action(state, seat, action)`` after each action.

    Each seat's agent gets the stream ``seat_stream(deal_seed, seat)`` in ``reset``: a
    game of random agents equals batch simulation's random game of ``deal_seed``. An
    agent that raises or returns an illegal action stops the game with
    :class:`AgentError` / :class:`IllegalActionError` (naming agent, seat, phase, action).
    """
    return play(agents, seed, deal=deal, rules=rules, rng=rng, deal_id=deal_id, on_action=on_action).state
