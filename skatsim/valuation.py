"""What a contract is worth: the one place for game values (ISkO §5-§9, §11).

Everything that values a contract uses these functions: the settlement
(:func:`skatsim.scoring.settle_core`, so the state machine and batch simulation), the
forfeit rule of the table, the rule-based player's bidding and declaration, PIMC's and the
neural bidder's simulation bidding, and the bidding labels.

- announcement flags :data:`HAND`, :data:`SCHNEIDER_ANNOUNCED`, :data:`SCHWARZ_ANNOUNCED`,
  :data:`OUVERT` (bits of a contract's ``flags``);
- :data:`BASE_VALUES` (diamonds 9, hearts 10, spades 11, clubs 12, grand 24) and the fixed
  :data:`NULL_VALUES` (23, hand 35, ouvert 46, ouvert hand 59): :func:`base_value`,
  :func:`null_value`;
- :func:`multiplier` and :func:`game_value`: matadors + 1 (game) + hand + schneider +
  schneider announced + schwarz + schwarz announced + ouvert, times the base value;
- :func:`charged_value`: an overbid game is charged the bid rounded up to a multiple of
  its base value (ISkO §11);
- :func:`expected_sf`: the expected Seeger-Fabian score of declaring a game won with
  chance ``p`` (the formula bidders use), with an optional relative cost of the
  defenders' points in duplicate play; :func:`expected_sf_at_bid` charges it at a bid.

All functions are compiled (``@njit``) and callable from kernels and from Python.

>>> int(game_value(3, HAND, -2)), int(game_value(5, OUVERT, 0))        # clubs hand without 2; null ouvert
(48, 46)
>>> int(charged_value(0, 0, 18, 24)), int(charged_value(0, 0, 27, 24))  # diamonds worth 18 at bid 24: overbid
(27, 27)
>>> round(float(expected_sf(0.75, 48, 48)), 2)   # won 3 in 4: 0.75 x 98 - 0.25 x 146
37.0
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import NULL

__all__ = ["HAND", "SCHNEIDER_ANNOUNCED", "SCHWARZ_ANNOUNCED", "OUVERT", "BASE_VALUES", "NULL_VALUES",
           "base_value", "null_value", "multiplier", "game_value", "charged_value", "expected_sf",
           "expected_sf_at_bid", "expected_sf_array", "game_value_array", "SF_WON", "SF_DEFENDER_3", "SF_DEFENDER_4"]

#: Announcement flags of a contract (bits of ``flags``).
HAND, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, OUVERT = 1, 2, 4, 8

#: Base values by game type (D H S C G, then 0 for null and Ramsch: null games have fixed
#: values, see :data:`NULL_VALUES`). The one table of base values; scoring and the bid
#: ladder derive from it.
BASE_VALUES = (9, 10, 11, 12, 24, 0, 0)

#: Fixed null values, indexed by ``(flags & HAND) | ((flags & OUVERT) >> 2)``: null 23,
#: null hand 35, null ouvert 46, null ouvert hand 59 (ISKO.md §5).
NULL_VALUES = (23, 35, 46, 59)

#: Seeger-Fabian points: +50 for a won game (-50 lost) to the declarer; a lost game gives
#: each defender 40 at a 3-player table (30 at a 4-player table).
SF_WON, SF_DEFENDER_3, SF_DEFENDER_4 = 50, 40, 30

_BASE = np.array(BASE_VALUES, dtype=np.int64)
_BASE.setflags(write=False)
_NULL = np.array(NULL_VALUES, dtype=np.int64)
_NULL.setflags(write=False)


@njit(cache=True)
def null_value(flags: int) -> int:
    """Fixed null values (:data:`NULL_VALUES`): null 23, null hand 35, null ouvert 46,
    null ouvert hand 59.

    >>> int(null_value(HAND | OUVERT))
    59
    """
    return _NULL[(flags & HAND) | ((flags & OUVERT) >> 2)]


@njit(cache=True)
def base_value(game: int, flags: int) -> int:
    """The base value of ``game`` (0..4: D H S C G), or a null game's fixed value (which is
    also what an overbid null is charged in multiples of)."""
    if game == NULL:
        return null_value(flags)
    return _BASE[game]


@njit(cache=True)
def multiplier(flags: int, matadors: int, schneider: bool, schwarz: bool) -> int:
    """The multiplier of a suit or grand game (ISkO §8): ``|matadors|`` + 1 (game) + hand +
    schneider + schneider announced + schwarz + schwarz announced + ouvert; an announced
    level counts as reached.

    >>> int(multiplier(HAND | SCHNEIDER_ANNOUNCED, 1, True, False))   # with 1, game, hand, schneider, announced
    5
    """
    hand = (flags & HAND) != 0
    sch_ann = (flags & SCHNEIDER_ANNOUNCED) != 0
    schw_ann = (flags & SCHWARZ_ANNOUNCED) != 0
    ouvert = (flags & OUVERT) != 0
    m = matadors if matadors > 0 else -matadors
    return m + 1 + hand + (schneider or sch_ann) + sch_ann + (schwarz or schw_ann) + schw_ann + ouvert


@njit(cache=True)
def game_value(game: int, flags: int, matadors: int, schneider: bool = False, schwarz: bool = False) -> int:
    """The value of a contract with ``matadors`` (signed or not) reaching the given levels:
    base x :func:`multiplier`; a null game's fixed value."""
    if game == NULL:
        return null_value(flags)
    return _BASE[game] * multiplier(flags, matadors, schneider, schwarz)


@njit(cache=True)
def charged_value(game: int, flags: int, value: int, bid: int) -> int:
    """What the declarer is charged: the game's ``value``, or, when it is below the ``bid``
    (overbid), the bid rounded up to a multiple of the base value (ISkO §11; a null game's
    base is its value)."""
    if value >= bid:
        return value
    b = base_value(game, flags)
    return b * ((bid + b - 1) // b)


@njit(cache=True)
def expected_sf(p: float, value: int, charged: int, loss_penalty: float = 0.0) -> float:
    """Expected Seeger-Fabian score of declaring a game of ``value`` won with chance ``p``
    and charged ``charged`` (:func:`charged_value`; above ``value`` it is an overbid, lost
    whatever happens): ``p (V + 50) - (1 - p) (2 V + 50 + 2 x loss_penalty)``.

    ``loss_penalty``: what a lost game costs per defender on top of the declarer's own
    loss, in relative points (0: the declarer's own score; duplicate play:
    ``agents.arena.base.DUPLICATE_LOSS_PENALTY``).
    """
    lost = -(2.0 * charged + SF_WON + 2.0 * loss_penalty)
    if charged > value:
        return lost
    return p * (value + SF_WON) + (1.0 - p) * lost


@njit(cache=True)
def expected_sf_at_bid(p: float, value: int, game: int, flags: int, bid: int, loss_penalty: float = 0.0) -> float:
    """:func:`expected_sf` of contract ``(game, flags)`` worth ``value`` declared at ``bid``
    (charged by :func:`charged_value`: an overbid is lost for sure).

    >>> float(expected_sf_at_bid(1.0, 18, 0, 0, 20))   # diamonds worth 18 at 20: charged 27, lost
    -104.0
    """
    return expected_sf(p, value, charged_value(game, flags, value, bid), loss_penalty)


@njit(cache=True)
def game_value_array(game: int, flags: int, matadors, schneider, schwarz) -> np.ndarray:
    """:func:`game_value` per entry of arrays of matadors and reached levels (one world or
    hand each)."""
    n = matadors.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = game_value(game, flags, matadors[i], schneider[i], schwarz[i])
    return out


@njit(cache=True)
def expected_sf_array(p, value, game: int, flags: int, bid: int, loss_penalty: float = 0.0) -> np.ndarray:
    """:func:`expected_sf` per entry of arrays ``p`` (winning chances) and ``value`` (game
    values) of one contract at ``bid``, each charged by :func:`charged_value`."""
    n = p.shape[0]
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        out[i] = expected_sf_at_bid(p[i], value[i], game, flags, bid, loss_penalty)
    return out
