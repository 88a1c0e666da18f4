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
"""

from __future__ import annotations

import json
import operator
from typing import Any

import numpy as np

from .actions import (DECLARE_BASE, HAND, KONTRA, NUM_ACTIONS, PASS, PICKUP, RE,
                      action_to_string, string_to_action)
from .cards import CardSet, card_name
from .contracts import Contract
from .deal import SEED_MASK, Deal, deal_from_hands, deal_masks
from .kernels import game as K
from .options import ISKO, SkatRules
from .rules import RAMSCH, trump_mask
from .scoring import GameResult

__all__ = ["SkatState", "TERMINAL_PLAYER", "RecordError", "RECORD_FORMAT"]

#: ``current_player()`` of a finished game (OpenSpiel's ``kTerminalPlayerId``).
TERMINAL_PLAYER = -4
RECORD_FORMAT = "skatsim-record/1"
SEAT_NAMES = ("forehand", "middlehand", "rearhand")


def _byte_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    return tuple(tuple(tuple(off + i for i in range(8) if b >> i & 1) for b in range(256))
                 for off in range(0, 64, 8))


_BYTES = _byte_tables()


def _bits_list(base: int, lo: int, hi: int) -> list[int]:
    """Action ids ``base + i`` for the set bits ``i`` of ``lo | hi << 32`` (ascending)."""
    b0, b1, b2, b3, b4, b5, b6, b7 = _BYTES
    if base:  # bids, declarations ...: the bidder's set is one run of bits (next bid .. pass)
        m = lo | (hi << 32)
        low = m & -m
        if m and (m + low) & m == 0:
            return list(range(base + low.bit_length() - 1, base + m.bit_length()))
    out = [*b0[lo & 255], *b1[(lo >> 8) & 255], *b2[(lo >> 16) & 255], *b3[lo >> 24]]
    if hi:
        out += [*b4[hi & 255], *b5[(hi >> 8) & 255], *b6[(hi >> 16) & 255], *b7[hi >> 24]]
    if base:
        return [base + i for i in out]
    return out


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


class RecordError(ValueError):
    """A game record that does not replay under the rules (names the first bad move)."""


class SkatState:
    """One game of Skat from the deal to the settlement.

    Create with :meth:`new_game` (random deal from a seed, or an explicit
    :class:`~skatsim.deal.Deal`) or :meth:`from_record`.
    """

    __slots__ = ("_st", "_actions", "_players", "_phases", "rules", "seed", "_deal", "_phase", "_legal")

    def __init__(self, deal: Deal, rules: SkatRules = ISKO, seed: int | None = None) -> None:
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

    # ---------------------------------------------------------------- construction
    @classmethod
    def new_game(cls, seed: int | None = None, *, deal: Deal | None = None,
                 rules: SkatRules = ISKO, rng: np.random.Generator | None = None) -> "SkatState":
        """A new game at the start of bidding.

        Exactly one source of cards: ``deal`` (explicit), or ``seed`` (an int deal seed,
        the same cards as ``skatsim.deal(seed)`` and a simulation row's ``deal_seed``),
        or ``rng`` (a ``numpy.random.Generator`` that draws the deal seed).
        """
        if deal is None:
            if seed is None:
                gen = rng if rng is not None else np.random.default_rng()
                seed = int(gen.integers(0, SEED_MASK, dtype=np.int64))
            h0, h1, h2, sk, _ = deal_masks(int(seed) & SEED_MASK)
            deal = Deal((CardSet.from_mask(h0), CardSet.from_mask(h1), CardSet.from_mask(h2)),
                        CardSet.from_mask(sk))
        elif seed is not None or rng is not None:
            raise ValueError("pass either a deal or a seed/rng, not both")
        return cls(deal, rules, seed)

    def clone(self) -> "SkatState":
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
        return self._phase == K.PH_DONE

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Legal action ids of the player to move, ascending (empty when terminal or
        when ``player`` is given and is not the player to move)."""
        if player is not None and player != self._st[K.F_PLAYER]:
            return []
        return _bits_list(*self._legal)

    def legal_actions_mask(self) -> np.ndarray:
        """Boolean array of size ``NUM_ACTIONS`` (130), True for legal actions."""
        m = np.zeros(NUM_ACTIONS, dtype=bool)
        m[self.legal_actions()] = True
        return m

    def apply_action(self, action: int) -> None:
        """Apply a legal action; an illegal one raises ``ValueError`` and changes nothing."""
        if type(action) is not int:
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

    def _illegal_message(self, action: Any) -> str:
        try:
            name = repr(action_to_string(int(action)))
        except (ValueError, TypeError):
            name = "not an action id"
        if self.is_terminal():
            return f"illegal action {action!r} ({name}): the game is over"
        legal = [action_to_string(a) for a in self.legal_actions()]
        shown = ", ".join(legal) if len(legal) <= 12 else ", ".join(legal[:4]) + f", ... ({len(legal)} actions)"
        if self.phase == "bidding" and legal and legal[-1] == "pass" and len(legal) > 12:
            shown = "pass, " + ", ".join(legal[:3]) + f", ... ({len(legal)} actions)"
        return (f"illegal action {action!r} ({name}) for seat {self.current_player()} in phase "
                f"{self.phase}; legal: {shown}")

    def returns(self) -> list[float]:
        """List scores per seat (declarer: +value / -2 x value; defenders 0). Zeros until the end."""
        if not self.is_terminal():
            return [0.0, 0.0, 0.0]
        r = self._result_array()
        return [float(r[K.R_SCORE0]), float(r[K.R_SCORE1]), float(r[K.R_SCORE2])]

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
        return action_to_string(action)

    @staticmethod
    def string_to_action(text: str) -> int:
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
    def deal(self) -> Deal:
        return self._deal

    def hand_mask(self, player: int) -> int:
        """Cards currently held by ``player`` (a declarer who picked up holds 12 until discarding)."""
        return int(self._st[K.F_HAND0 + player])

    def hand(self, player: int) -> CardSet:
        return CardSet.from_mask(self.hand_mask(player))

    def legal_cards_mask(self, player: int | None = None) -> int:
        """Mask of the cards ``player`` may play now (0 outside the play phase or off turn)."""
        p = self.current_player() if player is None else player
        if self._st[K.F_PHASE] != K.PH_PLAY or p != self._st[K.F_PLAYER]:
            return 0
        return self._legal[1]

    def legal_cards(self, player: int | None = None) -> CardSet:
        return CardSet.from_mask(self.legal_cards_mask(player))

    @property
    def declarer(self) -> int | None:
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
        g = int(self._st[K.F_GAME])
        return None if g < 0 else g

    def trumps_mask(self) -> int:
        g = self.game_type
        return 0 if g is None else int(trump_mask(g))

    def trumps(self) -> CardSet:
        return CardSet.from_mask(self.trumps_mask())

    @property
    def skat_picked_up(self) -> bool:
        return bool(self._st[K.F_PICKED])

    def skat_mask(self) -> int:
        """The two cards lying in the skat now (the dealt skat, or the declarer's discards)."""
        return int(self._st[K.F_SKAT])

    def points(self) -> list[int]:
        """Card points won in tricks so far, per seat (skat not included)."""
        return [int(self._st[K.F_POINTS0 + s]) for s in range(3)]

    def tricks_won(self) -> list[int]:
        return [int(self._st[K.F_TRICKS0 + s]) for s in range(3)]

    def played_mask(self, player: int) -> int:
        return int(self._st[K.F_PLAYED0 + player])

    def current_trick(self) -> list[int]:
        """Cards of the trick in progress, leader first."""
        n = int(self._st[K.F_NCARDS])
        return [int(self._st[K.F_TRICK0 + i]) for i in range(n)]

    def trick_leader(self) -> int:
        return int(self._st[K.F_LEADER])

    def tricks(self) -> list[tuple[int, list[int], int]]:
        """Completed tricks as ``(leader, [cards], winner)``."""
        out = []
        cards = self._play_moves()
        for i in range(0, len(cards) - len(cards) % 3, 3):
            leader = cards[i][0]
            trick = [cards[i + j][1] for j in range(3)]
            winner = cards[i + 3][0] if i + 3 < len(cards) else None
            out.append((leader, trick, winner))
        if out and out[-1][2] is None:
            out[-1] = (out[-1][0], out[-1][1], int(self._st[K.F_LAST_WINNER]))
        return out

    def _play_moves(self) -> list[tuple[int, int]]:
        """(seat, card) for every card played, in order."""
        return [(p, a) for p, a, ph in zip(self._players, self._actions, self._phases) if ph == K.PH_PLAY]

    def resample_from_infostate(self, player: int, rng: "np.random.Generator | int | None" = None) -> "SkatState":
        """A copy of this game redealt uniformly among the deals consistent with what
        ``player`` knows (own cards, played cards, voids shown, a seen skat, an ouvert
        hand), with the same history replayed: the PIMC determinisation hook."""
        from .infostate import resample

        return resample(self, player, rng)

    # ---------------------------------------------------------------- observation
    def observation(self, player: int):
        """What ``player`` may know, as an :class:`~skatsim.observation.Observation`."""
        from .observation import observe

        return observe(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        """The flat float32 observation of ``player`` (layout: ``skatsim.observation.OBS_LAYOUT``)."""
        return self.observation(player).tensor

    def observation_string(self, player: int) -> str:
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
        if self.is_terminal():
            lines.append("result: " + self.result.summary())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<SkatState phase={self.phase} player={self.current_player()} moves={len(self._actions)}>"

    # ---------------------------------------------------------------- records
    def to_record(self) -> dict[str, Any]:
        """The game as a JSON-ready dict: deal, moves, derived summary and result."""
        moves = [[p, action_to_string(a)] for p, a in self.history_with_players()]
        bids = [[p, action_to_string(a)] for p, a in self.bidding_history()]
        skat_choice = None
        discard: list[str] = []
        contract = None
        for p, a in self.history_with_players():
            if a == PICKUP:
                skat_choice = "pickup"
            elif a == HAND:
                skat_choice = "hand"
            elif DECLARE_BASE <= a < KONTRA:
                contract = action_to_string(a)
        if self.skat_picked_up and self._st[K.F_PHASE] not in (K.PH_DISCARD,):
            discard = CardSet.from_mask(self.skat_mask()).to_text().split()
        cards = [card_name(a) for _, a in self._play_moves()]
        kontra = [action_to_string(a) for a in self._actions if a in (KONTRA, RE)]
        rec: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_dict(),
            "rules_version": self.rules.version,
            "seed": self.seed,
            "deal": {
                "forehand": self._deal.hands[0].to_text(),
                "middlehand": self._deal.hands[1].to_text(),
                "rearhand": self._deal.hands[2].to_text(),
                "skat": self._deal.skat.to_text(),
            },
            "moves": moves,
            "bids": bids,
            "declarer": self.declarer,
            "bid": self.bid,
            "skat_choice": skat_choice,
            "discard": discard,
            "contract": contract,
            "kontra": kontra,
            "cards": cards,
            "result": self.result.to_dict() if self.is_terminal() else None,
        }
        return rec

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_record(), **kw)

    @classmethod
    def from_record(cls, record: dict[str, Any] | str) -> "SkatState":
        """Replay a record through the rules; raises :class:`RecordError` naming the first
        bad move, or the first result field that does not match."""
        rec = json.loads(record) if isinstance(record, str) else record
        if not isinstance(rec, dict) or "deal" not in rec or "moves" not in rec:
            raise RecordError("a game record is a dict with at least 'deal' and 'moves'")
        if rec.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise RecordError(f"unknown record format {rec.get('format')!r}; expected {RECORD_FORMAT!r}")
        try:
            rules = SkatRules.from_dict(rec.get("rules", {}))
            d = rec["deal"]
            deal = deal_from_hands(d["forehand"], d["middlehand"], d["rearhand"], d["skat"])
        except (ValueError, KeyError, TypeError) as e:
            raise RecordError(f"bad deal or rules in record: {e}") from None
        state = cls(deal, rules, rec.get("seed"))
        for i, mv in enumerate(rec["moves"]):
            try:
                seat, text = mv
                seat = int(seat)
            except (TypeError, ValueError):
                raise RecordError(f"move {i + 1}: expected [seat, action], got {mv!r}") from None
            where = f"move {i + 1} (seat {seat} {text!r})"
            if state.is_terminal():
                raise RecordError(f"{where}: the game is already over")
            if seat != state.current_player():
                raise RecordError(f"{where}: it is seat {state.current_player()}'s turn in phase {state.phase}")
            try:
                a = string_to_action(str(text))
                state.apply_action(a)
            except ValueError as e:
                raise RecordError(f"{where}: {e}") from None
        state._check_record_summary(rec)
        return state

    def _check_record_summary(self, rec: dict[str, Any]) -> None:
        mine = self.to_record()
        for key in ("declarer", "bid", "skat_choice", "discard", "contract", "cards"):
            if key in rec and rec[key] != mine[key]:
                raise RecordError(f"record field {key!r} is {rec[key]!r} but the moves give {mine[key]!r}")
        theirs = rec.get("result")
        if theirs is None:
            return
        if mine["result"] is None:
            raise RecordError("record has a result but its moves do not finish the game")
        for key, value in theirs.items():
            if key in ("rules", "rules_version"):
                continue
            if key not in mine["result"]:
                raise RecordError(f"record result has unknown field {key!r}")
            if mine["result"][key] != value:
                raise RecordError(f"result field {key!r} is {value!r} in the record but replaying gives "
                                  f"{mine['result'][key]!r}")
