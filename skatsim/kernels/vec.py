"""Compiled kernels of the vectorised environment (:mod:`skatsim.vec`): n games in arrays.

Every game ``i`` is row ``i`` of an ``(n, N_FIELDS)`` state array, played by the state
machine of :mod:`skatsim.kernels.game` and observed by
:func:`skatsim.kernels.observe.observe_into` on the mover's masked view, so a game here
and the same game through ``SkatState`` agree move by move. The kernels are parallel over
games (``prange``); a game's work depends only on its own row, and the only serial part
(numbering the next deals in slot order) is a plain loop, so results do not depend on
the thread count.

Per game arrays (all owned by :class:`skatsim.vec.VecEnv`):

- ``st (n, N_FIELDS)``, ``view (n, N_FIELDS)`` (scratch for masked views);
- ``deal_seed (n,)``, ``deal_index (n,)`` (index in the run's seed stream, -1 for an
  explicit seed), ``serial (n,)`` (a number per game started in the environment);
- ``rng (n, 3)``: the seat streams ``seat_stream(deal_seed, seat)`` the compiled policies
  (and :func:`random_actions`) draw from, exactly as ``simulate`` does;
- ``hist (n, MAX_ACTIONS)`` int16 actions of the current deal, ``hmeta`` int8
  ``player | phase << 2`` per action, ``nact (n,)``;
- ``ctrl (n, 3)``: who plays each seat: ``-1`` the caller (Python), ``c >= 0`` row ``c`` of
  the policy table ``pol_pid (k,)`` / ``pol_params (k, PARAMS_SIZE)`` (built-in policies of
  :mod:`skatsim.kernels.policies`, played inside the step);
- outputs: ``obs (n, OBS_SIZE)`` float32, ``mask (n, NUM_ACTIONS)`` bool, ``to_move (n,)``,
  ``done (n,)``, ``rew (n, 3)`` float64, ``results (n,)`` RESULT_DTYPE, ``rbuf (n, N_RESULT)``.

The trajectory buffer (``b*`` arrays, ``(T, n, ...)``) stores each recorded decision as the
mover's masked view packed into ``int32`` (:func:`pack_view`: 208 bytes a row instead of
the 2,426 of an observation and its mask), with seat, action and game serial; the reward-to-go
is written when the game ends, and :func:`take_rows` decodes finished rows into
observation tensors and masks.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..actions import NUM_ACTIONS
from ..bits import lsb, rand_below, seat_stream
from ..deal import deal_masks
from . import game as G
from .observe import OBS_SIZE, observe_into
from .policies import POLICY_RANDOM, act
from .simulate import _store, deal_seed_of

__all__ = ["REWARD_SF", "REWARD_ZERO_SUM", "REWARD_LIST", "EXTERNAL", "MASK_FIELDS", "step_kernel",
           "reset_kernel", "observe_kernel", "random_actions", "sample_masks", "take_rows", "pack_view", "unpack_view"]

REWARD_SF, REWARD_ZERO_SUM, REWARD_LIST = 0, 1, 2
EXTERNAL = -1  # ctrl entry of a seat played by the caller

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
def _deal(st, rng, nact, deal_seed, i, options) -> None:
    ds = deal_seed[i]
    h0, h1, h2, sk, _ = deal_masks(ds)
    G.init_state(st[i], h0, h1, h2, sk, options)
    for s in range(3):
        rng[i, s] = seat_stream(ds, s)
    nact[i] = 0


@njit(cache=True)
def _autoplay(st, rng, ctrl, pol_pid, pol_params, hist, hmeta, nact, i) -> None:
    """Play game ``i``'s compiled seats until a caller's seat is to move or the game ends
    (the loop of ``kernels.simulate.play_deal``: the same draws from the same streams)."""
    s = st[i]
    k = nact[i]
    while s[G.F_PHASE] != G.PH_DONE:
        p = s[G.F_PLAYER]
        c = ctrl[i, p]
        if c < 0:
            break
        pid = pol_pid[c]
        r = rng[i, p]
        if pid == POLICY_RANDOM:
            a, r = G.random_action(s, r)
        else:  # a built-in policy: its view is the row masked in place (no 52-field copy)
            saved = G.mask_in_place(s, p)
            a, r = act(pid, s, p, pol_params[c], r)
            G.unmask(s, saved)
        rng[i, p] = r
        hist[i, k] = a
        hmeta[i, k] = p | (s[G.F_PHASE] << 2)
        G.apply_action(s, a)
        k += 1
    nact[i] = k


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
def _finish(st, rbuf, results, deal_index, deal_seed, nact, kind, rew, done, i,
            rec, bseat, brtg, bfill, bstart) -> None:
    r = rbuf[i]
    G.result_fields(st[i], r)
    _store(results, i, deal_index[i], deal_seed[i], r, nact[i])
    _rewards(r, kind, rew, i)
    done[i] = True
    if rec:
        for t in range(bstart[i], bfill[i]):
            brtg[t, i] = np.float32(rew[i, bseat[t, i]])
        bstart[i] = bfill[i]


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
def _emit(st, view, obs, mask, to_move, i) -> None:
    """Observation tensor and legal mask of game ``i``'s mover, from its masked view."""
    s = st[i]
    p = s[G.F_PLAYER]
    to_move[i] = p
    m = mask[i]
    m[:] = False
    o = obs[i]
    if p < 0:
        o[:] = 0.0
        return
    v = view[i]
    G.mask_view(s, p, v)
    observe_into(v, p, o)
    _legal_into(v, m)


# ----------------------------------------------------------------------------- kernels
# The kernels are loops over games of per-game functions; ``skatsim.vec`` runs small batches
# on one numba thread (no thread-pool wake-ups), large ones on the threads asked for.


@njit(cache=True, inline='always')
def _apply_one(st, view, actions, deal_seed, deal_index, serial, kind, rng, hist, hmeta, nact, ctrl, pol_pid,
               pol_params, done, rew, results, rbuf, rec, rec_seat, bview, bseat, bact, bgame, brtg, bfill, bstart,
               i) -> None:
    done[i] = False
    for s in range(3):
        rew[i, s] = 0.0
    s_ = st[i]
    if s_[G.F_PHASE] == G.PH_DONE:
        return
    p = s_[G.F_PLAYER]
    a = actions[i]
    if rec and rec_seat[p]:
        f = bfill[i]
        if f < bview.shape[0]:
            G.mask_view(s_, p, view[i])
            pack_view(view[i], bview[f, i])
            bseat[f, i] = p
            bact[f, i] = a
            bgame[f, i] = serial[i]
            bfill[i] = f + 1
    k = nact[i]
    hist[i, k] = a
    hmeta[i, k] = p | (s_[G.F_PHASE] << 2)
    nact[i] = k + 1
    G.apply_action(s_, a)
    _autoplay(st, rng, ctrl, pol_pid, pol_params, hist, hmeta, nact, i)
    if s_[G.F_PHASE] == G.PH_DONE:
        _finish(st, rbuf, results, deal_index, deal_seed, nact, kind, rew, done, i, rec, bseat, brtg, bfill, bstart)


@njit(cache=True, inline='always')
def _renumber(done, deal_seed, deal_index, serial, counters, smul) -> None:
    """Number the next deals for the finished games in slot order (serial: thread-independent)."""
    nxt = counters[0]
    ser = counters[1]
    for i in range(done.shape[0]):
        if done[i]:
            deal_index[i] = nxt
            deal_seed[i] = deal_seed_of(smul, nxt)
            serial[i] = ser
            nxt += 1
            ser += 1
    counters[0] = nxt
    counters[1] = ser


@njit(cache=True, inline='always')
def _refresh_one(st, view, deal_seed, options, auto_reset, rng, hist, hmeta, nact, ctrl, pol_pid, pol_params,
                 obs, mask, to_move, done, last_hist, last_nact, i) -> None:
    if auto_reset and done[i]:
        k = nact[i]
        last_nact[i] = k
        for j in range(k):
            last_hist[i, j] = hist[i, j]
        _deal(st, rng, nact, deal_seed, i, options)
        _autoplay(st, rng, ctrl, pol_pid, pol_params, hist, hmeta, nact, i)
    _emit(st, view, obs, mask, to_move, i)


@njit(cache=True, parallel=True)
def step_kernel(st, view, actions, ok, deal_seed, deal_index, serial, counters, smul, options, kind, auto_reset,
                rng, hist, hmeta, nact, ctrl, pol_pid, pol_params,
                obs, mask, to_move, done, rew, results, rbuf, last_hist, last_nact,
                rec, rec_seat, bview, bseat, bact, bgame, brtg, bfill, bstart):
    """One action per game for the seat to move (ignored in finished games), then the
    compiled seats, settlement, auto-reset (``auto_reset``) and the new observations.

    Every action is checked first: if any is illegal nothing changes and the index of the
    first such game is returned (else -1). ``counters = [next deal index, next serial]``.
    """
    n = st.shape[0]
    for i in prange(n):
        ok[i] = st[i, G.F_PHASE] == G.PH_DONE or G.is_legal(st[i], actions[i])
    for i in range(n):
        if not ok[i]:
            return i
    for i in prange(n):
        _apply_one(st, view, actions, deal_seed, deal_index, serial, kind, rng, hist, hmeta, nact, ctrl, pol_pid,
                   pol_params, done, rew, results, rbuf, rec, rec_seat, bview, bseat, bact, bgame, brtg, bfill,
                   bstart, i)
    if auto_reset:
        _renumber(done, deal_seed, deal_index, serial, counters, smul)
    for i in prange(n):
        _refresh_one(st, view, deal_seed, options, auto_reset, rng, hist, hmeta, nact, ctrl, pol_pid, pol_params,
                     obs, mask, to_move, done, last_hist, last_nact, i)
    return -1



@njit(cache=True, parallel=True)
def reset_kernel(games, st, view, deal_seed, deal_index, serial, options, kind,
                 rng, hist, hmeta, nact, ctrl, pol_pid, pol_params,
                 obs, mask, to_move, done, rew, results, rbuf, rec, bseat, brtg, bfill, bstart) -> None:
    """Deal games ``games`` afresh (their ``deal_seed`` / ``deal_index`` / ``serial`` set by the
    caller), play their compiled seats, and settle those that end before a caller's seat moves
    (all seats compiled). An in-flight game's buffered rows are dropped."""
    for j in prange(games.shape[0]):
        i = games[j]
        done[i] = False
        for s in range(3):
            rew[i, s] = 0.0
        if rec:
            bfill[i] = bstart[i]
        _deal(st, rng, nact, deal_seed, i, options)
        _autoplay(st, rng, ctrl, pol_pid, pol_params, hist, hmeta, nact, i)
        if st[i, G.F_PHASE] == G.PH_DONE:
            _finish(st, rbuf, results, deal_index, deal_seed, nact, kind, rew, done, i,
                    rec, bseat, brtg, bfill, bstart)
        _emit(st, view, obs, mask, to_move, i)



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
def take_rows(bview, bseat, bact, bgame, brtg, bfill, bstart, offsets,
              obs, mask, action, seat, rtg, game, last) -> None:
    """Decode every finished row (column ``i``'s rows ``0 .. bstart[i] - 1``) into the flat
    outputs at ``offsets[i]`` (column order, time order within a column), then move the
    rows of games still running to the front of their column."""
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
