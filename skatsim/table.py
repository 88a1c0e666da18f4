"""One result schema: the columns of a game row, wherever the game was played.

A row of :func:`skatsim.simulate`, :meth:`skatsim.scoring.GameResult.to_row` and a
tournament row (``agents.arena.tournament``) use the same column names with the same meaning.
Seats are 0 forehand, 1 middlehand, 2 rearhand.

===============  =====================================================================
column           meaning
===============  =====================================================================
deal_index       index of the deal in its run (deal ``i`` of a run with seed ``s``)
deal_seed        the deal's seed: ``SkatState.new_game(seed=deal_seed)`` has its cards
declarer         declarer's seat; -1 when nobody declared (passed in, Ramsch)
bid              the final bid (0 when nobody bid)
contract         categorical: ISS token of the contract (``C``, ``GH``, ``NO`` ...),
                 ``R`` for Ramsch, ``passed`` when everybody passed
game             -1 passed in, 0..5 diamonds hearts spades clubs grand null, 6 Ramsch
flags            announcement bits: 1 hand, 2 schneider announced, 4 schwarz announced,
                 8 ouvert
picked_up        the declarer picked up the skat
kontra           0 none, 1 Kontra, 2 Re (the Kontra/Re variant)
declarer_points  the declarer's card points, skat included
declarer_tricks  tricks the declarer took
matadors         signed, as ISS writes it: +n "with n", -n "without n"; 0 in null,
                 Ramsch and passed-in games
won              the declarer won (overbid games are lost)
schneider        schneider reached (either side)
schwarz          schwarz reached (either side)
multiplier       the game value's multiplier (suit and grand; 1 in null)
game_value       the value of the game as played
overbid          the game value is below the bid
charged_value    the value charged (the bid rounded up to the base value when overbid)
list_score       the declarer's list entry: +value won, -2 x value lost (x2 per Kontra/Re)
score_0..2       list score per seat (declarer's entry, 0 for defenders; Ramsch: each
                 seat's own entry)
sf_0..2          Seeger-Fabian points per seat (:func:`skatsim.scoring.sf_points`)
points_0..2      trick card points per seat (skat not included; in Ramsch the skat goes
                 to the winner of the last trick)
n_actions        actions in the deal (bids ... last card)
===============  =====================================================================

Game tables that keep the bidding (tournaments, ISS imports) add ``auction``: the calls as
``seat:call`` words (:func:`auction_text`, e.g. ``"1:18 0:yes 1:pass 2:pass"``), the same
text whatever engine played the game.

>>> RESULT_COLUMNS[:4]
('deal_index', 'deal_seed', 'declarer', 'bid')
>>> CONTRACT_CATEGORIES[-2:], len(CONTRACT_CATEGORIES)
(('R', 'passed'), 31)
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

import numpy as np

from .actions import BID_BASE, HOLD, action_to_string
from .contracts import DECLARATIONS, Contract

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RESULT_COLUMNS", "PER_SEAT", "CONTRACT_CATEGORIES", "contract_category", "long_by_seat", "auction_calls",
           "auction_text"]

#: Column order of a result row.
RESULT_COLUMNS: tuple[str, ...] = (
    "deal_index", "deal_seed", "declarer", "bid", "contract", "game", "flags", "picked_up",
    "kontra", "declarer_points", "declarer_tricks", "matadors", "won", "schneider", "schwarz",
    "multiplier", "game_value", "overbid", "charged_value", "list_score",
    "score_0", "score_1", "score_2", "sf_0", "sf_1", "sf_2",
    "points_0", "points_1", "points_2", "n_actions")

#: The per-seat column families (``score_0..2`` ...), for :func:`long_by_seat`.
PER_SEAT: tuple[str, ...] = ("score", "sf", "points")

#: Categories of the ``contract`` column: ISS tokens of all declarable contracts
#: (``D``, ``G``, ``N``, ``NO``, ``DH``, ``DHS``, ``DHZ``, ``DO``, ... ``NOH``), then ``R``
#: (Ramsch, the all-pass option) and ``passed`` (passed in, no game).
CONTRACT_CATEGORIES: tuple[str, ...] = tuple(Contract.from_code(c).to_text() for c in DECLARATIONS) + ("R", "passed")


def contract_category(game: int, flags: int) -> str:
    """The ``contract`` value of a row from its ``game`` and ``flags``.

    >>> contract_category(3, 1), contract_category(6, 0), contract_category(-1, 0)
    ('CH', 'R', 'passed')
    """
    if game < 0:
        return "passed"
    if game == 6:
        return "R"
    return Contract(game, flags).to_text()


def long_by_seat(df: "pd.DataFrame", extra: tuple[str, ...] = ()) -> "pd.DataFrame":
    """One row per (game, seat): the per-seat columns ``score``, ``sf``, ``points`` plus
    ``seat``, ``is_declarer`` and every other column (and ``{name}_0..2`` families named
    in ``extra``, e.g. ``("agent",)`` for a tournament table) repeated.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"deal_index": [0], "declarer": [1], "score_0": [0], "score_1": [48],
    ...                    "score_2": [0], "sf_0": [0], "sf_1": [98], "sf_2": [0],
    ...                    "points_0": [20], "points_1": [70], "points_2": [30]})
    >>> long_by_seat(df)[["deal_index", "seat", "is_declarer", "sf"]].to_dict("list")
    {'deal_index': [0, 0, 0], 'seat': [0, 1, 2], 'is_declarer': [False, True, False], 'sf': [0, 98, 0]}
    """
    import pandas as pd

    families = tuple(f for f in PER_SEAT + tuple(extra) if f"{f}_0" in df.columns)
    seat_cols = {f"{f}_{s}" for f in families for s in range(3)}
    keep = [c for c in df.columns if c not in seat_cols]
    parts = []
    for s in range(3):
        part = df[keep].copy()
        part["seat"] = s
        for f in families:
            part[f] = df[f"{f}_{s}"].to_numpy()
        if "declarer" in df.columns:
            part["is_declarer"] = df["declarer"].to_numpy() == s
        part["_order"] = range(len(df))
        parts.append(part)
    out = pd.concat(parts, ignore_index=True).sort_values(["_order", "seat"], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)


@lru_cache(maxsize=1 << 16)
def _calls(actions: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    from .kernels import game as K

    st = np.zeros(K.N_FIELDS, dtype=np.int64)
    K.init_state(st, 0, 0, 0, 0, 0)  # who calls next does not depend on the cards
    out = []
    for a in actions:
        if st[K.F_PHASE] != K.PH_BID or not K.is_legal(st, a):
            break
        out.append((int(st[K.F_PLAYER]), a))
        K.apply_action(st, a)
    return tuple(out)


def auction_calls(actions: Iterable[int]) -> list[tuple[int, int]]:
    """``(seat, action)`` of the bidding that opens a deal's action list (bids, ``yes``,
    ``pass``), seats found by the rules' state machine. Stops at the first action after the
    bidding (or one the bidding does not allow).

    >>> auction_calls([32, 96, 95, 95, 98])   # 18 yes pass pass, then the skat decision
    [(1, 32), (0, 96), (1, 95), (2, 95)]
    """
    calls = []
    for a in actions:
        a = int(a)
        if not BID_BASE <= a <= HOLD:
            break
        calls.append(a)
    return list(_calls(tuple(calls)))


def auction_text(actions: Iterable[int]) -> str:
    """The bidding of a deal's action list as ``seat:call`` words: the ``auction`` column of
    every game table (tournaments of either engine, ISS imports).

    >>> auction_text([32, 96, 95, 95, 98])
    '1:18 0:yes 1:pass 2:pass'
    >>> auction_text([95, 95, 95])             # all passed
    '1:pass 2:pass 0:pass'
    """
    return " ".join(f"{p}:{action_to_string(a)}" for p, a in auction_calls(actions))
