"""The table as one view sees it, as JSON: the one builder for play and replay.

:func:`table_view` turns a :class:`~skatsim.SkatState` into what the page draws, for
``view="all"`` (every card: a replay with open hands, the end of a deal) or a seat 0..2
(that seat's :meth:`~skatsim.SkatState.observation`: its own hand, the skat only as far as
it saw it, an ouvert declarer's cards; the other hands as counts). The public facts (calls,
contract, tricks, points) are the observation's, equal for every seat. Cards are named by
their ids (``"CJ"``), hands in the contract's display order
(:meth:`skatsim.cards.CardSet.sorted`).

>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=3)
>>> t = table_view(s, 1)
>>> [type(h).__name__ for h in t["hands"]], t["skat"], t["phase"], t["to_move"]
(['int', 'list', 'int'], 2, 'bidding', 1)
>>> len(table_view(s, "all")["skat"])
2
"""

from __future__ import annotations

from typing import Any, Iterable

from skatsim.bits import popcount
from skatsim.cards import CardSet, card_name, card_points
from skatsim.state import SEAT_NAMES, SkatState

__all__ = ["table_view", "names", "trick_json", "dealt_view"]


def names(cards: int | Iterable[int], game: int | None = None) -> list[str]:
    """Card ids of a mask (in the display order of ``game``) or of a sequence (kept in order)."""
    if isinstance(cards, int):
        return [card_name(c) for c in CardSet.from_mask(cards).sorted(game)]
    return [card_name(c) for c in cards]


def trick_json(leader: int, cards: Iterable[int], winner: int | None = None) -> dict[str, Any]:
    """A trick: ``leader``, ``cards`` (in play order), ``winner`` and its card ``points``."""
    cards = list(cards)
    out: dict[str, Any] = {"leader": leader, "cards": names(cards)}
    if winner is not None:
        out["winner"] = winner
        out["points"] = int(card_points(sum(1 << c for c in cards)))
    return out


def table_view(s: SkatState, view: int | str = "all") -> dict[str, Any]:
    """The table after the moves of ``s`` as ``view`` (``"all"`` or a seat) sees it:
    ``hands`` (per seat a list of card ids, or a count where hidden), ``skat`` (the skat's
    cards as far as the view knows them, else a count), ``skat_found`` (the skat as dealt,
    if the view saw it), ``skat_points`` (the points the declarer has in the skat, if the
    view knows them), the calls, the contract, the tricks and the card points."""
    seat = None if view == "all" else int(view)
    obs = s.observation(0 if seat is None else seat)
    game = s.game_type
    d = s.declarer
    hands: list[Any] = []
    for p in range(3):
        m = s.hand_mask(p)
        if seat is None or seat == p:
            hands.append(names(m, game))
        elif obs.ouvert_hand is not None and p == d:
            hands.append(names(obs.ouvert_hand.mask, game))
        else:
            hands.append(popcount(m))
    lying = s.skat_mask()
    skat: Any
    found: list[str] | None
    if seat is None:
        skat, found = names(lying, game), names(s.deal.skat.mask, game)
    else:
        found = names(obs.skat.mask, game) if obs.skat is not None else None
        known = obs.discard.mask if obs.discard is not None else None
        skat = names(known, game) if known is not None and known == lying else popcount(lying)
    skat_points = int(card_points(lying)) if isinstance(skat, list) and d is not None else None
    out: dict[str, Any] = {
        "view": view, "phase": s.phase, "to_move": None if s.is_terminal() else s.current_player(),
        "positions": list(SEAT_NAMES), "hands": hands, "skat": skat, "skat_found": found,
        "skat_points": skat_points,
        "skat_lying": s.phase in ("bidding", "skat"), "skat_picked_up": s.skat_picked_up,
        "bids": [[p, t] for p, t in obs.bids], "passed": list(obs.passed), "bid": obs.bid,
        "declarer": d, "contract": obs.contract, "game_type": game,
        "kontra": [[p, t] for p, t in obs.kontra],
        "tricks": [trick_json(ld, cards, w) for ld, cards, w in obs.tricks],
        "trick": {"leader": obs.trick_leader if obs.current_trick else None, "cards": names(obs.current_trick)},
        "points": list(obs.points), "tricks_won": list(obs.tricks_won),
    }
    return out


def dealt_view(s: SkatState) -> dict[str, Any]:
    """The deal as it was dealt, for the end of a deal: each seat's ten cards and the
    skat in the contract's order, and the declarer's discards (``None`` in a hand game)."""
    game = s.game_type
    return {"hands": [names(h.mask, game) for h in s.deal.hands], "skat": names(s.deal.skat.mask, game),
            "discard": names(s.skat_mask(), game) if s.skat_picked_up else None}
