"""Open-hand (double-dummy) solver: the value of a Skat position with every card visible.

:func:`solve` takes a :class:`~skatsim.state.SkatState` in the play phase or an
explicit :class:`Position` (card masks) and returns a :class:`Solution`:

- ``mode="threshold"``: can the declarer reach ``threshold`` card points (61 by
  default; ``"schwarz"``: every trick) against best defence? In null: can he avoid
  every trick? ``value`` is 1 or 0.
- ``mode="exact"``: the declarer's card points at the end of the game under
  minimax play (declarer maximises, defenders minimise), skat and points already
  won included. Null has no card-point value: ``value`` is 1 or 0 as above.
- ``move_values=True`` adds the value of every legal move of the player to move
  (what PIMC needs); the searches share one transposition table.

The search (:mod:`skatsim.kernels.solver`) is a fail-soft alpha-beta over whole
tricks in numba, with a transposition table at trick boundaries, equivalent-card
reduction, killer moves and MTD(f) for exact values. The rules come from
:mod:`skatsim.rules`. A :class:`Solver` owns its table; :func:`solve` uses a
shared default one (not thread-safe: give each thread or process its own
``Solver``).

>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=2)
>>> for a in ("18", "yes", "pass", "pass", "hand", "CH"):     # forehand: clubs hand
...     s.apply_action(s.string_to_action(a))
>>> r = solve(s, mode="exact")
>>> r.value, r.declarer_wins, card_name(r.best_moves[0]) in ("CJ", "SJ", "HJ", "S8")
(78, True, True)
>>> solve(s, mode="threshold", threshold=90).value                  # no schneider
0

Positions can also be given as masks (here a 1-trick ending of a clubs game,
declarer forehand to lead):

>>> p = Position.make(hands=("CJ", "C7", "SA"), skat="D7 D8", game=CLUBS, declarer=0,
...                   leader=0, declarer_points=70, declarer_tricks=7)
>>> solve(p).value                                  # 70 + CJ 2 + SA 11
83
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .cards import ALL_CARDS, CardSet, CardsLike, card_name, card_points, to_mask
from .kernels import solver as K
from .rules import CLUBS, DIAMONDS, GAME_NAMES, GRAND, HEARTS, NULL, SPADES, legal_mask

__all__ = ["Position", "Solution", "Solver", "solve", "CLUBS", "SPADES", "HEARTS", "DIAMONDS",
           "GRAND", "NULL", "card_name"]

Mode = Literal["exact", "threshold"]


# --------------------------------------------------------------------------- position


@dataclass(frozen=True)
class Position:
    """A play-phase position with every card known.

    Attributes:
        hands: card masks of seats 0, 1, 2 (cards still held).
        skat: the two skat cards (they count for the declarer in suit and grand games).
        game: ``DIAMONDS HEARTS SPADES CLUBS GRAND NULL`` (0..5).
        declarer: seat of the declarer.
        trick: cards of the trick in progress, leader first (0..2 cards).
        leader: seat that led (or leads) the current trick.
        declarer_points: card points the declarer has won in tricks so far (skat excluded).
        declarer_tricks: tricks the declarer has won so far.
    """

    hands: tuple[int, int, int]
    skat: int
    game: int
    declarer: int
    trick: tuple[int, ...] = ()
    leader: int = 0
    declarer_points: int = 0
    declarer_tricks: int = 0

    @classmethod
    def make(cls, hands: tuple[CardsLike, CardsLike, CardsLike] | list[CardsLike], skat: CardsLike,
             game: int, declarer: int, trick: CardsLike | list[int | str] = (), leader: int = 0,
             declarer_points: int = 0, declarer_tricks: int = 0) -> "Position":
        """Build and validate a position from masks, ``CardSet`` s or card strings.

        >>> Position.make(hands=("CJ SA", "C7", "HA"), skat="D7 D8", game=CLUBS, declarer=0)
        Traceback (most recent call last):
        ...
        ValueError: wrong card counts for a trick led by seat 0 with 0 card(s) played: seats hold [2, 1, 1] cards, expected [1, 1, 1] or [2, 2, 2]
        """
        if len(hands) != 3:
            raise ValueError(f"hands must list 3 seats, got {len(hands)}")
        hs = tuple(to_mask(h) for h in hands)
        if isinstance(trick, str):
            tr = _parse_trick(trick)
        else:
            tr = tuple(_card_of(c) for c in trick)
        p = cls((hs[0], hs[1], hs[2]), to_mask(skat), int(game), int(declarer), tr, int(leader),
                int(declarer_points), int(declarer_tricks))
        p.validate()
        return p

    @classmethod
    def from_state(cls, state: Any) -> "Position":
        """The position of a :class:`~skatsim.state.SkatState` in the play phase."""
        if getattr(state, "phase", None) != "play":
            raise ValueError(f"the state must be in the play phase, not {getattr(state, 'phase', '?')!r}")
        g = state.game_type
        d = state.declarer
        if g is None or g > NULL or d is None:
            raise ValueError("the solver needs a declared suit, grand or null game (Ramsch is not supported)")
        p = cls((state.hand_mask(0), state.hand_mask(1), state.hand_mask(2)), state.skat_mask(), int(g),
                int(d), tuple(state.current_trick()), state.trick_leader(), state.points()[d],
                state.tricks_won()[d])
        p.validate()
        return p

    # ------------------------------------------------------------------ derived
    @property
    def player(self) -> int:
        """Seat to move."""
        return (self.leader + len(self.trick)) % 3

    @property
    def tricks_left(self) -> int:
        """Tricks still to finish, the current one included."""
        return bin(self.hands[(self.leader + 2) % 3]).count("1")

    def legal_moves(self) -> list[int]:
        """Card ids the player to move may play, ascending."""
        led = self.trick[0] if self.trick else -1
        m = int(legal_mask(self.hands[self.player], led, self.game))
        return [c for c in range(32) if m >> c & 1]

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first inconsistency."""
        if self.game not in range(6):
            raise ValueError(f"game must be 0..5 ({', '.join(GAME_NAMES[:6])}), got {self.game!r}")
        for name, v in (("declarer", self.declarer), ("leader", self.leader)):
            if v not in (0, 1, 2):
                raise ValueError(f"{name} must be a seat 0, 1 or 2, got {v!r}")
        if len(self.trick) > 2:
            raise ValueError(f"a trick in progress has 0..2 cards, got {len(self.trick)}")
        seen = 0
        parts = [(f"seat {i}", h) for i, h in enumerate(self.hands)] + [("skat", self.skat)]
        parts += [("trick", 1 << c) for c in self.trick]
        for name, m in parts:
            if not 0 <= m <= ALL_CARDS:
                raise ValueError(f"{name}: {m!r} is not a 32-bit card mask")
            if seen & m:
                raise ValueError(f"{name} repeats card(s) {CardSet.from_mask(seen & m).to_text()}")
            seen |= m
        if bin(self.skat).count("1") != 2:
            raise ValueError(f"the skat must hold 2 cards, got {bin(self.skat).count('1')}")
        counts = [bin(h).count("1") for h in self.hands]
        k = len(self.trick)
        n = counts[(self.leader + 2) % 3]
        want = [n - 1 if (s - self.leader) % 3 < k else n for s in range(3)]
        if counts != want or n > 10 or (n == 0 and k > 0):
            alt = [n, n, n] if k else [max(counts)] * 3
            raise ValueError(f"wrong card counts for a trick led by seat {self.leader} with {k} card(s) "
                             f"played: seats hold {counts} cards, expected {want if n > 0 else alt}"
                             + (f" or {alt}" if alt != want and n > 0 else ""))
        played_pts = 120 - int(card_points(seen))
        if not 0 <= self.declarer_points <= played_pts:
            raise ValueError(f"declarer_points {self.declarer_points} is impossible: the finished tricks "
                             f"hold {played_pts} card points")
        if not 0 <= self.declarer_tricks <= 10 - n:
            raise ValueError(f"declarer_tricks {self.declarer_tricks} is impossible after {10 - n} tricks")
        if self.game == NULL and self.declarer_tricks > 0:
            raise ValueError("the declarer already took a trick: the null game is over")

    def __str__(self) -> str:
        seats = "\n".join(f"  seat {s}: {CardSet.from_mask(h)}" + (" (declarer)" if s == self.declarer else "")
                          for s, h in enumerate(self.hands))
        trick = " ".join(card_name(c) for c in self.trick) or "-"
        return (f"{GAME_NAMES[self.game]}, lead seat {self.leader}, trick {trick}, "
                f"seat {self.player} to move\n{seats}\n  skat: {CardSet.from_mask(self.skat)}")


def _card_of(c: int | str) -> int:
    from .cards import parse_card

    if isinstance(c, str):
        return parse_card(c)
    c = int(c)
    if not 0 <= c < 32:
        raise ValueError(f"card id {c!r} is not in 0..31")
    return c


def _parse_trick(text: str) -> tuple[int, ...]:
    return tuple(_card_of(t) for t in text.replace(",", " ").split())


# --------------------------------------------------------------------------- solution


@dataclass(frozen=True)
class Solution:
    """The result of :func:`solve`.

    Attributes:
        mode: ``"exact"`` or ``"threshold"``.
        game: the game type.
        target: the threshold in card points, ``"schwarz"`` (every trick), ``"null"``
            (no trick), or ``None`` for exact card points.
        value: exact mode: the declarer's final card points (skat and points already
            won included); threshold mode and null: 1 if the declarer reaches the target.
        player: seat to move.
        best_moves: card ids of optimal moves for the player to move (all of them with
            ``move_values``; otherwise at least one; every legal move when all are equal).
        move_values: card id -> ``value`` after that move, when requested.
        nodes: search nodes visited.
    """

    mode: str
    game: int
    target: int | str | None
    value: int
    player: int
    best_moves: tuple[int, ...]
    move_values: dict[int, int] | None = field(default=None, compare=False)
    nodes: int = field(default=0, compare=False)

    @property
    def declarer_wins(self) -> bool:
        """Does the declarer win the card play (61+ points, the threshold, or null)?"""
        if self.mode == "exact" and self.target is None:
            return self.value >= 61
        return self.value == 1

    def __str__(self) -> str:
        moves = " ".join(card_name(c) for c in self.best_moves)
        head = f"{GAME_NAMES[self.game]} {self.mode}"
        if self.target is not None:
            head += f" (target {self.target})"
        s = f"{head}: value {self.value}, seat {self.player} best: {moves} [{self.nodes} nodes]"
        if self.move_values:
            s += "\n  " + "  ".join(f"{card_name(c)}={v}" for c, v in sorted(self.move_values.items()))
        return s


# --------------------------------------------------------------------------- solver


class Solver:
    """An open-hand solver with its own transposition table (``2**tt_bits`` entries).

    Keep one per thread or process. Successive positions of the same deal (for
    example along a game) reuse the table.
    """

    def __init__(self, tt_bits: int = 20, small_bits: int = 16, tt_split: int = 5) -> None:
        if not 10 <= tt_bits <= 26:
            raise ValueError(f"tt_bits must be in 10..26, got {tt_bits}")
        self.tt_slots = 1 << tt_bits
        self.small_slots = 1 << small_bits
        self.tt_split = tt_split
        self._T = np.zeros(2 * (self.tt_slots + self.small_slots), dtype=np.int64)
        self._W = np.zeros(K.W_SIZE, dtype=np.int64)
        self._epoch = 0
        self._last: tuple[Any, ...] | None = None
        self._game = 0

    def reset(self) -> None:
        """Forget earlier searches: the next solve starts from an empty table."""
        self._last = None

    @property
    def passes(self) -> int:
        """Null-window searches run by the last exact solve."""
        return int(self._W[K.W_PASSES])

    def _begin(self, hands: tuple[int, int, int], game: int, declarer: int, mode: int) -> None:
        last = self._last
        same = (last is not None and last[1:] == (game, declarer, mode)
                and all(h & ~lh == 0 for h, lh in zip(hands, last[0])))
        if not same:
            self._epoch += 1
            if self._epoch >= 1 << 29:
                self._T[:] = 0
                self._epoch = 1
            self._last = (hands, game, declarer, mode)
        self._game = game
        K.setup(self._W, game, declarer, mode, self._epoch, self.tt_slots, self.small_slots,
                tt_split=self.tt_split)

    def solve(self, position: Any = None, *, mode: Mode = "exact", threshold: int | str = 61,
              move_values: bool = False, **masks: Any) -> Solution:
        """See :func:`solve`."""
        if position is None:
            pos = Position.make(**masks)
        elif masks:
            raise ValueError(f"pass a state/position or masks, not both (got {sorted(masks)})")
        elif isinstance(position, Position):
            position.validate()
            pos = position
        else:
            pos = Position.from_state(position)
        if mode not in ("exact", "threshold"):
            raise ValueError(f"mode must be 'exact' or 'threshold', got {mode!r}")
        g = pos.game
        if g == NULL:
            kmode, target = K.MODE_NULL, "null"
        elif mode == "threshold" and threshold == "schwarz":
            kmode, target = K.MODE_TRICKS, "schwarz"
        elif mode == "threshold":
            if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)) \
                    or not 0 <= threshold <= 120:
                raise ValueError(f"threshold must be card points 0..120 or 'schwarz', got {threshold!r}")
            kmode, target = K.MODE_POINTS, int(threshold)
        else:
            kmode, target = K.MODE_POINTS, None
        return self._run(pos, mode, kmode, target, move_values)

    # ------------------------------------------------------------------ internals
    def _run(self, pos: Position, mode: str, kmode: int, target: Any, move_values: bool) -> Solution:
        g, d = pos.game, pos.declarer
        self._begin(pos.hands, g, d, kmode)
        W, T = self._W, self._T
        ntr = pos.tricks_left
        k = len(pos.trick)
        leader = pos.leader
        rh = [int(K.to_rank_mask(pos.hands[(leader + i) % 3], g)) for i in range(3)]
        rt = [int(K.TO_RANK[g, c]) for c in pos.trick]
        fa = rt[0] if k >= 1 else 0
        fb = rt[1] if k >= 2 else 0
        live = rh[0] | rh[1] | rh[2]
        for r in rt:
            live |= 1 << r
        rem = int(K.value_of(W, live)) + int(W[K.W_TB]) * ntr
        played = 10 - ntr
        # base: what the declarer has already; need: what he needs from V
        if kmode == K.MODE_POINTS:
            base = pos.declarer_points + (int(card_points(pos.skat)) if g != NULL else 0)
            need = (target - base) if target is not None else None
        elif kmode == K.MODE_TRICKS:
            base = 0
            need = ntr if pos.declarer_tricks == played else rem + 1
        else:
            base = 0
            need = ntr
        legal = pos.legal_moves()
        if ntr == 0:
            value = base if mode == "exact" and need is None else int(need is None or need <= 0)
            return Solution(mode, g, target, value, pos.player, (), {} if move_values else None, 0)

        args = (rh[0], rh[1], rh[2], leader, rem, ntr, k, fa, fb)
        best: tuple[int, ...]
        mv: dict[int, int] | None = None
        if move_values:
            raw = self._move_values(args, need, base)
            mv = {c: v for c, v in raw.items()}
            mover_max = pos.player == d
            vals = list(mv.values())
            top = max(vals) if mover_max else min(vals)
            best = tuple(c for c in legal if mv[c] == top)
            value = top
        elif need is None:
            v, bm = K.exact(W, T, *args, 60 - base, 0, rem)
            value = base + int(v)
            best = (int(K.FROM_RANK[g, bm]),) if bm >= 0 else tuple(legal)
        else:
            W[K.W_ROOTBEST] = -1
            v = K.search(W, T, rh[0], rh[1], rh[2], leader, need - 1, need, rem, ntr, k, fa, fb, 1)
            ok = int(v >= need)
            value = ok
            mover_wins = ok == int(pos.player == d)
            bm = int(W[K.W_ROOTBEST])
            best = (int(K.FROM_RANK[g, bm]),) if mover_wins and bm >= 0 else tuple(legal)
        return Solution(mode, g, target, int(value), pos.player, best, mv, int(W[K.W_NODES]))

    def _move_values(self, args: tuple[int, ...], need: int | None, base: int) -> dict[int, int]:
        """Value of each legal move (card id -> value), children solved in turn on one TT."""
        W, T = self._W, self._T
        ha, hb, hc, leader, rem, ntr, k, fa, fb = args
        g = self._game
        hands = [ha, hb, hc]
        mover = hands[k]
        if k == 0:
            legal = mover
            sep = hb | hc
        else:
            segm = int(W[K.W_SEGM + fa])
            legal = mover & segm or mover
            sep = (hands[0] | hands[1] | hands[2]) & ~mover | (1 << fa) | ((1 << fb) if k == 2 else 0)
        repmap = np.full(32, -1, np.int64)
        K.rep_map(W, legal, sep, repmap)
        vals: dict[int, int] = {}
        guess = 60 - base
        for r in range(32):
            if not (legal >> r & 1) or repmap[r] != r:
                continue
            child = list(hands)
            child[k] = mover & ~(1 << r)
            if k < 2:
                nf = k + 1
                cfa = r if k == 0 else fa
                cfb = r if k == 1 else fb
                if need is None:
                    v, _ = K.exact(W, T, child[0], child[1], child[2], leader, rem, ntr, nf, cfa, cfb,
                                   guess, 0, rem)
                    guess = int(v)
                    vals[r] = base + int(v)
                else:
                    v = K.search(W, T, child[0], child[1], child[2], leader, need - 1, need, rem, ntr, nf, cfa, cfb, 0)
                    vals[r] = int(v >= need)
                continue
            # the move completes the trick
            w, gain, pts = K.trick_result(W, fa, fb, r, leader)
            order = [child[(w + i) % 3] for i in range(3)]
            nl = (leader + w) % 3
            crem = rem - pts - int(W[K.W_TB])
            if need is None:
                if ntr == 1:
                    v = 0
                else:
                    v, _ = K.exact(W, T, order[0], order[1], order[2], nl, crem, ntr - 1, 0, 0, 0,
                                   guess - gain, 0, crem)
                vals[r] = base + gain + int(v)
                guess = gain + int(v)
            else:
                if ntr == 1:
                    sub = 0
                    ok = gain >= need
                else:
                    sub = K.search(W, T, order[0], order[1], order[2], nl, need - gain - 1, need - gain,
                                   crem, ntr - 1, 0, 0, 0, 0)
                    ok = gain + sub >= need
                vals[r] = int(ok)
        out: dict[int, int] = {}
        for r in range(32):
            if legal >> r & 1:
                out[int(K.FROM_RANK[g, r])] = vals[int(repmap[r])]
        return out


_DEFAULT: Solver | None = None


def solve(position: Any = None, *, mode: Mode = "exact", threshold: int | str = 61,
          move_values: bool = False, solver: Solver | None = None, **masks: Any) -> Solution:
    """Solve a play-phase position open-handed (jit-compiled by numba).

    Args:
        position: a :class:`~skatsim.state.SkatState` in the play phase or a
            :class:`Position`; or ``None`` and the :meth:`Position.make` keywords
            (``hands``, ``skat``, ``game``, ``declarer``, ``trick``, ``leader``,
            ``declarer_points``, ``declarer_tricks``).
        mode: ``"exact"`` (declarer's card points) or ``"threshold"``.
        threshold: card points the declarer must reach (default 61), or
            ``"schwarz"`` for every trick. Ignored in null (no trick) and exact mode.
        move_values: also solve every legal move of the player to move.
        solver: a :class:`Solver` (own transposition table); default: a shared one.

    >>> p = Position.make(hands=("HA H10", "HK H7", "SA HQ"), skat="D7 D8",
    ...                   game=GRAND, declarer=1, leader=0)
    >>> r = solve(p, move_values=True)
    >>> r.value, {card_name(c): v for c, v in r.move_values.items()}
    (0, {'H10': 0, 'HA': 0})
    """
    global _DEFAULT
    if solver is None:
        if _DEFAULT is None:
            _DEFAULT = Solver()
        solver = _DEFAULT
    return solver.solve(position, mode=mode, threshold=threshold, move_values=move_values, **masks)
