"""Compiled kernels of the vectorised environment (:mod:`skatsim.vec`): n games in arrays.

Every game ``i`` is row ``i`` of an ``(n, N_FIELDS)`` state array, played by the state
machine of :mod:`skatsim.kernels.game` and observed by
:func:`skatsim.kernels.observe.observe_into` on the mover's masked view, so a game here
and the same game through ``SkatState`` agree move by move. The kernels are parallel over
games (``prange``); a game's work depends only on its own row, and the only serial part
(numbering the next deals in slot order) is a plain loop, so results do not depend on
the thread count.

The arrays (all owned by :class:`skatsim.vec.VecEnv`) travel as two named tuples, so a
kernel takes one argument for each and adding a field is one edit:

- :class:`Games`, one row per game: ``st (n, N_FIELDS)`` the state vectors, ``scratch``
  for masked views, ``deal_seed``, ``deal_index`` (index in the run's seed stream, -1 for an
  explicit seed), ``serial`` (a number per game started in the environment), ``rng (n, 3)``
  the seat streams ``seat_stream(deal_seed, seat)`` the compiled seats draw from, exactly as
  ``simulate`` does; who plays each seat: ``pids (n, 3)`` (a built-in policy of
  :mod:`skatsim.kernels.policies`, played inside the step, or ``CALLER``), ``params (n, 3,
  PARAMS_SIZE)``, ``cuts (n, 3, 3)`` (their :func:`~skatsim.kernels.heuristic.bid_cutoffs`)
  and ``limits (n, 3)`` (rule-based bid limits kept within a deal); ``hist (n, MAX_ACTIONS)``
  int16 actions of the current deal, ``hmeta`` int8 ``player | phase << 2`` per action,
  ``nact (n,)``; the outputs ``obs (n, OBS_SIZE)`` float32, ``mask (n, NUM_ACTIONS)`` bool,
  ``to_move``, ``done``, ``rew (n, 3)`` float64, ``results`` RESULT_DTYPE, ``rbuf (n,
  N_RESULT)``, and the last finished deal's ``last_hist`` / ``last_nact``;
- :class:`Buffer`, the trajectory buffer.

The compiled seats are played by batch simulation's own loop
(:func:`skatsim.kernels.simulate.autoplay`), rule-based fast paths included.

The trajectory buffer (``b*`` arrays, ``(T, n, ...)``) stores each recorded decision as the
mover's masked view packed into ``int32`` (:func:`pack_view`: 208 bytes a row instead of
the 2,426 of an observation and its mask), with seat, action and game serial; the reward-to-go
is written when the game ends, and :func:`take_rows` decodes finished rows into
observation tensors and masks.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from ..actions import NUM_ACTIONS
from ..bits import lsb, rand_below, seat_stream
from ..deal import deal_masks
from . import game as G
from .observe import OBS_SIZE, observe_into
from .simulate import CALLER, autoplay, deal_seed_of, no_custom, rule_based_cards, seat_action, store_result

__all__ = ["REWARD_SF", "REWARD_ZERO_SUM", "REWARD_LIST", "EXTERNAL", "CALLER", "MASK_FIELDS", "Games", "Buffer",
           "step_kernel", "policy_actions",
           "reset_kernel", "observe_kernel", "forfeit_kernel", "random_actions", "sample_masks", "take_rows",
           "pack_view", "unpack_view"]

REWARD_SF, REWARD_ZERO_SUM, REWARD_LIST = 0, 1, 2
EXTERNAL = -1  # policy-table entry of a seat played by the caller (``pids`` then holds CALLER)


class Games(NamedTuple):
    """The per-game arrays of :class:`skatsim.vec.VecEnv` (see the module docstring)."""

    st: Any
    scratch: Any
    deal_seed: Any
    deal_index: Any
    serial: Any
    rng: Any
    pids: Any
    params: Any
    cuts: Any
    limits: Any
    hist: Any
    hmeta: Any
    nact: Any
    obs: Any
    mask: Any
    to_move: Any
    done: Any
    rew: Any
    results: Any
    rbuf: Any
    last_hist: Any
    last_nact: Any


class Buffer(NamedTuple):
    """The trajectory buffer's arrays (:class:`skatsim.vec.TrajectoryBuffer`): ``seats``
    (3,) bool, the recorded seats; ``(T, n)`` columns ``views`` (packed int32 views), ``seat``,
    ``action``, ``game``, ``rtg``; ``fill`` and ``start`` per column."""

    seats: Any
    views: Any
    seat: Any
    action: Any
    game: Any
    rtg: Any
    fill: Any
    start: Any

#: Fields of the state vector that hold card masks (unsigned 32-bit when packed).
MASK_FIELDS = np.zeros(G.N_FIELDS, dtype=np.bool_)
for _f in (G.F_HAND0, G.F_HAND1, G.F_HAND2, G.F_SKAT, G.F_DEALT0, G.F_DEALT1, G.F_DEALT2, G.F_DEALT_SKAT,
           G.F_PLAYED0, G.F_PLAYED1, G.F_PLAYED2, G.F_VOID0, G.F_VOID1, G.F_VOID2, G.F_SHOWN):
    MASK_FIELDS[_f] = True
MASK_FIELDS.setflags(write=False)
_LO32 = 0xFFFF_FFFF


# ----------------------------------------------------------------------------- per game


@njit(cache=True, inline='always')
def pack_view(v, out) -> None:
    """A masked view (int64) into ``out`` (int32): masks keep their 32 bits, the rest fits."""
    for f in range(G.N_FIELDS):
        out[f] = np.int32(v[f] & _LO32) if MASK_FIELDS[f] else np.int32(v[f])


@njit(cache=True, inline='always')
def unpack_view(p, out) -> None:
    """The inverse of :func:`pack_view`."""
    for f in range(G.N_FIELDS):
        x = np.int64(p[f])
        out[f] = x & _LO32 if MASK_FIELDS[f] else x


@njit(cache=True, inline='always')
def _deal(g, i, options) -> None:
    ds = g.deal_seed[i]
    h0, h1, h2, sk, _ = deal_masks(ds)
    G.init_state(g.st[i], h0, h1, h2, sk, options)
    for s in range(3):
        g.rng[i, s] = seat_stream(ds, s)
        g.limits[i, s] = -1
    g.nact[i] = 0


@njit(cache=True, _nrt=False)  # allocates nothing: no reference counting of the arrays per call
def _autoplay(g, i) -> None:
    """Play game ``i``'s compiled seats until a caller's seat is to move or the game ends:
    batch simulation's loop (:func:`skatsim.kernels.simulate.autoplay`), the same draws from
    the same streams, its actions and their seats and phases recorded."""
    pids = g.pids[i]
    params = g.params[i]
    g.nact[i] = autoplay(no_custom, g.st[i], g.scratch[i], pids, params, g.rng[i], g.limits[i], g.cuts[i],
                         rule_based_cards(pids, params), g.hist, g.hmeta, i, g.nact[i], True, True, False, False)


@njit(cache=True, inline='always')
def _rewards(r, kind, rew, i) -> None:
    if kind == REWARD_SF:
        for s in range(3):
            rew[i, s] = r[G.R_SF0 + s]
    elif kind == REWARD_LIST:
        for s in range(3):
            rew[i, s] = r[G.R_SCORE0 + s]
    else:  # zero-sum: SkatState.returns("zero_sum")
        d = r[G.R_DECLARER]
        if d < 0:
            mean = (np.float64(r[G.R_SCORE0]) + np.float64(r[G.R_SCORE1]) + np.float64(r[G.R_SCORE2])) / 3.0
            for s in range(3):
                rew[i, s] = np.float64(r[G.R_SCORE0 + s]) - mean
        else:
            sd = np.float64(r[G.R_SCORE0 + d])
            for s in range(3):
                rew[i, s] = sd if s == d else -sd / 2.0


@njit(cache=True, inline='always')
def _finish(g, b, rec, kind, i) -> None:
    G.result_fields(g.st[i], g.rbuf[i])
    _settled(g, b, rec, kind, i)


@njit(cache=True, inline='always')
def _settled(g, b, rec, kind, i) -> None:
    """Game ``i`` has ended with the result ``rbuf[i]``: its row, rewards, ``done`` and the
    reward-to-go of its buffered decisions."""
    r = g.rbuf[i]
    store_result(g.results, i, g.deal_index[i], g.deal_seed[i], r, g.nact[i])
    _rewards(r, kind, g.rew, i)
    g.done[i] = True
    if rec:
        for t in range(b.start[i], b.fill[i]):
            b.rtg[t, i] = np.float32(g.rew[i, b.seat[t, i]])
        b.start[i] = b.fill[i]


@njit(cache=True, inline="always")
def _legal_into(v, m) -> None:
    """Set ``m[a]`` for every legal action ``a`` of the mover of view ``v`` (``m`` zeroed)."""
    base, lo, hi = G.legal_set(v)
    while lo:
        m[base + lsb(lo)] = True
        lo &= lo - 1
    while hi:
        m[base + 32 + lsb(hi)] = True
        hi &= hi - 1


@njit(cache=True, inline='always')
def _emit(g, i) -> None:
    """Observation tensor and legal mask of game ``i``'s mover, from its masked view."""
    s = g.st[i]
    p = s[G.F_PLAYER]
    g.to_move[i] = p
    m = g.mask[i]
    m[:] = False
    o = g.obs[i]
    if p < 0:
        o[:] = 0.0
        return
    v = g.scratch[i]
    G.mask_view(s, p, v)
    observe_into(v, p, o)
    _legal_into(v, m)


# ----------------------------------------------------------------------------- kernels
# A parallel kernel's loop body calls a per-game function (compiled apart, no reference
# counting): numba drops writes to an array inside a named tuple made directly in a prange
# body (numba 0.6x), so the named tuples are only written in called functions.
# The kernels are loops over games of per-game functions; ``skatsim.vec`` runs small batches
# on one numba thread (no thread-pool wake-ups), large ones on the threads asked for.


@njit(cache=True, _nrt=False)
def _apply_one(g, b, rec, kind, actions, i) -> None:
    g.done[i] = False
    for s in range(3):
        g.rew[i, s] = 0.0
    s_ = g.st[i]
    if s_[G.F_PHASE] == G.PH_DONE:
        return
    p = s_[G.F_PLAYER]
    a = actions[i]
    if rec and b.seats[p]:
        f = b.fill[i]
        if f < b.views.shape[0]:
            G.mask_view(s_, p, g.scratch[i])
            pack_view(g.scratch[i], b.views[f, i])
            b.seat[f, i] = p
            b.action[f, i] = a
            b.game[f, i] = g.serial[i]
            b.fill[i] = f + 1
    k = g.nact[i]
    g.hist[i, k] = a
    g.hmeta[i, k] = p | (s_[G.F_PHASE] << 2)
    g.nact[i] = k + 1
    G.apply_action(s_, a)
    _autoplay(g, i)
    if s_[G.F_PHASE] == G.PH_DONE:
        _finish(g, b, rec, kind, i)


@njit(cache=True, inline='always')
def _renumber(g, counters, smul) -> None:
    """Number the next deals for the finished games in slot order (serial: thread-independent)."""
    nxt = counters[0]
    ser = counters[1]
    for i in range(g.done.shape[0]):
        if g.done[i]:
            g.deal_index[i] = nxt
            g.deal_seed[i] = deal_seed_of(smul, nxt)
            g.serial[i] = ser
            nxt += 1
            ser += 1
    counters[0] = nxt
    counters[1] = ser


@njit(cache=True, _nrt=False)
def _refresh_one(g, options, auto_reset, i) -> None:
    if auto_reset and g.done[i]:
        k = g.nact[i]
        g.last_nact[i] = k
        for j in range(k):
            g.last_hist[i, j] = g.hist[i, j]
        _deal(g, i, options)
        _autoplay(g, i)
    _emit(g, i)


@njit(cache=True, parallel=True)
def step_kernel(g, b, rec, actions, ok, counters, smul, options, kind, auto_reset):
    """One action per game for the seat to move (ignored in finished games), then the
    compiled seats, settlement, auto-reset (``auto_reset``) and the new observations.

    Every action is checked first: if any is illegal nothing changes and the index of the
    first such game is returned (else -1). ``counters = [next deal index, next serial]``;
    ``g``: :class:`Games`, ``b``: :class:`Buffer` (recorded when ``rec``).
    """
    n = g.st.shape[0]
    for i in prange(n):
        ok[i] = g.st[i, G.F_PHASE] == G.PH_DONE or G.is_legal(g.st[i], actions[i])
    for i in range(n):
        if not ok[i]:
            return i
    for i in prange(n):
        _apply_one(g, b, rec, kind, actions, i)
    if auto_reset:
        _renumber(g, counters, smul)
    for i in prange(n):
        _refresh_one(g, options, auto_reset, i)
    return -1


@njit(cache=True, parallel=True)
def reset_kernel(g, b, rec, games, options, kind) -> None:
    """Deal games ``games`` afresh (their ``deal_seed`` / ``deal_index`` / ``serial`` set by the
    caller), play their compiled seats, and settle those that end before a caller's seat moves
    (all seats compiled). An in-flight game's buffered rows are dropped."""
    for j in prange(games.shape[0]):
        _reset_one(g, b, rec, options, kind, games[j])


@njit(cache=True, _nrt=False)
def _reset_one(g, b, rec, options, kind, i) -> None:
    g.done[i] = False
    for s in range(3):
        g.rew[i, s] = 0.0
    if rec:
        b.fill[i] = b.start[i]
    _deal(g, i, options)
    _autoplay(g, i)
    if g.st[i, G.F_PHASE] == G.PH_DONE:
        _finish(g, b, rec, kind, i)
    _emit(g, i)


@njit(cache=True)
def forfeit_kernel(g, b, rec, kind, i, offender) -> None:
    """Game ``i`` ends because seat ``offender`` broke the rules: settled by the forfeit rule
    (:func:`skatsim.kernels.game.settle_forfeit`) like a finished game (row, rewards,
    ``done``, reward-to-go); the caller empties the slot."""
    G.settle_forfeit(g.st[i], offender, g.rbuf[i])
    _settled(g, b, rec, kind, i)


@njit(cache=True, parallel=True)
def policy_actions(g, pid, params, cuts, phases, out) -> None:
    """Built-in policy ``pid``'s action (``params``: its row for each of the three seats,
    ``cuts`` their cutoffs) for every game's mover in one of ``phases`` (a bool per phase
    code), -1 elsewhere: decided as when the policy plays that seat (:func:`seat_action`,
    the seat's stream advanced), with bid limits of its own (not the games' ``limits``)."""
    for i in prange(g.st.shape[0]):
        out[i] = _policy_one(g, pid, params, cuts, phases, i)


@njit(cache=True)
def _policy_one(g, pid, params, cuts, phases, i) -> int:
    s = g.st[i]
    ph = s[G.F_PHASE]
    p = s[G.F_PLAYER]
    if ph == G.PH_DONE or p < 0 or not phases[ph]:
        return -1
    limits = np.full(3, -1, dtype=np.int64)
    a, r = seat_action(no_custom, s, g.scratch[i], p, pid, params, g.rng[i, p], limits, cuts)
    g.rng[i, p] = r
    return a


@njit(cache=True, parallel=True)
def observe_kernel(st, view, seat, out) -> None:
    """``seat``'s observation of every game (from its masked view) into ``out``."""
    for i in prange(st.shape[0]):
        G.mask_view(st[i], seat, view[i])
        observe_into(view[i], seat, out[i])



@njit(cache=True, parallel=True)
def random_actions(st, rng, out) -> None:
    """A uniformly random legal action per game for the seat to move, drawn from that
    seat's stream ``rng[i, seat]`` (the random policy of ``simulate``); -1 where done."""
    for i in prange(st.shape[0]):
        p = st[i, G.F_PLAYER]
        if st[i, G.F_PHASE] == G.PH_DONE or p < 0:
            out[i] = -1
            continue
        a, r = G.random_action(st[i], rng[i, p])
        rng[i, p] = r
        out[i] = a





@njit(cache=True, parallel=True)
def sample_masks(mask, rng, out) -> None:
    """A uniformly random True column per row of ``mask`` (-1 for an all-False row), drawn
    with :func:`skatsim.bits.rand_below` from the row's stream ``rng[i]`` (advanced)."""
    for i in prange(mask.shape[0]):
        m = mask[i]
        c = 0
        for j in range(m.shape[0]):
            if m[j]:
                c += 1
        if c == 0:
            out[i] = -1
            continue
        k, r = rand_below(rng[i], c)
        rng[i] = r
        for j in range(m.shape[0]):
            if m[j]:
                if k == 0:
                    out[i] = j
                    break
                k -= 1


@njit(cache=True, parallel=True)
def take_rows(bview, bseat, bact, bgame, brtg, bfill, bstart, offsets, obs, mask, action, seat, rtg, game,
              last) -> None:
    """Decode every finished row (column ``i``'s rows ``0 .. bstart[i] - 1``) into the flat
    outputs at ``offsets[i]`` (column order, time order within a column), then move the
    rows of games still running to the front of their column. The buffer's arrays come one by
    one, not as a :class:`Buffer`: compiled with the named tuple, the stores to ``fill`` and
    ``start`` were dropped (numba 0.68; tests/test_vec.py's trajectory test catches it)."""
    n = bfill.shape[0]
    for i in prange(n):
        v = np.empty(G.N_FIELDS, dtype=np.int64)
        base = offsets[i]
        m = bstart[i]
        seen = 0
        cur = -1
        for t in range(m - 1, -1, -1):  # backwards: a seat's last decision in its game
            o = base + t
            g = bgame[t, i]
            if g != cur:
                cur = g
                seen = 0
            p = bseat[t, i]
            last[o] = ((seen >> p) & 1) == 0
            seen |= 1 << p
            unpack_view(bview[t, i], v)
            observe_into(v, p, obs[o])
            mask[o, :] = False
            _legal_into(v, mask[o])
            action[o] = bact[t, i]
            seat[o] = p
            rtg[o] = brtg[t, i]
            game[o] = g
        f = bfill[i]
        for t in range(m, f):
            for q in range(G.N_FIELDS):
                bview[t - m, i, q] = bview[t, i, q]
            bseat[t - m, i] = bseat[t, i]
            bact[t - m, i] = bact[t, i]
            bgame[t - m, i] = bgame[t, i]
            brtg[t - m, i] = 0.0
        bfill[i] = f - m
        bstart[i] = 0


__all__ += ["OBS_SIZE", "NUM_ACTIONS"]
