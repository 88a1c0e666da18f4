"""Compiled observation encoder: a seat's view of a state vector as a flat float32 tensor.

:func:`observe_into` writes the tensor of :data:`OBS_LAYOUT` straight from a state
vector (the public auction, the voids and the trick are kept there), so it needs no
history replay; ``SkatState.observation``, :func:`encode_records` (a batch of
``simulate`` records) and the vectorised environment (:mod:`skatsim.kernels.vec`) all call
it: one encoder. Every caller passes the seat's *masked view*
(:func:`skatsim.kernels.game.mask_view`), never the full vector, so the encoder cannot
read a hidden card even if it tried; the tensor of the view equals that of the full vector
(tested). The layout table is in :mod:`skatsim.observation`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..actions import NUM_ACTIONS
from ..bits import lsb
from ..cards import SUIT_MASKS
from ..contracts import BID_VALUES, HAND, OUVERT, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED
from ..deal import deal_masks
from ..rules import TRUMP_MASKS
from . import game as G

__all__ = ["OBS_LAYOUT", "OBS_SIZE", "observe_into", "encode_records", "SUIT_CLASSES"]

OBS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("seat", 3), ("phase", 7), ("to_move", 3), ("hand", 32), ("bid_level", 64), ("seat_bids", 3),
    ("passed", 3), ("declarer", 3), ("game", 7), ("flags", 5), ("kontra", 2), ("skat", 32),
    ("discard", 32), ("ouvert_hand", 32), ("played", 96), ("voids", 15), ("trick_leader", 3),
    ("trick", 96), ("points", 3), ("tricks_won", 3), ("legal", NUM_ACTIONS),
)
OBS_SIZE: int = sum(n for _, n in OBS_LAYOUT)
#: Where each part of :data:`OBS_LAYOUT` sits in the tensor (computed once, here).
OBS_OFFSETS: dict[str, slice] = {}
_pos = 0
for _name, _n in OBS_LAYOUT:
    OBS_OFFSETS[_name] = slice(_pos, _pos + _n)
    _pos += _n
(O_SEAT, O_PHASE, O_TO_MOVE, O_HAND, O_BID_LEVEL, O_SEAT_BIDS, O_PASSED, O_DECLARER, O_GAME, O_FLAGS,
 O_KONTRA, O_SKAT, O_DISCARD, O_OUVERT, O_PLAYED, O_VOIDS, O_TRICK_LEADER, O_TRICK, O_POINTS, O_TRICKS,
 O_LEGAL) = (OBS_OFFSETS[n].start for n, _ in OBS_LAYOUT)

_TOP_BID = float(BID_VALUES[-1])


def _suit_classes() -> np.ndarray:
    """SUIT_CLASSES[g, k]: card mask of effective suit k (0..3 plain D H S C, 4 trumps) in game g."""
    out = np.zeros((7, 5), dtype=np.int64)
    for g in range(7):
        tm = TRUMP_MASKS[g]
        for s in range(4):
            out[g, s] = SUIT_MASKS[s] & ~tm
        out[g, 4] = tm
    out.setflags(write=False)
    return out


SUIT_CLASSES = _suit_classes()


@njit(cache=True, inline='always')
def _put_mask(out, off, mask) -> None:
    m = mask
    while m:
        out[off + lsb(m)] = 1.0
        m &= m - 1


@njit(cache=True)
def observe_into(st, seat, out) -> None:
    """Write ``seat``'s observation into ``out`` (float32[OBS_SIZE]); ``st`` is ``seat``'s
    masked view (:func:`skatsim.kernels.game.mask_view`) of the state vector."""
    out[:] = 0.0
    phase = st[G.F_PHASE]
    to_move = st[G.F_PLAYER]
    d = st[G.F_DECLARER]
    g = st[G.F_GAME]
    flags = st[G.F_FLAGS]
    picked = st[G.F_PICKED] != 0
    out[O_SEAT + seat] = 1.0
    out[O_PHASE + phase] = 1.0
    if to_move >= 0:
        out[O_TO_MOVE + to_move] = 1.0
    _put_mask(out, O_HAND, st[G.F_HAND0 + seat])
    out[O_BID_LEVEL + st[G.F_BID_IDX] + 1] = 1.0
    for s in range(3):
        out[O_SEAT_BIDS + s] = st[G.F_BIDVAL0 + s] / _TOP_BID
        out[O_PASSED + s] = (st[G.F_PASSED] >> s) & 1
    if d >= 0:
        out[O_DECLARER + d] = 1.0
    declared = g >= 0 and phase >= G.PH_KONTRA
    if declared:
        out[O_GAME + g] = 1.0
    out[O_FLAGS + 0] = 1.0 if ((flags & HAND) != 0 or (d >= 0 and phase > G.PH_SKAT and not picked)) else 0.0
    out[O_FLAGS + 1] = 1.0 if (flags & SCHNEIDER_ANNOUNCED) != 0 else 0.0
    out[O_FLAGS + 2] = 1.0 if (flags & SCHWARZ_ANNOUNCED) != 0 else 0.0
    out[O_FLAGS + 3] = 1.0 if (flags & OUVERT) != 0 else 0.0
    out[O_FLAGS + 4] = 1.0 if picked else 0.0
    out[O_KONTRA] = 1.0 if st[G.F_KONTRA] >= 1 else 0.0
    out[O_KONTRA + 1] = 1.0 if st[G.F_KONTRA] >= 2 else 0.0
    if seat == d and picked:
        _put_mask(out, O_SKAT, st[G.F_DEALT_SKAT])
        if phase > G.PH_DISCARD:
            _put_mask(out, O_DISCARD, st[G.F_SKAT])
    if d >= 0 and (flags & OUVERT) != 0 and declared:
        _put_mask(out, O_OUVERT, st[G.F_HAND0 + d])
    for s in range(3):
        _put_mask(out, O_PLAYED + 32 * s, st[G.F_PLAYED0 + s])
    if g >= 0:
        for s in range(3):
            v = st[G.F_VOID0 + s]
            for k in range(5):
                if v & SUIT_CLASSES[g, k]:
                    out[O_VOIDS + 5 * s + k] = 1.0
    if phase == G.PH_PLAY:
        out[O_TRICK_LEADER + st[G.F_LEADER]] = 1.0
        for i in range(st[G.F_NCARDS]):
            out[O_TRICK + 32 * i + st[G.F_TRICK0 + i]] = 1.0
    for s in range(3):
        out[O_POINTS + s] = st[G.F_POINTS0 + s] / 120.0
        out[O_TRICKS + s] = st[G.F_TRICKS0 + s] / 10.0
    if to_move == seat:
        base, lo, hi = G.legal_set(st)
        for i in range(32):
            if (lo >> i) & 1:
                out[O_LEGAL + base + i] = 1.0
            if (hi >> i) & 1:
                out[O_LEGAL + base + 32 + i] = 1.0


@njit(cache=True, parallel=True)
def encode_records(deal_seeds, actions, steps, seats, options, out, at_step) -> None:
    """Observations of a batch of recorded deals (``simulate(..., record_actions=True)``).

    Row ``i``: deal ``deal_seeds[i]`` replayed through its actions ``actions[i]`` up to
    ``steps[i]`` actions (``-1``: up to the first decision of ``seats[i]``), then the
    observation of ``seats[i]`` goes to ``out[i]``; ``at_step[i]`` receives the number of
    actions replayed (``-1`` if that point is never reached, ``-2`` if the record holds an
    action that is illegal there: wrong deal seed or rules).
    """
    for i in prange(out.shape[0]):
        st = np.zeros(G.N_FIELDS, dtype=np.int64)
        view = np.empty(G.N_FIELDS, dtype=np.int64)
        h0, h1, h2, sk, _ = deal_masks(deal_seeds[i])
        G.init_state(st, h0, h1, h2, sk, options)
        seat = seats[i]
        k = 0
        target = steps[i]
        ok = True
        while True:
            if target >= 0 and k == target:
                break
            if target < 0 and st[G.F_PLAYER] == seat:
                break
            a = actions[i, k] if k < actions.shape[1] else -1
            if st[G.F_PHASE] == G.PH_DONE or a < 0:
                ok = target >= 0 and k == target
                break
            if not G.is_legal(st, a):  # not this deal's record (or other rules): stop
                k = -2
                ok = True
                break
            G.apply_action(st, a)
            k += 1
        at_step[i] = k if ok else -1
        G.mask_view(st, seat, view)
        observe_into(view, seat, out[i])
