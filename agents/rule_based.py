"""``RuleBasedAgent``: the heuristic Skat player through the agent protocol.

The decisions live once, as jitted functions, in :mod:`skatsim.kernels.heuristic`; this
class only calls the compiled dispatcher
``skatsim.kernels.policies.policy_act(POLICY_RULE_BASED, obs.view, obs.seat, params, rng)``,
so a game of rule-based agents through :func:`agents.play_game` is, action for action,
the batch engine's ``simulate(..., policy="rule_based")`` game of the same deal seed.

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

from typing import TYPE_CHECKING, Any

import numpy as np

from skatsim.bits import seed_state
from skatsim.kernels.heuristic import DEFAULT_PARAMS, PARAM_NAMES

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["RuleBasedAgent"]


class RuleBasedAgent:
    """Heuristic player for every phase: bidding, skat, discard, declaration, Kontra/Re and
    card play (see :mod:`skatsim.kernels.heuristic` for the rules it follows).

    Deterministic: its only randomness (the ``random_cards`` / ``random_bidding`` variants)
    comes from the seat stream given by ``reset`` (without a ``reset``: ``seed_state(seed)``).
    """

    name = "rule_based"

    def __init__(self, seed: int = 0, **params: Any) -> None:
        from skatsim.kernels.policies import PARAMS_SIZE, POLICY_RULE_BASED, policy_act

        unknown = sorted(set(params) - set(PARAM_NAMES))
        if unknown:
            raise ValueError(f"unknown rule_based parameter(s) {', '.join(map(repr, unknown))}; "
                             f"parameters: {', '.join(PARAM_NAMES)}")
        row = np.zeros(PARAMS_SIZE, dtype=np.float64)
        row[:len(DEFAULT_PARAMS)] = DEFAULT_PARAMS
        for k, v in params.items():
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise TypeError(f"rule_based parameter {k!r} must be a number, got {v!r}")
            row[PARAM_NAMES.index(k)] = float(v)
        row.setflags(write=False)
        self._params = row
        self._act = policy_act
        self._pid = POLICY_RULE_BASED
        self._rng = seed_state(seed)

    @property
    def params(self) -> dict[str, float]:
        """Every parameter by name (defaults included)."""
        return {n: float(self._params[i]) for i, n in enumerate(PARAM_NAMES)}

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        """Start a deal: keep the seat's SplitMix64 stream ``rng``."""
        self._rng = int(rng)

    def act(self, obs: "Observation") -> int:
        """The action for ``obs.seat`` from its masked view ``obs.view``."""
        a, self._rng = self._act(self._pid, obs.view, obs.seat, self._params, self._rng)
        return int(a)

    def __repr__(self) -> str:
        changed = {n: v for n, v in self.params.items() if v != DEFAULT_PARAMS[PARAM_NAMES.index(n)]}
        return "RuleBasedAgent(" + ", ".join(f"{k}={v:g}" for k, v in changed.items()) + ")"
