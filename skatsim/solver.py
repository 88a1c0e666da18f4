"""Open-hand (double-dummy) solver: the value of a Skat position with every card visible.

:func:`solve` takes a :class:`~skatsim.state.SkatState` in the play phase or an
explicit :class:`Position` (card masks) and returns a :class:`Solution`:

- ``mode="threshold"``: can the declarer reach ``threshold`` card points (61 by
  default; ``"schwarz"``: every trick) against best defence? In null: can he avoid
  every trick? The answer is ``Solution.declarer_wins``.
- ``mode="exact"``: also ``Solution.declarer_points``, his card points at the end of
  the game under minimax play (declarer maximises, defenders minimise), the skat (suit
  and grand) and the points already won included. Null has no card-point value
  (``declarer_points`` is ``None``).
- ``move_values=True`` adds the value of every legal move of the player to move;
  :meth:`Solver.root_values` values every root move of many worlds of one public
  position (a PIMC decision) in one compiled call. All searches of a solver share one
  transposition table. ``node_limit=`` bounds the search nodes per world: a world
  that needs more comes back as -2 ("unknown") so an agent can bound its time per
  decision and ignore that world.
- :func:`target_for` turns an announced contract into its goal (61, 90 with
  schneider, ``"schwarz"``, ``"null"``), to pass as ``threshold``.

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
>>> r.declarer_points, r.declarer_wins, card_name(r.best_moves[0]) in ("CJ", "SJ", "HJ", "S8")
(78, True, True)
>>> solve(s, mode="threshold", threshold=90).declarer_wins          # no schneider
False

Positions can also be given as cards (here the last trick of a clubs game,
declarer forehand to lead):

>>> from skatsim.rules import CLUBS
>>> p = Position.make(hands=("CJ", "C7", "SA"), skat="D7 D8", game=CLUBS, declarer=0,
...                   leader=0, declarer_points=70, declarer_tricks=7)
>>> solve(p).declarer_points                        # 70 + CJ 2 + SA 11
83
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, Union

import numpy as np

from .cards import ALL_CARDS, CardSet, CardsLike, card_name, card_points, parse_card, to_mask
from .contracts import Contract
from .kernels import solver as K
from .rules import GAME_NAMES, NULL, follow_mask, legal_mask
from .scoring import goal_of

if TYPE_CHECKING:
    from .state import SkatState

__all__ = ["describe_target", "Position", "Solution", "Solver", "solve", "target_for", "as_contract", "GOAL_TARGETS"]

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
        ValueError: wrong card counts: seats hold [2, 1, 1] cards, but ... they must hold [1, 1, 1]
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
    def from_state(cls, state: "SkatState") -> "Position":
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

    def legal_cards_mask(self) -> int:
        """Mask of the cards the player to move may play."""
        led = self.trick[0] if self.trick else -1
        return int(legal_mask(self.hands[self.player], led, self.game))

    def legal_cards(self) -> CardSet:
        """The cards the player to move may play (a :class:`~skatsim.cards.CardSet`; it
        iterates card ids ascending), as :meth:`SkatState.legal_cards` does.

        >>> from skatsim.rules import CLUBS
        >>> Position.make(hands=("CJ SA", "C7 S7", "HA H7"), skat="D7 D8", game=CLUBS, declarer=0).legal_cards()
        CardSet('CJ SA')
        """
        return CardSet.from_mask(self.legal_cards_mask())

    legal_moves = legal_cards  # the earlier name

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


# --------------------------------------------------------------------------- targets

Target = Union[int, str]
#: The solver's target of each goal of :mod:`skatsim.scoring` (``GOAL_61`` ... ``GOAL_NULL``).
GOAL_TARGETS: tuple[Target, ...] = (61, 90, "schwarz", "null")


def target_for(contract: "Contract | str | int") -> Target:
    """The declarer's goal in the card play of an announced contract.

    ``61`` card points; ``90`` with schneider announced; ``"schwarz"`` (every trick) with
    schwarz announced, which suit and grand ouvert imply; ``"null"`` (no trick) in every
    null game. Pass it as ``threshold=`` so the solver judges the declarer against the
    announced goal.

    >>> target_for("C"), target_for("GHS"), target_for("SHZ"), target_for("GO"), target_for("NO")
    (61, 90, 'schwarz', 'schwarz', 'null')
    """
    c = as_contract(contract)
    if c.game > NULL:
        raise ValueError(f"Ramsch has no declarer and no target, got {c!r}")
    return GOAL_TARGETS[goal_of(c.game, c.flags)]


def describe_target(target: Target) -> str:
    """A goal in words: ``"61 card points"``, ``"every trick"`` (schwarz), ``"no trick"`` (null).

    >>> describe_target(target_for("CHS")), describe_target("schwarz")
    ('90 card points', 'every trick')
    """
    if target == "schwarz":
        return "every trick"
    if target == "null":
        return "no trick"
    return f"{target} card points"


def as_contract(contract: Any) -> Contract:
    """``contract`` (a :class:`~skatsim.contracts.Contract`, an ISS token or a game type 0..5) as a
    :class:`~skatsim.contracts.Contract`; ``TypeError`` for anything else."""
    if isinstance(contract, Contract):
        return contract
    if isinstance(contract, str):
        return Contract.parse(contract)
    if isinstance(contract, (int, np.integer)) and not isinstance(contract, bool):
        return Contract(int(contract))
    raise TypeError(f"contract must be a Contract, an ISS token or a game type 0..5, got {contract!r}")


def _kernel_goal(game: int, threshold: Any) -> tuple[int, Target, int]:
    """``(kernel mode, target, point threshold)`` for a game and a ``threshold`` argument."""
    if game == NULL:
        if threshold not in (61, "null"):  # 61: the default, meaningless in null
            raise ValueError(f"a null game's only goal is 'null' (no trick), got threshold={threshold!r}")
        return K.MODE_NULL, "null", 0
    if threshold == "schwarz":
        return K.MODE_TRICKS, "schwarz", 0
    if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)) or not 0 <= threshold <= 120:
        raise ValueError(f"threshold must be card points 0..120, 'schwarz' or (null) 'null', got {threshold!r}")
    return K.MODE_POINTS, int(threshold), int(threshold)


# --------------------------------------------------------------------------- solution


@dataclass(frozen=True)
class Solution:
    """The result of :func:`solve`; every field has one meaning in every mode.

    Attributes:
        mode: ``"exact"`` or ``"threshold"``.
        game: the game type.
        declarer: the declarer's seat.
        target: the declarer's goal: card points (61 by default, 90 for schneider),
            ``"schwarz"`` (every trick) or ``"null"`` (no trick, every null game).
        declarer_points: exact mode, suit and grand: the declarer's final card points
            under minimax play (the skat and the points already won included);
            ``None`` in threshold mode and in null.
        declarer_wins: does the declarer reach ``target`` against best defence?
        player: seat to move.
        best_moves: card ids of optimal moves for the player to move: all of them with
            ``move_values``, otherwise at least one; every legal move when all are equal
            (in threshold mode: when the mover cannot reach his goal).
        move_values: card id -> the declarer's final card points after that move
            (exact mode, suit and grand), or 1/0: the declarer reaches ``target``
            after it (threshold mode, null); when requested.
        nodes: search nodes visited (not compared by ``==``).
    """

    mode: str
    game: int
    declarer: int
    target: Target
    declarer_points: int | None
    declarer_wins: bool
    player: int
    best_moves: tuple[int, ...]
    move_values: dict[int, int] | None = field(default=None, compare=False)
    nodes: int = field(default=0, compare=False)

    @property
    def value(self) -> int:
        """Deprecated: ``declarer_points`` when known, else ``int(declarer_wins)``.
        Use those two fields; ``value`` changes its meaning with the mode."""
        warnings.warn("Solution.value is deprecated: use declarer_points or declarer_wins",
                      DeprecationWarning, stacklevel=2)
        return self.declarer_points if self.declarer_points is not None else int(self.declarer_wins)

    def value_for(self, seat: int) -> float:
        """The position's value for ``seat``: exact mode (suit, grand): card points of
        the seat's side (the declarer's, or 120 minus them for a defender); otherwise 1.0
        if the seat's side reaches its goal (the defenders': stopping the declarer), else 0.0."""
        if seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        mine = seat == self.declarer
        if self.declarer_points is not None:
            return float(self.declarer_points if mine else 120 - self.declarer_points)
        return 1.0 if self.declarer_wins == mine else 0.0

    @property
    def mover_value(self) -> float:
        """:meth:`value_for` the player to move."""
        return self.value_for(self.player)

    def __str__(self) -> str:
        moves = " ".join(card_name(c) for c in self.best_moves)
        head = f"{GAME_NAMES[self.game]} {self.mode} (target {self.target})"
        pts = f"declarer points {self.declarer_points}, " if self.declarer_points is not None else ""
        verdict = "wins" if self.declarer_wins else "loses"
        s = f"{head}: {pts}declarer {verdict}, seat {self.player} best: {moves} [{self.nodes} nodes]"
        if self.move_values:
            s += "\n  " + "  ".join(f"{card_name(c)}={v}" for c, v in sorted(self.move_values.items()))
        return s


# --------------------------------------------------------------------------- solver

_PROGRESS_MIN = 256   # batches with more rows than this show a progress bar by default
_PROGRESS_CHUNK = 32  # rows per compiled call while a progress bar is shown


class Solver:
    """An open-hand solver with its own transposition table.

    Args:
        tt_bits: log2 of the entries of the main table (positions with ``tt_split``
            or more tricks left); 16 bytes an entry.
        small_bits: log2 of the entries of the small, cache-resident table for the
            positions near the end.
        tt_split: tricks left from which positions go to the main table.

    Keep one per thread or process. Table entries name the whole position (each seat's
    cards, the leader, game, declarer and mode), so they stay valid across solves: along
    a game, across the worlds of a PIMC decision and across deals. :meth:`reset` empties
    the table (only timing needs that).
    """

    def __init__(self, tt_bits: int = 20, small_bits: int = 16, tt_split: int = 5) -> None:
        for name, v, lo, hi in (("tt_bits", tt_bits, 10, 26), ("small_bits", small_bits, 8, 22),
                                ("tt_split", tt_split, 2, 11)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise ValueError(f"{name} must be an int in {lo}..{hi}, got {v!r}")
        self.tt_slots = 1 << int(tt_bits)
        self.small_slots = 1 << int(small_bits)
        self.tt_split = int(tt_split)
        self._T = np.zeros(2 * (self.tt_slots + self.small_slots), dtype=np.int64)
        self._W = np.zeros(K.W_SIZE, dtype=np.int64)
        self._game = 0
        self.row_nodes = np.zeros(0, np.int64)
        """Search nodes per row of the last :meth:`root_values` / :meth:`solve_many`."""

    def __deepcopy__(self, memo: dict) -> "Solver":
        """A copy with the same sizes and an empty table (its entries only save work, so the copy
        solves alike): copying an agent does not copy 17 MB of table each time."""
        return Solver(self.tt_slots.bit_length() - 1, self.small_slots.bit_length() - 1, self.tt_split)

    def reset(self) -> None:
        """Empty the transposition table (the next solve starts from scratch)."""
        self._T[:] = 0

    @property
    def passes(self) -> int:
        """Root searches run by the last solve (exact values take several)."""
        return int(self._W[K.W_PASSES])

    @property
    def nodes(self) -> int:
        """Search nodes visited by the last solve or batch."""
        return int(self._W[K.W_NODES])

    def solve(self, position: Any = None, *, mode: Mode = "exact", threshold: Target | None = None,
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
            if threshold is None and getattr(position, "contract", None) is not None:
                threshold = target_for(position.contract)  # the announced goal (90 with schneider ...)
        if threshold is None:
            threshold = "null" if pos.game == NULL else 61
        if mode not in ("exact", "threshold"):
            raise ValueError(f"mode must be 'exact' or 'threshold', got {mode!r}")
        kmode, target, _ = _kernel_goal(pos.game, threshold)
        return self._run(pos, mode, kmode, target, bool(move_values))

    def root_values(self, worlds: Any, public: Any, *, mode: Mode = "threshold", threshold: Target = 61,
                    progress: bool | None = None, node_limit: int | None = None) -> np.ndarray:
        """Values of every root move in many worlds of one public position, in one compiled call.

        Args:
            worlds: ``(n, 4)`` card masks: the hands of seats 0, 1, 2 and the skat pile
                per world (what :func:`skatsim.infostate.sample_worlds` returns).
            public: what the worlds share: an :class:`~skatsim.infostate.InfoState`, a
                :class:`Position` (its cards are ignored) or a ``SkatState`` in the play phase.
            mode: ``"threshold"`` (does the declarer reach ``threshold`` after the move?
                the cheap question) or ``"exact"`` (his final card points after it).
            threshold: 61, 90, ... card points, ``"schwarz"``, or (null) ``"null"``;
                :func:`target_for` gives the announced goal.
            progress: a tqdm progress bar (default: for more than 256 worlds).
            node_limit: optional search-node budget *per world* (an int >= 1; ``None``:
                none). A world whose searches need more is abandoned: every legal card
                of its row is -2 ("unknown"), and the caller can drop that world (for
                instance ``vals[(vals != -2).all(axis=1)]``). The other worlds are exact,
                and so is everything the table keeps (an abandoned search stores
                nothing). A node costs roughly 50 ns, so ``node_limit=200_000`` caps a
                world at about 10 ms. :attr:`row_nodes` tells the nodes each world used.

        Returns:
            ``int64 (n, 32)``: per world and card id, -1 if the card is not a legal move;
            else 1/0 (threshold mode and null: the declarer reaches the target) or the
            declarer's final card points (exact mode, suit and grand); -2 for every legal
            card of a world over ``node_limit``.
        """
        pub = _public_position(public)
        w = _world_array(worlds)
        rows = _rows_from_worlds(w, pub)
        return self._batch(rows, pub.game, pub.declarer, mode, threshold, progress, node_limit)

    def solve_many(self, positions: Sequence[Position], *, mode: Mode = "threshold", threshold: Target = 61,
                   progress: bool | None = None, node_limit: int | None = None) -> np.ndarray:
        """Root move values (as :meth:`root_values`, ``node_limit`` per position included)
        of many positions of one game type in one compiled call: ``int64 (len(positions), 32)``."""
        positions = list(positions)
        if not positions:
            _check_node_limit(node_limit)
            self.row_nodes = np.zeros(0, np.int64)
            return np.zeros((0, 32), np.int64)
        rows, g, d = _position_rows(positions, one_declarer=False)
        return self._batch(rows, g, d, mode, threshold, progress, node_limit)

    def wins_many(self, positions: Sequence[Position], *, threshold: Target = 61,
                  node_limit: int | None = None) -> np.ndarray:
        """Does the declarer reach ``threshold`` with best play, for many positions of one
        game type and declarer, in one compiled call: ``int64`` 1 / 0, or -2 for a position
        over ``node_limit`` nodes (see :meth:`root_values`). One search per position: the
        cheap question when no per-card values are needed (a discard or contract search).

        >>> from skatsim.rules import GRAND
        >>> p = Position.make(("CJ SJ HJ DJ CA C10 SA S10 HA H10", "C9 C8 C7 S9 S8 S7 H9 H8 H7 D9",
        ...                    "CK CQ SK SQ HK HQ DA D10 DK DQ"), "D8 D7", GRAND, 0)
        >>> Solver(tt_bits=12).wins_many([p]).tolist()
        [1]
        """
        positions = list(positions)
        limit = _check_node_limit(node_limit)
        self.row_nodes = np.zeros(len(positions), np.int64)
        if not positions:
            return np.zeros(0, np.int64)
        rows, g, d = _position_rows(positions, one_declarer=True)
        kmode, _, pts = _kernel_goal(g, threshold)
        self._setup(g, d, kmode)
        out = np.empty(len(positions), np.int64)
        K.batch_position_wins(self._W, self._T, rows, g, kmode, pts, out, limit, self.row_nodes)
        return out

    def state_values(self, states: np.ndarray, *, mode: Mode = "threshold", node_limit: int | None = None,
                     progress: bool | None = False) -> np.ndarray:
        """Root move values of many engine states in the play phase (rows of
        :attr:`skatsim.vec.VecEnv.state`, the ``F_*`` layout of :mod:`skatsim.layout`),
        each judged against its own announced goal (:func:`target_for` of its contract):
        labels for learning card play from the true deal.

        Rows may mix games, declarers and goals (they are solved in groups of one game,
        declarer and goal). Returns ``int64 (n, 32)`` as :meth:`root_values`: -1 not a legal
        card; 1/0 the declarer reaches his goal after the card (threshold mode, null), or
        his final card points (exact mode, suit and grand); -2 for every legal card of a
        row over ``node_limit``.

        >>> from skatsim import SkatState
        >>> s = SkatState.new_game(seed=2)
        >>> for a in ("18", "yes", "pass", "pass", "hand", "CH"):
        ...     s.apply_action(s.string_to_action(a))
        >>> v = Solver().state_values(s.vector[None, :])    # one row; VecEnv.state gives many
        >>> sorted(set(v[0].tolist()))                      # the clubs hand wins after any card
        [-1, 1]
        """
        from .layout import (F_DECLARER, F_FLAGS, F_GAME, F_HAND0, F_LEADER, F_NCARDS, F_PHASE, F_POINTS0,
                             F_SKAT, F_TRICK0, F_TRICK1, F_TRICKS0, N_FIELDS, PH_PLAY)

        st = np.asarray(states)
        if st.ndim != 2 or st.shape[1] != N_FIELDS or st.dtype.kind not in "iu":
            raise ValueError(f"states must be engine state rows, an integer array (n, {N_FIELDS}); "
                             f"got {st.dtype} {st.shape}")
        st = st.astype(np.int64, copy=False)
        n = len(st)
        out = np.full((n, 32), -1, np.int64)
        self.row_nodes = nodes = np.zeros(n, np.int64)
        if n == 0:
            return out
        bad = np.flatnonzero((st[:, F_PHASE] != PH_PLAY) | (st[:, F_GAME] > NULL) | (st[:, F_DECLARER] < 0))
        if len(bad):
            raise ValueError(f"states[{int(bad[0])}] is not the play phase of a suit, grand or null game")
        d = st[:, F_DECLARER]
        rows = np.zeros((n, K.B_COLS), np.int64)
        rows[:, K.B_H0:K.B_H0 + 3] = st[:, F_HAND0:F_HAND0 + 3]
        rows[:, K.B_SKAT] = st[:, F_SKAT]
        rows[:, K.B_LEADER] = st[:, F_LEADER]
        rows[:, K.B_NTRICK] = st[:, F_NCARDS]
        rows[:, K.B_T0] = st[:, F_TRICK0]
        rows[:, K.B_T1] = st[:, F_TRICK1]
        rows[:, K.B_DPOINTS] = st[np.arange(n), F_POINTS0 + d]
        rows[:, K.B_DTRICKS] = st[np.arange(n), F_TRICKS0 + d]
        rows[:, K.B_DECL] = d
        goals = [target_for(Contract(int(g), int(f))) for g, f in zip(st[:, F_GAME], st[:, F_FLAGS])]
        keys = [(int(g), int(x), goals[i]) for i, (g, x) in enumerate(zip(st[:, F_GAME], d))]
        for key in sorted(set(keys), key=str):
            idx = np.array([i for i, k in enumerate(keys) if k == key], np.int64)
            out[idx] = self._batch(rows[idx], key[0], key[1], mode, key[2], progress, node_limit)
            nodes[idx] = self.row_nodes
        self.row_nodes = nodes
        return out

    def value_function(self, mode: Mode = "threshold", threshold: Target | None = None) -> Callable[[Any, int], float]:
        """An OpenSpiel ``PIMCBot``-style ``value_function(state, seat) -> float``.

        ``state``: a ``SkatState`` (play phase or finished) or a :class:`Position`;
        the value is :meth:`Solution.value_for` ``seat``: 1.0/0.0 (threshold mode: the
        seat's side reaches its goal) or the side's card points (exact mode). The goal
        is ``threshold``, default the state's announced one (:func:`target_for`; 61 for
        a Position).
        """
        if mode not in ("exact", "threshold"):
            raise ValueError(f"mode must be 'exact' or 'threshold', got {mode!r}")

        def value_function(state: Any, seat: int) -> float:
            contract = None if isinstance(state, Position) else getattr(state, "contract", None)
            goal = threshold if threshold is not None else (target_for(contract) if contract is not None else 61)
            if not isinstance(state, Position) and getattr(state, "phase", None) == "done":
                return _finished_value(state, seat, mode, goal)
            return self.solve(state, mode=mode, threshold=goal).value_for(seat)

        return value_function

    # ------------------------------------------------------------------ internals
    def _setup(self, game: int, declarer: int, kmode: int) -> None:
        self._game = game
        K.setup(self._W, game, declarer, kmode, self.tt_slots, self.small_slots, tt_split=self.tt_split)

    def _batch(self, rows: np.ndarray, game: int, declarer: int, mode: str, threshold: Any,
               progress: bool | None, node_limit: int | None = None) -> np.ndarray:
        if mode not in ("exact", "threshold"):
            raise ValueError(f"mode must be 'exact' or 'threshold', got {mode!r}")
        limit = _check_node_limit(node_limit)
        kmode, _, pts = _kernel_goal(game, threshold)
        exact_values = mode == "exact" and kmode == K.MODE_POINTS
        self._setup(game, declarer, kmode)
        n = len(rows)
        out = np.empty((n, 32), np.int64)
        self.row_nodes = rn = np.zeros(n, np.int64)
        show = n > _PROGRESS_MIN if progress is None else bool(progress)
        if not show:
            K.batch_root_values(self._W, self._T, rows, game, kmode, pts, exact_values, out, limit, rn)
            return out
        from tqdm.auto import tqdm

        nodes = 0
        with tqdm(total=n, desc="solving", unit="world") as bar:
            for a in range(0, n, _PROGRESS_CHUNK):
                b = min(n, a + _PROGRESS_CHUNK)
                K.batch_root_values(self._W, self._T, rows[a:b], game, kmode, pts, exact_values, out[a:b],
                                    limit, rn[a:b])
                nodes += int(self._W[K.W_NODES])
                self._W[K.W_NODES] = 0
                bar.update(b - a)
        self._W[K.W_NODES] = nodes
        return out

    def _run(self, pos: Position, mode: str, kmode: int, target: Any, move_values: bool) -> Solution:
        g, d = pos.game, pos.declarer
        self._setup(g, d, kmode)
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
        # base: what the declarer already has; need: what V must reach
        exact_pts = mode == "exact" and kmode == K.MODE_POINTS
        if kmode == K.MODE_POINTS:
            base = pos.declarer_points + (int(card_points(pos.skat)) if g != NULL else 0)
            need = int(target) - base
        elif kmode == K.MODE_TRICKS:
            base = 0
            need = ntr if pos.declarer_tricks == 10 - ntr else rem + 1
        else:
            base = 0
            need = ntr
        legal = pos.legal_cards()
        mover_max = pos.player == d
        if ntr == 0:
            return Solution(mode, g, d, target, base if exact_pts else None,
                            (base >= int(target)) if kmode == K.MODE_POINTS else need <= 0,
                            pos.player, (), {} if move_values else None, 0)
        args = (rh[0], rh[1], rh[2], leader, rem, ntr, k, fa, fb)
        mv: dict[int, int] | None = None
        points: int | None = None
        if move_values:
            tmp = np.empty(32, np.int64)
            lm = int(K.root_move_values(W, T, *args, need, exact_pts, 60 - base, tmp))
            vals = {int(K.FROM_RANK[g, r]): (base + int(tmp[r]) if exact_pts else int(tmp[r]))
                    for r in range(32) if lm >> r & 1}
            mv = dict(sorted(vals.items()))
            top = max(mv.values()) if mover_max else min(mv.values())
            best = tuple(c for c in legal if mv[c] == top)
            if exact_pts:
                points = top
                wins = top >= int(target)
            else:
                wins = top == 1
        elif exact_pts:
            v, bm = K.exact(W, T, *args, 60 - base, 0, rem)
            points = base + int(v)
            wins = points >= int(target)
            best = (int(K.FROM_RANK[g, bm]),) if bm >= 0 else tuple(legal)
        else:
            W[K.W_ROOTBEST] = -1
            W[K.W_PASSES] = 1
            v = K.search(W, T, rh[0], rh[1], rh[2], leader, need - 1, need, rem, ntr, k, fa, fb, 1)
            wins = bool(v >= need)
            bm = int(W[K.W_ROOTBEST])
            best = (int(K.FROM_RANK[g, bm]),) if wins == mover_max and bm >= 0 else tuple(legal)
        return Solution(mode, g, d, target, points, bool(wins), pos.player, best, mv, int(W[K.W_NODES]))


def _check_node_limit(node_limit: Any) -> int:
    """The kernel's ``node_limit`` (0: none) for a ``node_limit=`` argument."""
    if node_limit is None:
        return 0
    if isinstance(node_limit, bool) or not isinstance(node_limit, (int, np.integer)) or node_limit < 1:
        raise ValueError(f"node_limit must be a positive int (nodes per world) or None, got {node_limit!r}")
    return int(node_limit)


def _finished_value(state: Any, seat: int, mode: str, goal: Any) -> float:
    """:meth:`Solver.value_function` of a finished game (no search)."""
    d = state.declarer
    if d is None:
        raise ValueError("the game has no declarer (passed in or Ramsch): no value to give")
    r = state.result
    pts, tricks = r.declarer_points, r.declarer_tricks
    if mode == "exact" and state.game_type != NULL:
        return float(pts if seat == d else 120 - pts)
    wins = tricks == 0 if goal == "null" else tricks == 10 if goal == "schwarz" else pts >= int(goal)
    return 1.0 if wins == (seat == d) else 0.0


def _public_position(public: Any) -> Position:
    """The public part of a root (game, declarer, trick, leader, declarer's tally) as a Position
    whose cards are placeholders."""
    if isinstance(public, Position):
        return public
    to_pos = getattr(public, "public_position", None)
    if callable(to_pos):  # an InfoState
        return to_pos()
    return Position.from_state(public)


def _world_array(worlds: Any) -> np.ndarray:
    w = np.asarray(worlds)
    if w.ndim != 2 or w.shape[1] != 4 or w.dtype.kind not in "iu":
        raise ValueError(f"worlds must be an integer array of shape (n, 4) (hands of seats 0..2, skat), "
                         f"got {w.dtype} {w.shape}")
    if w.size and (w.min() < 0 or w.max() > ALL_CARDS):
        raise ValueError("worlds hold values that are not 32-bit card masks")
    return w.astype(np.int64, copy=False)


def _position_rows(positions: list[Any], one_declarer: bool) -> tuple[np.ndarray, int, int]:
    """The ``B_*`` kernel rows of a batch of positions, checked to share one game type (and,
    with ``one_declarer``, one declarer), with that game and the first declarer."""
    g, d = positions[0].game, positions[0].declarer
    rows = np.zeros((len(positions), K.B_COLS), np.int64)
    for i, p in enumerate(positions):
        if not isinstance(p, Position):
            raise TypeError(f"positions[{i}] is not a Position: {type(p).__name__}")
        p.validate()
        if one_declarer and (p.game != g or p.declarer != d):
            raise ValueError(f"positions[{i}] has game {p.game} and declarer {p.declarer}; a batch needs one "
                             f"game type and declarer (positions[0]: {g}, {d})")
        if p.game != g:
            raise ValueError(f"positions[{i}] has game {p.game}; a batch needs one game type (positions[0]: {g})")
        rows[i] = _row(p.hands, p.skat, p)
    return rows, g, d


def _row(hands: Sequence[int], skat: int, pub: Position) -> np.ndarray:
    r = np.zeros(K.B_COLS, np.int64)
    r[K.B_H0:K.B_H0 + 3] = hands
    r[K.B_SKAT] = skat
    r[K.B_LEADER] = pub.leader
    r[K.B_NTRICK] = len(pub.trick)
    r[K.B_T0] = pub.trick[0] if len(pub.trick) > 0 else 0
    r[K.B_T1] = pub.trick[1] if len(pub.trick) > 1 else 0
    r[K.B_DPOINTS] = pub.declarer_points
    r[K.B_DTRICKS] = pub.declarer_tricks
    r[K.B_DECL] = pub.declarer
    return r


def _popcount_rows(a: np.ndarray) -> np.ndarray:
    return np.unpackbits(a.astype("<u4").view(np.uint8).reshape(a.shape + (4,)), axis=-1).sum(-1)


def _rows_from_worlds(w: np.ndarray, pub: Position) -> np.ndarray:
    """Kernel rows for worlds of one public position, validated: world 0 as a whole
    :class:`Position`, the others vectorised (same cards in play, counts, follow suit)."""
    n = len(w)
    rows = np.zeros((n, K.B_COLS), np.int64)
    if n == 0:
        return rows
    first = Position((int(w[0, 0]), int(w[0, 1]), int(w[0, 2])), int(w[0, 3]), pub.game, pub.declarer,
                     pub.trick, pub.leader, pub.declarer_points, pub.declarer_tricks)
    try:
        first.validate()
    except ValueError as e:
        raise ValueError(f"world 0: {e}") from None
    union = w[:, 0] | w[:, 1] | w[:, 2] | w[:, 3]
    total = _popcount_rows(w).sum(axis=1)
    bad = (union != union[0]) | (total != total[0]) | (_popcount_rows(w) != _popcount_rows(w[:1])).any(axis=1)
    if len(pub.trick) == 2:
        follow = int(follow_mask(pub.trick[0], pub.game))
        if not follow >> pub.trick[1] & 1:  # seat 2 of the trick showed a void
            bad |= (w[:, (pub.leader + 1) % 3] & follow) != 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"world {i} does not fit the public position: it must hold the same cards as world 0 "
                         f"(in the same counts per seat) and respect the trick in progress")
    rows[:, K.B_H0:K.B_H0 + 4] = w
    rows[:, K.B_LEADER:] = _row(first.hands, first.skat, first)[K.B_LEADER:]
    return rows


_DEFAULT: Solver | None = None


def solve(position: Any = None, *, mode: Mode = "exact", threshold: Target | None = None,
          move_values: bool = False, solver: Solver | None = None, **cards: Any) -> Solution:
    """Solve a play-phase position open-handed (jit-compiled by numba).

    Args:
        position: a :class:`~skatsim.state.SkatState` in the play phase or a
            :class:`Position`; or ``None`` and the :meth:`Position.make` keywords
            (``hands``, ``skat``, ``game``, ``declarer``, ``trick``, ``leader``,
            ``declarer_points``, ``declarer_tricks``).
        mode: ``"exact"`` (the declarer's card points, and whether they reach the
            target) or ``"threshold"`` (only whether he reaches the target: faster).
        threshold: the declarer's goal: card points (61 to win, 90 for schneider),
            ``"schwarz"`` for every trick; null games always have goal ``"null"``.
            Default: the goal of the state's announced contract (:func:`target_for`:
            90 with schneider announced, every trick with schwarz announced or ouvert),
            61 for a :class:`Position`.
        move_values: also solve every legal move of the player to move.
        solver: a :class:`Solver` (own transposition table); default: a shared one.

    The last two tricks of a grand; the declarer (middlehand, to lead) has 55 card
    points and the skat holds 4 more. Cashing the spade ace first is worth 11 points:

    >>> from skatsim.cards import card_name
    >>> from skatsim.rules import GRAND
    >>> r = solve(hands=("DQ D9", "SA D8", "HK H8"), skat="H9 DK", game=GRAND, declarer=1,
    ...           leader=1, declarer_points=55, declarer_tricks=4, move_values=True)
    >>> r.declarer_points, [card_name(c) for c in r.best_moves], {card_name(c): v for c, v in r.move_values.items()}
    (70, ['SA'], {'D8': 59, 'SA': 70})
    >>> solve(hands=("DQ D9", "SA D8", "HK H8"), skat="H9 DK", game=GRAND, declarer=1,
    ...       leader=1, declarer_points=55, declarer_tricks=4, mode="threshold", threshold=61).declarer_wins
    True
    """
    global _DEFAULT
    if solver is None:
        if _DEFAULT is None:
            _DEFAULT = Solver()
        solver = _DEFAULT
    return solver.solve(position, mode=mode, threshold=threshold, move_values=move_values, **cards)
