"""One result schema: the columns of a game row, wherever the game was played (no numba
here: the settlement and the tables both read it).

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

Game tables that keep the bidding add ``auction`` (:func:`skatsim.table.auction_text`).

>>> RESULT_COLUMNS[:4]
('deal_index', 'deal_seed', 'declarer', 'bid')
>>> CONTRACT_CATEGORIES[-2:], len(CONTRACT_CATEGORIES)
(('R', 'passed'), 31)
"""

from __future__ import annotations

from .contracts import DECLARATIONS, Contract
from .rules import RAMSCH

__all__ = ["RESULT_COLUMNS", "PER_SEAT", "CONTRACT_CATEGORIES", "contract_category"]

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
    if game == RAMSCH:
        return "R"
    return Contract(game, flags).to_text()
