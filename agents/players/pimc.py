"""``PIMCAgent``: Perfect-Information Monte Carlo search (the method behind Kermit).

At each card decision the agent draws worlds consistent with what its seat knows (its
own cards, every card played, the voids shown by not following suit, the skat for a
declarer who picked it up, an ouvert hand: :func:`skatsim.infostate.sample_worlds`),
solves every world open-handed for the value of each legal card in one compiled call
(:meth:`skatsim.solver.Solver.root_values`) and plays the card that does best across
them. Split like OpenSpiel's ``PIMCBot``: a *sampler*, a *value function* (the solver)
and an *aggregator* (:func:`choose`).

Decision rules (``rule=``):

- ``"wins"`` (default): the card that reaches the side's goal in most worlds (the
  declarer's announced goal: 61, 90 with schneider announced, every trick with schwarz
  announced or ouvert, no trick in null; a defender's goal is to stop it). Ties are
  broken by the mean card points of the side over the worlds (exact solves of the tied
  cards only, suit and grand, when at most ``exact_tricks`` tricks are left), then by the
  rule-based player's choice when it is among the tied cards, then by the cheapest card.
  With ``schneider="both"``, earlier in the hand (more than ``exact_tricks`` tricks left) a tie
  in which every world agrees on the game (won in all, or lost in all) is broken first by
  schneider: the tied cards are searched once more against the next goal of the game's value
  (90 card points for the declarer when the game is won, the declarer's 31 when it is lost),
  and the cards that do best for the mover's side stay tied. Suit and grand with 61 to reach.
  ``schneider="declarer"`` does so in the declarer's decisions only.
- ``"points"``: the best mean card points of the side (exact solves; slower).

Late in the hand, when no more than ``worlds`` worlds remain, all of them are enumerated
instead of sampled (``enumerate=True``). Bidding, the skat, the declaration, Kontra/Re
and Ramsch card play are delegated to the rule-based player (``bidding="rule_based"``,
the default), or, with ``bidding="simulation"``, decided by simulation
(:mod:`agents.players.pimc_bidding`).

The agent acts from its observation only: it never holds a ``SkatState`` or a hidden
card. With ``log=True`` it keeps one record per searched decision in ``decisions``
(worlds used, per-card wins and mean points, time).

>>> from agents import play_game
>>> from agents.players.rule_based import RuleBasedAgent
>>> s = play_game([PIMCAgent(worlds=8), RuleBasedAgent(), RuleBasedAgent()], seed=3)
>>> s.is_terminal()
True
"""

from __future__ import annotations

import itertools
import time
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np

from skatsim.bits import iter_bits
from skatsim.cards import CARD_POINTS
from skatsim.infostate import InfoState, count_worlds, sample_worlds
from skatsim.rules import NULL
from skatsim.solver import Solver, target_for
from skatsim.contracts import Contract

from .distilled import card_network  # the per-process card-network cache (re-exported: PIMC's name for it)
from .rule_based import RuleBasedAgent

if TYPE_CHECKING:
    from skatsim.observation import Observation

    from ..arena.base import ActionValues

__all__ = ["PIMCAgent", "choose", "schneider_goal", "enumerate_worlds", "card_network"]

_RULES = ("wins", "points")
_BATCH = 8  # worlds solved at a time under a time or node budget
_BIDDING = ("rule_based", "simulation")


def enumerate_worlds(info: InfoState, limit: int) -> np.ndarray | None:
    """Every world consistent with ``info`` as an ``(n, 4)`` mask array, or ``None`` when
    there are more than ``limit``."""
    n = count_worlds(info)
    if n > limit:
        return None
    q = [s for s in range(3) if s != info.seat and not (info.ouvert_hand and s == info.declarer)]
    hidden = list(iter_bits(info.hidden))
    ns = info.skat_size if info.skat_hidden else 0
    base = np.zeros(4, np.int64)
    base[info.seat] = info.hand
    if info.ouvert_hand:
        base[info.declarer] = info.ouvert_hand
    if not info.skat_hidden:
        base[3] = info.skat
    rows = []
    q1 = q[0]
    n1 = info.hand_sizes[q1]
    for c1 in itertools.combinations(hidden, n1):
        m1 = sum(1 << c for c in c1)
        if m1 & info.voids[q1]:
            continue
        rest = [c for c in hidden if not m1 >> c & 1]
        if len(q) > 1:
            q2 = q[1]
            for c2 in itertools.combinations(rest, info.hand_sizes[q2]):
                m2 = sum(1 << c for c in c2)
                if m2 & info.voids[q2]:
                    continue
                row = base.copy()
                row[q1], row[q2] = m1, m2
                if ns:
                    row[3] = sum(1 << c for c in rest if not m2 >> c & 1)
                rows.append(row)
        else:
            row = base.copy()
            row[q1] = m1
            if ns:
                row[3] = sum(1 << c for c in rest)
            rows.append(row)
    out = np.array(rows, dtype=np.int64).reshape(-1, 4)
    if len(out) != n:  # pragma: no cover - the sampler's count and the enumeration disagree
        raise AssertionError(f"enumerated {len(out)} worlds, count_worlds says {n}")
    return out


def choose(values: np.ndarray, mover_is_declarer: bool, legal: Sequence[int],
           weights: np.ndarray | None = None) -> tuple[list[int], np.ndarray]:
    """Aggregate threshold root values ``(n_worlds, 32)`` (1: the declarer reaches his goal):
    the legal cards with the most (weighted) wins for the mover's side, and every card's
    win count. Worlds whose values are unknown (``-2``: node budget spent) count for nothing."""
    good = (values == 1) if mover_is_declarer else (values == 0)
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=np.float64)
    wins = (good * w[:, None]).sum(axis=0)
    best = max(float(wins[c]) for c in legal)
    return [c for c in legal if abs(float(wins[c]) - best) < 1e-9], wins


#: the values of ``PIMCAgent(schneider=...)``: never, the declarer's decisions only, both sides
SCHNEIDER_MODES = ("off", "declarer", "both")
#: the card points of schneider, from the rules core: the goal of a game with schneider announced
_SCHNEIDER_POINTS = int(target_for("CHS"))


def schneider_goal(values: np.ndarray, cards: Sequence[int]) -> int | None:
    """The declarer's next goal when threshold values ``(n_worlds, 32)`` at 61 agree on every
    world for each of ``cards``: 90 (schneider) when he wins everywhere, 31 (out of
    schneider) when he loses everywhere, ``None`` otherwise.

    >>> v = np.full((2, 32), -1); v[:, [3, 5]] = 1
    >>> schneider_goal(v, [3, 5]), schneider_goal(1 - v.clip(0), [3, 5])
    (90, 31)
    >>> v[0, 5] = 0
    >>> schneider_goal(v, [3, 5]) is None
    True
    """
    col = values[:, list(cards)]
    if len(col) and (col == 1).all():
        return _SCHNEIDER_POINTS
    if len(col) and (col == 0).all():
        return 121 - _SCHNEIDER_POINTS  # the defenders short of schneider: the declarer has the rest and one more
    return None


class PIMCAgent:
    """Perfect-Information Monte Carlo card play (see the module docstring).

    Args:
        worlds: worlds per card decision (Kermit used 160).
        rule: ``"wins"`` or ``"points"`` (module docstring).
        time_budget: optional seconds per decision: worlds are solved in batches of 8
            until ``worlds`` are done or the budget is spent (at least one batch).
        exact_tricks: tie-break by exact mean points when at most this many tricks are left.
        enumerate: enumerate every world when no more than ``worlds`` remain.
        bidding: ``"rule_based"`` (delegate bidding, skat, declaration, Kontra/Re) or
            ``"simulation"``.
        inference: weight the worlds by the other seats' auction (:mod:`agents.players.pimc_inference`).
        inference_eps: the weight factor of a call the rule-based model would not have made.
        card_eps: with ``inference``, the weight factor of a card another seat played that the
            rule-based model would not have played (1: the cards are not weighed).
        oversample: candidate worlds drawn per world kept when inferring.
        card_model: weigh the worlds by the other seats' cards under a learned policy
            (:func:`agents.players.pimc_inference.card_log_likelihoods`): ``"distilled"``
            (the shipped default card network), a shipped name (``"distilled_v1"``) or a
            card-network checkpoint path; ``""``: off. Works
            with or without ``inference`` (which weighs the auction).
        card_alpha: the exponent of that likelihood (below 1 flattens it: more distinct
            worlds survive the draw).
        card_rb: with ``card_model``, the prior probability that another seat plays like the
            rule-based player rather than like the network: each seat's cards are explained
            by the mixture of the two models (0: the network alone).
        node_limit: search nodes per world and decision (0: no limit); a world that needs
            more is dropped from that decision (the few borderline worlds that make the
            solver's time tail: at trick 1 about 7% of the worlds at 300,000 nodes).
        node_budget: search nodes per decision (0: none): the worlds are solved in batches
            of 8, in the order drawn, until the batches so far have visited ``node_budget``
            nodes or every world is solved (at least one batch). Like ``time_budget`` it
            spends more worlds where a world is cheap (late in the hand) and fewer where it
            is dear, but it depends on the position alone, not the clock: the same seed
            plays the same cards on any machine.
        log: keep a record per searched decision in ``decisions``.
        tt_bits: log2 of the solver's transposition-table entries.
        bid_worlds: worlds per contract of the simulation bidder (default: ``worlds``).
        schneider: break a tie of cards on which every world agrees (the game won in all, or
            lost in all) by the chance of schneider, before the rule-based tie-break
            (module docstring): ``"both"`` for both sides, ``"declarer"`` for the declarer's
            decisions only, ``"off"`` (the default) never.
        rule-based parameters (``max_bid=...``): passed to the delegated rule-based player.
    """

    name = "pimc"

    def __init__(self, worlds: int = 32, rule: str = "wins", time_budget: float | None = None,
                 exact_tricks: int = 4, enumerate: bool = True, bidding: str = "rule_based",
                 inference: bool = False, inference_eps: float = 0.2, card_eps: float = 1.0, oversample: int = 4,
                 card_model: str = "", card_alpha: float = 1.0, card_rb: float = 0.0,
                 node_limit: int = 300_000, log: bool = False, tt_bits: int = 18, bid_worlds: int | None = None,
                 schneider: str = "off", node_budget: int = 0, **rule_based: Any) -> None:
        if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or not 1 <= worlds <= 10_000:
            raise ValueError(f"worlds must be an int in 1..10000, got {worlds!r}")
        if rule not in _RULES:
            raise ValueError(f"rule must be one of {_RULES}, got {rule!r}")
        if bidding not in _BIDDING:
            raise ValueError(f"bidding must be one of {_BIDDING}, got {bidding!r}")
        if time_budget is not None and not (isinstance(time_budget, (int, float)) and time_budget > 0):
            raise ValueError(f"time_budget must be a positive number of seconds or None, got {time_budget!r}")
        self.worlds = int(worlds)
        self.rule = rule
        self.time_budget = None if time_budget is None else float(time_budget)
        self.exact_tricks = int(exact_tricks)
        self.enumerate = bool(enumerate)
        self.bidding = bidding
        if not 0.0 <= inference_eps <= 1.0:
            raise ValueError(f"inference_eps must be in 0..1, got {inference_eps!r}")
        if not 0.0 < card_eps <= 1.0:
            raise ValueError(f"card_eps must be in (0, 1], got {card_eps!r}")
        self.card_eps = float(card_eps)
        if isinstance(oversample, bool) or not isinstance(oversample, int) or not 1 <= oversample <= 64:
            raise ValueError(f"oversample must be an int in 1..64, got {oversample!r}")
        if isinstance(node_limit, bool) or not isinstance(node_limit, int) or node_limit < 0:
            raise ValueError(f"node_limit must be a non-negative int (0: no limit), got {node_limit!r}")
        self.node_limit = int(node_limit)
        if isinstance(node_budget, bool) or not isinstance(node_budget, int) or node_budget < 0:
            raise ValueError(f"node_budget must be a non-negative int (0: no budget), got {node_budget!r}")
        self.node_budget = int(node_budget)
        if schneider not in SCHNEIDER_MODES:
            raise ValueError(f"schneider must be one of {SCHNEIDER_MODES}, got {schneider!r}")
        self.schneider = str(schneider)
        self.inference = bool(inference)
        if not isinstance(card_model, str):
            raise TypeError(f"card_model must be a string ('', 'distilled' or a checkpoint path), got {card_model!r}")
        if isinstance(card_alpha, bool) or not isinstance(card_alpha, (int, float)) or not 0.0 < card_alpha <= 4.0:
            raise ValueError(f"card_alpha must be a number in (0, 4], got {card_alpha!r}")
        if isinstance(card_rb, bool) or not isinstance(card_rb, (int, float)) or not 0.0 <= card_rb < 1.0:
            raise ValueError(f"card_rb must be a probability in [0, 1), got {card_rb!r}")
        if card_rb and not card_model:
            raise ValueError("card_rb mixes the rule-based model into card_model's: set card_model too")
        self.card_model = card_model
        self.card_alpha = float(card_alpha)
        self.card_rb = float(card_rb)
        if card_model:
            card_network(card_model)  # a missing or foreign checkpoint fails here, not at the first card
        self.inference_eps = float(inference_eps)
        self.oversample = int(oversample)
        self.log = bool(log)
        self.decisions: list[dict[str, Any]] = []
        self._delegate = RuleBasedAgent(**rule_based)
        self._solver = Solver(tt_bits=int(tt_bits))
        self._gen = np.random.default_rng(0)
        self._sim_bidder: Any = None
        if bidding == "simulation":
            from .pimc_bidding import SimulationBidder

            if bid_worlds is not None and (isinstance(bid_worlds, bool) or not isinstance(bid_worlds, int)
                                           or not 1 <= bid_worlds <= 10_000):
                raise ValueError(f"bid_worlds must be an int in 1..10000 or None, got {bid_worlds!r}")
            self._sim_bidder = SimulationBidder(self._delegate, worlds=int(bid_worlds or self.worlds),
                                                solver=self._solver)

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        """Start a deal: the delegate gets the seat stream, the sampler a generator seeded by it."""
        self._delegate.reset(deal_id, seat, rng)
        self._gen = np.random.default_rng(int(rng))
        self._solver.reset()
        if self._sim_bidder is not None:
            self._sim_bidder.reset(deal_id, seat, rng)

    def act(self, obs: "Observation") -> int:
        legal = obs.legal_actions
        if not self._searches(obs):
            if self._sim_bidder is not None and obs.phase in ("bidding", "skat", "discard", "declare"):
                return self._sim_bidder.act(obs)
            return self._delegate.act(obs)
        if len(legal) == 1:
            return legal[0]
        return self._play(obs, legal)

    @staticmethod
    def _searches(obs: "Observation") -> bool:
        """Card play in a suit, grand or null game: what the search decides."""
        return obs.phase == "play" and obs.game_type is not None and obs.game_type <= NULL

    def action_values(self, obs: "Observation") -> "ActionValues | None":
        """The search's values of every legal card (:class:`agents.base.ActionValues`): the
        (weighted) fraction of sampled worlds in which the card reaches the mover's side's
        goal, ``chosen`` the card :meth:`act` would play on the same worlds; ``detail`` has
        the worlds used and, where the tie-break computed them, the side's mean card points.
        ``None`` outside suit, grand and null card play. The sampler's stream is left where
        it was, so asking does not change the next ``act``."""
        if not self._searches(obs) or not obs.legal_actions:
            return None
        state = self._gen.bit_generator.state
        log = self.log
        n = len(self.decisions)
        try:
            self.log = True
            self._play(obs, obs.legal_actions)
            rec = self.decisions.pop() if len(self.decisions) > n else None
        finally:
            self.log = log
            self._gen.bit_generator.state = state
        if rec is None:  # every world over the node budget: the rule-based card, no values
            return None
        return _values_of(rec, obs.legal_actions)

    # ------------------------------------------------------------------ card play
    def _play(self, obs: "Observation", legal: "Sequence[int]") -> int:
        if len(legal) == 1:
            if self.log:
                self.decisions.append({"seat": obs.seat, "trick": 11 - len(obs.hand), "worlds": 0, "dropped": 0,
                                       "enumerated": False, "card": legal[0], "wins": {legal[0]: 1.0},
                                       "mean_points": None, "seconds": 0.0, "forced": True})
            return legal[0]
        t0 = time.perf_counter()
        info = InfoState.from_observation(obs)
        contract = Contract.parse(obs.contract) if obs.contract else Contract(int(obs.game_type or 0))
        goal = target_for(contract)
        mover_decl = obs.seat == obs.declarer
        worlds = enumerate_worlds(info, self.worlds) if self.enumerate else None
        enumerated = worlds is not None
        weights = None
        infers = self.inference or bool(self.card_model)
        if worlds is None:
            if infers:
                worlds = self._inferred_sample(obs, info, t0)
            else:
                worlds = self._sample(info, t0)
        elif infers:
            weights = self._weights(obs, worlds)
        dropped = 0
        kept_weight = 0.0
        if self.rule == "points" and obs.game_type != NULL:
            pts, keep, worlds = self._first_values(worlds, info, "exact", 61)
            dropped = len(worlds) - len(pts)
            if not len(pts):
                return self._delegate_choice(obs)
            score = self._side_points(pts, mover_decl, legal)
            best = max(score[c] for c in legal)
            tied = [c for c in legal if score[c] == best]
            wins = None
        else:
            vals, keep, worlds = self._first_values(worlds, info, "threshold", goal)
            if weights is not None:
                weights = weights[:len(worlds)]
            dropped = len(worlds) - len(vals)
            if not len(vals):  # every world over the node budget: fall back on the rule-based card
                return self._delegate_choice(obs)
            kw = None if weights is None else weights[keep]
            kept_weight = float(len(vals) if kw is None else kw.sum())
            tied, wins = choose(vals, mover_decl, legal, kw)
            score = None
            if (self.schneider == "both" or (self.schneider == "declarer" and mover_decl)) and len(tied) > 1 \
                    and goal == 61 and info_tricks_left(info) > self.exact_tricks:
                tied = self._schneider_ties(worlds[keep], info, vals, kw, mover_decl, tied)
            if len(tied) > 1 and obs.game_type != NULL and info_tricks_left(info) <= self.exact_tricks:
                pts, _ = self._values(worlds[keep], info, "exact", 61)
                score = self._side_points(pts, mover_decl, tied) if len(pts) else None
            if score is not None:
                best = max(score[c] for c in tied)
                tied = [c for c in tied if score[c] == best]
        if len(tied) > 1:
            rb = self._delegate_choice(obs)
            card = rb if rb in tied else min(tied, key=lambda c: (CARD_POINTS[c], c))
        else:
            card = tied[0]
        if self.log:
            self.decisions.append({
                "seat": obs.seat, "trick": 11 - info_tricks_left(info), "worlds": len(worlds), "dropped": dropped,
                "enumerated": enumerated, "card": card,
                "wins": None if wins is None else {c: float(wins[c]) / (kept_weight or 1.0) for c in legal},
                "mean_points": None if score is None else {c: float(score[c]) for c in score},
                "seconds": time.perf_counter() - t0})
        return card

    def _schneider_ties(self, worlds: np.ndarray, info: InfoState, vals: np.ndarray, weights: np.ndarray | None,
                        mover_decl: bool, tied: list[int]) -> list[int]:
        """The tied cards that do best at schneider, when every world agrees on the game for
        each of them (the declarer reaches 61 in all or in none): the next goal is the
        declarer's 90 if he wins, his 31 if he loses (:func:`schneider_goal`). Worlds over the
        node budget in the second search count for nothing; if none is left, ``tied`` as it is."""
        goal = schneider_goal(vals, tied)
        if goal is None:
            return tied
        v2, keep2 = self._values(worlds, info, "threshold", goal)
        if not len(v2):
            return tied
        best, _ = choose(v2, mover_decl, tied, None if weights is None else weights[keep2])
        return best

    def _sample(self, info: InfoState, t0: float) -> np.ndarray:
        if self.time_budget is None:
            return sample_worlds(info, self.worlds, self._gen)
        parts = []
        done = 0
        while done < self.worlds:
            k = min(_BATCH, self.worlds - done)
            parts.append(sample_worlds(info, k, self._gen))
            done += k
            if time.perf_counter() - t0 > self.time_budget / 2:  # leave half for the solves
                break
        return np.concatenate(parts)

    def _first_values(self, worlds: np.ndarray, info: InfoState, mode: "Literal['exact', 'threshold']",
                      goal: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The decision's first search (:meth:`_values`) within ``node_budget``: the values and
        kept-mask of the worlds solved, and those worlds (a prefix of ``worlds``)."""
        if not self.node_budget or len(worlds) <= _BATCH:
            vals, keep = self._values(worlds, info, mode, goal)
            return vals, keep, worlds
        parts, keeps, nodes, done = [], [], 0, 0
        while done < len(worlds) and (done == 0 or nodes < self.node_budget):
            v, k = self._values(worlds[done:done + _BATCH], info, mode, goal)
            parts.append(v)
            keeps.append(k)
            nodes += int(self._solver.row_nodes.sum())
            done += len(k)
        return np.concatenate(parts), np.concatenate(keeps), worlds[:done]

    def _values(self, worlds: np.ndarray, info: InfoState, mode: "Literal['exact', 'threshold']",
                goal: Any) -> tuple[np.ndarray, np.ndarray]:
        """Root values of ``worlds`` (and the mask of the worlds kept: those within the node
        budget; a world over it is dropped, see :meth:`Solver.root_values`)."""
        vals = self._solver.root_values(worlds, info, mode=mode, threshold=goal, progress=False,
                                        node_limit=self.node_limit or None)
        keep = ~(vals == -2).any(axis=1)
        return vals[keep], keep

    def _weights(self, obs: "Observation", worlds: np.ndarray) -> np.ndarray | None:
        """The worlds' weights: the auction's (and the rule-based cards') likelihood with
        ``inference``, times the card network's likelihood of the cards with ``card_model``."""
        from .pimc_inference import infer_weights

        return infer_weights(obs, worlds, self._delegate.param_row, inference=self.inference,
                             inference_eps=self.inference_eps, card_eps=self.card_eps, card_model=self.card_model,
                             card_alpha=self.card_alpha, card_rb=self.card_rb)

    def _inferred_sample(self, obs: "Observation", info: InfoState, t0: float) -> np.ndarray:
        """Draw ``oversample x worlds`` candidates, weigh them by the auction, keep
        ``worlds`` of them drawn in proportion to their weights."""
        from .pimc_inference import draw_by_weight

        cand = sample_worlds(info, self.worlds * self.oversample, self._gen)
        return draw_by_weight(cand, self._weights(obs, cand), self.worlds, self._gen)

    @staticmethod
    def _side_points(pts: np.ndarray, mover_decl: bool, cards: Sequence[int]) -> dict[int, float]:
        mean = {c: float(pts[:, c].mean()) for c in cards}
        return mean if mover_decl else {c: 120.0 - v for c, v in mean.items()}

    def _delegate_choice(self, obs: "Observation") -> int:
        return self._delegate.peek(obs)  # asking must not advance the delegate's stream

    def card_play_key(self) -> tuple[str, str, str] | None:
        """What decides this player's cards (declarer, defender, Ramsch): everything its card
        search depends on, and its rule-based delegate (tie-breaks, Ramsch). ``None`` with a
        time budget (the worlds solved then depend on the clock)."""
        rb = self._delegate.card_play_key()
        if self.time_budget is not None or rb is None:
            return None
        k = (f"pimc:worlds={self.worlds},rule={self.rule},exact_tricks={self.exact_tricks},"
             f"enumerate={self.enumerate},inference={self.inference},eps={self.inference_eps:g},"
             f"card_eps={self.card_eps:g},card_model={self.card_model},card_alpha={self.card_alpha:g},"
             f"card_rb={self.card_rb:g},oversample={self.oversample},node_limit={self.node_limit},tt={self._solver.tt_slots},"
             f"node_budget={self.node_budget},"
             f"bidding={self.bidding},schneider={self.schneider}|{rb[0]}")
        return (k, k, rb[2])

    def __repr__(self) -> str:
        return f"PIMCAgent(worlds={self.worlds}, rule={self.rule!r}, bidding={self.bidding!r})"


def _values_of(rec: dict[str, Any], legal: "Sequence[int]") -> "ActionValues":
    """The :class:`agents.base.ActionValues` of one logged decision."""
    from ..arena.base import ActionValues

    wins = rec.get("wins")
    if wins is None:  # rule="points": the side's mean card points
        return ActionValues({c: float(v) for c, v in (rec["mean_points"] or {}).items()}, "card points",
                            chosen=rec["card"], detail={"worlds": rec["worlds"]})
    detail: dict[str, Any] = {"worlds": rec["worlds"], "dropped": rec["dropped"], "enumerated": rec["enumerated"]}
    if rec.get("mean_points"):
        detail["mean_points"] = dict(rec["mean_points"])
    return ActionValues({c: float(wins.get(c, 0.0)) for c in legal}, "win probability", chosen=rec["card"],
                        detail=detail)


def info_tricks_left(info: InfoState) -> int:
    """Tricks still to finish, the current one included."""
    last = (info.leader + 2) % 3  # the seat playing last in the current trick
    return info.hand_sizes[last]
