"""Bidding, skat and declaration by simulation, for :class:`agents.players.pimc.PIMCAgent` (``bidding="simulation"``).

For each candidate contract (diamonds, hearts, spades, clubs, grand, null; played hand or
after a pickup) the bidder samples the cards it cannot see (the other two hands and the
skat), discards for a pickup (:func:`best_discard`, a small heuristic), solves each world
open-handed for the contract's goal (threshold searches: one full-deal solve per world
and contract) and estimates the win probability ``p``. A contract's value ``v`` is
``base x (matadors + 1 [+ 1 hand])`` (null: its fixed value); its expected
Seeger-Fabian score at a bid ``b`` is ``p (v + 50) - (1 - p) (2 c + 50 + 40)``, where
``c = v`` or the overbid charge when ``v < b`` (then the game is lost anyway) and the 40
are what the defenders' 2 x 40 for a lost game cost the declarer's agent in a duplicate
tournament (:data:`agents.arena.base.DUPLICATE_LOSS_PENALTY`, 20 per defender). The bidder bids
and holds up to the highest bid at which some contract's expected score is positive, picks hand or pickup and
declares the contract with the best expected score (announcements and ouvert are left
out: an open-hand solver cannot price them). Kontra/Re and the discard itself are the
rule-based player's (the discard after a real pickup is the rule-based one; the
simulation's own discards only price the pickup).

The evaluation of the ten dealt cards is done once per deal and cached.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from skatsim.actions import BID_BASE, DECLARE_BASE, HAND, HOLD, PASS, PICKUP
from skatsim.bits import iter_bits
from skatsim.cards import ACES, CARD_POINTS, SUIT_MASKS, TENS
from skatsim.contracts import BID_VALUES, DECLARATIONS, Contract
from skatsim.rules import GRAND, NULL, TRUMP_MASKS
from skatsim.scoring import matadors_of
from skatsim.valuation import HAND as HAND_FLAG
from skatsim.valuation import expected_sf_at_bid, game_value
from skatsim.solver import Position, Solver

from ..arena.base import DUPLICATE_LOSS_PENALTY

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["SimulationBidder", "best_discard", "expected_score"]

_GAMES = (0, 1, 2, 3, GRAND, NULL)
_NULL_RANK = (0, 1, 2, 5, 6, 3, 7, 4)  # null order 7 8 9 10 J Q K A by OpenSpiel rank index


def contract_value(game: int, hand: bool, twelve: int) -> int:
    """The game value of a won contract without schneider (:func:`skatsim.valuation.game_value`:
    ``base x (matadors + 1 [+ hand])``, or the null value, 23 / 35 hand)."""
    return int(game_value(game, HAND_FLAG if hand else 0, matadors_of(twelve, game)))


def expected_score(p: float, value: int, bid: int, game: int, hand: bool = False) -> float:
    """Expected relative Seeger-Fabian score of a contract won with probability ``p`` at
    ``bid`` (:func:`skatsim.valuation.expected_sf_at_bid`; an overbid is lost whatever happens),
    a lost game costing the duplicate penalty per defender."""
    return float(expected_sf_at_bid(p, value, game, HAND_FLAG if hand else 0, bid, DUPLICATE_LOSS_PENALTY))


def discard_score(twelve: int, pair: int, game: int) -> float:
    """How good putting ``pair`` away from ``twelve`` looks for ``game`` before any search
    (higher is better). Suit and grand: points pushed into the skat, suits made void (the
    trumps ruff), aces and tens behind their own ace kept; null: the most dangerous cards
    (high in a suit with few low cards) and voids."""
    rest = twelve & ~pair
    a, b = (c for c in iter_bits(pair))
    if game == NULL:
        score = 0.0
        for c in (a, b):
            suit = SUIT_MASKS[c >> 3]
            lower = sum(1 for x in iter_bits(twelve & suit) if _NULL_RANK[x & 7] < _NULL_RANK[c & 7])
            score += _NULL_RANK[c & 7] - 2 * lower
        for s in range(4):
            if twelve & SUIT_MASKS[s] and not rest & SUIT_MASKS[s]:
                score += 3
        return score
    trumps = TRUMP_MASKS[game]
    score = float(CARD_POINTS[a] + CARD_POINTS[b])
    for s in range(4):
        plain = SUIT_MASKS[s] & ~trumps
        if twelve & plain and not rest & plain:
            score += 12  # a void: the trumps ruff
    for c in (a, b):
        if (1 << c) & ACES:
            score -= 14  # an ace is a trick
        if (1 << c) & TENS and twelve & ACES & SUIT_MASKS[c >> 3] & ~trumps:
            score -= 8  # a ten behind its own ace is one too
    return score


def best_discard(twelve: int, game: int) -> int:
    """Two cards to discard from ``twelve`` for ``game`` (a mask of 2 cards).

    Suit and grand: never a trump; prefer cards that make a suit void, then high points
    (a ten without its ace, an unguarded ace) pushed into the skat (they count for the
    declarer). Null: the two most dangerous cards (high in a suit with few low cards).
    """
    cards = list(iter_bits(twelve))
    best, best_score = 0, -1e9
    trumps = TRUMP_MASKS[game] if game != NULL else 0
    for a, b in itertools.combinations(cards, 2):
        pair = (1 << a) | (1 << b)
        if pair & trumps:
            continue
        score = discard_score(twelve, pair, game)
        if score > best_score:
            best, best_score = pair, score
    if best == 0:  # only trumps (cannot happen in practice): the two lowest
        low = sorted(cards, key=lambda c: CARD_POINTS[c])
        best = (1 << low[0]) | (1 << low[1])
    return best


class SimulationBidder:
    """Decides the bidding, hand/pickup and the declaration by open-hand simulation."""

    def __init__(self, delegate: Any, worlds: int = 32, solver: Solver | None = None) -> None:
        self.delegate = delegate
        self.worlds = int(worlds)
        self.solver = solver or Solver(tt_bits=18)
        self._gen = np.random.default_rng(0)
        self._eval: dict[tuple[int, bool], tuple[float, int]] | None = None

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self._gen = np.random.default_rng(int(rng) ^ 0xB1D)
        self._eval = None

    # ------------------------------------------------------------------ evaluation
    def _worlds(self, hand: int, seat: int, skat_known: int = 0) -> list[tuple[int, int, int]]:
        """(hand of the next seat, of the one after, skat) per sampled world."""
        unseen = [c for c in range(32) if not ((hand | skat_known) >> c & 1)]
        out = []
        for _ in range(self.worlds):
            perm = self._gen.permutation(unseen)
            a = sum(1 << int(c) for c in perm[:10])
            b = sum(1 << int(c) for c in perm[10:20])
            sk = skat_known or sum(1 << int(c) for c in perm[20:22])
            out.append((a, b, sk))
        return out

    def _wins(self, seat: int, cards: int, a: int, b: int, skat: int, game: int) -> bool:
        """Does the declarer ``seat`` holding ``cards`` win ``game`` open-handed against the
        next seat holding ``a`` and the one after holding ``b`` (forehand leads)?"""
        hands = [0, 0, 0]
        hands[seat] = cards
        hands[(seat + 1) % 3] = a
        hands[(seat + 2) % 3] = b
        pos = Position((hands[0], hands[1], hands[2]), skat, game, seat, (), 0, 0, 0)
        return bool(self.solver.solve(pos, mode="threshold", threshold="null" if game == NULL else 61).declarer_wins)

    def evaluate(self, hand: int, seat: int) -> dict[tuple[int, bool], tuple[float, int]]:
        """``{(game, hand): (win probability, value)}`` for the ten dealt cards."""
        if self._eval is not None:
            return self._eval
        worlds = self._worlds(hand, seat)
        out: dict[tuple[int, bool], tuple[float, int]] = {}
        for game in _GAMES:
            # hand game: the dealt ten play, the skat stays (its points count for the declarer)
            wins_h = wins_p = 0
            value_p = []
            for a, b, sk in worlds:
                wins_h += self._wins(seat, hand, a, b, sk, game)
                twelve = hand | sk
                disc = best_discard(twelve, game)
                wins_p += self._wins(seat, twelve & ~disc, a, b, disc, game)
                value_p.append(contract_value(game, False, twelve))
            n = len(worlds)
            out[(game, True)] = (wins_h / n, int(np.median([contract_value(game, True, hand | sk)
                                                            for _, _, sk in worlds])))
            out[(game, False)] = (wins_p / n, int(np.median(value_p)))
        self._eval = out
        return out

    def max_bid(self, hand: int, seat: int) -> int:
        """The highest bid at which some contract has a positive expected score (0: none)."""
        ev = self.evaluate(hand, seat)
        top = 0
        for bid in BID_VALUES:
            if any(expected_score(p, v, bid, g, h) > 0 for (g, h), (p, v) in ev.items()):
                top = bid
        return top

    # ------------------------------------------------------------------ decisions
    def act(self, obs: "Observation") -> int:
        legal = obs.legal_actions
        hand = obs.hand.mask
        if obs.phase == "bidding":
            limit = self.max_bid(hand, obs.seat)
            bids = [a for a in legal if BID_BASE <= a < PASS]
            if bids:  # the bidder: name the next value if it is within the limit
                nxt = min(bids)
                return nxt if BID_VALUES[nxt - BID_BASE] <= limit else PASS
            if HOLD in legal:
                return HOLD if obs.bid <= limit else PASS
            return PASS if PASS in legal else legal[0]
        if obs.phase == "skat":
            ev = self.evaluate(hand, obs.seat)
            best_hand = max(expected_score(p, v, obs.bid, g, h) for (g, h), (p, v) in ev.items() if h)
            best_pick = max(expected_score(p, v, obs.bid, g, h) for (g, h), (p, v) in ev.items() if not h)
            return HAND if best_hand > best_pick and HAND in legal else PICKUP
        if obs.phase == "declare":
            return self._declare(obs)
        return self.delegate.act(obs)

    def _declare(self, obs: "Observation") -> int:
        legal = obs.legal_actions
        candidates = []
        for a in legal:
            c = Contract.from_code(DECLARATIONS[a - DECLARE_BASE])
            if c.ouvert or c.schneider_announced:
                continue
            candidates.append((a, c))
        if not candidates:
            return self.delegate.act(obs)
        seat = obs.seat
        cards = obs.hand.mask
        skat = obs.discard.mask if obs.discard is not None else 0
        known = cards | skat
        worlds = self._worlds(known, seat, skat_known=skat or 0)
        best_a, best_e = candidates[0][0], -1e18
        twelve = cards | (obs.skat.mask if obs.skat is not None else 0)
        for a, c in candidates:
            sk = skat if skat else None
            wins = 0
            values = []
            for wa, wb, wsk in worlds:
                pile = sk if sk is not None else wsk
                wins += self._wins(seat, cards, wa, wb, pile, c.game)
                values.append(contract_value(c.game, c.hand, twelve if obs.skat is not None else cards | pile))
            e = expected_score(wins / len(worlds), int(np.median(values)), obs.bid, c.game, c.hand)
            if e > best_e:
                best_a, best_e = a, e
        return best_a
