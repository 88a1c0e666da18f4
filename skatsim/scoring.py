"""Settlement: matadors, game value, overbid, list score, Seeger-Fabian (ISKO.md §7-§12).

:func:`settle` is the public, documented entry point; :func:`settle_core` and
:func:`matadors_of` are the jitted kernels that the state, the batch simulator and
``settle`` all call, so there is one scoring truth.

>>> from skatsim.cards import CardSet
>>> r = settle("G", declarer_cards="CJ SJ HJ DJ CA C10 SA S10 HA H10",
...            skat="D7 D8", bid=18, declarer_points=85, declarer_tricks=8)
>>> r.won, r.matadors, r.with_matadors, r.multiplier, r.game_value, r.list_score
(True, 4, True, 5, 120, 120)
>>> r.seeger_fabian_declarer, r.seeger_fabian_defender
(170, 0)

Overbid: diamonds without 1 (18) after a bid of 22 is charged 27 and scores -54:

>>> r = settle("D", "SJ HJ DJ DA D10 DK DQ D9 D8 D7", skat="CA C10", bid=22,
...            declarer_points=70, declarer_tricks=6)
>>> r.won, r.overbid, r.game_value, r.charged_value, r.list_score
(False, True, 18, 27, -54)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from .bits import iter_bits, msb, popcount
from .cards import (ALL_CARDS, ACES, EIGHTS, JACKS, KINGS, NINES, QUEENS, SEVENS, TENS, CardsLike, card_points,
                    to_mask)
from .contracts import BID_VALUES, Contract
from .layout import (N_RESULT, R_BID, R_CHARGED, R_DECL_POINTS, R_DECL_TRICKS, R_DECLARER, R_FLAGS, R_GAME, R_KONTRA,
                     R_LIST_SCORE, R_MATADORS, R_MULT, R_OVERBID, R_PICKED, R_PTS0, R_PTS1, R_PTS2, R_SCHNEIDER,
                     R_SCHWARZ, R_SCORE0, R_SCORE1, R_SCORE2, R_SF0, R_SF1, R_SF2, R_VALUE, R_WON)
from .rules import GRAND, NULL, RAMSCH
from .schema import RESULT_COLUMNS, contract_category
from .valuation import (HAND, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, SF_DEFENDER_3, SF_DEFENDER_4, SF_WON,
                        charged_value, game_value, multiplier)

__all__ = ["matadors_of", "matadors_many", "settle_core", "sf_points", "settle", "GameResult",
           "possible_declarer_points",
           "SF_WON", "SF_DEFENDER_3", "SF_DEFENDER_4", "settle_into",
           "GOAL_61", "GOAL_90", "GOAL_SCHWARZ", "GOAL_NULL", "GOAL_EDGES", "goal_of"]

#: The declarer's goal in the card play of a declared game (:func:`goal_of`): 61 card points,
#: 90 (schneider announced), every trick (schwarz announced; a suit or grand ouvert implies
#: it), no trick (every null game).
GOAL_61, GOAL_90, GOAL_SCHWARZ, GOAL_NULL = 0, 1, 2, 3
#: The edges of each goal, ``(reach_points, reach_tricks, miss_points, miss_tricks)``: the
#: declarer reaches a suit or grand goal with at least ``reach_points`` card points and
#: ``reach_tricks`` tricks (:func:`settle_core` decides ``won`` by them; null: no trick), and
#: with ``miss_*`` he just misses it with no level against him beyond the announced ones.
#: Settled there, the edges give the game won and lost at its simple level: the forfeit rule
#: (:func:`skatsim.kernels.game.settle_forfeit`) and the solver's labels use them, and the
#: solver's targets (:func:`skatsim.solver.target_for`) name them.
GOAL_EDGES = np.array([[61, 1, 60, 5], [90, 1, 89, 5], [120, 10, 89, 9], [0, 0, 0, 1]], dtype=np.int64)
GOAL_EDGES.setflags(write=False)


@njit(cache=True)
def goal_of(game: int, flags: int) -> int:
    """The declarer's goal (``GOAL_*``) in a suit, grand or null game with ``flags``.

    >>> from skatsim.contracts import Contract
    >>> [int(goal_of(c.game, c.flags)) for c in map(Contract.parse, ("C", "GHS", "SHZ", "GO", "NO"))]
    [0, 1, 2, 2, 3]
    """
    if game == NULL:
        return GOAL_NULL
    if flags & SCHWARZ_ANNOUNCED:
        return GOAL_SCHWARZ
    if flags & SCHNEIDER_ANNOUNCED:
        return GOAL_90
    return GOAL_61


@njit(cache=True)
def matadors_of(cards: int, game: int) -> int:
    """Matadors of the declarer's 12 cards (10 dealt + skat): ``+n`` with, ``-n`` without.

    Suit games rank CJ SJ HJ DJ A 10 K Q 9 8 7 of trumps (n up to 11), grand the four
    jacks (n up to 4). Null and Ramsch have no matadors (0).
    """
    if game >= NULL:
        return 0
    jacks = (((cards >> 31) & 1) << 3) | (((cards >> 23) & 1) << 2) | (((cards >> 15) & 1) << 1) | ((cards >> 7) & 1)
    if game == GRAND:
        seq, n = jacks, 4
    else:
        seq, n = (jacks << 7) | ((cards >> (8 * game)) & 0x7F), 11
    full = (1 << n) - 1
    if (seq >> (n - 1)) & 1:  # with: length of the run of ones from the top
        gaps = ~seq & full
        return n if gaps == 0 else n - 1 - msb(gaps)
    # without: number of missing trumps above the highest one held
    return -n if seq == 0 else -(n - 1 - msb(seq))


@njit(cache=True)
def matadors_many(cards, game: int) -> np.ndarray:
    """:func:`matadors_of` of every mask in the array ``cards`` (int64)."""
    out = np.empty(cards.shape[0], dtype=np.int64)
    for i in range(cards.shape[0]):
        out[i] = matadors_of(cards[i], game)
    return out


@njit(cache=True)
def settle_core(game: int, flags: int, matadors: int, bid: int, declarer_points: int,
                declarer_tricks: int, kontra: int):
    """Settle a suit, grand or null game.

    Returns ``(won, schneider, schwarz, multiplier, game_value, overbid, charged, list_score)``.
    ``declarer_points`` include the skat; ``kontra`` is 0, 1 (kontra) or 2 (re) and doubles
    the list score per level.
    """
    schwarz = declarer_tricks == 10 or declarer_tricks == 0
    schneider = declarer_points >= 90 or declarer_points <= 30 or schwarz
    if game == NULL:
        won = declarer_tricks == 0
        mult = 1
        schneider = False
        schwarz = False
    else:
        mult = multiplier(flags, matadors, schneider, schwarz)
        goal = goal_of(game, flags)
        won = declarer_points >= GOAL_EDGES[goal, 0] and declarer_tricks >= GOAL_EDGES[goal, 1]
    value = game_value(game, flags, matadors, schneider, schwarz)
    charged = charged_value(game, flags, value, bid)
    overbid = charged != value
    if overbid:
        won = False
    score = charged if won else -2 * charged
    score = score << kontra
    return won, schneider, schwarz, mult, value, overbid, charged, score


@njit(cache=True)
def sf_points(won: bool, list_score: int, seat: int, declarer: int) -> int:
    """Seeger-Fabian points of ``seat`` at a 3-player table: the declarer gets his list
    score +50 (won) or -50 (lost); each defender gets 40 when the declarer loses, else 0.
    The one definition used by the state machine, batch simulation and :func:`settle`.

    >>> int(sf_points(True, 48, 0, 0)), int(sf_points(False, -96, 0, 0)), int(sf_points(False, -96, 1, 0))
    (98, -146, 40)
    """
    if seat == declarer:
        return list_score + (SF_WON if won else -SF_WON)
    return 0 if won else SF_DEFENDER_3


# no allocation, so no reference counting of ``out`` per deal (numba's stubs omit ``_nrt``)
@njit(cache=True, _nrt=False)  # type: ignore[call-overload]
def settle_into(out, declarer: int, game: int, flags: int, bid: int, picked: int, kontra: int, matadors: int,
                declarer_points: int, declarer_tricks: int, level_points: int, level_tricks: int,
                force_lost: bool) -> None:
    """Settle a declared game into a result array (``int64[N_RESULT]``, the ``R_*`` layout
    of :mod:`skatsim.layout`; the per-seat trick points ``R_PTS*`` are left as they are).

    ``declarer_points`` / ``declarer_tricks`` are what the row records; ``level_points`` /
    ``level_tricks`` decide won, schneider and schwarz (they differ for the endings that
    settle "as if": a resignation in the first trick, the forfeit rules). ``force_lost``:
    the game is lost even if the levels say won (the declarer resigned). The one result
    assembly of the state machine (:func:`skatsim.kernels.game.result_fields`),
    :func:`settle` and the table's forfeit rule.
    """
    won, schneider, schwarz, mult, value, overbid, charged, score = settle_core(
        game, flags, matadors, bid, level_points, level_tricks, kontra)
    if force_lost and won:
        won = False
        score = (-2 * charged) << kontra
    out[R_DECLARER] = declarer
    out[R_GAME] = game
    out[R_FLAGS] = flags
    out[R_BID] = bid
    out[R_PICKED] = picked
    out[R_KONTRA] = kontra
    out[R_DECL_POINTS] = declarer_points
    out[R_DECL_TRICKS] = declarer_tricks
    out[R_MATADORS] = matadors
    out[R_WON] = won
    out[R_SCHNEIDER] = schneider
    out[R_SCHWARZ] = schwarz
    out[R_MULT] = mult
    out[R_VALUE] = value
    out[R_OVERBID] = overbid
    out[R_CHARGED] = charged
    out[R_LIST_SCORE] = score
    for s in range(3):
        out[R_SCORE0 + s] = score if s == declarer else 0
        out[R_SF0 + s] = sf_points(won, score, s, declarer)


@dataclass(frozen=True)
class GameResult:
    """The settlement of one game. Seats are 0 forehand, 1 middlehand, 2 rearhand.

    ``list_score`` is the declarer's list entry (+value, or -2 x value when lost).
    ``matadors`` is signed as ISS writes it: ``+n`` "with n", ``-n`` "without n" (0 in
    null, Ramsch and passed-in games); :attr:`with_matadors` is its sign.
    ``scores`` holds the list score per seat (declarer's entry, 0 for defenders;
    in Ramsch every seat's own entry) and ``seeger_fabian`` the Seeger-Fabian
    points per seat at a 3-player table (:func:`sf_points`). ``card_points`` are the
    trick points per seat (in Ramsch the skat goes to the last trick's winner; ``None``
    when unknown, as for :func:`settle`, and in a passed-in game).
    :meth:`to_row` gives the columns of the one result schema (``skatsim.table``).

    Build one with :meth:`from_result_fields` (from the kernels' result array, as
    ``SkatState.result`` does) or :func:`settle`.
    """

    contract: str | None
    bid: int
    declarer: int | None
    won: bool
    declarer_points: int
    declarer_tricks: int
    matadors: int
    multiplier: int
    game_value: int
    overbid: bool
    charged_value: int
    list_score: int
    schneider: bool
    schwarz: bool
    kontra: int
    seeger_fabian_declarer: int
    seeger_fabian_defender: int
    seeger_fabian_defender_4: int
    scores: tuple[int, int, int]
    seeger_fabian: tuple[int, int, int]
    passed_in: bool = False
    ramsch: bool = False
    card_points: tuple[int, int, int] | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    rules_version: str = ""

    @property
    def with_matadors(self) -> bool:
        """``True`` for "with" (``matadors > 0``), ``False`` for "without" (and for no matadors)."""
        return self.matadors > 0

    # ------------------------------------------------------------------ the one builder
    @classmethod
    def from_result_fields(cls, r: Any, rules: Any, *, card_points: bool = True) -> "GameResult":
        """Build the result from a settled ``int64[N_RESULT]`` array (the layout ``R_*`` of
        :func:`skatsim.kernels.game.result_fields`, which :func:`settle` fills the same
        way) under ``rules`` (a :class:`~skatsim.options.SkatRules`, recorded with its
        version). ``card_points=False``: the per-seat trick points are unknown (``None``).

        >>> import numpy as np
        >>> from skatsim import SkatState
        >>> from skatsim.kernels import game as K
        >>> s = SkatState.new_game(seed=1)
        >>> for a in ("pass", "pass", "pass"):
        ...     s.apply_action(s.string_to_action(a))
        >>> r = np.zeros(N_RESULT, dtype=np.int64)
        >>> K.result_fields(s.vector, r)
        >>> GameResult.from_result_fields(r, s.rules) == s.result
        True
        """
        v = [int(x) for x in r]
        if len(v) != N_RESULT:
            raise ValueError(f"a result array has {N_RESULT} fields (skatsim.layout.R_*), got {len(v)}")
        g, d = v[R_GAME], v[R_DECLARER]
        scores = (v[R_SCORE0], v[R_SCORE1], v[R_SCORE2])
        sf = (v[R_SF0], v[R_SF1], v[R_SF2])
        pts = (v[R_PTS0], v[R_PTS1], v[R_PTS2])
        common: dict[str, Any] = dict(scores=scores, seeger_fabian=sf, rules=rules.to_dict(),
                                      rules_version=rules.version)
        if g == RAMSCH or d < 0:
            ramsch = g == RAMSCH
            return cls(contract=None, bid=0, declarer=None, won=False, declarer_points=0, declarer_tricks=0,
                       matadors=0, multiplier=0, game_value=0, overbid=False, charged_value=0,
                       list_score=0, schneider=False, schwarz=False, kontra=0, seeger_fabian_declarer=0,
                       seeger_fabian_defender=0, seeger_fabian_defender_4=0, passed_in=not ramsch,
                       ramsch=ramsch, card_points=pts if ramsch and card_points else None, **common)
        won = bool(v[R_WON])
        return cls(
            contract=Contract(g, v[R_FLAGS]).to_text(), bid=v[R_BID], declarer=d, won=won,
            declarer_points=v[R_DECL_POINTS], declarer_tricks=v[R_DECL_TRICKS],
            matadors=v[R_MATADORS], multiplier=v[R_MULT], game_value=v[R_VALUE],
            overbid=bool(v[R_OVERBID]), charged_value=v[R_CHARGED], list_score=v[R_LIST_SCORE],
            schneider=bool(v[R_SCHNEIDER]), schwarz=bool(v[R_SCHWARZ]), kontra=v[R_KONTRA],
            seeger_fabian_declarer=v[R_SF0 + d], seeger_fabian_defender=v[R_SF0 + (d + 1) % 3],
            seeger_fabian_defender_4=0 if won else SF_DEFENDER_4,
            card_points=pts if card_points else None, **common)

    # ------------------------------------------------------------------ conversions
    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (tuples as lists); :meth:`from_dict` inverts it."""
        d = asdict(self)
        d["scores"] = list(self.scores)
        d["seeger_fabian"] = list(self.seeger_fabian)
        if self.card_points is not None:
            d["card_points"] = list(self.card_points)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GameResult":
        """Inverse of :meth:`to_dict`. Also reads the ``skatsim-record/1`` form, which
        stored ``matadors`` unsigned next to a ``with_matadors`` flag."""
        d = dict(d)
        if "with_matadors" in d:  # record format 1
            w = d.pop("with_matadors")
            d["matadors"] = abs(int(d["matadors"])) * (1 if w else -1)
        d["scores"] = tuple(d["scores"])
        d["seeger_fabian"] = tuple(d["seeger_fabian"])
        if d.get("card_points") is not None:
            d["card_points"] = tuple(d["card_points"])
        return cls(**d)

    def to_row(self, *, deal_index: int | None = None, deal_seed: int | None = None,
               n_actions: int | None = None) -> dict[str, Any]:
        """The result as a row of the one result schema: keys in the order of
        ``skatsim.table.RESULT_COLUMNS``, meanings as in a ``simulate`` row.

        A passed-in game has ``declarer`` -1, ``contract`` ``"passed"``, ``game`` -1; Ramsch
        ``declarer`` -1, ``contract`` ``"R"``, ``game`` 6. The run-level columns
        ``deal_index``, ``deal_seed`` and ``n_actions`` are ``None`` unless given; the
        ``points_*`` columns are ``None`` when the trick points are unknown (``settle``).

        >>> r = settle("D", "SJ HJ DJ DA D10 DK DQ D9 D8 D7", skat="CA C10", bid=22,
        ...            declarer_points=70, declarer_tricks=6, declarer=1)
        >>> row = r.to_row(deal_index=0)
        >>> row["declarer"], row["contract"], row["game"], row["matadors"], row["list_score"], row["sf_1"]
        (1, 'D', 0, -1, -54, -104)
        """
        if self.passed_in:
            game, flags = -1, 0
        elif self.ramsch:
            game, flags = RAMSCH, 0
        else:
            c = Contract.parse(self.contract or "")
            game, flags = c.game, c.flags
        declared = game >= 0 and game != RAMSCH
        pts: tuple[Any, ...] = self.card_points if self.card_points is not None else (
            (0, 0, 0) if self.passed_in else (None, None, None))
        row: dict[str, Any] = {
            "deal_index": deal_index, "deal_seed": deal_seed,
            "declarer": self.declarer if self.declarer is not None else -1,
            "bid": self.bid, "contract": contract_category(game, flags), "game": game, "flags": flags,
            "picked_up": declared and not flags & HAND, "kontra": self.kontra,
            "declarer_points": self.declarer_points, "declarer_tricks": self.declarer_tricks,
            "matadors": self.matadors, "won": self.won, "schneider": self.schneider,
            "schwarz": self.schwarz, "multiplier": self.multiplier, "game_value": self.game_value,
            "overbid": self.overbid, "charged_value": self.charged_value, "list_score": self.list_score,
            "n_actions": n_actions,
        }
        for s in range(3):
            row[f"score_{s}"] = self.scores[s]
            row[f"sf_{s}"] = self.seeger_fabian[s]
            row[f"points_{s}"] = pts[s]
        return {c: row[c] for c in RESULT_COLUMNS}

    def summary(self) -> str:
        """One line, e.g. ``'seat 2 plays CH at 24: won 65 points, with 2, 4 x 12 = 48, +48'``."""
        if self.passed_in:
            return "passed in: everybody passed, no score"
        if self.ramsch:
            return f"ramsch: card points {list(self.card_points or ())}, scores {list(self.scores)}"
        c = Contract.parse(self.contract or "")
        how = "won" if self.won else "lost"
        if c.is_null:
            detail = f"{self.declarer_tricks} tricks, value {self.game_value}"
        else:
            w = "with" if self.with_matadors else "without"
            detail = (f"{self.declarer_points} points, {w} {abs(self.matadors)}, "
                      f"{self.multiplier} x {c.base_value} = {self.game_value}")
        extra = " (overbid)" if self.overbid else ""
        return (f"seat {self.declarer} plays {c.to_text()} ({c.describe()}) at {self.bid}: {how}{extra}, "
                f"{detail}, {self.list_score:+d}")


# ----------------------------------------------------------------------------- settle()

# Card values by class, and the rank masks of each class (7 8 9 are worth nothing).
_VALUE_CLASSES = ((0, SEVENS | EIGHTS | NINES), (2, JACKS), (3, QUEENS), (4, KINGS), (10, TENS), (11, ACES))


def _value_counts(mask: int) -> tuple[int, ...]:
    return tuple(popcount(mask & m) for _, m in _VALUE_CLASSES)


@lru_cache(maxsize=4096)
def _sums_of(counts: tuple[int, ...], k: int) -> int:
    """Bit set of the point totals of exactly ``k`` cards drawn from a multiset of cards
    (``counts`` per value class of :data:`_VALUE_CLASSES`); 0 if there are fewer cards."""
    reach = [0] * (k + 1)
    reach[0] = 1
    for (value, _), n in zip(_VALUE_CLASSES, counts):
        new = [0] * (k + 1)
        for j, bits in enumerate(reach):
            if bits:
                for c in range(min(n, k - j) + 1):
                    new[j + c] |= bits << (value * c)
        reach = new
    return reach[k]


def _sumset(a: int, b: int) -> int:
    out = 0
    for i in iter_bits(a):
        out |= b << i
    return out


def possible_declarer_points(contract: Contract | str, declarer_cards: CardsLike, skat: CardsLike,
                             declarer_tricks: int) -> list[int]:
    """The declarer's card-point totals (skat included) that ``declarer_tricks`` tricks allow.

    Each trick the declarer takes holds one of his own cards and two of the defenders';
    the skat (the dealt one in a hand game, his two discards after a pickup) counts for
    him. Which cards can fall into his tricks by the rules of play is not checked, so
    this is the exact set of totals up to play: :func:`settle` refuses any other.

    >>> possible_declarer_points("GH", "CJ SJ HJ DJ CA C10 SA S10 HA H10", "D7 D8", 0)
    [0]
    >>> possible_declarer_points("GH", "CJ SJ HJ DJ CA C10 SA S10 HA H10", "D7 D8", 10)
    [120]
    """
    c = contract if isinstance(contract, Contract) else Contract.parse(contract)
    dc, sk = to_mask(declarer_cards), to_mask(skat)
    t = int(declarer_tricks)
    defenders = _value_counts(ALL_CARDS & ~(dc | sk))
    theirs = _sums_of(defenders, 2 * t)
    if c.hand:
        options = {(int(card_points(sk)), _value_counts(dc))}
    else:  # any two of the 12 cards may have been discarded
        twelve = [b for b in iter_bits(dc | sk)]
        options = {(int(card_points((1 << x) | (1 << y))), _value_counts((dc | sk) & ~((1 << x) | (1 << y))))
                   for i, x in enumerate(twelve) for y in twelve[i + 1:]}
    out = 0
    for skat_points, own in options:
        out |= _sumset(_sums_of(own, t), theirs) << skat_points
    return list(iter_bits(out))


def _int_arg(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    return int(value)


def _describe_points(points: list[int]) -> str:
    if len(points) <= 6:
        return ", ".join(map(str, points))
    gaps = [p for p in range(points[0], points[-1] + 1) if p not in set(points)]
    return f"{points[0]}..{points[-1]}" + (f" except {', '.join(map(str, gaps))}" if 0 < len(gaps) <= 6 else
                                          " (with gaps)" if gaps else "")


def settle(contract: Contract | str, declarer_cards: CardsLike, skat: CardsLike, bid: int,
           declarer_points: int, declarer_tricks: int, *, kontra: int = 0,
           declarer: int | None = None) -> GameResult:
    """Settle a finished suit, grand or null game under the ISkO.

    Args:
        contract: a :class:`Contract` or ISS token (``"C"``, ``"GHS"``, ``"NO"`` ...); a
            contract without the hand flag is a game after a skat pickup.
        declarer_cards: the declarer's 10 dealt cards (before any skat pickup).
        skat: the 2 skat cards as dealt. Matadors count all 12 cards, hand games included.
        bid: the final bid (18..264, a value on the ladder).
        declarer_points: the declarer's card points, skat included (0..120), in null too.
        declarer_tricks: the tricks the declarer took (0..10).
        kontra: 0, 1 for Kontra, 2 for Re (the Kontra/Re variant only; the result then
            records ``SkatRules(kontra=True)`` and its version).
        declarer: optional seat, to fill ``scores`` and ``seeger_fabian`` per seat (all
            zero without it; ``seeger_fabian_declarer``/``_defender`` hold the values).

    Raises ``TypeError`` for arguments that are not ints (``70.5``, ``True``) and
    ``ValueError`` for impossible inputs: a null game whose fixed value is below the bid
    (not a legal declaration, ISKO.md §16), and points that the tricks do not allow
    (:func:`possible_declarer_points`: 0 tricks leave only the skat's points, 10 tricks
    are 120 points, ...).

    >>> settle("GH", "CJ SJ HJ DJ CA C10 SA S10 HA H10", "D7 D8", 18, 100, 0)
    Traceback (most recent call last):
    ...
    ValueError: declarer_points=100 is impossible with declarer_tricks=0 in GH: the possible totals are 0
    """
    from .options import SkatRules

    c = contract if isinstance(contract, Contract) else Contract.parse(contract)
    dc, sk = to_mask(declarer_cards), to_mask(skat)
    if popcount(dc) != 10 or popcount(sk) != 2 or dc & sk:
        raise ValueError("settle needs the declarer's 10 dealt cards and the 2 skat cards, all distinct")
    bid = _int_arg("bid", bid)
    dpts = _int_arg("declarer_points", declarer_points)
    dtr = _int_arg("declarer_tricks", declarer_tricks)
    kontra = _int_arg("kontra", kontra)
    if bid not in BID_VALUES:
        raise ValueError(f"bid {bid!r} is not on the bid ladder (18, 20, 22, 23, ... 264)")
    if not 0 <= dpts <= 120:
        raise ValueError(f"declarer_points must be 0..120, got {dpts}")
    if not 0 <= dtr <= 10:
        raise ValueError(f"declarer_tricks must be 0..10, got {dtr}")
    if kontra not in (0, 1, 2):
        raise ValueError(f"kontra must be 0 (none), 1 (kontra) or 2 (re), got {kontra}")
    if c.is_null and c.base_value < bid:
        raise ValueError(f"{c.describe()} is worth {c.base_value} < bid {bid}: not a legal declaration")
    if declarer is not None and _int_arg("declarer", declarer) not in (0, 1, 2):
        raise ValueError(f"declarer seat must be 0, 1 or 2, got {declarer}")
    possible = possible_declarer_points(c, dc, sk, dtr)
    if dpts not in possible:
        raise ValueError(f"declarer_points={dpts} is impossible with declarer_tricks={dtr} in {c.to_text()}: "
                         f"the possible totals are {_describe_points(possible)}")
    mat = int(matadors_of(dc | sk, c.game))
    seat = 0 if declarer is None else int(declarer)
    r = np.zeros(N_RESULT, dtype=np.int64)
    settle_into(r, seat, c.game, c.flags, bid, int(not c.hand), kontra, mat, dpts, dtr, dpts, dtr, False)
    res = GameResult.from_result_fields(r, SkatRules(kontra=kontra > 0), card_points=False)
    if declarer is None:
        res = replace(res, declarer=None, scores=(0, 0, 0), seeger_fabian=(0, 0, 0))
    return res
