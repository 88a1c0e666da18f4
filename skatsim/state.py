"""``SkatState``: the complete ISkO game behind an OpenSpiel-style API.

The state is a thin wrapper around one state vector of the compiled state machine
(:mod:`skatsim.kernels.game`), so the Python API and the batch kernels share one
rules truth. Seats: 0 forehand, 1 middlehand, 2 rearhand; forehand leads trick 1.

>>> s = SkatState.new_game(seed=3)
>>> s.phase, s.current_player()          # middlehand bids to forehand
('bidding', 1)
>>> s.apply_action(s.string_to_action("18")); s.apply_action(s.string_to_action("yes"))
>>> s.legal_actions()[:3] == [s.string_to_action(v) for v in ("20", "22", "23")]
True
>>> s.apply_action(s.string_to_action("17"))
Traceback (most recent call last):
...
ValueError: 17 is not a valid bid; valid bids are 18, 20, 22, 23, 24, 27, ... 264
>>> s.apply_action(PICKUP)
Traceback (most recent call last):
...
ValueError: illegal action 97 ('pickup') for seat 1 in phase bidding; legal: pass, 20, 22, 23, ... (63 actions)

Straight into the card play (bidding, skat and declaration done for you), and the
returns convention (Seeger-Fabian points per seat by default):

>>> s = SkatState.new_game(seed=0, declare=(0, "CH"))
>>> s.phase, s.declarer, s.contract, s.bid
('play', 0, Contract('CH'), 18)
>>> while not s.is_terminal():
...     s.apply_action(s.legal_actions()[0])
>>> s.returns(), s.returns("list"), s.returns("zero_sum")
([-266.0, 40.0, 40.0], [-216.0, 0.0, 0.0], [-216.0, 108.0, 108.0])
"""

from __future__ import annotations

import json
import operator
from typing import Any

import numpy as np

from ._random import SeedLike, check_random_state, to_seed
from .actions import (HAND, HOLD, NUM_ACTIONS, PASS, PICKUP, action_ids, action_to_string, bid_action, declare_action,
                      string_to_action)
from .bits import rand_below, seat_stream
from .cards import CardSet, CardsLike, card_name, to_mask
from .contracts import Contract
from .deal import SEED_MASK, Deal, deal_masks
from .kernels import game as K
from .options import ISKO, SkatRules
from .layout import SEAT_NAMES
from .rules import RAMSCH, tricks_from_moves, trump_mask
from .scoring import GameResult

__all__ = ["SkatState", "TERMINAL_PLAYER", "RecordError", "RETURN_KINDS", "to_play", "random_game",
           "returns_from", "tricks_from_moves"]

#: ``current_player()`` of a finished game (OpenSpiel's ``kTerminalPlayerId``).
TERMINAL_PLAYER = -4
#: The kinds of :meth:`SkatState.returns`; the first is the default.
RETURN_KINDS = ("sf", "list", "zero_sum")


def _seat(player: Any, what: str = "seat") -> int:
    """``player`` as a seat 0..2, or ``ValueError`` naming it (bools are not seats)."""
    if type(player) is int and 0 <= player <= 2:
        return player
    if not isinstance(player, (bool, np.bool_)) and hasattr(player, "__index__"):
        p = operator.index(player)
        if 0 <= p <= 2:
            return p
    raise ValueError(f"{what} must be a seat 0, 1 or 2 (forehand, middlehand, rearhand), got {player!r}")


def _compiled_step():
    """``kernels.game.step`` without numba's per-call type dispatch (about 120 ns less per
    move); falls back to the dispatcher (or the plain function under NUMBA_DISABLE_JIT)."""
    st = np.zeros(K.N_FIELDS, dtype=np.int64)
    K.step(st, -1)  # compile, or load from the cache
    try:
        return K.step.overloads[K.step.signatures[0]].entry_point
    except (AttributeError, IndexError, KeyError):  # numba disabled: plain Python with numpy ints
        return lambda st, a: tuple(int(x) for x in K.step(st, a))


_STEP = _compiled_step()


def returns_from(declarer: int, scores: list[int], sf: list[int], kind: str = "sf") -> list[float]:
    """Per-seat returns of kind ``kind`` (:meth:`SkatState.returns`) of a settled game: its
    declarer (-1: none), list scores and Seeger-Fabian points per seat (``score_0..2``,
    ``sf_0..2`` of a result row).

    >>> returns_from(0, [-216, 0, 0], [-266, 40, 40], "zero_sum")
    [-216.0, 108.0, 108.0]
    """
    if kind == "sf":
        return [float(x) for x in sf]
    sc = [float(x) for x in scores]
    if kind == "list":
        return sc
    if kind != "zero_sum":
        raise ValueError(f"returns kind must be one of {RETURN_KINDS}, got {kind!r}")
    if declarer < 0:  # Ramsch (or passed in: all zero)
        mean = sum(sc) / 3.0
        return [x - mean for x in sc]
    return [sc[declarer] if s == declarer else -sc[declarer] / 2.0 for s in range(3)]


class RecordError(ValueError):
    """A game record that does not replay under the rules (names the first bad move)."""


class SkatState:
    """One game of Skat from the deal to the settlement.

    Create with :meth:`new_game` (random deal from a seed, or an explicit
    :class:`~skatsim.deal.Deal`) or :meth:`from_record`.
    """

    __slots__ = ("_st", "_actions", "_players", "_phases", "rules", "seed", "_deal", "_phase", "_legal",
                 "_events")

    def __init__(self, deal: Deal, rules: SkatRules = ISKO, seed: int | None = None) -> None:
        if not isinstance(rules, SkatRules):
            raise TypeError(f"rules must be a SkatRules (e.g. SkatRules(kontra=True); ISkO is SkatRules()), "
                            f"got {type(rules).__name__} {rules!r}")
        if not isinstance(deal, Deal):
            raise TypeError("deal must be a Deal (skatsim.deal(seed), deal_from_hands(...)), "
                            f"got {type(deal).__name__}")
        self.rules = rules
        self.seed = seed
        self._deal = deal
        self._st = np.zeros(K.N_FIELDS, dtype=np.int64)
        h0, h1, h2, sk = deal.masks()
        K.init_state(self._st, h0, h1, h2, sk, rules.flags)
        # caches of the compiled state, refreshed by every apply_action
        self._phase = K.PH_BID
        self._legal = tuple(int(x) for x in K.legal_set(self._st))
        self._actions: list[int] = []
        self._players: list[int] = []
        self._phases: list[int] = []  # phase in which each action was taken
        # record-level events (show cards, resign, time-out, left, the server's schwarz
        # stop) as (number of actions before it, seat or -1, kind, cards mask)
        self._events: list[tuple[int, int, str, int]] = []

    # ---------------------------------------------------------------- construction
    @classmethod
    def new_game(cls, seed: int | None = None, *, deal: Deal | None = None,
                 rules: SkatRules = ISKO, rng: SeedLike = None,
                 declare: tuple[int, Contract | str] | None = None) -> "SkatState":
        """A new game at the start of bidding (or, with ``declare``, of the card play).

        Exactly one source of cards: ``deal`` (explicit), or ``seed`` (an int deal seed,
        the same cards as ``skatsim.deal(seed)`` and a simulation row's ``deal_seed``),
        or ``rng`` (a ``numpy.random.Generator``, or an int seeding one, that draws the
        deal seed; fresh entropy when neither is given). The seed is kept as an int in
        :attr:`seed` and in the record. Floats, strings and bools are refused
        (``TypeError``), see :mod:`skatsim._random`.

        ``declare=(seat, contract)`` then plays the bidding, skat and declaration so that
        ``seat`` declares ``contract`` at 18 (see :func:`to_play`).
        """
        if deal is None:
            seed = to_seed(seed) if seed is not None else to_seed(check_random_state(rng, name="rng"))
            h0, h1, h2, sk, _ = deal_masks(seed & SEED_MASK)
            deal = Deal((CardSet.from_mask(h0), CardSet.from_mask(h1), CardSet.from_mask(h2)),
                        CardSet.from_mask(sk))
        elif seed is not None or rng is not None:
            raise ValueError("pass either a deal or a seed/rng, not both")
        state = cls(deal, rules, seed)
        if declare is not None:
            if not isinstance(declare, (tuple, list)) or len(declare) != 2:
                raise ValueError(f"declare must be a pair (seat, contract), e.g. (0, 'CH'), got {declare!r}")
            seat, contract = declare
            _drive_to_play(state, seat, contract)
        return state

    def clone(self) -> "SkatState":
        """An independent copy (state vector, history and caches; the deal and rules are
        shared, they are immutable).

        >>> s = SkatState.new_game(seed=1); c = s.clone(); c.apply_action(c.legal_actions()[0])
        >>> len(s.history()), len(c.history())
        (0, 1)
        """
        s = SkatState.__new__(SkatState)
        s.rules = self.rules
        s.seed = self.seed
        s._deal = self._deal
        s._st = self._st.copy()
        s._phase = self._phase
        s._legal = self._legal
        s._actions = self._actions.copy()
        s._players = self._players.copy()
        s._phases = self._phases.copy()
        s._events = self._events.copy()
        return s

    def child(self, action: int) -> "SkatState":
        """A copy of the state with ``action`` applied."""
        s = self.clone()
        s.apply_action(action)
        return s

    # ---------------------------------------------------------------- core API
    def current_player(self) -> int:
        """Seat to act, or :data:`TERMINAL_PLAYER` (-4) when the game is over."""
        p = int(self._st[K.F_PLAYER])
        return TERMINAL_PLAYER if p < 0 else p

    @property
    def phase(self) -> str:
        """``bidding``, ``skat``, ``discard``, ``declare``, ``kontra``, ``play`` or ``done``."""
        return K.PHASE_NAMES[self._phase]

    def is_terminal(self) -> bool:
        """True once the game is over (phase ``done``): the result is then defined."""
        return self._phase == K.PH_DONE

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Legal action ids of the player to move, ascending (empty when terminal or
        when ``player`` is given and is not the player to move)."""
        if player is not None and _seat(player, "player") != self._st[K.F_PLAYER]:
            return []
        return action_ids(*self._legal)

    def is_legal(self, action: Any) -> bool:
        """Is ``action`` (an action id) legal now? O(1), no list is built; ``False`` for
        anything that is not an action id (bools, floats, strings, out of range).

        >>> s = SkatState.new_game(seed=1)
        >>> s.is_legal(s.string_to_action("18")), s.is_legal(PICKUP), s.is_legal(True)
        (True, False, False)
        """
        if type(action) is not int:
            if isinstance(action, (bool, np.bool_)) or not hasattr(action, "__index__"):
                return False
            action = operator.index(action)
        base, lo, hi = self._legal
        i = action - base
        if i < 0 or i >= 64:
            return False
        return bool((lo >> i) & 1) if i < 32 else bool((hi >> (i - 32)) & 1)

    def legal_actions_mask(self) -> np.ndarray:
        """Boolean array of size ``NUM_ACTIONS`` (130), True for legal actions."""
        m = np.zeros(NUM_ACTIONS, dtype=bool)
        m[self.legal_actions()] = True
        return m

    def apply_action(self, action: int) -> None:
        """Apply a legal action; an illegal one raises ``ValueError`` and changes nothing."""
        if type(action) is not int:
            if isinstance(action, (bool, np.bool_)):  # True is not the card 1
                raise ValueError(self._illegal_message(action))
            try:
                action = operator.index(action)
            except TypeError:
                raise ValueError(self._illegal_message(action)) from None
        before = self._phase
        try:
            p, self._phase, base, lo, hi = _STEP(self._st, action)
        except OverflowError:
            raise ValueError(self._illegal_message(action)) from None
        if p < 0:
            raise ValueError(self._illegal_message(action))
        self._legal = (base, lo, hi)
        self._actions.append(action)
        self._players.append(p)
        self._phases.append(before)

    def legal_text(self) -> str:
        """The legal actions as short text for messages (``"pass, 20, 22, 23, ... (63 actions)"``).

        >>> SkatState.new_game(seed=1).legal_text()
        'pass, 18, 20, 22, ... (64 actions)'
        """
        legal = [action_to_string(a) for a in self.legal_actions()]
        if self.phase == "bidding" and legal and legal[-1] == "pass" and len(legal) > 12:
            return "pass, " + ", ".join(legal[:3]) + f", ... ({len(legal)} actions)"
        return ", ".join(legal) if len(legal) <= 12 else ", ".join(legal[:4]) + f", ... ({len(legal)} actions)"

    def _illegal_message(self, action: Any) -> str:
        try:
            if isinstance(action, (bool, np.bool_)):
                raise TypeError
            name = repr(action_to_string(operator.index(action)))
        except (ValueError, TypeError):
            name = "not an action id"
        if self.is_terminal():
            return f"illegal action {action!r} ({name}): the game is over"
        return (f"illegal action {action!r} ({name}) for seat {self.current_player()} in phase "
                f"{self.phase}; legal: {self.legal_text()}")

    # ---------------------------------------------------------------- record-level events
    def show_cards(self, seat: int, cards: CardsLike | None = None) -> None:
        """The declarer shows ``cards`` (default: his whole hand), as with ISS ``SC``.
        Nothing else changes: play goes on (ISS_FORMAT.md §3). ``ValueError`` unless
        ``seat`` is the declarer of a declared game in progress holding those cards."""
        p = _seat(seat)
        mask = self.hand_mask(p) if cards is None else to_mask(cards)
        if not K.show_cards(self._st, p, mask):
            raise ValueError(f"seat {p} cannot show {CardSet.from_mask(mask)}: only the declarer shows his own "
                             f"cards, after the declaration and before the end (phase {self.phase})")
        self._events.append((len(self._actions), p, "show", mask))

    def resign(self, seat: int) -> bool:
        """``seat`` resigns (ISS ``RE``). The declarer's resignation ends the game (lost;
        the cards still out go to the defenders; no schneider/schwarz against him in the
        first trick, the ISS rule). A defender's waits for his partner's: when both have
        resigned the declarer gets every card still out (in null the defenders do) and
        the game is settled from the cards. Returns True when the game ended.
        ``ValueError`` outside a declared game in progress or when said twice."""
        p = _seat(seat)
        r = int(K.resign(self._st, p))
        if r < 0:
            raise ValueError(f"seat {p} cannot resign now (phase {self.phase}; resigning needs a declared game "
                             "in progress, once per seat)")
        self._events.append((len(self._actions), p, "resign", 0))
        self._sync()
        return r == 1

    def abandon(self, seat: int, reason: str = "timeout") -> None:
        """End the game because ``seat`` ran out of time (``reason="timeout"``, ISS
        ``w TI.s``) or left the table (``"left"``, ``w LE.s``). The game is not scored
        (a penalty game: the result reads like a passed-in game, :attr:`ending` tells)."""
        p = _seat(seat)
        code = {"timeout": K.END_TIMEOUT, "left": K.END_LEFT}.get(reason)
        if code is None:
            raise ValueError(f"reason must be 'timeout' or 'left', got {reason!r}")
        if not K.abandon(self._st, p, code):
            raise ValueError("the game is already over")
        self._events.append((len(self._actions), p, reason, 0))
        self._sync()

    def end_schwarz_lost(self) -> None:
        """End an announced-schwarz game (every suit/grand ouvert game too) right after
        the defenders' first trick, as the ISS server does (the game is lost and its value
        fixed; settled with the points so far, without schneider/schwarz flags).
        ``ValueError`` unless the last completed trick was the defenders' first."""
        if not K.end_schwarz_lost(self._st):
            raise ValueError("end_schwarz_lost needs an announced-schwarz suit or grand game right after the "
                             "defenders' first trick")
        self._events.append((len(self._actions), -1, "schwarz_lost", 0))
        self._sync()

    def apply_event(self, kind: str, seat: int = -1, cards: CardsLike | None = None) -> None:
        """Apply a record-level event by name: ``show`` (with ``cards``), ``resign``,
        ``timeout``, ``left`` or ``schwarz_lost`` (see the methods of the same meaning)."""
        if kind == "show":
            self.show_cards(seat, cards)
        elif kind == "resign":
            self.resign(seat)
        elif kind in ("timeout", "left"):
            self.abandon(seat, kind)
        elif kind == "schwarz_lost":
            self.end_schwarz_lost()
        else:
            raise ValueError(f"unknown event {kind!r}; known: show, resign, timeout, left, schwarz_lost")

    def events(self) -> list[dict[str, Any]]:
        """The record-level events so far: ``{"at": actions before it, "seat", "kind",
        "cards"}`` (``cards``: the shown cards as text, else ``""``)."""
        return [{"at": at, "seat": p, "kind": k, "cards": CardSet.from_mask(m).to_text() if m else ""}
                for at, p, k, m in self._events]

    @property
    def ending(self) -> str | None:
        """How the game ended: ``played`` (to the end by the rules), ``schwarz_lost``,
        ``declarer_resigned``, ``defenders_resigned``, ``timeout``, ``left``; ``None``
        while it runs."""
        if not self.is_terminal():
            return None
        return K.END_NAMES[int(self._st[K.F_END])]

    @property
    def ending_seat(self) -> int | None:
        """The seat that resigned (declarer), timed out or left; ``None`` otherwise."""
        s = int(self._st[K.F_END_SEAT])
        return s if self.is_terminal() and s >= 0 and self._st[K.F_END] != 0 else None

    def _sync(self) -> None:
        self._phase = int(self._st[K.F_PHASE])
        self._legal = tuple(int(x) for x in K.legal_set(self._st))

    def returns(self, kind: str = "sf") -> list[float]:
        """Returns per seat of the finished game (zeros until the end).

        ``kind``:

        - ``"sf"`` (default): Seeger-Fabian points, the tournament standard: the declarer
          his list score +50 (won) or -50 (lost); each defender +40 when the declarer
          loses, else 0. Ramsch: each seat's own (negative) list entry. So defence pays.
        - ``"list"``: the list score per seat: the declarer +value or -2 x value (x2 per
          Kontra/Re), defenders 0; Ramsch: each seat's own entry.
        - ``"zero_sum"``: the declarer's list score and minus half of it for each
          defender (declarer vs the team; sums to 0); Ramsch: each seat's entry minus
          the mean of the three.

        A passed-in game returns zeros in every kind.
        """
        if kind not in RETURN_KINDS:
            raise ValueError(f"returns kind must be one of {RETURN_KINDS}, got {kind!r}")
        if not self.is_terminal():
            return [0.0, 0.0, 0.0]
        r = self._result_array()
        return returns_from(int(r[K.R_DECLARER]), [int(r[K.R_SCORE0 + s]) for s in range(3)],
                            [int(r[K.R_SF0 + s]) for s in range(3)], kind)

    def seeger_fabian(self) -> list[int]:
        """Seeger-Fabian points per seat (3-player table) of the finished game."""
        r = self.result
        return list(r.seeger_fabian)

    def _result_array(self) -> np.ndarray:
        out = np.zeros(K.N_RESULT, dtype=np.int64)
        K.result_fields(self._st, out)
        return out

    @property
    def result(self) -> GameResult:
        """The full settlement (:class:`~skatsim.scoring.GameResult`) of a finished game."""
        if not self.is_terminal():
            raise ValueError(f"the game is not over (phase {self.phase}); result is only defined at the end")
        return GameResult.from_result_fields(self._result_array(), self.rules)

    # ---------------------------------------------------------------- strings
    @staticmethod
    def action_to_string(action: int) -> str:
        """Text of an action id (:func:`skatsim.actions.action_to_string`)."""
        return action_to_string(action)

    @staticmethod
    def string_to_action(text: str) -> int:
        """Action id of a text (:func:`skatsim.actions.string_to_action`)."""
        return string_to_action(text)

    def history(self) -> list[int]:
        """All actions applied so far."""
        return list(self._actions)

    def history_with_players(self) -> list[tuple[int, int]]:
        """``(seat, action)`` for every action so far."""
        return list(zip(self._players, self._actions))

    def bidding_history(self) -> list[tuple[int, int]]:
        """``(seat, action)`` of the bidding phase (bids, yes, pass)."""
        return [(p, a) for p, a, ph in zip(self._players, self._actions, self._phases) if ph == K.PH_BID]

    def phase_history(self) -> list[tuple[int, int, str]]:
        """``(seat, action, phase name)`` for every action so far."""
        return [(p, a, K.PHASE_NAMES[ph]) for p, a, ph in zip(self._players, self._actions, self._phases)]

    # ---------------------------------------------------------------- read access
    @property
    def vector(self) -> np.ndarray:
        """The game's state vector, read-only (the fields ``F_*`` of
        :mod:`skatsim.kernels.game`): what the compiled encoder, masked views and infostates
        read. It holds every card, so agents never get it (they get ``observation(seat)``).

        >>> v = SkatState.new_game(seed=1).vector
        >>> from skatsim.kernels.game import N_FIELDS
        >>> v.flags.writeable, v.shape == (N_FIELDS,)
        (False, True)
        """
        v = self._st.view()
        v.flags.writeable = False
        return v

    @property
    def deal(self) -> Deal:
        """The cards as dealt (:class:`~skatsim.deal.Deal`: three hands and the skat)."""
        return self._deal

    def hand_mask(self, player: int) -> int:
        """Cards currently held by ``player`` (a declarer who picked up holds 12 until
        discarding); ``ValueError`` unless ``player`` is a seat 0..2."""
        return int(self._st[K.F_HAND0 + _seat(player, "player")])

    def hand(self, player: int) -> CardSet:
        """The cards ``player`` (seat 0..2) holds now, as a :class:`~skatsim.cards.CardSet`.

        >>> SkatState.new_game(seed=1).hand(0)
        CardSet('SJ HJ CQ SK S7 H9 H7 DK D8 D7')
        >>> SkatState.new_game(seed=1).hand(3)
        Traceback (most recent call last):
        ...
        ValueError: player must be a seat 0, 1 or 2 (forehand, middlehand, rearhand), got 3
        """
        return CardSet.from_mask(self.hand_mask(player))

    def legal_cards_mask(self, player: int | None = None) -> int:
        """Mask of the cards ``player`` may play now (0 outside the play phase or off turn)."""
        p = self.current_player() if player is None else _seat(player, "player")
        if self._st[K.F_PHASE] != K.PH_PLAY or p != self._st[K.F_PLAYER]:
            return 0
        return self._legal[1]

    def legal_cards(self, player: int | None = None) -> CardSet:
        """:meth:`legal_cards_mask` as a :class:`~skatsim.cards.CardSet`."""
        return CardSet.from_mask(self.legal_cards_mask(player))

    @property
    def declarer(self) -> int | None:
        """The declarer's seat once the bidding is won (``None`` before, and when nobody
        declares: passed in or Ramsch)."""
        d = int(self._st[K.F_DECLARER])
        return None if d < 0 else d

    @property
    def bid(self) -> int:
        """The highest bid so far (0 before the first bid)."""
        return int(self._st[K.F_BID])

    @property
    def contract(self) -> Contract | None:
        """The declared contract (``None`` before the declaration, and in Ramsch/passed-in games)."""
        g = int(self._st[K.F_GAME])
        if g < 0 or g == RAMSCH:
            return None
        return Contract(g, int(self._st[K.F_FLAGS]))

    @property
    def game_type(self) -> int | None:
        """The game type once declared: 0..5 (D H S C G N), 6 Ramsch; ``None`` before."""
        g = int(self._st[K.F_GAME])
        return None if g < 0 else g

    def trumps_mask(self) -> int:
        """Mask of the trumps of the declared game (0 before the declaration and in null)."""
        g = self.game_type
        return 0 if g is None else int(trump_mask(g))

    def trumps(self) -> CardSet:
        """:meth:`trumps_mask` as a :class:`~skatsim.cards.CardSet`."""
        return CardSet.from_mask(self.trumps_mask())

    @property
    def kontra_level(self) -> int:
        """Doubling said so far in the Kontra/Re variant: 0 none, 1 Kontra, 2 Re."""
        return int(self._st[K.F_KONTRA])

    @property
    def skat_picked_up(self) -> bool:
        """The declarer picked up the skat (``False`` in a hand game and before)."""
        return bool(self._st[K.F_PICKED])

    def skat_mask(self) -> int:
        """The two cards lying in the skat now (the dealt skat, or the declarer's discards)."""
        return int(self._st[K.F_SKAT])

    def points(self) -> list[int]:
        """Card points won in tricks so far, per seat (skat not included)."""
        return [int(self._st[K.F_POINTS0 + s]) for s in range(3)]

    def tricks_won(self) -> list[int]:
        """Tricks won so far, per seat."""
        return [int(self._st[K.F_TRICKS0 + s]) for s in range(3)]

    def played_mask(self, player: int) -> int:
        """Mask of the cards ``player`` (seat 0..2) has played so far."""
        return int(self._st[K.F_PLAYED0 + _seat(player, "player")])

    def current_trick(self) -> list[int]:
        """Cards of the trick in progress, leader first."""
        n = int(self._st[K.F_NCARDS])
        return [int(self._st[K.F_TRICK0 + i]) for i in range(n)]

    def trick_leader(self) -> int:
        """Seat that leads (or led) the current trick."""
        return int(self._st[K.F_LEADER])

    def tricks(self) -> list[tuple[int, list[int], int]]:
        """Completed tricks as ``(leader, [cards], winner)``."""
        return tricks_from_moves(self.play_history(), int(self._st[K.F_LAST_WINNER]))

    def play_history(self) -> list[tuple[int, int]]:
        """``(seat, card)`` for every card played so far, in order (the card-play part of
        :meth:`history_with_players`).

        >>> s = SkatState.new_game(seed=3)
        >>> s.play_history()
        []
        """
        return [(p, a) for p, a, ph in zip(self._players, self._actions, self._phases) if ph == K.PH_PLAY]

    def resample_from_infostate(self, player: int, rng: "np.random.Generator | int | None" = None) -> "SkatState":
        """A copy of this game redealt uniformly among the deals consistent with what
        ``player`` knows (own cards, played cards, voids shown, a seen skat, an ouvert
        hand), with the same history replayed: the PIMC determinisation hook."""
        from .infostate import resample

        return resample(self, _seat(player, "player"), rng)

    # ---------------------------------------------------------------- observation
    def observation(self, player: int):
        """What ``player`` may know, as an :class:`~skatsim.observation.Observation`."""
        from .observation import observe

        return observe(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        """The flat float32 observation of ``player`` (layout: ``skatsim.observation.OBS_LAYOUT``)."""
        return self.observation(player).tensor

    def observation_string(self, player: int) -> str:
        """The readable form of :meth:`observation`."""
        return str(self.observation(player))

    # ---------------------------------------------------------------- display
    def __str__(self) -> str:
        lines = [f"phase: {self.phase}" + ("" if self.is_terminal() else f", to move: seat {self.current_player()}")]
        for s in range(3):
            tag = " (declarer)" if self.declarer == s else ""
            held = f"dealt {self._deal.hands[s]}" if self.is_terminal() else str(self.hand(s))
            lines.append(f"  {s} {SEAT_NAMES[s]:<10} {held}{tag}")
        lines.append(f"  skat         {CardSet.from_mask(self.skat_mask())}")
        bids = [f"{p}:{action_to_string(a)}" for p, a in self.bidding_history()]
        if bids:
            lines.append(f"bidding: {' '.join(bids)}")
        if self.declarer is not None:
            c = self.contract
            what = f"{c.to_text()} ({c.describe()})" if c else "-"
            lines.append(f"declarer: seat {self.declarer}, bid {self.bid}, contract {what}"
                         + (", skat picked up" if self.skat_picked_up else ""))
            said = [f"{p}:{action_to_string(a)}" for p, a, ph in self.phase_history() if ph == "kontra" and a != PASS]
            if said:
                lines.append("kontra/re: " + " ".join(said))
        elif self.game_type == RAMSCH:
            lines.append("ramsch (everybody passed)")
        for i, (leader, cards, winner) in enumerate(self.tricks()):
            shown = " ".join(f"{card_name(c):>3}" for c in cards)
            lines.append(f"  trick {i + 1:>2}: lead {leader}  {shown}  -> seat {winner}")
        cur = self.current_trick()
        if cur and not self.is_terminal():
            lines.append(f"  current trick: lead {self.trick_leader()}  " + " ".join(card_name(c) for c in cur))
        if self.game_type is not None:
            lines.append(f"card points (tricks): {self.points()}, tricks: {self.tricks_won()}")
        for e in self.events():
            by = f" by seat {e['seat']}" if e["seat"] >= 0 else ""
            shown = f" {e['cards']}" if e["cards"] else ""
            lines.append(f"  event after {e['at']} actions: {e['kind']}{by}{shown}")
        if self.is_terminal():
            if self.ending != "played":
                lines.append(f"ended: {self.ending}")
            lines.append("result: " + self.result.summary())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<SkatState phase={self.phase} player={self.current_player()} moves={len(self._actions)}>"

    # ---------------------------------------------------------------- records (skatsim.records)
    def to_record(self) -> dict[str, Any]:
        """The game as a JSON-ready dict (:func:`skatsim.records.to_record`)."""
        from .records import to_record

        return to_record(self)

    def to_json(self, **kw: Any) -> str:
        """:meth:`to_record` as JSON text (``kw`` go to ``json.dumps``, e.g. ``indent=1``);
        :meth:`from_record` reads it back."""
        return json.dumps(self.to_record(), **kw)

    @classmethod
    def from_record(cls, record: dict[str, Any] | str) -> "SkatState":
        """Replay a record (a dict or its JSON text) through the rules, checking every field
        (:func:`skatsim.records.from_record`); :class:`RecordError` names the first problem."""
        from .records import from_record

        return from_record(record)


# ----------------------------------------------------------------------------- into the play


def _bidding_for(declarer: int, bid: int) -> list[int]:
    """Auction actions that make ``declarer`` the declarer at ``bid``."""
    b = bid_action(bid)
    if declarer == 0:  # middlehand bids, forehand holds, middlehand and rearhand pass
        return [b, HOLD, PASS, PASS]
    if declarer == 1:  # middlehand bids, forehand and rearhand pass
        return [b, PASS, PASS]
    return [PASS, b, PASS]  # middlehand passes, rearhand bids, forehand passes


def _drive_to_play(state: SkatState, declarer: Any, contract: Contract | str, bid: int = 18,
                   discard: CardsLike | None = None) -> None:
    if state.history():
        raise ValueError(f"to_play needs a game at the start of bidding, this one has {len(state.history())} moves")
    seat = _seat(declarer, "declarer")
    c = contract if isinstance(contract, Contract) else Contract.parse(contract)
    for a in _bidding_for(seat, bid):
        state.apply_action(a)
    if c.hand:
        if discard is not None:
            raise ValueError(f"{c.describe()} is a hand game: there is no discard")
        state.apply_action(HAND)
    else:
        state.apply_action(PICKUP)
        dis = state.deal.skat.mask if discard is None else to_mask(discard)
        if bin(dis).count("1") != 2 or dis & ~state.hand_mask(seat):
            raise ValueError(f"the discard must be 2 of the declarer's 12 cards {state.hand(seat)}, "
                             f"got {CardSet.from_mask(dis)}")
        for card in CardSet.from_mask(dis).ids():
            state.apply_action(card)
    a = declare_action(c)
    if not state.is_legal(a):
        raise ValueError(f"{c.describe()} cannot be declared at bid {bid} (a null game below the bid is not "
                         "declarable, ISKO.md §16)")
    state.apply_action(a)
    while state.phase == "kontra":  # the Kontra/Re variant: nobody doubles
        state.apply_action(PASS)


def to_play(state_or_seed: "SkatState | int | Deal", declarer: int, contract: Contract | str, *,
            bid: int = 18, discard: CardsLike | None = None, rules: SkatRules = ISKO) -> SkatState:
    """A game put into the card play with ``declarer`` playing ``contract``.

    ``state_or_seed``: a deal seed, a :class:`~skatsim.deal.Deal`, or a ``SkatState`` at the
    start of bidding (left unchanged; its rules apply, ``rules`` is for the other two).
    The auction makes ``declarer`` win at ``bid`` (default 18: forehand by ``18 yes
    pass pass``, middlehand by ``18 pass pass``, rearhand by ``pass 18 pass``). A hand
    contract (``"CH"``, ``"GO"``, ``"NOH"``) plays hand; any other picks up the skat and
    discards ``discard`` (default: the two skat cards, so he keeps his dealt hand).
    In the Kontra/Re variant nobody says Kontra. Forehand leads the first trick.

    >>> s = to_play(7, 2, "GH")
    >>> s.phase, s.declarer, s.contract, s.bid, s.current_player()
    ('play', 2, Contract('GH'), 18, 0)
    >>> [s.action_to_string(a) for a in to_play(7, 0, "C").history()]
    ['18', 'yes', 'pass', 'pass', 'pickup', 'D8', 'H9', 'C']
    """
    if isinstance(state_or_seed, SkatState):
        state = state_or_seed.clone()
    elif isinstance(state_or_seed, Deal):
        state = SkatState.new_game(deal=state_or_seed, rules=rules)
    else:
        state = SkatState.new_game(seed=state_or_seed, rules=rules)
    _drive_to_play(state, declarer, contract, bid, discard)
    return state


def random_game(seed: int, rules: SkatRules | None = None, max_moves: int | None = None) -> SkatState:
    """Deal from ``seed`` and play every phase with uniformly random legal actions, to the
    end or for at most ``max_moves`` actions.

    Seat ``s`` draws from ``bits.seat_stream(deal_seed, s)`` exactly as batch simulation's
    random policy and ``agents.RandomAgent`` do, so this is the same game as
    ``agents.play_game(["random"] * 3, seed=seed)`` (on the state API only, for code that
    needs a random position without the agents package).

    >>> s = random_game(7)
    >>> s.is_terminal(), len(s.history()) > 30
    (True, True)
    >>> len(random_game(7, max_moves=5).history())
    5
    >>> random_game(-5).history() != random_game(5).history()
    True
    """
    ds = to_seed(seed) & SEED_MASK
    state = SkatState.new_game(seed=ds, rules=rules or SkatRules())
    streams = [seat_stream(ds, s) for s in range(3)]
    n = 0
    while not state.is_terminal() and (max_moves is None or n < max_moves):
        p = state.current_player()
        legal = state.legal_actions()
        k, streams[p] = rand_below(streams[p], len(legal))
        state.apply_action(legal[k])
        n += 1
    return state
