"""Tables of games: one row per game in the one result schema (:mod:`skatsim.schema`), and
what tables need beside it: the long form by seat (:func:`long_by_seat`) and the auction text.

Game tables that keep the bidding (tournaments, ISS imports) add ``auction``: the calls as
``seat:call`` words (:func:`auction_text`, e.g. ``"1:18 0:yes 1:pass 2:pass"``), the same
text however the game was played.

>>> RESULT_COLUMNS[:4]
('deal_index', 'deal_seed', 'declarer', 'bid')
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

import numpy as np

from .actions import BID_BASE, HOLD, action_to_string
from .schema import CONTRACT_CATEGORIES, PER_SEAT, RESULT_COLUMNS, contract_category

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RESULT_COLUMNS", "PER_SEAT", "CONTRACT_CATEGORIES", "contract_category", "long_by_seat", "auction_calls",
           "auction_text"]


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
