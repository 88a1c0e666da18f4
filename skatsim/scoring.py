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

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numba import njit

from .bits import msb, popcount
from .cards import CardsLike, to_mask
from .contracts import (BASE_VALUES, BID_VALUES, HAND, OUVERT, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, Contract,
                        null_value)
from .rules import GRAND, NULL

__all__ = ["matadors_of", "settle_core", "sf_points", "settle", "GameResult", "SF_WON", "SF_DEFENDER_3",
           "SF_DEFENDER_4"]

#: Seeger-Fabian: +50 for a won game, -50 for a lost one; each defender of a lost game
#: gets 40 at a 3-player table, each of the three others 30 at a 4-player table.
SF_WON, SF_DEFENDER_3, SF_DEFENDER_4 = 50, 40, 30

_BASE = np.array(BASE_VALUES, dtype=np.int64)
_BASE.setflags(write=False)


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
        value = null_value(flags)
        won = declarer_tricks == 0
        mult = 1
        schneider = False
        schwarz = False
        base = value
    else:
        base = _BASE[game]
        hand = (flags & HAND) != 0
        sch_ann = (flags & SCHNEIDER_ANNOUNCED) != 0
        schw_ann = (flags & SCHWARZ_ANNOUNCED) != 0
        ouvert = (flags & OUVERT) != 0
        m = matadors if matadors > 0 else -matadors
        mult = m + 1 + hand + (schneider or sch_ann) + sch_ann + (schwarz or schw_ann) + schw_ann + ouvert
        value = base * mult
        if schw_ann:
            won = declarer_tricks == 10
        elif sch_ann:
            won = declarer_points >= 90
        else:
            won = declarer_points >= 61
    overbid = value < bid
    charged = value
    if overbid:
        won = False
        charged = base * ((bid + base - 1) // base)
    score = charged if won else -2 * charged
    score = score << kontra
    return won, schneider, schwarz, mult, value, overbid, charged, score


@njit(cache=True)
def sf_points(won: bool, list_score: int, seat: int, declarer: int) -> int:
    """Seeger-Fabian points of ``seat`` at a 3-player table: the declarer gets his list
    score +50 (won) or -50 (lost); each defender gets 40 when the declarer loses, else 0.
    The one definition used by the state machine, the batch engine and :func:`settle`.

    >>> int(sf_points(True, 48, 0, 0)), int(sf_points(False, -96, 0, 0)), int(sf_points(False, -96, 1, 0))
    (98, -146, 40)
    """
    if seat == declarer:
        return list_score + (SF_WON if won else -SF_WON)
    return 0 if won else SF_DEFENDER_3


@dataclass(frozen=True)
class GameResult:
    """The settlement of one game. Seats are 0 forehand, 1 middlehand, 2 rearhand.

    ``list_score`` is the declarer's list entry (+value, or -2 x value when lost).
    ``scores`` holds the list score per seat (declarer's entry, 0 for defenders;
    in Ramsch every seat's own entry) and ``seeger_fabian`` the Seeger-Fabian
    points per seat at a 3-player table.
    """

    contract: str | None
    bid: int
    declarer: int | None
    won: bool
    declarer_points: int
    declarer_tricks: int
    matadors: int
    with_matadors: bool
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

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["scores"] = list(self.scores)
        d["seeger_fabian"] = list(self.seeger_fabian)
        if self.card_points is not None:
            d["card_points"] = list(self.card_points)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GameResult":
        d = dict(d)
        d["scores"] = tuple(d["scores"])
        d["seeger_fabian"] = tuple(d["seeger_fabian"])
        if d.get("card_points") is not None:
            d["card_points"] = tuple(d["card_points"])
        return cls(**d)

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
            detail = (f"{self.declarer_points} points, {w} {self.matadors}, "
                      f"{self.multiplier} x {c.base_value} = {self.game_value}")
        extra = " (overbid)" if self.overbid else ""
        return (f"seat {self.declarer} plays {c.to_text()} ({c.describe()}) at {self.bid}: {how}{extra}, "
                f"{detail}, {self.list_score:+d}")


def _result(contract: Contract, bid: int, declarer: int | None, mat: int, dpts: int, dtricks: int,
            kontra: int, rules: dict[str, Any], rules_version: str) -> GameResult:
    won, schneider, schwarz, mult, value, overbid, charged, score = settle_core(
        contract.game, contract.flags, mat, bid, dpts, dtricks, kontra)
    won = bool(won)
    sf_decl = int(score) + (SF_WON if won else -SF_WON)
    sf_def3 = 0 if won else SF_DEFENDER_3
    sf_def4 = 0 if won else SF_DEFENDER_4
    scores = [0, 0, 0]
    sf = [sf_def3, sf_def3, sf_def3]
    if declarer is not None:
        scores[declarer] = int(score)
        sf[declarer] = sf_decl
    return GameResult(
        contract=contract.to_text(), bid=bid, declarer=declarer, won=won, declarer_points=dpts,
        declarer_tricks=dtricks, matadors=abs(mat), with_matadors=mat > 0, multiplier=int(mult),
        game_value=int(value), overbid=bool(overbid), charged_value=int(charged), list_score=int(score),
        schneider=bool(schneider), schwarz=bool(schwarz), kontra=kontra,
        seeger_fabian_declarer=sf_decl, seeger_fabian_defender=sf_def3, seeger_fabian_defender_4=sf_def4,
        scores=(scores[0], scores[1], scores[2]), seeger_fabian=(sf[0], sf[1], sf[2]),
        rules=rules, rules_version=rules_version)


def settle(contract: Contract | str, declarer_cards: CardsLike, skat: CardsLike, bid: int,
           declarer_points: int, declarer_tricks: int, *, kontra: int = 0,
           declarer: int | None = None) -> GameResult:
    """Settle a finished suit, grand or null game under the ISkO.

    Args:
        contract: a :class:`Contract` or ISS token (``"C"``, ``"GHS"``, ``"NO"`` ...).
        declarer_cards: the declarer's 10 dealt cards (before any skat pickup).
        skat: the 2 skat cards as dealt. Matadors count all 12 cards, hand games included.
        bid: the final bid (18..264, a value on the ladder).
        declarer_points: the declarer's card points, skat included (0..120).
        declarer_tricks: the tricks the declarer took (0..10).
        kontra: 0, 1 for Kontra, 2 for Re (the Kontra/Re variant only).
        declarer: optional seat, to fill ``scores`` and ``seeger_fabian`` per seat.

    Raises ``ValueError`` for impossible inputs, including a null game whose fixed
    value is below the bid (not a legal declaration, ISKO.md §16).
    """
    from .options import RULES_VERSION, SkatRules

    c = contract if isinstance(contract, Contract) else Contract.parse(contract)
    dc, sk = to_mask(declarer_cards), to_mask(skat)
    if popcount(dc) != 10 or popcount(sk) != 2 or dc & sk:
        raise ValueError("settle needs the declarer's 10 dealt cards and the 2 skat cards, all distinct")
    if bid not in BID_VALUES:
        raise ValueError(f"bid {bid!r} is not on the bid ladder (18, 20, 22, 23, ... 264)")
    if not 0 <= declarer_points <= 120:
        raise ValueError(f"declarer_points must be 0..120, got {declarer_points}")
    if not 0 <= declarer_tricks <= 10:
        raise ValueError(f"declarer_tricks must be 0..10, got {declarer_tricks}")
    if kontra not in (0, 1, 2):
        raise ValueError(f"kontra must be 0 (none), 1 (kontra) or 2 (re), got {kontra}")
    if c.is_null and c.base_value < bid:
        raise ValueError(f"{c.describe()} is worth {c.base_value} < bid {bid}: not a legal declaration")
    if declarer is not None and declarer not in (0, 1, 2):
        raise ValueError(f"declarer seat must be 0, 1 or 2, got {declarer}")
    mat = int(matadors_of(dc | sk, c.game))
    rules = SkatRules(kontra=kontra > 0)
    return _result(c, bid, declarer, mat, declarer_points, declarer_tricks, kontra,
                   rules.to_dict(), RULES_VERSION)
