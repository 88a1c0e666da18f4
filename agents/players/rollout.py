"""``RolloutAgent``: card play by Monte-Carlo rollouts of the distilled card network.

At a card decision the agent samples worlds consistent with what its seat knows (the other
hands and the skat, as PIMC samples them: :func:`skatsim.infostate.sample_worlds`) and, for
every legal card, plays each world to its end with the card network
(:class:`~agents.players.distilled.DistilledAgent`'s rule) in all three seats, every seat
deciding from its own view of that world: :func:`agents.players.card_playouts.play_out`, one
lockstep batch of ``legal x worlds`` games. It plays the card whose rollouts reach its side's
goal most often (the declarer's 61, or what was announced; null: no trick), then the card
with more card points for its side, then the rule-based card.

Where PIMC solves every world open-handed, so that each world is played as if everybody saw
every card (strategy fusion, and a defence that always finds the best card), a rollout
never lets a player see another's cards: its values are those of the network's own play,
so choosing by them is one step of policy improvement over the network (Tesauro and Galperin
1996, "On-line policy improvement using Monte-Carlo search"); how it compares with PIMC is
measured, not assumed (docs/strength.md).

Outside suit, grand and null card play the agent is the rule-based player, like PIMC.

>>> from skatsim import SkatState
>>> from agents import make_agent
>>> s = SkatState.new_game(seed=3, declare=(0, "GH"))
>>> a = make_agent("rollout", worlds=4)
>>> a.reset(0, 0, 11)
>>> s.current_player(), a.act(s.observation(0)) in s.legal_actions()
(0, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from skatsim.infostate import InfoState, sample_worlds
from skatsim.kernels import game as G
from skatsim.rules import NULL
from skatsim.scoring import GOAL_EDGES, goal_of

from .distilled import DEFAULT_TIE, MAX_TOKENS, card_network, played_sequence
from .rule_based import RuleBasedAgent

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["RolloutAgent", "world_states"]


def world_states(obs: "Observation", worlds: np.ndarray) -> np.ndarray:
    """The full kernel states ``(n, N_FIELDS)`` of ``obs``'s position in each of ``worlds``
    (``(n, 4)``: the three hands held now and the skat pile, as :func:`sample_worlds` draws
    them): the seat's view with the hidden hands and skat filled in. A seat's dealt hand is
    set to what it holds and has played (the dealt skat, which only a declarer who picked it
    up saw, to the pile): a rollout's seats read neither."""
    base = np.asarray(obs.view, np.int64)
    st = np.repeat(base[None, :], len(worlds), axis=0)
    for q in range(3):
        st[:, G.F_HAND0 + q] = worlds[:, q]
        st[:, G.F_DEALT0 + q] = worlds[:, q] | base[G.F_PLAYED0 + q]
    hidden_skat = base[G.F_SKAT] == 0
    if hidden_skat:
        st[:, G.F_SKAT] = worlds[:, 3]
        st[:, G.F_DEALT_SKAT] = worlds[:, 3]
    return st


class RolloutAgent:
    """Card play by rollouts of the card network over sampled worlds (module docstring).

    Args:
        worlds: worlds sampled per card decision; each legal card is rolled out in all of them.
        model: the card network of the rollouts (a shipped name or a path; ``""``: the shipped
            default, :func:`agents.players.distilled.default_model_path`).
        tie: the rollout players' policy weight (:func:`agents.players.distilled.card_scores`).
        card_model: weigh the sampled worlds by a card network's likelihood of the others'
            cards and keep ``worlds`` of ``oversample x worlds`` candidates drawn by weight, as
            PIMC's option of the same name (:func:`agents.players.pimc_inference.infer_weights`);
            ``""``: uniform worlds.
        card_alpha: the exponent of that likelihood.
        oversample: candidates drawn per world kept when weighing.
        rule-based parameters (``max_bid=...``): the rule-based player of the other phases
            (and of the tie-break).
    """

    name = "rollout"

    def __init__(self, worlds: int = 16, model: str = "", tie: float = DEFAULT_TIE, card_model: str = "",
                 card_alpha: float = 1.0, oversample: int = 4, **rule_based: Any) -> None:
        if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or not 1 <= worlds <= 1024:
            raise ValueError(f"worlds must be an int in 1..1024, got {worlds!r}")
        for what, name in ((model, "model"), (card_model, "card_model")):
            if not isinstance(what, str):
                raise TypeError(f"{name} must be a model name or path, got {what!r}")
        if isinstance(tie, bool) or not isinstance(tie, (int, float)) or tie < 0:
            raise ValueError(f"tie must be a non-negative number, got {tie!r}")
        if isinstance(card_alpha, bool) or not isinstance(card_alpha, (int, float)) or not 0.0 < card_alpha <= 4.0:
            raise ValueError(f"card_alpha must be a number in (0, 4], got {card_alpha!r}")
        if isinstance(oversample, bool) or not isinstance(oversample, int) or not 1 <= oversample <= 64:
            raise ValueError(f"oversample must be an int in 1..64, got {oversample!r}")
        self.worlds = int(worlds)
        self.tie = float(tie)
        self.model_name = model
        self.card_model = card_model
        self.card_alpha = float(card_alpha)
        self.oversample = int(oversample)
        for m in {model, card_model} - {""} or {""}:
            card_network(m)  # a missing or foreign checkpoint fails here, not at the first card
        self._rb = RuleBasedAgent(**rule_based)
        self._gen = np.random.default_rng(0)

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        """Start a deal: the rule-based player gets the seat stream, the sampler a generator seeded by it."""
        self._rb.reset(deal_id, seat, rng)
        self._gen = np.random.default_rng(int(rng))

    @staticmethod
    def _decides(obs: "Observation") -> bool:
        return obs.phase == "play" and obs.game_type is not None and obs.game_type <= NULL

    def act(self, obs: "Observation") -> int:
        legal = obs.legal_actions
        if not self._decides(obs):
            return self._rb.act(obs)
        if len(legal) == 1:
            return legal[0]
        return self._choose(obs, legal, *self._values(obs, legal))

    def _choose(self, obs: "Observation", legal: Sequence[int], wins: list[float], points: list[float]) -> int:
        """The card of most wins, then most card points for the side, then the rule-based card
        (the lowest card if that one is not among them)."""
        best = max(wins)
        tied = [c for c, w in zip(legal, wins) if w == best]
        if len(tied) > 1:
            top = max(points[legal.index(c)] for c in tied)
            tied = [c for c in tied if points[legal.index(c)] == top]
        if len(tied) > 1:
            rb = self._rb.peek(obs)
            return rb if rb in tied else min(tied)
        return tied[0]

    def action_values(self, obs: "Observation") -> Any:
        """The fraction of rollouts in which each legal card reaches the side's goal, ``chosen``
        the card :meth:`act` would play on the same worlds, ``detail`` the side's mean card
        points. The sampler's stream is left where it was: asking does not change the next
        ``act``."""
        from ..arena.base import ActionValues

        if not self._decides(obs) or not obs.legal_actions:
            return None
        legal = list(obs.legal_actions)
        state = self._gen.bit_generator.state
        try:
            wins, points = self._values(obs, legal)
        finally:
            self._gen.bit_generator.state = state
        return ActionValues({c: float(w) for c, w in zip(legal, wins)}, "win probability",
                            chosen=self._choose(obs, legal, wins, points),
                            detail={"points": {c: float(p) for c, p in zip(legal, points)}})

    def _values(self, obs: "Observation", legal: Sequence[int]) -> tuple[list[float], list[float]]:
        """Per legal card: the share of its rollouts its side wins, and the side's mean card points."""
        from .card_playouts import declarer_results, play_out

        info = InfoState.from_observation(obs)
        if self.card_model:
            from .pimc_inference import draw_by_weight, infer_weights

            cand = sample_worlds(info, self.worlds * self.oversample, self._gen)
            w = infer_weights(obs, cand, self._rb.param_row, card_model=self.card_model, card_alpha=self.card_alpha)
            worlds = draw_by_weight(cand, w, self.worlds, self._gen)
        else:
            worlds = sample_worlds(info, self.worlds, self._gen)
        base = world_states(obs, worlds)
        k, n = len(legal), len(worlds)
        states = np.repeat(base, k, axis=0)  # world-major: row w * k + j plays legal[j] in world w
        seq, who = played_sequence(obs)
        t = len(seq)
        hist = np.zeros((n * k, MAX_TOKENS), np.int64)
        hwho = np.zeros((n * k, MAX_TOKENS), np.int64)
        hist[:, :min(t, MAX_TOKENS)] = seq[:MAX_TOKENS]
        hwho[:, :min(t, MAX_TOKENS)] = who[:MAX_TOKENS]
        cards = np.tile(np.asarray(legal, np.int64), n)
        if t < MAX_TOKENS:
            hist[:, t] = cards
            hwho[:, t] = obs.seat
        for i in range(len(states)):
            G.apply_card(states[i], int(cards[i]))
        end = play_out(states, card_network(self.model_name), self.tie, self._rb.param_row,
                       history=(hist, hwho, np.full(n * k, t + 1, np.int64)))
        if obs.declarer is None:  # pragma: no cover - a suit, grand or null game has a declarer
            raise ValueError("card play without a declarer")
        d = int(obs.declarer)
        pts, trk = declarer_results(end)
        g = int(end[0, G.F_GAME])
        if g == NULL:
            won = trk == 0
        else:
            goal = goal_of(g, int(end[0, G.F_FLAGS]))
            won = (pts >= GOAL_EDGES[goal, 0]) & (trk >= GOAL_EDGES[goal, 1])
        mine = obs.seat == d
        side_won = (won if mine else ~won).reshape(n, k).mean(axis=0)
        side_pts = (pts if mine else 120 - pts).reshape(n, k).mean(axis=0)
        return [float(x) for x in side_won], [float(x) for x in side_pts]

    def __repr__(self) -> str:
        return (f"RolloutAgent(worlds={self.worlds}, tie={self.tie:g}"
                + (f", model={self.model_name!r}" if self.model_name else "")
                + (f", card_model={self.card_model!r}, card_alpha={self.card_alpha:g}, oversample={self.oversample}"
                   if self.card_model else "") + ")")
