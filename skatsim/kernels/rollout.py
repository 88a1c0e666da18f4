"""Card-play rollouts: play a position out N times with uniformly random legal cards.

The inner loop of sampling-based agents (PIMC, Monte Carlo evaluation). The game is
held in local variables (three hand masks, the trick, the declarer's tally) instead of
a state vector, but every rule comes from the shared primitives: ``legal_mask`` and
``trick_winner_pos`` (:mod:`skatsim.rules`), card points (:data:`skatsim.cards.CARD_POINTS`)
and ``settle_core`` (:mod:`skatsim.scoring`) for the win test. Tests replay recorded
rollouts through ``SkatState``.

Rollout ``r`` draws from the SplitMix64 stream ``derive_seed(seed, r)``, so any single
rollout can be reproduced.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import nth_bit, popcount, rand_below
from ..cards import CARD_POINTS, card_points
from ..rules import NULL, legal_mask, trick_winner_pos
from ..scoring import settle_core
from .simulate import deal_seed_of

__all__ = ["rollout_kernel"]

_PTS = np.array(CARD_POINTS, dtype=np.int64)
_PTS.setflags(write=False)


@njit(cache=True)
def rollout_kernel(h0, h1, h2, game, flags, declarer, leader, t0, t1, ncards, decl_points, decl_tricks,
                   skat, smul, out_points, out_tricks, out_won, actions, record):
    """Play ``len(out_points)`` random rollouts from a play-phase position.

    ``h0..h2``: the seats' hands now; ``leader``: seat that led the trick in progress,
    whose first ``ncards`` (0..2) cards are ``t0, t1``; ``decl_points``/``decl_tricks``:
    the declarer's trick points and tricks so far; ``skat``: the skat mask, whose points
    the declarer gets (as in ``result_fields``; irrelevant in null). Writes the declarer's final card points
    (skat included), tricks, and won (``settle_core`` ignoring any overbid) per rollout;
    with ``record`` the cards played go to ``actions[r]`` (-1 padded).
    """
    skat_pts = card_points(skat)  # as result_fields: the skat counts for the declarer
    n = out_points.shape[0]
    for r in range(n):
        rng = deal_seed_of(smul, r)
        a0 = h0
        a1 = h1
        a2 = h2
        c0 = t0
        c1 = t1
        nc = ncards
        lead = leader
        p = leader + nc
        if p >= 3:
            p -= 3
        dp = decl_points
        dt = decl_tricks
        k = 0
        while True:
            if p == 0:
                hand = a0
            elif p == 1:
                hand = a1
            else:
                hand = a2
            if hand == 0:
                break
            legal = legal_mask(hand, c0 if nc > 0 else -1, game)
            j, rng = rand_below(rng, popcount(legal))
            c = nth_bit(legal, j)
            bit = 1 << c
            if p == 0:
                a0 ^= bit
            elif p == 1:
                a1 ^= bit
            else:
                a2 ^= bit
            if record:
                actions[r, k] = c
            k += 1
            if nc == 0:
                c0 = c
                nc = 1
            elif nc == 1:
                c1 = c
                nc = 2
            else:
                w = lead + trick_winner_pos(c0, c1, c, game)
                if w >= 3:
                    w -= 3
                if w == declarer:
                    dp += _PTS[c0] + _PTS[c1] + _PTS[c]
                    dt += 1
                    if game == NULL:
                        break
                lead = w
                p = w
                nc = 0
                continue
            p = p + 1 if p < 2 else 0
        out_points[r] = dp + skat_pts
        out_tricks[r] = dt
        out_won[r] = settle_core(game, flags, 1, 0, dp + skat_pts, dt, 0)[0]
