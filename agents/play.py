"""The game loop: agents at a table play one deal through the state API.

:func:`play_game` deals, calls each agent's ``reset(deal_id, seat, rng)`` with the seat's
stream ``skatsim.bits.seat_stream(deal_seed, seat)``, then loops: the observation of the
seat to move -> ``agent.act`` -> validation -> ``apply_action`` -> every agent's
``observe(seat, action)`` (the declarer's discards shown to the other seats as ``-1``).
Agents only ever see ``SkatState.observation(seat)``. :class:`Table` is the same loop one
decision at a time (the shared agent test and the tournament runner use it); :func:`play`
also returns the decision time per seat.

>>> from agents import RandomAgent
>>> g = play([RandomAgent(), RandomAgent(), RandomAgent()], seed=5)
>>> g.state.is_terminal(), sum(g.decisions) == len(g.state.history())
(True, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from skatsim._random import SeedLike, to_seed
from skatsim.actions import action_to_string
from skatsim.bits import mix64, seat_stream
from skatsim.deal import SEED_MASK, Deal
from skatsim.options import ISKO, SkatRules
from skatsim.state import SkatState

from .base import AgentSpec, make_agent

__all__ = ["play_game", "play", "PlayedGame", "Table", "AgentError", "IllegalActionError", "HIDDEN",
           "deal_seed_of_deal"]

#: What the other seats observe of a declarer's discard.
HIDDEN = -1

_DISCARD_PHASE = "discard"


class AgentError(RuntimeError):
    """An agent failed at the table: it raised, or returned an illegal action.

    Attributes name the agent, the seat, the phase and (for an illegal action) the action,
    so a tournament can record the error against the agent.
    """

    def __init__(self, message: str, *, agent: str, seat: int, phase: str, action: Any = None) -> None:
        super().__init__(message)
        self.agent = agent
        self.seat = seat
        self.phase = phase
        self.action = action


class IllegalActionError(AgentError, ValueError):
    """The agent returned an action that is not legal for its seat now."""


def deal_seed_of_deal(deal: Deal) -> int:
    """A deal seed derived from the cards of an explicit deal (agents' streams for
    ``play_game(..., deal=...)`` without ``rng``): deterministic for the same cards."""
    h0, h1, h2, sk = deal.masks()
    z = mix64(h0 | h1 << 32)
    z = mix64(z ^ (h2 | sk << 32))
    return z >> 1


def _agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", type(agent).__name__))


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
    """

    def __init__(self, agents: Sequence[Any], state: SkatState, deal_seed: int, deal_id: int = 0,
                 on_action: Callable[[SkatState, int, int], None] | None = None) -> None:
        self.agents = _resolve_agents(agents)
        self.state = state
        self.deal_seed = int(deal_seed)
        self.deal_id = int(deal_id)
        self.on_action = on_action
        self.decision_time = [0.0, 0.0, 0.0]
        self.decisions = [0, 0, 0]
        self._observers = [getattr(a, "observe", None) for a in self.agents]
        for seat, a in enumerate(self.agents):
            reset = getattr(a, "reset", None)
            if reset is not None:
                reset(self.deal_id, seat, seat_stream(self.deal_seed, seat))

    def step(self) -> tuple[int, int]:
        """One decision: ``(seat, action)``. Raises :class:`AgentError` when the agent fails."""
        state = self.state
        seat = state.current_player()
        if seat < 0:
            raise ValueError("the game is over")
        agent = self.agents[seat]
        obs = state.observation(seat)
        phase = state.phase
        t0 = time.perf_counter()
        try:
            action = agent.act(obs)
        except Exception as e:
            raise AgentError(f"agent {_agent_name(agent)!r} (seat {seat}) raised {type(e).__name__} in phase "
                             f"{phase}: {e}", agent=_agent_name(agent), seat=seat, phase=phase) from e
        self.decision_time[seat] += time.perf_counter() - t0
        self.decisions[seat] += 1
        ok = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
        if ok:
            action = int(action)
            ok = action in obs.legal_actions
        if not ok:
            try:
                text = repr(action_to_string(action))
            except (ValueError, TypeError, IndexError):
                text = "not an action id"
            legal = " ".join(action_to_string(a) for a in obs.legal_actions)
            raise IllegalActionError(
                f"agent {_agent_name(agent)!r} (seat {seat}) returned the illegal action {action!r} ({text}) "
                f"in phase {phase}; legal: {legal}", agent=_agent_name(agent), seat=seat, phase=phase,
                action=action)
        state.apply_action(action)
        for s, obs_fn in enumerate(self._observers):
            if obs_fn is not None:
                obs_fn(seat, HIDDEN if phase == _DISCARD_PHASE and s != seat else action)
        if self.on_action is not None:
            self.on_action(state, seat, action)
        return seat, action

    def run(self) -> "PlayedGame":
        while not self.state.is_terminal():
            self.step()
        return PlayedGame(self.state, tuple(self.decision_time), tuple(self.decisions), self.deal_seed,
                          self.deal_id)


@dataclass(frozen=True)
class PlayedGame:
    """A finished game with the time each seat spent deciding (seconds) and its decisions."""

    state: SkatState
    decision_time: tuple[float, float, float]
    decisions: tuple[int, int, int]
    deal_seed: int
    deal_id: int


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
         on_action: Callable[[SkatState, int, int], None] | None = None) -> PlayedGame:
    """Like :func:`play_game`, returning a :class:`PlayedGame` (state plus timings)."""
    state, ds = _setup(seed, deal, rules, rng)
    return Table(agents, state, ds, deal_id, on_action).run()


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
    game of random agents equals the batch engine's random game of ``deal_seed``. An
    agent that raises or returns an illegal action stops the game with
    :class:`AgentError` / :class:`IllegalActionError` (naming agent, seat, phase, action).
    """
    return play(agents, seed, deal=deal, rules=rules, rng=rng, deal_id=deal_id, on_action=on_action).state
