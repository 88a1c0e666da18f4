"""``RandomAgent``: uniformly random legal actions, batch simulation's random policy.

It draws from the seat's SplitMix64 stream given by ``reset`` through the same compiled
policy batch simulation runs (``skatsim.kernels.policies.policy_act(POLICY_RANDOM, ...)``),
so a game of three random agents through :func:`agents.play_game` is batch simulation's
random game of the same deal seed, action for action.

>>> from agents import play_game
>>> s = play_game([RandomAgent(), RandomAgent(), RandomAgent()], seed=7)
>>> s.is_terminal()
True
"""

from __future__ import annotations

import numpy as np

from .rule_based import CompiledPolicyAgent

__all__ = ["RandomAgent"]


class RandomAgent(CompiledPolicyAgent):
    """Uniform over the legal actions in every phase (bids, skat, discards, declaration,
    Kontra/Re, cards).

    Without a ``reset`` (used outside :func:`agents.play_game`) it draws from the stream
    ``seed_state(seed)``.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        from skatsim.kernels.policies import PARAMS_SIZE, POLICY_RANDOM

        super().__init__(POLICY_RANDOM, np.zeros(PARAMS_SIZE, dtype=np.float64), seed)

    def __repr__(self) -> str:
        return "RandomAgent()"
