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
A policy is an ``@njit`` function ``policy(view, seat, params, rng) -> (action, rng)``:

- ``view`` is the seat's *masked* state vector (:func:`skatsim.kernels.game.mask_view`):
  the fields ``F_*`` of :mod:`skatsim.kernels.game` with every card the seat cannot see
  zeroed, so a policy cannot cheat; ``legal_set(view)`` gives its legal actions;
- ``params`` is a ``float64`` row (:data:`skatsim.kernels.policies.PARAMS_SIZE`) of the
  policy's parameters: data, so changing them never recompiles;
- ``rng`` is the seat's SplitMix64 state, seeded per deal and seat with
  :func:`skatsim.bits.seat_stream` (draw with :func:`skatsim.bits.rand_below`).

It returns a legal action id and the advanced ``rng``, and must not modify ``view``.

Each seat has its own policy id and parameter row. The built-in policies
(:mod:`skatsim.kernels.policies`) are dispatched by id inside one runner,
:func:`run_chunk`, compiled once and cached on disk: any mix of them at the table, with
any parameters, costs no compilation. Any other jitted policy runs through
:func:`run_chunk_generic` (compiled on first use, not cached; its serial twin
:func:`run_chunk_generic_serial` compiles faster for small runs). The uniformly random
policy reads the true vector directly (``legal_set`` depends only on the mover's cards and
public fields), which saves the view copy on the fastest path. The built-in policies get
the state vector itself masked in place (:func:`skatsim.kernels.game.mask_in_place`, the
same fields as ``mask_view``; they never write to their view, which the tests check); a
rule-based seat's cards and limit bids are decided in the deal loop itself
(:func:`skatsim.kernels.heuristic.on_state`, the same actions; a rule-based card takes a
path of its own, :func:`skatsim.kernels.heuristic.card_on_state` then
:func:`skatsim.kernels.game.apply_card`, with no phase dispatch). A user's policy gets its
own copy.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.extending import overload

from ..bits import GOLDEN, assume_below, mix64, seat_stream
from ..bits import M64 as _M64
from ..deal import deal_masks
from . import game as G
from .heuristic import card_on_state, decides_cards, on_state, seat_cutoffs
from .policies import POLICY_CUSTOM, POLICY_RANDOM, POLICY_RULE_BASED, act

__all__ = ["RESULT_DTYPE", "MAX_ACTIONS", "BLOCK", "CALLER", "random_policy", "seat_action", "autoplay",
           "rule_based_cards", "play_deal", "play_block", "store_result",
           "run_chunk", "run_chunk_generic", "run_chunk_generic_serial", "seed_mul"]

#: Upper bound on the actions of one deal: <= 63 bids + 63 holds + 3 passes + 1 pickup/hand
#: + 2 discards + 1 declaration + 3 Kontra/Re + 30 cards = 166.
MAX_ACTIONS = 168

#: Deals per parallel work item (each item allocates its own scratch state vector once).
BLOCK = 1024

#: One row per deal (fields ordered by size, so the packed layout is also aligned).
#: Seats: 0 forehand, 1 middlehand, 2 rearhand. ``declarer`` is -1 for a
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



def seed_mul(seed: int) -> np.uint64:
    """``seed * golden mod 2**64``: the per-run constant of :func:`deal_seed_of`."""
    return np.uint64((int(seed) * GOLDEN) & _M64)


def deal_seed_of(smul, index):
    """``skatsim.bits.derive_seed(seed, index)`` for ``smul = seed_mul(seed)``; compiled in kernels."""
    return mix64((int(smul) + int(index) + 1) & _M64) >> 1


@overload(deal_seed_of)
def _deal_seed_of_ol(smul, index):
    def impl(smul, index):
        return np.int64(mix64(smul + np.uint64(index + 1)) >> np.uint64(1))

    return impl


@njit(cache=True, inline='always')
def random_policy(view, seat, params, rng):
    """Uniformly random legal action in every phase (bidding, skat, discard, declaration,
    Kontra/Re, card play)."""
    return G.random_action(view, rng)


@njit(cache=True, _nrt=False)
def _builtin_act(st, p, pid, params, rng):
    """Built-in policy ``pid``'s action for seat ``p``: ``(action, rng)``. Its view is ``st``
    itself, masked in place for the call (:func:`skatsim.kernels.game.mask_in_place`: the
    built-in policies never write to their view), so no 52-field copy per decision.

    A called function, not inlined, compiled without reference counting (``_nrt=False``;
    it allocates nothing): inlined into the deal loop, the policy's array arguments cost
    several atomic reference-count updates per decision.
    """
    saved = G.mask_in_place(st, p)
    a, rng = act(pid, st, p, params[p], rng)
    G.unmask(st, saved)
    return a, rng


#: ``pids`` entry of a seat its caller plays (the Python side of :class:`skatsim.vec.VecEnv`):
#: :func:`autoplay` stops when that seat is to move.
CALLER = -2


@njit(inline='always')
def seat_action(custom, st, view, p, pid, params, rng, limits, cuts):
    """The action of compiled seat ``p`` (policy ``pid``; ``params``: the three seats' rows)
    on the game ``st``, drawing from its stream ``rng``: ``(action, rng)``.

    The random policy reads the true vector (its legal set depends only on the mover's cards
    and public fields); a rule-based card or limit bid is decided on ``st`` itself
    (:func:`skatsim.kernels.heuristic.on_state`, keeping the bid limit in ``limits[p]`` with
    the seats' cutoffs ``cuts``); any other built-in decision gets ``st`` masked in place
    (:func:`_builtin_act`), a user's policy (``POLICY_CUSTOM``: the jitted ``custom``) its
    own masked copy ``view``.
    """
    if pid == POLICY_RANDOM:
        return G.random_action(st, rng)
    if pid == POLICY_CUSTOM:
        G.mask_view(st, p, view)
        a, r = custom(view, p, params[p], rng)
        return np.int64(a), np.int64(r)
    a = -1
    if pid == POLICY_RULE_BASED:  # card play and bids from the kept limit, on st itself
        a = on_state(st, p, params, limits, cuts)
    if a < 0:
        return _builtin_act(st, p, pid, params, rng)
    return a, rng


@njit(inline='always')
def autoplay(custom, st, view, pids, params, rngs, limits, cuts, rb_cards, hist, hmeta, row, n, record, meta, check,
             all_random):
    """Play the compiled seats of the game ``st`` (from its ``n``-th action on) until a seat
    its caller plays (``pids[p] == CALLER``) is to move or the game ends; returns the number
    of actions. The one loop of batch simulation (:func:`play_deal`), the vectorised
    environment (:mod:`skatsim.kernels.vec`) and so of training.

    Seat ``s`` is played by policy ``pids[s]`` with the parameter rows ``params`` (three) and
    draws from ``rngs[s]`` (:func:`seat_action`); ``rb_cards`` (bit ``s``): the rule-based
    seats whose cards the heuristic decides, the hot path (:func:`skatsim.kernels.heuristic.card_on_state`
    then :func:`skatsim.kernels.game.apply_card`: no phase dispatch). With ``record`` the
    actions go to ``hist[row, n...]``, with ``meta`` ``seat | phase << 2`` to ``hmeta[row, n...]``.
    With ``check`` every action is tested first: an illegal one stops the deal and
    ``-(k + 1)`` is returned for the ``k``-th action (0-based). ``all_random`` (a constant at
    each call site): every seat is ``POLICY_RANDOM``, compiled without the policy dispatch.
    """
    while True:
        ph = st[G.F_PHASE]
        if ph == G.PH_DONE:
            break
        p = assume_below(st[G.F_PLAYER], 3)
        # the hot path: a rule-based card; its check, apply and record repeat the general
        # path's below on purpose, with apply_card (no phase dispatch) for apply_action
        if ph == G.PH_PLAY and (rb_cards >> p) & 1:
            a = card_on_state(st, p, params)
            if check and (n >= MAX_ACTIONS or not G.is_legal(st, a)):
                return -(n + 1)
            if meta:
                hmeta[row, n] = p | (ph << 2)
            G.apply_card(st, a)
            if record:
                hist[row, n] = a
            n += 1
            continue
        if all_random:
            a, rngs[p] = G.random_action(st, rngs[p])
        else:
            pid = pids[p]
            if pid == CALLER:
                break
            a, rngs[p] = seat_action(custom, st, view, p, pid, params, rngs[p], limits, cuts)
        if check and (n >= MAX_ACTIONS or not G.is_legal(st, a)):
            return -(n + 1)
        if meta:
            hmeta[row, n] = p | (ph << 2)
        G.apply_action(st, a)
        if record:
            hist[row, n] = a
        n += 1
    return n


@njit(inline='always')
def rule_based_cards(pids, params) -> int:
    """Bit ``s`` set for the rule-based seats whose cards the heuristic decides."""
    rb = 0
    for s in range(3):
        if pids[s] == POLICY_RULE_BASED and decides_cards(params[s]):
            rb |= 1 << s
    return rb


@njit(inline='always')
def play_deal(custom, st, view, rngs, pids, params, deal_seed, options, actions, i, record, check, all_random,
              limits, cuts):
    """Deal from ``deal_seed`` and play to the end (:func:`autoplay`); seat ``s`` is played by
    policy ``pids[s]`` with parameters ``params[s]`` (``POLICY_CUSTOM``: the jitted
    ``custom``) and draws from its stream ``rngs[s]`` (``seat_stream(deal_seed, s)``; scratch
    int64[3]); ``limits`` (scratch int64[3]) keeps the rule-based seats' bid limits within
    the deal; ``cuts`` holds their :func:`skatsim.kernels.heuristic.seat_cutoffs`.

    Returns the number of actions (with ``record`` written to ``actions[i]``), or with
    ``check`` ``-(k + 1)`` for an illegal ``k``-th action.
    """
    h0, h1, h2, sk, _ = deal_masks(deal_seed)
    G.init_state(st, h0, h1, h2, sk, options)
    for s in range(3):
        rngs[s] = seat_stream(deal_seed, s)
        limits[s] = -1
    rb = 0 if all_random else rule_based_cards(pids, params)
    return autoplay(custom, st, view, pids, params, rngs, limits, cuts, rb, actions, actions, i, 0, record, False,
                    check, all_random)


@njit(inline='always')
def store_result(out, i, index, deal_seed, r, n):
    """Row ``i`` of ``out`` (``RESULT_DTYPE``) from a settled result array ``r`` (the ``R_*``
    layout) of deal ``index`` with ``deal_seed`` and ``n`` actions."""
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
def _play_range(custom, lo, hi, smul, start, options, pids, params, out, actions, record, check, all_random,
                st, view, rngs, r, limits, cuts):
    for i in range(lo, hi):
        index = start + i
        ds = deal_seed_of(smul, index)
        n = play_deal(custom, st, view, rngs, pids, params, ds, options, actions, i, record, check, all_random,
                      limits, cuts)
        G.result_fields(st, r)
        store_result(out, i, index, ds, r, n)


@njit(inline='always')
def _scratch(b, n):
    """A block's scratch arrays and its deal range ``[lo, hi)`` of a chunk of ``n`` deals."""
    lo = b * BLOCK
    return (np.zeros(G.N_FIELDS, dtype=np.int64), np.zeros(G.N_FIELDS, dtype=np.int64), np.zeros(3, dtype=np.int64),
            np.zeros(G.N_RESULT, dtype=np.int64), np.zeros(3, dtype=np.int64), lo, min(lo + BLOCK, n))


@njit(inline='always')
def play_block(custom, b, smul, start, options, pids, params, out, actions, record, check, cuts):
    """Play deals ``b * BLOCK ...`` of a chunk (deal index ``start + i`` into ``out[i]``);
    ``cuts``: the seats' :func:`skatsim.kernels.heuristic.seat_cutoffs`."""
    st, view, rngs, r, limits, lo, hi = _scratch(b, out.shape[0])
    if pids[0] == POLICY_RANDOM and pids[1] == POLICY_RANDOM and pids[2] == POLICY_RANDOM:
        # the same loop compiled without the policy dispatch (random self-play, rollouts)
        _play_range(custom, lo, hi, smul, start, options, pids, params, out, actions, record, check, True,
                    st, view, rngs, r, limits, cuts)
    else:
        _play_range(custom, lo, hi, smul, start, options, pids, params, out, actions, record, check, False,
                    st, view, rngs, r, limits, cuts)


@njit(inline='always')
def play_block_checked(custom, b, smul, start, options, pids, params, out, actions, record, cuts):
    """:func:`play_block` for the runners with a user's policy: every action checked, and one
    copy of the loop, the dispatching one (a seat is never random there; numba compiles both
    branches of a constant test, and each inlined copy of the loop is most of the compile time)."""
    st, view, rngs, r, limits, lo, hi = _scratch(b, out.shape[0])
    _play_range(custom, lo, hi, smul, start, options, pids, params, out, actions, record, True, False,
                st, view, rngs, r, limits, cuts)


@njit(cache=True, inline='always')
def no_custom(view, seat, params, rng):
    """The ``custom`` of the runners without a user's policy (never called)."""
    return G.random_action(view, rng)


@njit(cache=True, parallel=True)
def run_chunk(smul, start, options, pids, params, out, actions, record):
    """Fill ``out`` (``RESULT_DTYPE``) with deals ``start ... start + len(out) - 1``, seat ``s``
    played by built-in policy ``pids[s]`` with ``params[s]`` (compiled once, cached)."""
    cuts = seat_cutoffs(params)
    for b in prange((out.shape[0] + BLOCK - 1) // BLOCK):
        play_block(no_custom, b, smul, start, options, pids, params, out, actions, record, False, cuts)


@njit(parallel=True)
def run_chunk_generic(custom, smul, start, options, pids, params, out, actions, record):
    """Like :func:`run_chunk`, with a user's jitted policy ``custom`` in the seats whose id is
    ``POLICY_CUSTOM`` (compiled on first use; illegal actions are caught, see :func:`play_deal`)."""
    cuts = seat_cutoffs(params)
    for b in prange((out.shape[0] + BLOCK - 1) // BLOCK):
        play_block_checked(custom, b, smul, start, options, pids, params, out, actions, record, cuts)


@njit
def run_chunk_generic_serial(custom, smul, start, options, pids, params, out, actions, record):
    """Single-threaded :func:`run_chunk_generic` (faster to compile: for small runs)."""
    cuts = seat_cutoffs(params)
    for b in range((out.shape[0] + BLOCK - 1) // BLOCK):
        play_block_checked(custom, b, smul, start, options, pids, params, out, actions, record, cuts)
