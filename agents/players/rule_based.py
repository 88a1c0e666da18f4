"""``RuleBasedAgent``: the heuristic Skat player through the agent protocol.

The decisions live once, as jitted functions, in :mod:`skatsim.kernels.heuristic`; this
class only calls the compiled dispatcher
``skatsim.kernels.policies.policy_act(POLICY_RULE_BASED, obs.view, obs.seat, params, rng)``,
so a game of rule-based agents through :func:`agents.play_game` is, action for action,
batch simulation's ``simulate(..., policy="rule_based")`` game of the same deal seed.

Parameters (``RuleBasedAgent(max_bid=18)``, ``make_agent("rule_based", random_cards=1)``)
are those of :data:`skatsim.kernels.heuristic.PARAM_NAMES`; unknown names are refused.

>>> from agents import play_game
>>> s = play_game([RuleBasedAgent(), RuleBasedAgent(), RuleBasedAgent()], seed=7)
>>> s.is_terminal()
True
>>> RuleBasedAgent(max_bid=18).params["max_bid"]
18.0
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from skatsim.bits import seed_state
from skatsim.contracts import BID_VALUES
from skatsim.kernels.heuristic import DEFAULT_PARAMS, PARAM_NAMES
from skatsim.kernels.policies import policy_act  # called, never kept on an agent: a dispatcher in
# an agent's __dict__ makes each copy.deepcopy of it pickle the dispatcher (30 ms a copy)

from ..arena.base import in_range, one_of

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["RuleBasedAgent", "CompiledPolicyAgent", "PARAM_CHECKS"]


class CompiledPolicyAgent:
    """An agent that is one of batch simulation's compiled policies: ``act`` calls
    ``skatsim.kernels.policies.policy_act(pid, obs.view, obs.seat, params, rng)`` with the
    seat's SplitMix64 stream from ``reset`` (``seed_state(seed)`` without one), so its games
    through the agent protocol are batch simulation's games, action for action."""

    name = "compiled"

    def __init__(self, pid: int, params: np.ndarray, seed: int = 0) -> None:
        params.setflags(write=False)
        self._params = params
        self._pid = pid
        self._rng = seed_state(seed)

    def __deepcopy__(self, memo: dict) -> "CompiledPolicyAgent":
        # the read-only parameter row is shared: a deepcopy would make it a writable array, and
        # policy_act would compile again for that signature (70-100 s) in each tournament copy
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in vars(self).items():
            setattr(new, k, v if k == "_params" else copy.deepcopy(v, memo))
        return new

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        """Start a deal: keep the seat's SplitMix64 stream ``rng``."""
        self._rng = int(rng)

    def act(self, obs: "Observation") -> int:
        """The action for ``obs.seat`` from its masked view ``obs.view``."""
        a, self._rng = policy_act(self._pid, obs.view, obs.seat, self._params, self._rng)
        return int(a)

    def peek(self, obs: "Observation") -> int:
        """The action :meth:`act` would take, without advancing the seat stream (another
        agent asking for this player's opinion, e.g. a tie-break)."""
        a, _ = policy_act(self._pid, obs.view, obs.seat, self._params, self._rng)
        return int(a)

    @property
    def param_row(self) -> np.ndarray:
        """The compiled policy's parameter row (read-only), as the kernels take it."""
        return self._params


def _bid_or_inf(v: float) -> str | None:
    return None if v == math.inf or v in BID_VALUES else "a bid on the ladder (18, 20, ... 264) or inf"


def _positive(v: float) -> str | None:
    return None if v > 0 and math.isfinite(v) else "a positive number"


def _finite(v: float) -> str | None:
    return None if math.isfinite(v) else "a finite number"


#: Range checks of the rule-based player's parameters (the registry applies them).
PARAM_CHECKS: dict[str, Callable[[Any], str | None]] = {
    **{k: in_range(0, 1, "a probability") for k in ("bid_threshold", "hand_min_p", "re_threshold",
                                                     "null_p_pick", "null_p_hand")},
    **{k: one_of(0, 1) for k in ("random_cards", "no_null", "no_grand", "no_hand", "allow_ouvert",
                                 "random_bidding")},
    **{k: _positive for k in ("scale", "pickup_scale")},
    "max_bid": _bid_or_inf,
}
PARAM_CHECKS.update({k: _finite for k in PARAM_NAMES if k not in PARAM_CHECKS})


class RuleBasedAgent(CompiledPolicyAgent):
    """Heuristic player for every phase: bidding, skat, discard, declaration, Kontra/Re and
    card play (see :mod:`skatsim.kernels.heuristic` for the rules it follows).

    Deterministic: its only randomness (the ``random_cards`` / ``random_bidding`` variants)
    comes from the seat stream given by ``reset`` (without a ``reset``: ``seed_state(seed)``).
    """

    name = "rule_based"

    def __init__(self, seed: int = 0, **params: Any) -> None:
        from skatsim.kernels.policies import PARAMS_SIZE, POLICY_RULE_BASED

        unknown = sorted(set(params) - set(PARAM_NAMES))
        if unknown:
            raise ValueError(f"unknown rule_based parameter(s) {', '.join(map(repr, unknown))}; "
                             f"parameters: {', '.join(PARAM_NAMES)}")
        row = np.zeros(PARAMS_SIZE, dtype=np.float64)
        row[:len(DEFAULT_PARAMS)] = DEFAULT_PARAMS
        for k, v in params.items():
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise TypeError(f"rule_based parameter {k!r} must be a number, got {v!r}")
            why = PARAM_CHECKS[k](float(v))
            if why:
                raise ValueError(f"rule_based parameter {k!r} must be {why}, got {v!r}")
            row[PARAM_NAMES.index(k)] = float(v)
        super().__init__(POLICY_RULE_BASED, row, seed)

    @property
    def params(self) -> dict[str, float]:
        """Every parameter by name (defaults included)."""
        return {n: float(self._params[i]) for i, n in enumerate(PARAM_NAMES)}

    def card_play_key(self) -> tuple[str, str, str] | None:
        """What decides this player's cards as declarer, as defender and in Ramsch (for a
        tournament that replays identical card play once): its parameters; ``None`` when its
        cards are random (the stream then matters)."""
        p = self.params
        if p["random_cards"]:
            return None
        changed = ",".join(f"{n}={v:g}" for n, v in p.items() if v != DEFAULT_PARAMS[PARAM_NAMES.index(n)])
        k = "rule_based" + (":" + changed if changed else "")
        return (k, k, k)

    def __repr__(self) -> str:
        changed = {n: v for n, v in self.params.items() if v != DEFAULT_PARAMS[PARAM_NAMES.index(n)]}
        return "RuleBasedAgent(" + ", ".join(f"{k}={v:g}" for k, v in changed.items()) + ")"
