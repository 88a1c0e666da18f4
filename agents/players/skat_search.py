"""``SkatSearchAgent``: the discard and the contract chosen by search over sampled worlds.

After a pickup the declarer holds twelve cards; every (discard, game) pair is a candidate.
The search samples the twenty cards it cannot see into the two defenders' hands (weighted
by how well the rule-based bidding model explains their bids, as PIMC's inference does,
:func:`agents.pimc_inference.weigh_worlds`), solves each world open-handed for the game's
goal (threshold searches of the full deal, forehand to lead) and values the candidate by
its expected Seeger-Fabian score at the bid (:func:`skatsim.valuation.expected_sf_at_bid`,
a lost game costing ``loss_penalty`` per defender, as the bidders count it) with the win
probability ``p`` = the (weighted) fraction of worlds won, mapped through ``calibration``
(what the card player actually wins when the open-hand search says ``p``; identity by
default).

Candidates are pruned before any search: per game, the discards that keep its trumps
(jacks in grand), ranked by a static score (points pushed into the skat, suits made void,
aces and guarded tens kept) with the rule-based player's own plan always among them; games
whose trumps are too few, and null unless the twelve cards allow a safe-enough null.
Successive halving spends the worlds where the decision is: every candidate gets
``worlds`` worlds, the ``finalists`` best get ``final_worlds`` more.

In a hand game the skat is unknown: each world deals the 22 unseen cards to the defenders
and the skat, and every declarable hand game is valued the same way; announcements
(schneider, schwarz, ouvert) are priced by the matching threshold searches (90, every
trick) for the best game only when it wins in nearly every world.

The other phases (bidding, pickup or hand, Kontra/Re, card play) are not this agent's:
compose it (``compose:bidding=neural_bidder,discard=skat_search,declare=skat_search,...``);
on its own it hands them to the rule-based player.

>>> from agents import make_agent, play_game
>>> p = make_agent("compose:discard=skat_search(worlds=2),declare=skat_search(worlds=2)")
>>> play_game([p, "rule_based", "rule_based"], seed=11).is_terminal()
True
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from skatsim.actions import DECLARE_BASE
from skatsim.bits import iter_bits, popcount
from skatsim.cards import ACES, CARD_POINTS, JACKS
from skatsim.contracts import DECLARATIONS, HAND, OUVERT, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, Contract
from skatsim.rules import GRAND, NULL, TRUMP_MASKS
from skatsim.scoring import matadors_of
from skatsim.solver import Position, Solver, target_for
from skatsim.valuation import expected_sf_at_bid, game_value

from ..arena.base import DUPLICATE_LOSS_PENALTY, ActionValues
from .calibration import calibrated, parse_calibration
from .pimc_bidding import discard_score

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["SkatSearchAgent", "Candidate", "discard_candidates"]



@dataclass
class Candidate:
    """One option of the search: a discard (0 in a hand game) and a declaration."""

    discard: int
    declaration: int  # index into skatsim.contracts.DECLARATIONS
    game: int
    flags: int
    value: int
    wins: float = 0.0
    weight: float = 0.0
    goal: Any = None  # the solver's goal (None: 61, or no trick in null)

    @property
    def p(self) -> float:
        return self.wins / self.weight if self.weight > 0 else 0.0


def discard_candidates(twelve: int, game: int, k: int, plan: int = 0) -> list[int]:
    """The ``k`` best-looking discards (two-card masks) of ``twelve`` for ``game`` by the static
    score, ``plan`` (the rule-based player's) always included: trumps are kept when at least
    two other cards remain; ties go to the lower mask.

    >>> from skatsim import CardSet
    >>> from skatsim.rules import CLUBS
    >>> t = CardSet("CJ SJ HJ CA C10 CK C9 C8 SA S10 H7 D7").mask
    >>> [str(CardSet.from_mask(p)) for p in discard_candidates(t, CLUBS, 2)]
    ['♥7 ♦7', '♠10 ♦7']
    """
    cards = list(iter_bits(twelve))
    keep = TRUMP_MASKS[game] if game != NULL else 0
    free = [c for c in cards if not (1 << c) & keep]
    pool = free if len(free) >= 2 else cards
    pairs = [(1 << a) | (1 << b) for a, b in itertools.combinations(pool, 2)]
    pairs.sort(key=lambda p: (-discard_score(twelve, p, game), p))
    out = pairs[:k]
    if plan and plan not in out and popcount(plan & twelve) == 2:
        out.append(plan)
    return out


def _decl_index(game: int, flags: int) -> int:
    return DECLARATIONS.index(Contract(game, flags).code)


class SkatSearchAgent:
    """Discard and declaration by open-hand search over sampled worlds (module docstring).

    Args:
        worlds: worlds per candidate in the first round.
        finalists: the candidates searched again after the first round.
        final_worlds: worlds more per finalist.
        discards: discards per game considered (by the static score, plus the rule-based plan).
        loss_penalty: what a lost game costs per defender (duplicate scoring: 20).
        inference: weigh the worlds by the defenders' bids (the rule-based bidding model).
        calibration: ``"none"`` (p = the open-hand fraction) or per class ``a,b`` pairs as
            ``"(a0,b0;a1,b1;a2,b2)"`` (suit, grand, null): ``p = logistic(a + b logit(f))``
            (:mod:`agents.players.calibration`).
        node_limit: search nodes per world and candidate (0: none); a world over it is dropped.
            A threshold search of a whole deal takes 50,000 to 2,000,000 nodes: the default
            drops almost no world. A small budget is not only cheaper: it keeps the quickly
            decided worlds (clear wins and clear losses) and drops the close ones, and a
            candidate with no world left is not searched at all (it ranks last).
        tt_bits: log2 of the solver's transposition-table entries.
    """

    name = "skat_search"

    def __init__(self, worlds: int = 4, finalists: int = 3, final_worlds: int = 12, discards: int = 3,
                 loss_penalty: float = DUPLICATE_LOSS_PENALTY, inference: bool = True, calibration: str = "none",
                 node_limit: int = 3_000_000, tt_bits: int = 18) -> None:
        from .rule_based import RuleBasedAgent

        for k, v, lo in (("worlds", worlds, 1), ("finalists", finalists, 0), ("final_worlds", final_worlds, 0),
                         ("discards", discards, 1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= 10_000:
                raise ValueError(f"{k} must be an int in {lo}..10000, got {v!r}")
        self.worlds, self.finalists, self.final_worlds = int(worlds), int(finalists), int(final_worlds)
        self.discards = int(discards)
        self.loss_penalty = float(loss_penalty)
        self.inference = bool(inference)
        self.node_limit = int(node_limit)
        self.calibration = parse_calibration(calibration)
        self._rb = RuleBasedAgent()
        self._solver = Solver(tt_bits=int(tt_bits))
        self._gen = np.random.default_rng(0)
        self._plan: list[Candidate] | None = None
        self.log: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ protocol
    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self._rb.reset(deal_id, seat, rng)
        self._gen = np.random.default_rng([int(rng) & 0xFFFFFFFF, int(rng) >> 32, 0x5EA4])
        self._plan = None
        self._solver.reset()

    def act(self, obs: "Observation") -> int:
        if len(obs.legal_actions) == 1:
            return obs.legal_actions[0]
        ranked = self._ranked(obs) if obs.phase in ("discard", "declare") else []
        if not ranked or ranked[0].weight <= 0:  # nothing searchable, or every world over the budget
            return self._rb.act(obs)
        best = ranked[0]
        if obs.phase == "discard":
            for c in sorted(obs.legal_actions):
                if (best.discard >> c) & 1:
                    return c
            return self._rb.act(obs)  # pragma: no cover - the plan holds a legal card
        if obs.phase == "declare":
            a = DECLARE_BASE + best.declaration
            return a if a in obs.legal_actions else self._rb.act(obs)
        return self._rb.act(obs)

    def action_values(self, obs: "Observation") -> ActionValues | None:
        """Expected SF of each discard (first card of the best pair holding it) or declaration."""
        if obs.phase not in ("discard", "declare") or not obs.legal_actions:
            return None
        ranked = self._ranked(obs)
        vals: dict[int, float] = {}
        for c in ranked:
            ev = self._ev(c, obs.bid)
            if obs.phase == "discard":
                for card in iter_bits(c.discard):
                    if card in obs.legal_actions and ev > vals.get(card, -1e18):
                        vals[card] = ev
            else:
                a = DECLARE_BASE + c.declaration
                if a in obs.legal_actions and ev > vals.get(a, -1e18):
                    vals[a] = ev
        chosen = self.act(obs)
        detail = {"candidates": [{"discard": c.discard, "contract": DECLARATIONS[c.declaration], "p": c.p,
                                  "worlds": c.weight, "ev": self._ev(c, obs.bid)} for c in ranked]}
        return ActionValues(vals, "SF points", chosen=chosen, detail=detail)

    def value_declaration(self, obs: "Observation", action: int) -> float | None:
        """The expected SF of one legal declaration ``action``, searched on its own over fresh
        worlds (announcements at their goals): how the analysis board values a declaration made
        that the search did not consider. ``None`` outside the declaration or with no world."""
        if obs.phase != "declare" or action not in obs.legal_actions:
            return None
        con = Contract.from_code(DECLARATIONS[action - DECLARE_BASE])
        if con.game > NULL:
            return None
        picked = obs.skat_picked_up
        put = (obs.discard.mask if obs.discard is not None else 0) if picked else 0
        known = obs.hand.mask | put
        c = Candidate(put, action - DECLARE_BASE, con.game, con.flags, self._value(known, con.game, con.flags))
        self._reach_bid(c, known, obs.bid)
        goal = target_for(con)  # the announced goal; else the level reaching the bid, if any
        if goal == 61 and c.goal is not None:
            goal = c.goal
        worlds, weights = self._worlds(obs, known, picked, self.worlds + self.final_worlds)
        self._solve(c, obs.seat, known, worlds, weights, picked, goal)
        return self._ev(c, obs.bid) if c.weight > 0 else None

    # ------------------------------------------------------------------ search
    def _ev(self, c: Candidate, bid: int) -> float:
        p = calibrated(c.p, c.game, self.calibration)
        return float(expected_sf_at_bid(p, c.value, c.game, c.flags, bid, self.loss_penalty))

    def _rank(self, c: Candidate, bid: int) -> tuple[bool, float]:
        """Sort key, best first: searched candidates by expected score, then those whose every
        world went over the node budget (their ``p`` of 0 is no evidence of a loss)."""
        return (c.weight <= 0, -self._ev(c, bid))

    def _ranked(self, obs: "Observation") -> list[Candidate]:
        """The candidates, best first (computed once per deal: the first discard and the
        declaration after it use the same search)."""
        if self._plan is None:
            self._plan = self._search(obs)
        if obs.phase == "discard" and obs.discard is not None and len(obs.discard) == 1:
            gone = obs.discard.mask
            keep = [c for c in self._plan if c.discard & gone]
            if keep:
                return keep
        if obs.phase == "declare":
            legal = {a - DECLARE_BASE for a in obs.legal_actions}
            put = obs.discard.mask if obs.discard is not None else 0
            keep = [c for c in self._plan if c.declaration in legal and (not put or c.discard == put)]
            if not keep and put:  # the discard was not the search's own: value the declarations anew
                self._plan = self._search(obs)
                keep = [c for c in self._plan if c.declaration in legal]
            if keep:
                return keep
        return self._plan

    def _search(self, obs: "Observation") -> list[Candidate]:
        seat, bid = obs.seat, obs.bid
        picked = obs.skat_picked_up
        hand = obs.hand.mask
        if picked:
            known = hand | (obs.discard.mask if obs.discard is not None else 0)
            cands = self._pickup_candidates(obs, known) if obs.phase == "discard" \
                else self._declared_discard_candidates(obs, known)
        else:
            known = hand
            cands = self._hand_candidates(hand, bid)
        if not cands:
            return cands
        for c in cands:
            self._reach_bid(c, known, bid)
        worlds, weights = self._worlds(obs, known, picked, self.worlds + self.final_worlds)
        n1 = self.worlds
        for c in cands:
            self._solve(c, seat, known, worlds[:n1], weights[:n1], picked)
        cands.sort(key=lambda c: self._rank(c, bid))
        if self.finalists and self.final_worlds and len(cands) > 1:
            k = min(self.finalists, len(cands))
            for c in cands[:k]:
                self._solve(c, seat, known, worlds[n1:], weights[n1:], picked)
            cands = sorted(cands[:k], key=lambda c: self._rank(c, bid)) + cands[k:]
        if not picked and cands:
            self._announcements(cands, seat, known, worlds, weights, bid)
        self.log.append({"seat": seat, "phase": obs.phase, "picked": picked,
                         "best": DECLARATIONS[cands[0].declaration], "p": cands[0].p, "candidates": len(cands)})
        return cands

    def _pickup_candidates(self, obs: "Observation", twelve: int) -> list[Candidate]:
        from .neural_bidding import discard_for

        bid = obs.bid
        if popcount(twelve) != 12:
            # asked first at the second discard (a fresh agent): the observation does not show
            # the card already put away (only after the discard), so there is nothing to search
            return []
        out: list[Candidate] = []
        for game in self._games(twelve, bid, picked=True):
            plan = discard_for(twelve, game)
            flags_list = [0] if game != NULL else ([0] if bid <= 23 else []) + ([OUVERT] if bid > 23 else [])
            pairs = discard_candidates(twelve, game, self.discards, plan)
            for flags in flags_list:
                value = self._value(twelve, game, flags)
                for pair in pairs:
                    out.append(Candidate(pair, _decl_index(game, flags), game, flags, value))
        return out

    def _declared_discard_candidates(self, obs: "Observation", known: int) -> list[Candidate]:
        put = obs.discard.mask if obs.discard is not None else 0
        out = []
        for a in obs.legal_actions:
            c = Contract.from_code(DECLARATIONS[a - DECLARE_BASE])
            if c.game <= NULL:
                out.append(Candidate(put, a - DECLARE_BASE, c.game, c.flags, self._value(known, c.game, c.flags)))
        return out

    def _hand_candidates(self, hand: int, bid: int) -> list[Candidate]:
        out = []
        for game in self._games(hand, bid, picked=False):
            flags = HAND | (OUVERT if game == NULL and bid > 35 else 0)
            out.append(Candidate(0, _decl_index(game, flags), game, flags, self._value(hand, game, flags)))
        return out

    @staticmethod
    def _games(cards: int, bid: int, picked: bool) -> list[int]:
        """Games worth searching: the two suits with most trumps (the first always, the second
        with enough of them), grand with jacks or aces, null when the cards are safe enough.

        >>> from skatsim.cards import CardSet
        >>> flat = CardSet("CA C10 CK SA S10 SK HA H10 HK DA D10 DK").mask  # no jack, no long suit
        >>> SkatSearchAgent._games(flat, 18, picked=True)  # still a game: a declarer must declare
        [3]
        """
        from skatsim.kernels.heuristic import null_bad

        n = popcount(cards)
        jacks = popcount(cards & JACKS)
        suits = [(popcount(cards & TRUMP_MASKS[g]), int(sum(CARD_POINTS[c] for c in iter_bits(cards & TRUMP_MASKS[g]))),
                  g) for g in range(4)]
        suits.sort(reverse=True)
        out = [g for i, (k, _, g) in enumerate(suits[:2]) if i == 0 or k >= (5 if n == 12 else 4)]
        if jacks >= 2 or (jacks >= 1 and popcount(cards & ACES) >= 3):
            out.append(GRAND)
        if int(null_bad(cards)) <= (4 if picked else 1):
            out.append(NULL)
        return out

    @staticmethod
    def _reach_bid(c: Candidate, cards: int, bid: int) -> None:
        """A suit or grand game worth less than the bid is not lost yet: the value it reaches
        decides an overbid (ISkO §11), so it is searched for schneider (or schwarz) and valued
        at that level."""
        if c.game == NULL or c.value >= bid:
            return
        m = matadors_of(cards, c.game)
        for goal, schwarz in ((90, False), ("schwarz", True)):
            v = int(game_value(c.game, c.flags, m, True, schwarz))
            if v >= bid:
                c.value, c.goal = v, goal
                return

    @staticmethod
    def _value(cards: int, game: int, flags: int) -> int:
        m = 0 if game == NULL else matadors_of(cards, game)
        return int(game_value(game, flags, m))

    def _worlds(self, obs: "Observation", known: int, picked: bool, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(n, 4)`` worlds (hands of seats 0..2, skat pile) and their weights."""
        seat = obs.seat
        unseen = np.array([c for c in range(32) if not (known >> c) & 1], np.int64)
        others = [(seat + 1) % 3, (seat + 2) % 3]
        draw = n * (4 if self.inference else 1)
        bits = np.left_shift(np.int64(1), unseen)
        w = np.zeros((draw, 4), np.int64)
        skat = (obs.discard.mask if obs.discard is not None else 0) if picked else 0
        for i in range(draw):
            perm = self._gen.permutation(len(unseen))
            w[i, seat] = obs.hand.mask
            w[i, others[0]] = bits[perm[:10]].sum()
            w[i, others[1]] = bits[perm[10:20]].sum()
            w[i, 3] = skat if picked else bits[perm[20:22]].sum()
        if not self.inference:
            return w, np.ones(len(w))
        from .pimc_inference import weigh_worlds

        wt = weigh_worlds(obs, w, self._rb.param_row, 0.2)
        if wt.sum() <= 0:
            return w[:n], np.ones(n)
        idx = self._gen.choice(len(w), size=n, replace=True, p=wt / wt.sum())
        return w[idx], np.ones(n)

    def _solve(self, c: Candidate, seat: int, known: int, worlds: np.ndarray, weights: np.ndarray,
               picked: bool, goal: Any = None) -> None:
        """Add the (weighted) open-hand wins of candidate ``c`` in ``worlds`` (forehand to lead);
        a world over the node budget counts for nothing."""
        cards = (known & ~c.discard) if picked else known
        positions = []
        for row in worlds:
            hands = [int(row[0]), int(row[1]), int(row[2])]
            hands[seat] = cards
            skat = c.discard if picked else int(row[3])
            positions.append(Position((hands[0], hands[1], hands[2]), skat, c.game, seat, (), 0, 0, 0))
        if goal is None:
            goal = c.goal if c.goal is not None else ("null" if c.game == NULL else 61)
        won = self._solver.wins_many(positions, threshold=goal, node_limit=self.node_limit or None)
        ok = won >= 0
        c.wins += float((weights[ok] * (won[ok] == 1)).sum())
        c.weight += float(weights[ok].sum())

    def _announcements(self, cands: list[Candidate], seat: int, known: int, worlds: np.ndarray,
                       weights: np.ndarray, bid: int) -> None:
        """Hand games: schneider / schwarz (and suit ouvert) announced for the best game
        when the open-hand search wins it in every world at that goal too."""
        best = cands[0]
        if best.game == NULL or best.p < 0.95:
            return
        for flags, goal in ((HAND | SCHNEIDER_ANNOUNCED, 90), (HAND | SCHNEIDER_ANNOUNCED | SCHWARZ_ANNOUNCED,
                                                               "schwarz")):
            c = Candidate(0, _decl_index(best.game, flags), best.game, flags, self._value(known, best.game, flags))
            self._solve(c, seat, known, worlds, weights, False, goal)
            if c.weight <= 0 or c.p < 0.95:
                return
            if self._ev(c, bid) > self._ev(cands[0], bid):
                cands.insert(0, c)

    def __repr__(self) -> str:
        return (f"SkatSearchAgent(worlds={self.worlds}, finalists={self.finalists}, final_worlds={self.final_worlds}, "
                f"discards={self.discards})")
