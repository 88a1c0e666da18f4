"""Card-play rollouts on the shared state machine: play a position out N times.

The inner loop of sampling-based agents (PIMC, Monte Carlo evaluation). Each rollout
copies a play-phase state vector (``kernels.game`` fields) into a scratch vector and
plays it to the end with ``kernels.game.apply_action``: the play rules (next seat,
trick winner, card points, the early end of null) exist once, in the state machine.
The win test is ``scoring.settle_core``. Tests replay recorded rollouts through
``SkatState``.

Rollout ``r`` draws from the SplitMix64 stream ``derive_seed(seed, r)``, so any single
rollout can be reproduced.

Policies: ``POLICY_RANDOM`` (0, uniformly random legal cards) is built in. The hook for
jitted policies (``kernels.policies``) is :func:`_act`: a policy id and a parameter
array reach it already.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import card_points
from ..scoring import settle_core
from . import game as G
from .simulate import deal_seed_of

__all__ = ["rollout_kernel", "POLICY_RANDOM", "ANY_MATADORS", "NO_BID"]

POLICY_RANDOM = 0
# settle_core arguments that do not affect ``won``: the matador count (only the game value
# needs it; 1 keeps it valid) and the bid (0: no overbid test, rollouts ignore overbidding)
ANY_MATADORS = 1
NO_BID = 0
_NO_KONTRA = 0


@njit(cache=True, inline="always")
def _act(st, policy: int, params, rng: int):
    """The action of the player to move under ``policy``: ``(action, rng)``.

    Only ``POLICY_RANDOM`` so far; policies from ``kernels.policies`` plug in here (they
    take the mover's masked view, ``params`` and the stream)."""
    return G.random_action(st, rng)


@njit(cache=True)
def rollout_kernel(st0, policy: int, params, smul, out_points, out_tricks, out_won, actions, record: bool) -> None:
    """Play ``len(out_points)`` rollouts from the play-phase state vector ``st0``.

    Writes per rollout the declarer's final card points (the skat in ``st0[F_SKAT]``
    included, as in ``result_fields``; irrelevant in null), his tricks, and ``won``
    (``settle_core``, ignoring any overbid); with ``record`` the cards played go to
    ``actions[r]`` (-1 padded). ``st0`` is not modified.
    """
    st = np.empty_like(st0)
    d = st0[G.F_DECLARER]
    game = st0[G.F_GAME]
    flags = st0[G.F_FLAGS]
    skat_pts = card_points(st0[G.F_SKAT])
    for r in range(out_points.shape[0]):
        G.copy_state(st, st0)
        rng = deal_seed_of(smul, r)
        k = 0
        while st[G.F_PHASE] == G.PH_PLAY:
            a, rng = _act(st, policy, params, rng)
            if record:
                actions[r, k] = a
            k += 1
            G._apply_play(st, a)  # apply_action's play branch (the phase is known)
        pts = st[G.F_POINTS0 + d] + skat_pts
        tricks = st[G.F_TRICKS0 + d]
        out_points[r] = pts
        out_tricks[r] = tricks
        out_won[r] = settle_core(game, flags, ANY_MATADORS, NO_BID, pts, tricks, _NO_KONTRA)[0]
