"""Games played to their end by the distilled card network in every seat, many at once.

The network (:class:`~agents.players.distilled.DistilledAgent`, :mod:`agents.players.distilled`)
plays every seat's cards from that seat's masked view: the rollouts of
:class:`~agents.players.rollout.RolloutAgent` (from a game under way, with its history), and
the bidding labels of ``labeler="distilled"`` (:mod:`agents.learn.bidding_data`: what a
contract is worth for a hand when the card player that will play it plays it out).
:func:`play_out` steps thousands of games in lockstep: per step one compiled call masks every
mover's view, finds its legal cards and the rule-based player's card (one of the network's
features), one forward pass scores the legal cards of every game with a choice (the agent's
rule, :func:`~agents.players.distilled.card_scores`), and one compiled call plays the cards. A
game's cards are the agent's, game by game (tested).

>>> import numpy as np
>>> from skatsim.deal import deal
>>> from skatsim.rules import GRAND
>>> from agents.learn.bidding_data import _RB_PARAMS, _start_world
>>> h = deal(7).masks()
>>> st = np.zeros((1, G.N_FIELDS), np.int64)
>>> _start_world(st[0], np.array([h], np.int64), 0, 0, GRAND, True, _RB_PARAMS)
>>> end = play_out(st, card_network("distilled_v2"))
>>> int(end[0, G.F_PHASE]) == G.PH_PLAY, int(end[0, G.F_NTRICKS])
(False, 10)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skatsim.cards import card_points
from skatsim.kernels import game as G
from skatsim.kernels import policies as P

from .distilled import DEFAULT_TIE, MAX_TOKENS, CardModel, best_cards, card_network, card_scores, encode_arrays

__all__ = ["play_out", "declarer_results", "declarer_result"]


@njit(cache=True)
def _movers(states, params, views, seats, legal, rb, n_legal) -> None:
    """Per game in play: the mover's masked view, seat, legal cards (mask) and the
    rule-based player's card; ``n_legal`` 0 for a finished game."""
    for i in range(states.shape[0]):
        st = states[i]
        if st[G.F_PHASE] != G.PH_PLAY:
            n_legal[i] = 0
            continue
        p = st[G.F_PLAYER]
        seats[i] = p
        G.mask_view(st, p, views[i])
        _, lo, _ = G.legal_set(st)
        legal[i] = lo
        n_legal[i] = G.n_legal(st)
        if n_legal[i] > 1:
            a, _ = P.policy_act(np.int64(P.POLICY_RULE_BASED), views[i], p, params, np.int64(1))
            rb[i] = a
        else:
            rb[i] = -1


@njit(cache=True)
def _play(states, rows, cards, seq, who, n_tok) -> None:
    """Play ``cards[k]`` in game ``rows[k]`` and append it to that game's sequence."""
    for k in range(rows.shape[0]):
        i = rows[k]
        st = states[i]
        t = n_tok[i]
        if t < seq.shape[1]:
            seq[i, t] = cards[k]
            who[i, t] = st[G.F_PLAYER]
        n_tok[i] = t + 1
        G.apply_card(st, cards[k])


@njit(cache=True, inline='always')
def declarer_result(st):
    """``(card points, tricks)`` of the declarer of a finished game ``st``: his tricks' points
    and the skat pile's (the discards, or the dealt skat in a hand game)."""
    d = st[G.F_DECLARER]
    return st[G.F_POINTS0 + d] + card_points(st[G.F_SKAT]), st[G.F_TRICKS0 + d]


@njit(cache=True)
def _declarer_results(states, points, tricks) -> None:
    for i in range(states.shape[0]):
        points[i], tricks[i] = declarer_result(states[i])


def declarer_results(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The declarer's card points (the skat pile included) and tricks of each finished game of
    ``states`` (``(n, N_FIELDS)``, e.g. :func:`play_out`'s result)."""
    st = np.ascontiguousarray(states, np.int64)
    points = np.empty(len(st), np.int64)
    tricks = np.empty(len(st), np.int64)
    _declarer_results(st, points, tricks)
    return points, tricks


def _lowest_card(lo: np.ndarray) -> np.ndarray:
    """The lowest card index of each non-empty mask."""
    x = lo & -lo
    return np.log2(x.astype(np.float64)).astype(np.int64)


def play_out(states: np.ndarray, model: CardModel | None = None, tie: float = DEFAULT_TIE,
             params: np.ndarray | None = None,
             history: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Play every game of ``states`` (``(n, N_FIELDS)`` int64 kernel states in the play phase)
    to its end with the card network in every seat; returns the final states (a copy).
    ``model``: a loaded :class:`~agents.players.distilled.CardModel` (the shipped one when
    ``None``); ``tie``: the agent's policy weight; ``params``: the rule-based player's parameter
    row whose card is the network's feature (the default player's). ``history``: for games
    already under way, the cards played so far in order, the seat that played each
    (``(n, MAX_TOKENS)`` each) and their number ``(n,)``; without it every game must be at its
    first card."""
    from ..players.rule_based import RuleBasedAgent

    st = np.array(states, np.int64, copy=True)
    if st.ndim != 2 or st.shape[1] != G.N_FIELDS:
        raise ValueError(f"states must be (n, {G.N_FIELDS}) kernel states, got shape {st.shape}")
    n = len(st)
    played = 3 * st[:, G.F_NTRICKS] + st[:, G.F_NCARDS]
    if history is None:
        if (played != 0).any():
            raise ValueError("a state has cards played: give their history (play_out starts at the first card "
                             "without one)")
        seq = np.zeros((n, MAX_TOKENS), np.int64)
        who = np.zeros((n, MAX_TOKENS), np.int64)
        n_tok = np.zeros(n, np.int64)
    else:
        seq, who, n_tok = (np.array(h, np.int64, copy=True) for h in history)
        if seq.shape != (n, MAX_TOKENS) or who.shape != (n, MAX_TOKENS) or n_tok.shape != (n,):
            raise ValueError(f"history must be ((n, {MAX_TOKENS}), (n, {MAX_TOKENS}), (n,)) arrays for n = {n} states")
        if (n_tok != played).any():
            raise ValueError("history does not match the states: its number of cards differs from the cards played")
    model = model if model is not None else card_network()
    params = RuleBasedAgent().param_row if params is None else np.ascontiguousarray(params, np.float64)
    views = np.zeros((n, G.N_FIELDS), np.int64)
    seats = np.zeros(n, np.int64)
    legal = np.zeros(n, np.int64)
    rb = np.full(n, -1, np.int64)
    n_legal = np.zeros(n, np.int64)
    bits = np.int64(1) << np.arange(32, dtype=np.int64)
    while True:
        _movers(st, params, views, seats, legal, rb, n_legal)
        live = np.flatnonzero(n_legal > 0)
        if not len(live):
            return st
        one = live[n_legal[live] == 1]
        many = live[n_legal[live] > 1]
        rows = np.concatenate([one, many])
        cards = np.empty(len(rows), np.int64)
        cards[:len(one)] = _lowest_card(legal[one])
        if len(many):
            flat, tok = encode_arrays(views[many], seats[many], seq[many], who[many], n_tok[many], rb[many])
            values, logits = model.outputs(flat, tok)
            ok = (legal[many][:, None] & bits[None, :]) != 0
            _, _, score = card_scores(values, logits, st[many, G.F_GAME], ok, tie)
            cards[len(one):] = best_cards(score)
        _play(st, rows, cards, seq, who, n_tok)
