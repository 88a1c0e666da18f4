"""What one seat may know: typed fields, a masked state vector and one flat float32 tensor.

``SkatState.observation(seat)`` returns an :class:`Observation`: readable attributes
(``CardSet`` s, seats, ISS contract tokens), the seat's masked state vector ``view`` (what
jitted policies read; :func:`skatsim.kernels.game.mask_view`), and a flat ``float32``
``tensor`` of size :data:`OBS_SIZE` laid out as :data:`OBS_LAYOUT` (name, size) parts in
order, with named slices in ``views``. The tensor is written by the compiled encoder
:func:`skatsim.kernels.observe.observe_into`, which also encodes whole batches of
simulated deals (:func:`encode_records`), and :func:`decode_tensor` reads it back.

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
voids           15    per seat, shown void in plain diamonds, hearts, spades, clubs, trumps
trick_leader    3     one-hot leader of the trick in progress (play phase)
trick           96    cards of the trick in progress, 32 per position (leader first)
points          3     trick card points won per seat, / 120
tricks_won      3     tricks won per seat, / 10
legal           130   the legal-action mask (all zero unless the observer is to move)
==============  ====  =============================================================

>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=1)
>>> obs = s.observation(0)
>>> obs.tensor.shape, obs.tensor.dtype, OBS_SIZE
((574,), dtype('float32'), 574)
>>> int(obs.views["hand"].sum()), obs.phase, obs.legal_actions
(10, 'bidding', ())
>>> decode_tensor(obs.tensor)["hand"] == obs.hand
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .actions import NUM_ACTIONS, action_to_string
from .cards import CardSet, card_name
from .contracts import BID_VALUES, OUVERT, Contract
from .kernels import game as K
from .kernels.observe import OBS_LAYOUT, OBS_OFFSETS, OBS_SIZE, observe_into
from .kernels.observe import encode_records as _encode_records
from .options import ISKO, SkatRules

if TYPE_CHECKING:
    from .state import SkatState

__all__ = ["OBS_LAYOUT", "OBS_SIZE", "OBS_OFFSETS", "Observation", "observe", "build_observation",
           "decode_tensor", "encode_records"]




#: Slice of each named part in the tensor.
_PHASES = K.PHASE_NAMES


@dataclass(frozen=True)
class Observation:
    """One seat's view of the game. Everything here is what the seat may know.

    ``view`` is the masked state vector (read-only ``int64``; fields ``F_*`` of
    :mod:`skatsim.kernels.game`), ``tensor`` the flat encoding (:data:`OBS_LAYOUT`) and
    ``views`` its named slices. ``legal_actions`` is empty unless the seat is to move.
    It is read-only throughout (frozen, tuples, read-only arrays and mapping): an agent
    cannot change what the table checks its answer against. ``kontra`` lists every
    Kontra-phase call, passes included (the doubling level is ``len`` of the non-passes).
    """

    seat: int
    phase: str
    to_move: int | None
    hand: CardSet
    legal_actions: tuple[int, ...]
    bids: tuple[tuple[int, str], ...]
    bid: int
    passed: tuple[int, ...]
    declarer: int | None
    contract: str | None
    game_type: int | None
    skat_picked_up: bool
    skat: CardSet | None
    discard: CardSet | None
    ouvert_hand: CardSet | None
    kontra: tuple[tuple[int, str], ...]
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]
    trick_leader: int | None
    current_trick: tuple[int, ...]
    points: tuple[int, ...]
    tricks_won: tuple[int, ...]
    voids: tuple[int, int, int]
    view: np.ndarray = field(repr=False)
    tensor: np.ndarray = field(repr=False)
    views: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    @property
    def player(self) -> int:
        """Alias of :attr:`seat` (OpenSpiel's name)."""
        return self.seat

    @property
    def legal_mask(self) -> np.ndarray:
        """Boolean legal-action mask of size ``NUM_ACTIONS`` (130)."""
        return self.views["legal"] > 0

    def to_dict(self) -> dict[str, Any]:
        """The readable fields as a dict (no arrays)."""
        return {"seat": self.seat, "phase": self.phase, "to_move": self.to_move, "hand": self.hand,
                "bids": self.bids, "bid": self.bid, "passed": self.passed, "declarer": self.declarer,
                "contract": self.contract, "game_type": self.game_type, "skat_picked_up": self.skat_picked_up,
                "skat": self.skat, "discard": self.discard, "ouvert_hand": self.ouvert_hand,
                "kontra": self.kontra, "tricks": self.tricks, "trick_leader": self.trick_leader,
                "current_trick": self.current_trick, "points": self.points, "tricks_won": self.tricks_won,
                "voids": [CardSet.from_mask(v) for v in self.voids], "legal_actions": self.legal_actions}

    @property
    def fields(self) -> dict[str, Any]:
        """Same as :meth:`to_dict` (kept for code written against the earlier dict API)."""
        return self.to_dict()

    def __str__(self) -> str:
        parts = [f"seat {self.seat}", f"phase {self.phase}", f"hand {self.hand}"]
        if self.bids:
            parts.append("bids " + " ".join(f"{p}:{a}" for p, a in self.bids))
        if self.declarer is not None:
            parts.append(f"declarer {self.declarer} contract {self.contract or '-'} bid {self.bid}")
        if self.skat is not None:
            parts.append(f"skat {self.skat}")
        if self.discard is not None:
            parts.append(f"discard {self.discard}")
        if self.ouvert_hand is not None:
            parts.append(f"ouvert {self.ouvert_hand}")
        if self.kontra:
            parts.append("kontra " + " ".join(f"{p}:{a}" for p, a in self.kontra))
        if self.current_trick:
            parts.append("trick " + " ".join(card_name(c) for c in self.current_trick))
        if any(self.voids):
            parts.append("voids " + " ".join(f"{s}:{CardSet.from_mask(v).to_text() or '-'}"
                                             for s, v in enumerate(self.voids)))
        parts.append(f"points {list(self.points)}")
        if self.legal_actions:
            shown = [action_to_string(a) for a in self.legal_actions]
            listed = " ".join(shown) if len(shown) <= 12 else " ".join(shown[:6]) + f" ... ({len(shown)})"
            parts.append("legal " + listed)
        return " | ".join(parts)


def observe(state: "SkatState", seat: int) -> Observation:
    """Build ``seat``'s observation of ``state`` (see the module table)."""
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or seat not in (0, 1, 2):
        raise ValueError(f"expected seat 0, 1 or 2, got {seat!r}")
    hist = state.phase_history()
    return build_observation(state.vector, int(seat), [a for _, a, _ in hist], [p for p, _, _ in hist],
                             [_PHASE_CODE[ph] for _, _, ph in hist])


_PHASE_CODE = {name: code for code, name in enumerate(K.PHASE_NAMES)}


def build_observation(st: np.ndarray, seat: int, actions: Sequence[int], players: Sequence[int],
                      phases: Sequence[int]) -> Observation:
    """``seat``'s :class:`Observation` of a state vector ``st`` and the game's action history
    (``actions``, the seat that took each, and the phase it was taken in: ``PH_*`` codes of
    :mod:`skatsim.kernels.game`), as ``SkatState.observation(seat)`` gives it: the same object
    for the same game. Every field is read from the seat's masked view
    (:func:`skatsim.kernels.game.mask_view`) and the public parts of the history (the bidding,
    Kontra/Re, the cards played); the discards in ``actions`` are never read. This is how the
    vectorised environment hands a typed observation to a Python agent without a ``SkatState``.

    >>> from skatsim import SkatState
    >>> s = SkatState.new_game(seed=4)
    >>> s.apply_action(s.legal_actions()[0])
    >>> h = s.phase_history()
    >>> o = build_observation(s.vector, 0, s.history(), [p for p, _, _ in h], [0 for _ in h])
    >>> str(o) == str(s.observation(0)), bool((o.tensor == s.observation(0).tensor).all())
    (True, True)
    """
    from .actions import action_ids
    from .rules import tricks_from_moves

    view = np.empty(K.N_FIELDS, dtype=np.int64)
    K.mask_view(st, seat, view)
    t = np.empty(OBS_SIZE, dtype=np.float32)
    observe_into(view, seat, t)  # the encoder reads the masked view only
    view.setflags(write=False)
    t.setflags(write=False)
    phase = int(view[K.F_PHASE])
    to_move = int(view[K.F_PLAYER])
    d = int(view[K.F_DECLARER])
    g = int(view[K.F_GAME])
    flags = int(view[K.F_FLAGS])
    picked = bool(view[K.F_PICKED])
    declared = g >= 0 and phase >= K.PH_KONTRA
    bids, kontra, moves = [], [], []
    for p, a, ph in zip(players, actions, phases):
        if ph == K.PH_BID:
            bids.append((int(p), action_to_string(int(a))))
        elif ph == K.PH_KONTRA:
            kontra.append((int(p), action_to_string(int(a))))
        elif ph == K.PH_PLAY:
            moves.append((int(p), int(a)))
    skat = discard = ouvert = None
    if seat == d and picked:
        skat = CardSet.from_mask(int(view[K.F_DEALT_SKAT]))
        if phase > K.PH_DISCARD:
            discard = CardSet.from_mask(int(view[K.F_SKAT]))
    if d >= 0 and flags & OUVERT and declared:
        ouvert = CardSet.from_mask(int(view[K.F_HAND0 + d]))
    contract = None
    if declared and g < 6:
        contract = Contract(g, flags).to_text()
    passed = tuple(s for s in range(3) if int(view[K.F_PASSED]) >> s & 1)
    legal = tuple(action_ids(*(int(x) for x in K.legal_set(view)))) if to_move == seat else ()
    n_cards = int(view[K.F_NCARDS])
    return Observation(
        seat=seat, phase=_PHASES[phase], to_move=None if to_move < 0 else to_move,
        hand=CardSet.from_mask(int(view[K.F_HAND0 + seat])),
        legal_actions=legal,
        bids=tuple(bids), bid=int(view[K.F_BID]), passed=passed, declarer=None if d < 0 else d,
        contract=contract, game_type=g if declared else None, skat_picked_up=picked, skat=skat,
        discard=discard, ouvert_hand=ouvert, kontra=tuple(kontra),
        tricks=tuple((leader, tuple(cards), w) for leader, cards, w in
                     tricks_from_moves(moves, int(view[K.F_LAST_WINNER]))),
        trick_leader=int(view[K.F_LEADER]) if phase == K.PH_PLAY else None,
        current_trick=tuple(int(view[K.F_TRICK0 + i]) for i in range(n_cards)) if phase == K.PH_PLAY else (),
        points=tuple(int(view[K.F_POINTS0 + s]) for s in range(3)),
        tricks_won=tuple(int(view[K.F_TRICKS0 + s]) for s in range(3)),
        voids=(int(view[K.F_VOID0]), int(view[K.F_VOID1]), int(view[K.F_VOID2])),
        view=view, tensor=t, views=MappingProxyType({name: t[sl] for name, sl in OBS_OFFSETS.items()}))


def _mask_of(part: np.ndarray) -> int:
    return int(sum(1 << int(i) for i in np.flatnonzero(part > 0)))


def decode_tensor(t: np.ndarray) -> dict[str, Any]:
    """Read an observation tensor back into readable fields (the inverse of the encoder,
    for the parts that are exactly recoverable; used by the tests to prove the tensor
    holds everything the fields say).

    Returns ``seat``, ``phase``, ``to_move``, ``hand``, ``bid``, ``seat_bids``, ``passed``,
    ``declarer``, ``game_type``, ``flags`` (dict), ``kontra`` (0/1/2), ``skat``, ``discard``,
    ``ouvert_hand``, ``played`` (3 CardSets), ``voids`` (per seat, the effective suits
    D H S C T shown void), ``trick_leader``, ``current_trick``, ``points``, ``tricks_won``,
    ``legal_actions``.
    """
    t = np.asarray(t)
    if t.shape != (OBS_SIZE,):
        raise ValueError(f"an observation tensor has shape ({OBS_SIZE},), got {t.shape}")
    v = {name: t[sl] for name, sl in OBS_OFFSETS.items()}

    def one(part: np.ndarray) -> int | None:
        idx = np.flatnonzero(part > 0)
        return int(idx[0]) if len(idx) else None

    lvl = one(v["bid_level"])
    trick = []
    for i in range(3):
        c = one(v["trick"][32 * i:32 * i + 32])
        if c is not None:
            trick.append(c)
    fl = v["flags"] > 0
    return {
        "seat": one(v["seat"]), "phase": _PHASES[one(v["phase"]) or 0], "to_move": one(v["to_move"]),
        "hand": CardSet.from_mask(_mask_of(v["hand"])),
        "bid": 0 if not lvl else BID_VALUES[lvl - 1],
        "seat_bids": [int(round(float(x) * BID_VALUES[-1])) for x in v["seat_bids"]],
        "passed": tuple(s for s in range(3) if v["passed"][s] > 0),
        "declarer": one(v["declarer"]), "game_type": one(v["game"]),
        "flags": {"hand": bool(fl[0]), "schneider_announced": bool(fl[1]), "schwarz_announced": bool(fl[2]),
                  "ouvert": bool(fl[3]), "skat_picked_up": bool(fl[4])},
        "kontra": int(v["kontra"][0] > 0) + int(v["kontra"][1] > 0),
        "skat": CardSet.from_mask(_mask_of(v["skat"])),
        "discard": CardSet.from_mask(_mask_of(v["discard"])),
        "ouvert_hand": CardSet.from_mask(_mask_of(v["ouvert_hand"])),
        "played": [CardSet.from_mask(_mask_of(v["played"][32 * s:32 * s + 32])) for s in range(3)],
        "voids": [["DHSCT"[k] for k in range(5) if v["voids"][5 * s + k] > 0] for s in range(3)],
        "trick_leader": one(v["trick_leader"]), "current_trick": tuple(trick),
        "points": tuple(int(round(float(x) * 120)) for x in v["points"]),
        "tricks_won": tuple(int(round(float(x) * 10)) for x in v["tricks_won"]),
        "legal_actions": tuple(int(i) for i in np.flatnonzero(v["legal"] > 0)),
    }


def encode_records(deal_seeds: Any, actions: np.ndarray, seats: Any, steps: Any = -1, *,
                   rules: SkatRules = ISKO, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Observation tensors of recorded deals, in one compiled parallel call.

    Args:
        deal_seeds: per row, the deal seed (``simulate`` rows' ``deal_seed``).
        actions: ``int16``/int array ``(n, k)`` of each deal's actions, -1 padded
            (``simulate(..., record_actions=True).attrs["actions"]``).
        seats: the observing seat per row (or one int for all).
        steps: per row (or one int): observe after this many actions; ``-1`` (default):
            at the seat's first decision (e.g. its first bidding decision).
        rules: the rules the deals were played under.
        out: optional ``float32`` array ``(n, OBS_SIZE)`` to fill.

    Returns ``(tensors, at_step)``: ``at_step[i]`` is the number of actions replayed for
    row ``i``, ``-1`` where the requested point was never reached.

    >>> from skatsim import simulate
    >>> df = simulate(100, seed=3, workers=1, record_actions=True)
    >>> x, at = encode_records(df["deal_seed"], df.attrs["actions"], seats=0)
    >>> x.shape, bool((at >= 1).all())        # forehand's first decision comes after middlehand's bid
    ((100, 574), True)
    """
    seeds = np.ascontiguousarray(np.asarray(deal_seeds, dtype=np.int64))
    n = len(seeds)
    acts = np.asarray(actions)
    if acts.ndim != 2 or acts.shape[0] != n:
        raise ValueError(f"actions must be a 2-d array with one row per deal ({n}), got shape {acts.shape}")
    acts = np.ascontiguousarray(acts, dtype=np.int64)
    if ((acts >= NUM_ACTIONS) | (acts < -1)).any():
        raise ValueError(f"actions must be action ids 0..{NUM_ACTIONS - 1} or -1 padding")
    seat_arr = np.ascontiguousarray(np.broadcast_to(np.asarray(seats, dtype=np.int64), (n,)))
    if ((seat_arr < 0) | (seat_arr > 2)).any():
        raise ValueError("seats must be 0, 1 or 2")
    step_arr = np.ascontiguousarray(np.broadcast_to(np.asarray(steps, dtype=np.int64), (n,)))
    if (step_arr < -1).any() or (step_arr > acts.shape[1]).any():
        raise ValueError(f"steps must be -1 (first decision) or 0..{acts.shape[1]}")
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    if out is None:
        out = np.empty((n, OBS_SIZE), dtype=np.float32)
    elif out.shape != (n, OBS_SIZE) or out.dtype != np.float32:
        raise ValueError(f"out must be float32 of shape ({n}, {OBS_SIZE})")
    at = np.empty(n, dtype=np.int64)
    _encode_records(seeds, acts, step_arr, seat_arr, rules.flags, out, at)
    bad = np.flatnonzero(at == -2)
    if bad.size:
        raise ValueError(f"row {int(bad[0])} (deal_seed {int(seeds[bad[0]])}): its actions are not legal on that "
                         f"deal under {rules!r}; pass the deal seeds, actions and rules of one simulate() run")
    return out, at
