"""Full-deal batch kernels: deal, bid, skat, declare, play and settle millions of games.

Every deal is played by the shared state machine (:mod:`skatsim.kernels.game`:
``init_state``, ``apply_action``, ``result_fields``), so a simulated row and a
``SkatState`` replay of its actions agree field by field.

Determinism: deal ``i`` of a run with seed ``seed`` uses the deal seed
``derive_seed(seed, i)``; the deal is ``deal_masks(deal_seed)`` and the policy then
draws from the same SplitMix64 stream. A row therefore depends only on
``(seed, i, policy, options)``: not on the worker count or the chunking.

Policies
--------
A policy is an ``@njit`` function ``policy(st, seat, rng) -> (action, rng)``: it
reads the state vector ``st`` (fields ``F_*`` of :mod:`skatsim.kernels.game`; use
``legal_set(st)`` for the legal actions), the seat to move, and a SplitMix64 state
``rng`` (draw with :func:`skatsim.bits.rand_below`); it returns a legal action id and
the advanced ``rng``. It must not modify ``st``. Built-in policies are compiled once
and cached on disk (:data:`POLICY_RUNNERS`); any other jitted policy works through
:func:`run_chunk_generic` (compiled on first use, not cached).

Adding a built-in policy (e.g. a heuristic agent): decorate it ``@njit(cache=True,
inline='always')`` and write its runner like :func:`_run_chunk_random`::

    @njit(cache=True, parallel=True)
    def _run_chunk_heuristic(smul, start, options, out, actions, record):
        for b in prange((out.shape[0] + BLOCK - 1) // BLOCK):
            play_block(heuristic_policy, b, smul, start, options, out, actions, record, False)

then ``skatsim.simulate.register_policy("heuristic", _run_chunk_heuristic)``. Numba
cannot cache a function that takes a dispatcher argument, but it caches this runner, which
references the policy as a global; ``inline='always'`` (also on ``play_deal`` and the state
machine's per-action functions) compiles the whole deal into one loop body: a policy
called through a non-inlined function costs about 35% of the throughput.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.extending import overload

from ..bits import mix64
from ..deal import deal_masks
from . import game as G

__all__ = ["RESULT_DTYPE", "MAX_ACTIONS", "BLOCK", "random_policy", "play_deal", "play_block",
           "run_chunk_generic", "POLICY_RUNNERS", "seed_mul"]

#: Upper bound on the actions of one deal: <= 63 bids + 63 holds + 3 passes + 1 pickup/hand
#: + 2 discards + 1 declaration + 3 Kontra/Re + 30 cards = 166.
MAX_ACTIONS = 168

#: Deals per parallel work item (each item allocates its own scratch state vector once).
BLOCK = 1024

#: One row per deal (fields ordered by size, so the packed layout is also aligned). Seats: 0 forehand, 1 middlehand, 2 rearhand. ``declarer`` is -1 for a
#: passed-in game and for Ramsch; ``game`` is -1 (passed in), 0..5 (D H S C G N) or 6 (Ramsch).
#: ``flags`` bits: 1 hand, 2 schneider announced, 4 schwarz announced, 8 ouvert.
RESULT_DTYPE = np.dtype([
    ("deal_index", np.int64), ("deal_seed", np.int64),
    ("list_score", np.int32), ("score_0", np.int32), ("score_1", np.int32), ("score_2", np.int32),
    ("sf_0", np.int32), ("sf_1", np.int32), ("sf_2", np.int32),
    ("bid", np.int16), ("declarer_points", np.int16), ("multiplier", np.int16),
    ("game_value", np.int16), ("charged_value", np.int16),
    ("points_0", np.int16), ("points_1", np.int16), ("points_2", np.int16), ("n_actions", np.int16),
    ("declarer", np.int8), ("game", np.int8), ("flags", np.int8), ("picked_up", np.bool_),
    ("kontra", np.int8), ("declarer_tricks", np.int8), ("matadors", np.int8),
    ("won", np.bool_), ("schneider", np.bool_), ("schwarz", np.bool_), ("overbid", np.bool_),
], align=True)

_GOLDEN = 0x9E37_79B9_7F4A_7C15
_M64 = (1 << 64) - 1


def seed_mul(seed: int) -> np.uint64:
    """``seed * golden mod 2**64``: the per-run constant of :func:`deal_seed_of`."""
    return np.uint64((int(seed) * _GOLDEN) & _M64)


def deal_seed_of(smul, index):
    """``skatsim.bits.derive_seed(seed, index)`` for ``smul = seed_mul(seed)``; compiled in kernels."""
    return mix64((int(smul) + int(index) + 1) & _M64) >> 1


@overload(deal_seed_of)
def _deal_seed_of_ol(smul, index):
    def impl(smul, index):
        return np.int64(mix64(smul + np.uint64(index + 1)) >> np.uint64(1))

    return impl


@njit(cache=True, inline='always')
def random_policy(st, seat, rng):
    """Uniformly random legal action in every phase (bidding, skat, discard, declaration,
    Kontra/Re, card play)."""
    return G.random_action(st, rng)


@njit(inline='always')
def play_deal(policy, st, deal_seed, options, actions, i, record, check):
    """Deal from ``deal_seed`` and play to the end with ``policy`` for all three seats.

    Returns the number of actions; with ``record`` they are written to ``actions[i]``.
    With ``check`` every action is tested first: an illegal one stops the deal and
    ``-(k + 1)`` is returned for the ``k``-th action (0-based).
    """
    h0, h1, h2, sk, rng = deal_masks(deal_seed)
    G.init_state(st, h0, h1, h2, sk, options)
    n = 0
    while st[G.F_PHASE] != G.PH_DONE:
        a, rng = policy(st, st[G.F_PLAYER], rng)
        if check and (n >= MAX_ACTIONS or not G.is_legal(st, a)):
            return -(n + 1)
        G.apply_action(st, a)
        if record:
            actions[i, n] = a
        n += 1
    return n


@njit(inline='always')
def _store(out, i, index, deal_seed, r, n):
    row = out[i]
    row["deal_index"] = index
    row["deal_seed"] = deal_seed
    row["declarer"] = r[G.R_DECLARER]
    row["bid"] = r[G.R_BID]
    row["game"] = r[G.R_GAME]
    row["flags"] = r[G.R_FLAGS]
    row["picked_up"] = r[G.R_PICKED] != 0
    row["kontra"] = r[G.R_KONTRA]
    row["declarer_points"] = r[G.R_DECL_POINTS]
    row["declarer_tricks"] = r[G.R_DECL_TRICKS]
    row["matadors"] = r[G.R_MATADORS]
    row["won"] = r[G.R_WON] != 0
    row["schneider"] = r[G.R_SCHNEIDER] != 0
    row["schwarz"] = r[G.R_SCHWARZ] != 0
    row["multiplier"] = r[G.R_MULT]
    row["game_value"] = r[G.R_VALUE]
    row["overbid"] = r[G.R_OVERBID] != 0
    row["charged_value"] = r[G.R_CHARGED]
    row["list_score"] = r[G.R_LIST_SCORE]
    row["score_0"] = r[G.R_SCORE0]
    row["score_1"] = r[G.R_SCORE1]
    row["score_2"] = r[G.R_SCORE2]
    row["sf_0"] = r[G.R_SF0]
    row["sf_1"] = r[G.R_SF1]
    row["sf_2"] = r[G.R_SF2]
    row["points_0"] = r[G.R_PTS0]
    row["points_1"] = r[G.R_PTS1]
    row["points_2"] = r[G.R_PTS2]
    row["n_actions"] = n


@njit(inline='always')
def play_block(policy, b, smul, start, options, out, actions, record, check):
    """Play deals ``b * BLOCK ...`` of a chunk (deal index ``start + i`` into ``out[i]``)."""
    st = np.zeros(G.N_FIELDS, dtype=np.int64)
    r = np.zeros(G.N_RESULT, dtype=np.int64)
    lo = b * BLOCK
    hi = min(lo + BLOCK, out.shape[0])
    for i in range(lo, hi):
        index = start + i
        ds = deal_seed_of(smul, index)
        n = play_deal(policy, st, ds, options, actions, i, record, check)
        G.result_fields(st, r)
        _store(out, i, index, ds, r, n)


@njit(parallel=True)
def run_chunk_generic(policy, smul, start, options, out, actions, record):
    """Fill ``out`` (``RESULT_DTYPE``) with deals ``start ... start + len(out) - 1`` played by
    any jitted ``policy`` (compiled for it on first use; illegal actions are caught,
    see :func:`play_deal`)."""
    for b in prange((out.shape[0] + BLOCK - 1) // BLOCK):
        play_block(policy, b, smul, start, options, out, actions, record, True)


@njit(cache=True, parallel=True)
def _run_chunk_random(smul, start, options, out, actions, record):
    for b in prange((out.shape[0] + BLOCK - 1) // BLOCK):
        play_block(random_policy, b, smul, start, options, out, actions, record, False)


#: Built-in policies by name: compiled, disk-cached chunk runners
#: ``runner(smul, start, options, out, actions, record)``.
POLICY_RUNNERS = {"random": _run_chunk_random}
