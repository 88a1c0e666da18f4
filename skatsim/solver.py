"""Open-hand (double-dummy) solver: the value of a Skat position with every card visible.

:func:`solve` takes a :class:`~skatsim.state.SkatState` in the play phase or an
explicit :class:`Position` (card masks) and returns a :class:`Solution`:

- ``mode="threshold"``: can the declarer reach ``threshold`` card points (61 by
  default; ``"schwarz"``: every trick) against best defence? In null: can he avoid
  every trick? ``value`` is 1 or 0.
- ``mode="exact"``: the declarer's card points at the end of the game under
  minimax play (declarer maximises, defenders minimise), the skat (suit and grand)
  and the points already won included. Null has no card-point value: ``value`` is
  1 or 0 as in threshold mode.
- ``move_values=True`` adds the value of every legal move of the player to move
  (what PIMC needs); the searches share one transposition table.

Ouvert contracts need nothing special (every card is visible anyway). The search
(:mod:`skatsim.kernels.solver`, jit-compiled by numba) is a fail-soft alpha-beta
over whole tricks with a transposition table at trick boundaries, equivalent-card
reduction, killer and history move ordering, sure-trump bounds and aspiration /
MTD(f) searches for exact values; its rules come from :mod:`skatsim.rules`. A
:class:`Solver` owns its table; :func:`solve` uses a shared default one (not
thread-safe: give each thread or process its own ``Solver``).

>>> from skatsim import SkatState
>>> from skatsim.cards import card_name
>>> s = SkatState.new_game(seed=2)
>>> for a in ("18", "yes", "pass", "pass", "hand", "CH"):     # forehand: clubs hand
...     s.apply_action(s.string_to_action(a))
>>> r = solve(s, mode="exact")
>>> r.value, r.declarer_wins, card_name(r.best_moves[0]) in ("CJ", "SJ", "HJ", "S8")
(78, True, True)
>>> solve(s, mode="threshold", threshold=90).value                  # no schneider
0

Positions can also be given as cards (here the last trick of a clubs game,
declarer forehand to lead):

>>> from skatsim.rules import CLUBS
>>> p = Position.make(hands=("CJ", "C7", "SA"), skat="D7 D8", game=CLUBS, declarer=0,
...                   leader=0, declarer_points=70, declarer_tricks=7)
>>> solve(p).value                                  # 70 + CJ 2 + SA 11
83
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .cards import ALL_CARDS, CardSet, CardsLike, card_name, card_points, parse_card, to_mask
from .kernels import solver as K
from .rules import GAME_NAMES, NULL, legal_mask

__all__ = ["Position", "Solution", "Solver", "solve"]

Mode = Literal["exact", "threshold"]


# --------------------------------------------------------------------------- position


@dataclass(frozen=True)
class Position:
    """A play-phase position with every card known.

    Attributes:
        hands: card masks of seats 0, 1, 2 (the cards still held).
        skat: the two skat cards (they count for the declarer in suit and grand games).
        game: ``DIAMONDS HEARTS SPADES CLUBS GRAND NULL`` (0..5, :mod:`skatsim.rules`).
        declarer: seat of the declarer.
        trick: cards of the trick in progress, leader first (0..2 cards).
        leader: seat that led (or is to lead) the current trick.
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
             game: int, declarer: int, trick: str | list[int | str] | tuple[int | str, ...] = (),
             leader: int = 0, declarer_points: int = 0, declarer_tricks: int = 0) -> "Position":
        """Build and validate a position from masks, ``CardSet`` s or card strings.

        >>> from skatsim.rules import CLUBS
        >>> Position.make(hands=("CJ SA", "C7", "HA"), skat="D7 D8", game=CLUBS, declarer=0)
        Traceback (most recent call last):
        ...
        ValueError: wrong card counts: seats hold [2, 1, 1] cards, but with 0 card(s) played to the trick led by seat 0 they must hold [1, 1, 1]
        """
        if len(hands) != 3:
            raise ValueError(f"hands must list 3 seats, got {len(hands)}")
        hs = [to_mask(h) for h in hands]
        items = trick.replace(",", " ").split() if isinstance(trick, str) else trick
        tr = tuple(parse_card(c) if isinstance(c, str) else int(c) for c in items)
        p = cls((hs[0], hs[1], hs[2]), to_mask(skat), int(game), int(declarer), tr, int(leader),
                int(declarer_points), int(declarer_tricks))
        p.validate()
        return p

    @classmethod
    def from_state(cls, state: Any) -> "Position":
        """The position of a :class:`~skatsim.state.SkatState` in the play phase."""
        phase = getattr(state, "phase", None)
        if phase != "play":
            raise ValueError(f"the state must be in the play phase, not {phase!r}")
        g, d = state.game_type, state.declarer
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
        for c in self.trick:
            if not 0 <= c < 32:
                raise ValueError(f"trick: card id {c!r} is not in 0..31")
            parts.append(("trick", 1 << c))
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
        n = counts[(self.leader + 2) % 3]  # the seat playing last in this trick
        want = [n - 1 if (s - self.leader) % 3 < k else n for s in range(3)]
        if counts != want or n > 10 or (n == 0 and k > 0):
            raise ValueError(f"wrong card counts: seats hold {counts} cards, but with {k} card(s) played to "
                             f"the trick led by seat {self.leader} they must hold {want}")
        if k == 2:
            seat = (self.leader + 1) % 3
            c = self.trick[1]
            if not int(legal_mask(self.hands[seat] | (1 << c), self.trick[0], self.game)) >> c & 1:
                raise ValueError(f"trick: seat {seat} played {card_name(c)} to {card_name(self.trick[0])} "
                                 f"although it could follow suit")
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
        best_moves: card ids of optimal moves for the player to move: all of them with
            ``move_values``, otherwise at least one; every legal move when all are equal
            (in threshold mode: when the mover cannot reach his goal).
        move_values: card id -> ``value`` after that move, when requested.
        nodes: search nodes visited (not compared by ``==``).
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
        if self.target is None:
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
    """An open-hand solver with its own transposition table.

    Args:
        tt_bits: log2 of the entries of the main table (positions with ``tt_split``
            or more tricks left); 16 bytes an entry.
        small_bits: log2 of the entries of the small, cache-resident table for the
            positions near the end.
        tt_split: tricks left from which positions go to the main table.

    Keep one per thread or process. Successive positions of one deal (for example
    along a game) reuse the table; :meth:`reset` forgets it.
    """

    def __init__(self, tt_bits: int = 20, small_bits: int = 16, tt_split: int = 5) -> None:
        for name, v, lo, hi in (("tt_bits", tt_bits, 10, 26), ("small_bits", small_bits, 8, 22),
                                ("tt_split", tt_split, 2, 11)):
            if not lo <= v <= hi:
                raise ValueError(f"{name} must be in {lo}..{hi}, got {v!r}")
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
        """Root searches run by the last solve (exact values take several)."""
        return int(self._W[K.W_PASSES])

    def solve(self, position: Any = None, *, mode: Mode = "exact", threshold: int | str = 61,
              move_values: bool = False, **cards: Any) -> Solution:
        """See :func:`solve`."""
        if position is None:
            pos = Position.make(**cards)
        elif cards:
            raise ValueError(f"pass a state/position or cards, not both (got {sorted(cards)})")
        elif isinstance(position, Position):
            position.validate()
            pos = position
        else:
            pos = Position.from_state(position)
        if mode not in ("exact", "threshold"):
            raise ValueError(f"mode must be 'exact' or 'threshold', got {mode!r}")
        if pos.game == NULL:
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
    def _begin(self, hands: tuple[int, int, int], game: int, declarer: int, kmode: int) -> None:
        """Set up ``W``; keep the table's entries (same epoch) when the cards still held
        belong to the same seats as in the last deal solved, else start a new epoch."""
        last = self._last
        same = (last is not None and last[1:] == (game, declarer, kmode)
                and all(h & ~lh == 0 for h, lh in zip(hands, last[0])))
        if not same:
            self._epoch += 1
            if self._epoch >= 1 << 29:  # the key holds 29 epoch bits
                self._T[:] = 0
                self._epoch = 1
            self._last = (hands, game, declarer, kmode)
        self._game = game
        K.setup(self._W, game, declarer, kmode, self._epoch, self.tt_slots, self.small_slots,
                tt_split=self.tt_split)

    def _run(self, pos: Position, mode: str, kmode: int, target: Any, move_values: bool) -> Solution:
        g, d = pos.game, pos.declarer
        self._begin(pos.hands, g, d, kmode)
        W, T = self._W, self._T
        ntr = pos.tricks_left
        k = len(pos.trick)
        leader = pos.leader
        # the kernels see the hands from the leader on, in rank space
        rh = [int(K.to_rank_mask(pos.hands[(leader + i) % 3], g)) for i in range(3)]
        rt = [int(K.TO_RANK[g, c]) for c in pos.trick]
        fa = rt[0] if k >= 1 else 0
        fb = rt[1] if k >= 2 else 0
        live = rh[0] | rh[1] | rh[2]
        for r in rt:
            live |= 1 << r
        rem = int(K.value_of(W, live)) + int(W[K.W_TB]) * ntr  # the most V can be
        # base: what the declarer already has; need: what V must reach (None: exact)
        need: int | None
        if kmode == K.MODE_POINTS:
            base = pos.declarer_points + (int(card_points(pos.skat)) if g != NULL else 0)
            need = None if target is None else target - base
        elif kmode == K.MODE_TRICKS:
            base = 0
            need = ntr if pos.declarer_tricks == 10 - ntr else rem + 1
        else:
            base = 0
            need = ntr
        legal = pos.legal_moves()
        if ntr == 0:
            value = base if need is None else int(need <= 0)
            return Solution(mode, g, target, value, pos.player, (), {} if move_values else None, 0)

        args = (rh[0], rh[1], rh[2], leader, rem, ntr, k, fa, fb)
        mv: dict[int, int] | None = None
        if move_values:
            mv = self._move_values(args, need, base)
            mover_max = pos.player == d
            value = max(mv.values()) if mover_max else min(mv.values())
            best = tuple(c for c in legal if mv[c] == value)
        elif need is None:
            v, bm = K.exact(W, T, *args, 60 - base, 0, rem)
            value = base + int(v)
            best = (int(K.FROM_RANK[g, bm]),) if bm >= 0 else tuple(legal)
        else:
            W[K.W_ROOTBEST] = -1
            W[K.W_PASSES] = 1
            v = K.search(W, T, rh[0], rh[1], rh[2], leader, need - 1, need, rem, ntr, k, fa, fb, 1)
            value = int(v >= need)
            mover_wins = value == int(pos.player == d)
            bm = int(W[K.W_ROOTBEST])
            best = (int(K.FROM_RANK[g, bm]),) if mover_wins and bm >= 0 else tuple(legal)
        return Solution(mode, g, target, int(value), pos.player, best, mv, int(W[K.W_NODES]))

    def _move_values(self, args: tuple[int, ...], need: int | None, base: int) -> dict[int, int]:
        """Value of each legal move (card id -> value): one child per class of equivalent
        cards, solved in turn on one table, the last value the next guess."""
        W, T = self._W, self._T
        ha, hb, hc, leader, rem, ntr, k, fa, fb = args
        hands = [ha, hb, hc]
        mover = hands[k]
        if k == 0:
            legal, sep = mover, hb | hc
        else:
            legal = mover & int(W[K.W_SEGM + fa]) or mover
            sep = (ha | hb | hc) & ~mover | (1 << fa) | ((1 << fb) if k == 2 else 0)
        repmap = np.full(32, -1, np.int64)
        K.rep_map(W, legal, sep, repmap)
        vals: dict[int, int] = {}
        guess = 60 - base
        for r in range(32):
            if not (legal >> r & 1) or repmap[r] != r:
                continue
            child = list(hands)
            child[k] = mover & ~(1 << r)
            if k < 2:  # the trick goes on: the move becomes a fixed card of it
                cfa = r if k == 0 else fa
                cfb = r if k == 1 else fb
                if need is None:
                    v, _ = K.exact(W, T, child[0], child[1], child[2], leader, rem, ntr, k + 1, cfa, cfb,
                                   guess, 0, rem)
                    guess = int(v)
                    vals[r] = base + int(v)
                else:
                    v = K.search(W, T, child[0], child[1], child[2], leader, need - 1, need, rem, ntr,
                                 k + 1, cfa, cfb, 0)
                    vals[r] = int(v >= need)
                continue
            # the move completes the trick
            w, gain, pts = K.trick_result(W, fa, fb, r, leader)
            nxt = [child[(w + i) % 3] for i in range(3)]
            nl = (leader + w) % 3
            crem = rem - pts - int(W[K.W_TB])
            if need is None:
                v = 0
                if ntr > 1:
                    v, _ = K.exact(W, T, nxt[0], nxt[1], nxt[2], nl, crem, ntr - 1, 0, 0, 0,
                                   guess - gain, 0, crem)
                vals[r] = base + gain + int(v)
                guess = gain + int(v)
            else:
                sub = 0
                if ntr > 1:
                    sub = K.search(W, T, nxt[0], nxt[1], nxt[2], nl, need - gain - 1, need - gain,
                                   crem, ntr - 1, 0, 0, 0, 0)
                vals[r] = int(gain + sub >= need)
        g = self._game
        return {int(K.FROM_RANK[g, r]): vals[int(repmap[r])] for r in range(32) if legal >> r & 1}


_DEFAULT: Solver | None = None


def solve(position: Any = None, *, mode: Mode = "exact", threshold: int | str = 61,
          move_values: bool = False, solver: Solver | None = None, **cards: Any) -> Solution:
    """Solve a play-phase position open-handed (jit-compiled by numba).

    Args:
        position: a :class:`~skatsim.state.SkatState` in the play phase or a
            :class:`Position`; or ``None`` and the :meth:`Position.make` keywords
            (``hands``, ``skat``, ``game``, ``declarer``, ``trick``, ``leader``,
            ``declarer_points``, ``declarer_tricks``).
        mode: ``"exact"`` (the declarer's card points) or ``"threshold"``.
        threshold: card points the declarer must reach (default 61), or
            ``"schwarz"`` for every trick. Ignored in exact mode and in null.
        move_values: also solve every legal move of the player to move.
        solver: a :class:`Solver` (own transposition table); default: a shared one.

    The last two tricks of a grand; the declarer (middlehand, to lead) has 55 card
    points and the skat holds 4 more. Cashing the spade ace first is worth 11 points:

    >>> from skatsim.cards import card_name
    >>> from skatsim.rules import GRAND
    >>> r = solve(hands=("DQ D9", "SA D8", "HK H8"), skat="H9 DK", game=GRAND, declarer=1,
    ...           leader=1, declarer_points=55, declarer_tricks=4, move_values=True)
    >>> r.value, [card_name(c) for c in r.best_moves], {card_name(c): v for c, v in r.move_values.items()}
    (70, ['SA'], {'D8': 59, 'SA': 70})
    >>> solve(hands=("DQ D9", "SA D8", "HK H8"), skat="H9 DK", game=GRAND, declarer=1,
    ...       leader=1, declarer_points=55, declarer_tricks=4, mode="threshold", threshold=61).value
    1
    """
    global _DEFAULT
    if solver is None:
        if _DEFAULT is None:
            _DEFAULT = Solver()
        solver = _DEFAULT
    return solver.solve(position, mode=mode, threshold=threshold, move_values=move_values, **cards)
