"""What one player may know: named fields plus one flat float32 tensor.

``SkatState.observation(player)`` returns an :class:`Observation`. Its ``fields``
are readable (``CardSet``s, seats, ISS contract tokens); its ``tensor`` is a flat
``float32`` array of size :data:`OBS_SIZE` laid out as :data:`OBS_LAYOUT`
(name, size) parts in order, and ``views`` are named slices of that tensor.

Hidden information never leaks: other hands are absent, the skat is shown only to
a declarer who picked it up (his discards only to him), an ouvert declarer's cards
are shown to everybody.

==============  ====  =============================================================
part            size  meaning
==============  ====  =============================================================
seat            3     one-hot: the observing seat (0 forehand, 1 middle, 2 rear)
phase           7     one-hot: bidding skat discard declare kontra play done
to_move         3     one-hot: the seat to act (zeros at the end)
hand            32    the observer's cards (card id = bit)
bid_level       64    one-hot: 0 = no bid yet, i + 1 = ``BID_VALUES[i]``
seat_bids       3     highest value each seat named or held, / 264
passed          3     seats that passed in the bidding
declarer        3     one-hot once the bidding is over
game            7     one-hot game type D H S C G N R(amsch) once declared
flags           5     hand, schneider announced, schwarz announced, ouvert, skat picked up
kontra          2     kontra said, re said
skat            32    the skat as found by a declarer who picked it up (observer = declarer)
discard         32    the declarer's discards (observer = declarer)
ouvert_hand     32    the declarer's remaining cards in an ouvert game
played          96    cards played so far, 32 per seat
trick_leader    3     one-hot leader of the trick in progress (play phase)
trick           96    cards of the trick in progress, 32 per position (leader first)
points          3     trick card points won per seat, / 120
tricks_won      3     tricks won per seat, / 10
==============  ====  =============================================================

>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=1)
>>> obs = s.observation(0)
>>> obs.tensor.shape, obs.tensor.dtype, OBS_SIZE
((429,), dtype('float32'), 429)
>>> int(obs.views["hand"].sum()), obs.fields["phase"], obs.fields["legal_actions"]
(10, 'bidding', [])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .actions import BID_BASE, HOLD, PASS, action_to_string
from .cards import CardSet, card_name
from .contracts import BID_VALUES, HAND, OUVERT, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED
from .kernels import game as K

if TYPE_CHECKING:
    from .state import SkatState

__all__ = ["OBS_LAYOUT", "OBS_SIZE", "OBS_OFFSETS", "Observation", "observe"]

OBS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("seat", 3), ("phase", 7), ("to_move", 3), ("hand", 32), ("bid_level", 64), ("seat_bids", 3),
    ("passed", 3), ("declarer", 3), ("game", 7), ("flags", 5), ("kontra", 2), ("skat", 32),
    ("discard", 32), ("ouvert_hand", 32), ("played", 96), ("trick_leader", 3), ("trick", 96),
    ("points", 3), ("tricks_won", 3),
)


def _offsets() -> dict[str, slice]:
    out, pos = {}, 0
    for name, size in OBS_LAYOUT:
        out[name] = slice(pos, pos + size)
        pos += size
    return out


#: Slice of each named part in the tensor.
OBS_OFFSETS: dict[str, slice] = _offsets()
OBS_SIZE: int = sum(size for _, size in OBS_LAYOUT)
_CARD_BITS = np.arange(32, dtype=np.int64)


def _put_mask(t: np.ndarray, start: int, mask: int) -> None:
    if mask:
        t[start:start + 32] = (mask >> _CARD_BITS) & 1


@dataclass
class Observation:
    """One player's view: readable ``fields``, the flat ``tensor`` and its named ``views``."""

    player: int
    fields: dict[str, Any]
    tensor: np.ndarray
    views: dict[str, np.ndarray] = field(repr=False, default_factory=dict)

    @property
    def legal_actions(self) -> list[int]:
        return self.fields["legal_actions"]

    def __str__(self) -> str:
        f = self.fields
        parts = [f"seat {self.player}", f"phase {f['phase']}", f"hand {f['hand']}"]
        if f["bids"]:
            parts.append("bids " + " ".join(f"{p}:{a}" for p, a in f["bids"]))
        if f["declarer"] is not None:
            parts.append(f"declarer {f['declarer']} contract {f['contract'] or '-'} bid {f['bid']}")
        if f["skat"] is not None:
            parts.append(f"skat {f['skat']}")
        if f["ouvert_hand"] is not None:
            parts.append(f"ouvert {f['ouvert_hand']}")
        if f["current_trick"]:
            parts.append("trick " + " ".join(card_name(c) for c in f["current_trick"]))
        parts.append(f"points {f['points']}")
        return " | ".join(parts)


def observe(state: "SkatState", player: int) -> Observation:
    """Build ``player``'s observation of ``state`` (see the module table)."""
    if player not in (0, 1, 2):
        raise ValueError(f"player must be a seat 0, 1 or 2, got {player!r}")
    st = state._st
    t = np.zeros(OBS_SIZE, dtype=np.float32)
    o = OBS_OFFSETS
    phase = int(st[K.F_PHASE])
    to_move = int(st[K.F_PLAYER])
    declarer = int(st[K.F_DECLARER])
    game = int(st[K.F_GAME])
    flags = int(st[K.F_FLAGS])
    picked = bool(st[K.F_PICKED])
    hand = int(st[K.F_HAND0 + player])

    t[o["seat"].start + player] = 1
    t[o["phase"].start + phase] = 1
    if to_move >= 0:
        t[o["to_move"].start + to_move] = 1
    _put_mask(t, o["hand"].start, hand)

    # bidding (public)
    bids: list[tuple[int, str]] = []
    seat_bid = [0, 0, 0]
    passed = [False, False, False]
    current = 0
    kontra: list[tuple[int, str]] = []
    for p, a, ph in state.phase_history():
        if ph == "bidding":
            if a == PASS:
                passed[p] = True
            elif a != HOLD:
                current = BID_VALUES[a - BID_BASE]
            seat_bid[p] = max(seat_bid[p], 0 if a == PASS else current)
            bids.append((p, action_to_string(a)))
        elif ph == "kontra":
            kontra.append((p, action_to_string(a)))
    bid = int(st[K.F_BID])
    t[o["bid_level"].start + (BID_VALUES.index(bid) + 1 if bid else 0)] = 1
    for s in range(3):
        t[o["seat_bids"].start + s] = seat_bid[s] / 264.0
        t[o["passed"].start + s] = passed[s]
    if declarer >= 0:
        t[o["declarer"].start + declarer] = 1
    if game >= 0 and phase >= K.PH_KONTRA:
        t[o["game"].start + game] = 1
    fl = o["flags"].start
    t[fl + 0] = bool(flags & HAND) or (declarer >= 0 and phase > K.PH_SKAT and not picked)
    t[fl + 1] = bool(flags & SCHNEIDER_ANNOUNCED)
    t[fl + 2] = bool(flags & SCHWARZ_ANNOUNCED)
    t[fl + 3] = bool(flags & OUVERT)
    t[fl + 4] = picked
    kk = int(st[K.F_KONTRA])
    t[o["kontra"].start] = kk >= 1
    t[o["kontra"].start + 1] = kk >= 2

    skat_seen = discard = ouvert = None
    if player == declarer and picked:
        skat_seen = state.deal.skat
        _put_mask(t, o["skat"].start, skat_seen.mask)
        if phase > K.PH_DISCARD:
            discard = CardSet.from_mask(int(st[K.F_SKAT]))
            _put_mask(t, o["discard"].start, discard.mask)
    if declarer >= 0 and flags & OUVERT and phase >= K.PH_KONTRA:
        ouvert = CardSet.from_mask(int(st[K.F_HAND0 + declarer]))
        _put_mask(t, o["ouvert_hand"].start, ouvert.mask)
    for s in range(3):
        _put_mask(t, o["played"].start + 32 * s, int(st[K.F_PLAYED0 + s]))
    trick = state.current_trick() if phase == K.PH_PLAY else []
    if phase == K.PH_PLAY:
        t[o["trick_leader"].start + int(st[K.F_LEADER])] = 1
        for i, c in enumerate(trick):
            t[o["trick"].start + 32 * i + c] = 1
    pts = state.points()
    won = state.tricks_won()
    for s in range(3):
        t[o["points"].start + s] = pts[s] / 120.0
        t[o["tricks_won"].start + s] = won[s] / 10.0

    contract = state.contract
    fields: dict[str, Any] = {
        "seat": player,
        "phase": K.PHASE_NAMES[phase],
        "to_move": None if to_move < 0 else to_move,
        "hand": CardSet.from_mask(hand),
        "bids": bids,
        "bid": bid,
        "passed": [s for s in range(3) if passed[s]],
        "declarer": None if declarer < 0 else declarer,
        "contract": contract.to_text() if contract is not None and phase >= K.PH_KONTRA else None,
        "game_type": game if game >= 0 and phase >= K.PH_KONTRA else None,
        "skat_picked_up": picked,
        "skat": skat_seen,
        "discard": discard,
        "ouvert_hand": ouvert,
        "kontra": kontra,
        "tricks": state.tricks(),
        "trick_leader": int(st[K.F_LEADER]) if phase == K.PH_PLAY else None,
        "current_trick": trick,
        "points": pts,
        "tricks_won": won,
        "legal_actions": state.legal_actions() if to_move == player else [],
    }
    views = {name: t[sl] for name, sl in o.items()}
    return Observation(player, fields, t, views)
