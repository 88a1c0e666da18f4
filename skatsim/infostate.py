"""Information states: what a seat knows, and uniform sampling of the worlds consistent with it.

An :class:`InfoState` is built from a seat's masked view vector alone
(``InfoState.from_view(view, seat)``, ``InfoState.from_observation(obs)``): a
sampling-based player never needs the ``SkatState``. :func:`sample_worlds` draws card
holdings, uniformly among all worlds that agree with what the seat saw: its own cards,
every card played, the voids shown by not following suit, the skat pile of a declarer
who picked it up (his discards) and an ouvert declarer's hand. A world is one row of
four card masks: the hands of seats 0, 1, 2 and the skat pile. In a defender's worlds
the declarer's discards are hidden cards like any other (any two of his twelve).

Sampling is exact, not rejection-based, and jit-compiled (numba; microseconds for 32..160
worlds): hidden cards fall into classes by which holders may take them (the two other
hands, and the skat pile when it is hidden), the class counts are drawn with probability
proportional to the number of worlds they allow (products of binomials), then the cards
uniformly within classes. There is no replay of the history.

:func:`resample` backs ``SkatState.resample_from_infostate(player, rng)`` (the
OpenSpiel-compatible PIMC hook) on top: it samples one world and replays the history on
a deal that produces it.

>>> import numpy as np
>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=5)
>>> info = InfoState.from_state(s, 0)
>>> w = sample_worlds(info, 3, rng=1)
>>> w.shape, bool((w[:, 0] == s.hand_mask(0)).all()), info.hand_sizes, info.skat_size
((3, 4), True, (10, 10, 10), 2)
>>> t = s.resample_from_infostate(0, np.random.default_rng(1))
>>> t.hand(0) == s.hand(0), t.history() == s.history(), t.hand(1) == s.hand(1)
(True, True, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit

from .bits import iter_bits, nth_bit_mask, popcount, rand_below, seed_state
from .cards import ALL_CARDS
from .contracts import OUVERT
from .deal import deal_from_hands
from .kernels import game as K
from .rules import NULL, follow_mask

try:  # the one randomness convention (skatsim/_random.py)
    from ._random import check_random_state, to_seed
except ImportError:  # pragma: no cover - only while _random.py is being written
    def check_random_state(rng: Any) -> np.random.Generator:  # type: ignore[misc]
        if isinstance(rng, np.random.Generator):
            return rng
        if rng is None or isinstance(rng, (int, np.integer)):
            return np.random.default_rng(rng)
        raise TypeError(f"rng must be a numpy Generator, an int seed or None, got {type(rng).__name__}")

    def to_seed(seed: Any) -> int:  # type: ignore[misc]
        if isinstance(seed, np.random.Generator):
            return int(seed.integers(2**63 - 1))
        return int(check_random_state(seed).integers(2**63 - 1)) if seed is None else int(seed)

if TYPE_CHECKING:
    from .solver import Position
    from .state import SkatState

__all__ = ["InfoState", "sample_worlds", "void_masks", "known_mask", "resample", "check_random_state"]


# --------------------------------------------------------------------------- InfoState


class InfoState(NamedTuple):
    """What ``seat`` knows (card masks are ints; seats 0 forehand, 1 middle, 2 rear).

    Attributes:
        seat: whose information this is.
        phase: ``kernels.game.PH_*``; player: seat to move (-1: nobody).
        hand: the seat's own cards.
        played: cards each seat has played (the trick in progress included).
        voids: cards each seat has shown it cannot hold (it did not follow suit).
        hand_sizes: cards each seat holds now.
        skat_size: cards in the skat pile now (2, or the discards so far while the
            declarer discards).
        skat: the skat pile when the seat knows it (the declarer who picked up: his
            discards), else 0; skat_hidden: whether the pile is hidden from the seat.
        found_skat: the skat the declarer found on pickup (his information only), else 0.
        ouvert_hand: an ouvert declarer's hand, seen by the defenders (0 otherwise).
        game, flags, declarer: the contract (-1 / 0 / -1 before the declaration; game 6
            and declarer -1 in Ramsch); picked: the declarer picked up the skat.
        leader, trick: the current trick's leader and its cards so far.
        points, tricks: card points and tricks won per seat so far.
    """

    seat: int
    phase: int
    player: int
    hand: int
    played: tuple[int, int, int]
    voids: tuple[int, int, int]
    hand_sizes: tuple[int, int, int]
    skat_size: int
    skat: int
    skat_hidden: bool
    found_skat: int
    ouvert_hand: int
    game: int
    flags: int
    declarer: int
    picked: bool
    leader: int
    trick: tuple[int, ...]
    points: tuple[int, int, int]
    tricks: tuple[int, int, int]

    @classmethod
    def from_view(cls, view: Any, seat: int) -> "InfoState":
        """From ``seat``'s masked view vector (``kernels.game.mask_view``; ``obs.view``).
        Reads nothing the seat may not see, so an unmasked state vector gives the same."""
        if isinstance(seat, bool) or seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        v = [int(x) for x in np.asarray(view)[:K.N_FIELDS]]
        if len(v) < K.N_FIELDS:
            raise ValueError(f"a view vector has {K.N_FIELDS} fields, got {len(v)}")
        ph, d, g, flags = v[K.F_PHASE], v[K.F_DECLARER], v[K.F_GAME], v[K.F_FLAGS]
        picked = bool(v[K.F_PICKED]) and d >= 0
        hand = v[K.F_HAND0 + seat]
        played = (v[K.F_PLAYED0], v[K.F_PLAYED1], v[K.F_PLAYED2])
        voids = (v[K.F_VOID0], v[K.F_VOID1], v[K.F_VOID2])
        ouvert = 0
        if d >= 0 and d != seat and flags & OUVERT and ph >= K.PH_KONTRA:
            ouvert = v[K.F_HAND0 + d]
        discarding = ph == K.PH_DISCARD
        skat_size = v[K.F_DISCARDS] if discarding else 2
        skat_known = picked and seat == d
        sizes = []
        for q in range(3):
            if q == seat or (ouvert and q == d):
                sizes.append(popcount(v[K.F_HAND0 + q]))
            else:
                sizes.append(10 - popcount(played[q]) + (2 - skat_size if discarding and q == d else 0))
        if sizes[seat] != popcount(hand):  # pragma: no cover - a corrupt view
            raise ValueError(f"seat {seat} holds {popcount(hand)} cards, the view implies {sizes[seat]}")
        nt = v[K.F_NCARDS] if ph == K.PH_PLAY else 0
        return cls(seat, ph, v[K.F_PLAYER], hand, played, voids, (sizes[0], sizes[1], sizes[2]), skat_size,
                   v[K.F_SKAT] if skat_known else 0, not skat_known, v[K.F_DEALT_SKAT] if skat_known else 0,
                   ouvert, g, flags, d, picked, v[K.F_LEADER], tuple(v[K.F_TRICK0 + i] for i in range(nt)),
                   (v[K.F_POINTS0], v[K.F_POINTS1], v[K.F_POINTS2]),
                   (v[K.F_TRICKS0], v[K.F_TRICKS1], v[K.F_TRICKS2]))

    @classmethod
    def from_observation(cls, obs: Any) -> "InfoState":
        """From an :class:`~skatsim.observation.Observation` (its ``view`` and ``seat``)."""
        return cls.from_view(obs.view, obs.seat)

    @classmethod
    def from_state(cls, state: "SkatState", seat: int) -> "InfoState":
        """``seat``'s information in ``state`` (through the masked view)."""
        if isinstance(seat, bool) or seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        return cls.from_view(masked_view(state.vector, seat), seat)

    # ------------------------------------------------------------------ derived
    @property
    def known(self) -> int:
        """Cards whose place the seat knows: own hand, played cards, a known skat pile,
        an ouvert hand."""
        return self.hand | self.played[0] | self.played[1] | self.played[2] | self.skat | self.ouvert_hand

    @property
    def hidden(self) -> int:
        """Cards the seat cannot place: the union over the other hands and a hidden skat."""
        return ALL_CARDS & ~self.known

    def public_position(self) -> "Position":
        """The public part of a play-phase root (game, declarer, trick, leader, the
        declarer's tally) as a :class:`~skatsim.solver.Position` with no cards, for
        :meth:`~skatsim.solver.Solver.root_values`."""
        from .solver import Position

        if self.phase != K.PH_PLAY or not 0 <= self.game <= NULL or self.declarer < 0:
            raise ValueError("the solver needs the play phase of a suit, grand or null game")
        d = self.declarer
        return Position((0, 0, 0), 0, self.game, d, self.trick, self.leader, self.points[d], self.tricks[d])

    def position(self, world: Any) -> "Position":
        """The validated :class:`~skatsim.solver.Position` of one world (a row of
        :func:`sample_worlds`)."""
        p = self.public_position()
        h = [int(x) for x in world]
        pos = type(p)((h[0], h[1], h[2]), h[3], p.game, p.declarer, p.trick, p.leader, p.declarer_points,
                      p.declarer_tricks)
        pos.validate()
        return pos

    def consistent(self, world: Any) -> bool:
        """Does ``world`` (hands of seats 0..2, skat pile) agree with this information?"""
        h = [int(x) for x in world]
        if h[self.seat] != self.hand or (self.ouvert_hand and h[self.declarer] != self.ouvert_hand):
            return False
        if not self.skat_hidden and h[3] != self.skat:
            return False
        seen = self.played[0] | self.played[1] | self.played[2]
        for i, m in enumerate(h):
            if seen & m or not 0 <= m <= ALL_CARDS:
                return False
            seen |= m
            if popcount(m) != (self.hand_sizes[i] if i < 3 else self.skat_size):
                return False
            if i < 3 and m & self.voids[i]:
                return False
        return seen == ALL_CARDS


def masked_view(st: Any, seat: int) -> np.ndarray:
    """``seat``'s view of a state vector: ``kernels.game.mask_view`` (spec: other hands,
    other dealt hands and the skat zeroed; an ouvert declarer's hand kept)."""
    view = np.empty(K.N_FIELDS, np.int64)
    mv = getattr(K, "mask_view", None)
    if mv is not None:
        mv(st, seat, view)
        return view
    view[:] = st[:K.N_FIELDS]  # pragma: no cover - until kernels.game.mask_view exists
    d = int(st[K.F_DECLARER])
    for q in range(3):
        if q != seat:
            view[K.F_DEALT0 + q] = 0
            if not (q == d and st[K.F_FLAGS] & OUVERT and st[K.F_PHASE] >= K.PH_KONTRA):
                view[K.F_HAND0 + q] = 0
    if not (seat == d and st[K.F_PICKED]):
        view[K.F_SKAT] = 0
        view[K.F_DEALT_SKAT] = 0
    return view


# --------------------------------------------------------------------------- sampler kernels

_BINOM = np.zeros((33, 33), np.int64)
for _n in range(33):
    _BINOM[_n, 0] = 1
    for _k in range(1, _n + 1):
        _BINOM[_n, _k] = _BINOM[_n - 1, _k - 1] + _BINOM[_n - 1, _k]
_BINOM.setflags(write=False)


@njit(cache=True, inline="always")
def _uniform(rng: int, n: int):
    """An exactly uniform int in ``[0, n)`` (n < 2**62): 62 random bits with rejection."""
    limit = ((1 << 62) // n) * n
    while True:
        hi, rng = rand_below(rng, 1 << 31)
        lo, rng = rand_below(rng, 1 << 31)
        u = (hi << 31) | lo
        if u < limit:
            return u % n, rng


@njit(cache=True, inline="always")
def _choose(rng: int, mask: int, k: int):
    """A uniformly random ``k``-subset of the set bits of ``mask``: ``(subset, rng)``."""
    out = 0
    m = mask
    for i in range(k):
        j, rng = _uniform(rng, popcount(m))
        b = nth_bit_mask(m, j)
        out |= b
        m ^= b
    return out, rng


@njit(cache=True)
def sample_worlds_kernel(hidden: int, q1: int, n1: int, v1: int, q2: int, n2: int, v2: int, ns: int,
                         rng: int, out) -> int:
    """Fill rows of ``out`` (pre-set to the known cards) with the hidden cards split
    into ``n1`` for seat ``q1``, ``n2`` for ``q2`` (-1: none) and ``ns`` for the skat pile
    (column 3), uniformly among the splits that respect the voids ``v1``, ``v2`` (the
    skat takes anything). Returns the number of consistent worlds (0: none)."""
    a = hidden & ~v1 & ~v2  # either hand
    b = hidden & ~v1 & v2   # only q1 (or the skat)
    c = hidden & v1 & ~v2   # only q2 (or the skat)
    d = hidden & v1 & v2    # only the skat
    na = popcount(a)
    nb = popcount(b)
    nc = popcount(c)
    nd = popcount(d)
    free = ns - nd
    combos = np.zeros((10, 5), np.int64)  # a_s, b_s, c_s, need1, weight
    m = 0
    total = 0
    if free >= 0:
        for a_s in range(min(free, na) + 1):
            for b_s in range(min(free - a_s, nb) + 1):
                c_s = free - a_s - b_s
                if c_s > nc:
                    continue
                need1 = n1 - (nb - b_s)  # q1 takes all remaining b, the rest from a
                need2 = n2 - (nc - c_s)
                if need1 < 0 or need2 < 0 or need1 + need2 != na - a_s:
                    continue
                w = _BINOM[na, a_s] * _BINOM[nb, b_s] * _BINOM[nc, c_s] * _BINOM[na - a_s, need1]
                if w > 0:
                    combos[m, 0] = a_s
                    combos[m, 1] = b_s
                    combos[m, 2] = c_s
                    combos[m, 3] = need1
                    combos[m, 4] = w
                    total += w
                    m += 1
    if total == 0:
        return 0
    for i in range(out.shape[0]):
        r, rng = _uniform(rng, total)
        j = 0
        while r >= combos[j, 4]:
            r -= combos[j, 4]
            j += 1
        sa, rng = _choose(rng, a, combos[j, 0])
        sb, rng = _choose(rng, b, combos[j, 1])
        sc, rng = _choose(rng, c, combos[j, 2])
        skat = d | sa | sb | sc
        a_rest = a & ~skat
        x, rng = _choose(rng, a_rest, combos[j, 3])
        h1 = (b & ~skat) | x
        out[i, q1] = h1
        if q2 >= 0:
            out[i, q2] = (c & ~skat) | (a_rest & ~h1)
        if ns > 0:
            out[i, 3] = skat
    return total


def sample_worlds(info: InfoState, n: int, rng: Any = None) -> np.ndarray:
    """``n`` worlds drawn uniformly among those consistent with ``info``.

    Returns ``int64 (n, 4)``: the hands of seats 0, 1, 2 and the skat pile per world,
    as card masks. ``rng``: an int seed, a numpy ``Generator`` or None (the package's
    randomness convention). Raises ``ValueError`` when no world fits (corrupt input).
    """
    if not isinstance(info, InfoState):
        raise TypeError(f"info must be an InfoState, got {type(info).__name__}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    out = np.zeros((int(n), 4), np.int64)
    out[:, info.seat] = info.hand
    q_unknown = [q for q in range(3) if q != info.seat and not (info.ouvert_hand and q == info.declarer)]
    if info.ouvert_hand:
        out[:, info.declarer] = info.ouvert_hand
    if not info.skat_hidden:
        out[:, 3] = info.skat
    ns = info.skat_size if info.skat_hidden else 0
    q1 = q_unknown[0]
    q2 = q_unknown[1] if len(q_unknown) > 1 else -1
    n1 = info.hand_sizes[q1]
    n2 = info.hand_sizes[q2] if q2 >= 0 else 0
    v2 = info.voids[q2] if q2 >= 0 else ALL_CARDS
    hidden = info.hidden
    if popcount(hidden) != n1 + n2 + ns:
        raise ValueError(f"{popcount(hidden)} hidden cards do not fill hands of {n1} and {n2} and a "
                         f"skat of {ns}: inconsistent information")
    state = seed_state(to_seed(rng))
    if not sample_worlds_kernel(hidden, q1, n1, info.voids[q1], q2, n2, v2, ns, state, out):
        raise ValueError("no world is consistent with this information (the voids leave no room)")
    return out


def count_worlds(info: InfoState) -> int:
    """How many worlds are consistent with ``info`` (what :func:`sample_worlds` draws from)."""
    q_unknown = [q for q in range(3) if q != info.seat and not (info.ouvert_hand and q == info.declarer)]
    q1 = q_unknown[0]
    q2 = q_unknown[1] if len(q_unknown) > 1 else -1
    ns = info.skat_size if info.skat_hidden else 0
    v2 = info.voids[q2] if q2 >= 0 else ALL_CARDS
    out = np.zeros((0, 4), np.int64)
    return int(sample_worlds_kernel(info.hidden, q1, info.hand_sizes[q1], info.voids[q1], q2,
                                    info.hand_sizes[q2] if q2 >= 0 else 0, v2, ns, 0, out))


# --------------------------------------------------------------------------- SkatState helpers


def void_masks(state: "SkatState") -> list[int]:
    """Per seat, the cards it cannot hold: every effective suit it failed to follow
    (recomputed from the history; the state vector keeps the same in ``F_VOID*``)."""
    voids = [0, 0, 0]
    game = state.game_type
    if game is None:
        return voids
    moves = state.play_history()
    for i in range(0, len(moves), 3):
        trick = moves[i:i + 3]
        led = trick[0][1]
        fm = int(follow_mask(led, game))
        for p, c in trick[1:]:
            if not (fm >> c) & 1:
                voids[p] |= fm
    return voids


def known_mask(state: "SkatState", player: int) -> int:
    """Cards whose location ``player`` knows: own hand, played cards, a seen skat, an ouvert hand."""
    info = InfoState.from_state(state, player)
    return info.known | info.found_skat


def _choose_py(rng: np.random.Generator, mask: int, k: int) -> int:
    """A uniformly random k-subset of the set bits of ``mask``."""
    if k == 0:
        return 0
    cards = list(iter_bits(mask))
    out = 0
    for i in rng.choice(len(cards), size=k, replace=False):
        out |= 1 << cards[int(i)]
    return out


def resample(state: "SkatState", player: int, rng: np.random.Generator | int | None = None) -> "SkatState":
    """A state with the same public history, redealt uniformly among the deals consistent
    with what ``player`` knows (one :func:`sample_worlds` world, then the history replayed).

    The declarer's discards are hidden from the defenders, so for a defender they are
    resampled too: in his worlds the declarer discards that world's own skat pile (in
    the order of the original discard moves), and ``history()`` differs from the
    original exactly in those discards. For the declarer (and in every other action) the
    history is the same.
    """
    from .state import SkatState

    if isinstance(player, bool) or player not in (0, 1, 2):
        raise ValueError(f"player must be a seat 0, 1 or 2, got {player!r}")
    gen = check_random_state(rng)
    st = state.vector
    info = InfoState.from_state(state, player)
    world = sample_worlds(info, 1, gen)[0]
    hands = [int(world[q]) for q in range(3)]
    skat_pile = int(world[3])
    d = state.declarer
    # reconstruct a deal on which the whole history is legal
    dealt = [hands[q] | int(st[K.F_PLAYED0 + q]) for q in range(3)]
    dealt_skat = skat_pile
    if state.skat_picked_up and d is not None:
        twelve = dealt[d] | skat_pile
        if d == player:
            dealt_skat = state.deal.skat.mask
        else:  # unseen: take the discards (and, mid-discard, random held cards) as the original skat
            dealt_skat = skat_pile | _choose_py(gen, dealt[d], 2 - popcount(skat_pile))
        dealt[d] = twelve & ~dealt_skat
    new = SkatState(deal_from_hands(dealt[0], dealt[1], dealt[2], dealt_skat), state.rules, None)
    own_discards = list(iter_bits(skat_pile)) if (state.skat_picked_up and d != player) else None
    k = 0
    for _, a, ph in state.phase_history():
        if ph == "discard" and own_discards is not None:
            a = own_discards[k]
            k += 1
        new.apply_action(a)
    return new
