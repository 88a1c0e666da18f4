"""Inference for PIMC: weight sampled worlds by how well they explain the other players'
bidding, skat decision and declaration (the idea of Kermit's inference).

A world fixes every hidden card, so it fixes what the other two players held when they
bid. The model of their decisions is the rule-based player (:mod:`skatsim.kernels.heuristic`):
replaying the public auction in a world, every decision of another seat that the
rule-based player would also have made there keeps the world's weight, every other one
multiplies it by ``eps`` (a soft likelihood: opponents are not rule-based players, and a
world that explains most of their calls should still count). Worlds are then drawn in
proportion to their weights.

The declarer's discards are hidden from the defenders, and so is the skat he found: in a
defender's world his twelve cards are known but not which two were the skat, so the
weight is the mean over the 66 possibilities (the exact marginal likelihood under a
uniform skat).

Only bidding, the skat decision, the discard (when the observer is the declarer nothing is
inferred there) and the declaration are used by :func:`weigh_worlds` (with ``eps_cards`` the
rule-based model's cards too). :func:`card_log_likelihoods` weighs the card play by a learned
policy instead (policy-based inference, Solinas et al. 2019): in each world, every card another
seat chose among two or more is scored by the distilled card network's policy for that seat's
view there (:mod:`agents.players.distilled`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit

from skatsim.actions import DECLARE_BASE, HAND, PICKUP, string_to_action
from skatsim.contracts import DECLARATIONS, Contract
from skatsim.bits import popcount
from skatsim.kernels import game as G
from skatsim.kernels.policies import POLICY_RULE_BASED, policy_act

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["public_actions", "world_weights", "weigh_worlds", "card_positions", "replay_card_positions",
           "infer_weights", "draw_by_weight",
           "CardPositions", "card_log_likelihoods", "MAX_OTHER_CARDS"]

_DECL_OF_CODE = {c: DECLARE_BASE + i for i, c in enumerate(DECLARATIONS)}
HIDDEN_DISCARD = -1


def public_actions(obs: "Observation", cards: bool = False) -> np.ndarray:
    """The actions before the card play as the observer knows them: the auction, the
    skat decision, the discards (``-1`` where hidden from the observer), the declaration
    and Kontra/Re; with ``cards`` the cards played since, in order. ``int64`` array."""
    out = [string_to_action(a) for _, a in obs.bids]
    if obs.declarer is not None and obs.phase not in ("bidding", "skat"):
        out.append(PICKUP if obs.skat_picked_up else HAND)
        if obs.skat_picked_up:
            if obs.discard is not None:  # the declarer himself
                out += [c for c in sorted(obs.discard.ids())]
            else:
                out += [HIDDEN_DISCARD, HIDDEN_DISCARD]
        if obs.contract is not None:
            out.append(_DECL_OF_CODE[Contract.parse(obs.contract).code])
            out += [string_to_action(a) for _, a in obs.kontra]
            if cards:
                out += [c for _, trick, _ in obs.tricks for c in trick] + list(obs.current_trick)
    return np.array(out, dtype=np.int64)


# Compile cost: the rule-based model is the compiled ``policy_act`` (one call, linked, not the
# heuristic inlined at each call site), on the argument types ``skatsim warmup`` compiles it
# for (writable arrays, non-literal ints: ``np.int64(k)``, as a literal argument compiles a
# specialisation of its own). Each inlined copy cost 110-200 s of compile on the 2-core machine.


@njit(cache=True)
def _rule_based(view, p, params):
    b, _ = policy_act(np.int64(POLICY_RULE_BASED), view, p, params, np.int64(1))
    return b


@njit(cache=True)
def _pile_card(st, pile) -> int:
    """The lowest card of the world's ``pile`` that the declarer holds (his next hidden
    discard), or -1."""
    hand = st[G.F_HAND0 + st[G.F_DECLARER]]
    both = pile & hand
    if both == 0:
        return -1
    c = 0
    while not (both >> c) & 1:
        c += 1
    return c


@njit(cache=True)
def _replay_weight(st, view, h0, h1, h2, skat, actions, me, params, eps, eps_cards, options, what) -> float:
    """Replay ``actions`` from a dealt world; multiply the weight by ``eps`` for each call of
    another seat before the card play that the rule-based model would not have made, and by
    ``eps_cards`` for each such card (``what``: 0 both, 1 the calls only, 2 the cards only)."""
    G.init_state(st, h0, h1, h2, skat, options)
    w = 1.0
    pile = skat
    for k in range(actions.shape[0]):
        a = actions[k]
        p = st[G.F_PLAYER]
        ph = st[G.F_PHASE]
        if a == HIDDEN_DISCARD:  # the declarer discards: take the world's pile, in order
            a = _pile_card(st, pile)
            if a < 0:
                return 0.0
            pile ^= np.int64(1) << a
        elif p != me and ph != G.PH_DISCARD and ph != G.PH_KONTRA:
            if ph == G.PH_PLAY:
                if what != 1 and eps_cards < 1.0 and st[G.F_GAME] <= 5:
                    G.mask_view(st, p, view)
                    if _rule_based(view, p, params) != a:
                        w *= eps_cards
            elif what != 2:
                G.mask_view(st, p, view)
                if _rule_based(view, p, params) != a:
                    w *= eps
        if not G.is_legal(st, a):  # the world cannot carry this history
            return 0.0
        G.apply_action(st, a)
    return w


@njit(cache=True)
def world_weights(dealt, actions, me, params, eps, options, marginal_seat, out, eps_cards=1.0) -> None:
    """``out[i]``: the weight of world ``i`` (``dealt[i]`` = dealt hands of seats 0..2 and
    the dealt skat) under the rule-based model of the other seats' ``actions`` (``-1``: a
    hidden discard): ``eps`` per call before the card play it would not have made,
    ``eps_cards`` per card (1: the cards are not weighed). With ``marginal_seat >= 0`` (a
    declarer who picked up a skat the observer never saw) the dealt skat is unknown: the
    calls' weight is the mean over the 66 ways two of his twelve cards (dealt hand + skat)
    were the skat, the cards' weight that of the first way."""
    st = np.zeros(G.N_FIELDS, dtype=np.int64)
    view = np.zeros(G.N_FIELDS, dtype=np.int64)
    h = np.zeros(3, dtype=np.int64)
    for i in range(dealt.shape[0]):
        if marginal_seat < 0:
            out[i] = _replay_weight(st, view, dealt[i, 0], dealt[i, 1], dealt[i, 2], dealt[i, 3], actions, me,
                                    params, eps, eps_cards, options, np.int64(0))
            continue
        twelve = dealt[i, marginal_seat] | dealt[i, 3]
        total = 0.0
        n = 0
        cards_w = -1.0
        m1 = twelve
        while m1:
            b1 = m1 & -m1
            m1 ^= b1
            m2 = m1
            while m2:
                b2 = m2 & -m2
                m2 ^= b2
                for q in range(3):
                    h[q] = dealt[i, q]
                h[marginal_seat] = twelve & ~(b1 | b2)
                wi = _replay_weight(st, view, h[0], h[1], h[2], b1 | b2, actions, me, params, eps, eps_cards,
                                    options, np.int64(1))
                if cards_w < 0.0 and wi > 0.0 and eps_cards < 1.0:
                    cards_w = _replay_weight(st, view, h[0], h[1], h[2], b1 | b2, actions, me, params, eps,
                                             eps_cards, options, np.int64(2))
                total += wi
                n += 1
        out[i] = total / n * (cards_w if cards_w >= 0.0 else 1.0)


def _dealt_worlds(obs: "Observation", worlds: np.ndarray) -> tuple[np.ndarray, int]:
    """The dealt hands and skat of ``worlds`` (hands now and the skat pile, as sampled): each
    seat's hand now plus the cards it played; a declarer who picked up and is the observer
    found the true dealt skat and put away his known discards. Also the seat whose dealt skat
    is unknown (a declarer who picked up, seen by a defender: his pile stands in for it), or -1."""
    v = obs.view
    dealt = np.array(worlds, dtype=np.int64, copy=True)
    for q in range(3):
        dealt[:, q] |= int(v[G.F_PLAYED0 + q])
    d = obs.declarer
    marginal = -1
    if d is not None and obs.skat_picked_up:
        if d == obs.seat:
            found = int(v[G.F_DEALT_SKAT])
            dealt[:, d] = (dealt[:, d] | dealt[:, 3]) & ~found
            dealt[:, 3] = found
        else:
            marginal = d
    return dealt, marginal


def weigh_worlds(obs: "Observation", worlds: np.ndarray, params: np.ndarray, eps: float,
                 eps_cards: float = 1.0) -> np.ndarray:
    """Weights of ``worlds`` (``(n, 4)``: hands now and the skat pile, as sampled) for
    ``obs.seat``: the dealt hands are the hands now plus the cards each seat played; a
    declarer who picked up found the pile (his discards) in the skat unless the observer
    is that declarer (then the true dealt skat is known); otherwise which two of his twelve
    cards were the skat is averaged over. ``eps_cards < 1`` weighs the other seats' cards too
    (:func:`world_weights`)."""
    dealt, marginal = _dealt_worlds(obs, worlds)
    acts = public_actions(obs, cards=eps_cards < 1.0)
    out = np.empty(len(dealt), dtype=np.float64)
    world_weights(dealt, acts, obs.seat, np.array(params, dtype=np.float64), float(eps),  # writable: one signature
                  int(obs.view[G.F_OPTIONS]), marginal, out, float(eps_cards))
    return out


#: The most card decisions of the other two seats a world's card play can hold before the
#: observer's: ten tricks, two of them each.
MAX_OTHER_CARDS = 20


@njit(cache=True)
def card_positions(dealt, actions, me, params, options, views, seats, ntok, played, rbs, legal, count) -> None:
    """Replay ``actions`` (the public history, cards included) in each world ``dealt[i]`` and
    record every card another seat than ``me`` played with a choice (two or more legal cards):
    that seat's masked view before the card (``views[i, k]``), the seat, the number of cards
    played before it, the card, the rule-based card there (``params``) and the legal cards'
    mask. ``count[i]``: the positions recorded, ``-1`` when the world cannot carry the history.
    A declarer's discards hidden from ``me`` are the world's pile, which then is also the
    skat he found (the cards he plays are those of the world either way)."""
    st = np.zeros(G.N_FIELDS, dtype=np.int64)
    view = np.zeros(G.N_FIELDS, dtype=np.int64)
    for i in range(dealt.shape[0]):
        G.init_state(st, dealt[i, 0], dealt[i, 1], dealt[i, 2], dealt[i, 3], options)
        pile = dealt[i, 3]
        n = 0
        t = 0
        ok = True
        for k in range(actions.shape[0]):
            a = actions[k]
            p = st[G.F_PLAYER]
            if a == HIDDEN_DISCARD:
                a = _pile_card(st, pile)
                if a < 0:
                    ok = False
                    break
                pile ^= np.int64(1) << a
            elif st[G.F_PHASE] == G.PH_PLAY:
                if p != me:
                    _, lo, _ = G.legal_set(st)
                    if popcount(lo) > 1 and (lo >> a) & 1 and n < views.shape[1]:
                        G.mask_view(st, p, view)
                        for f in range(view.shape[0]):
                            views[i, n, f] = view[f]
                        seats[i, n] = p
                        ntok[i, n] = t
                        played[i, n] = a
                        legal[i, n] = lo
                        rbs[i, n] = _rule_based(view, p, params)
                        n += 1
                t += 1
            if not G.is_legal(st, a):
                ok = False
                break
            G.apply_action(st, a)
        count[i] = n if ok else -1


class CardPositions(NamedTuple):
    """What :func:`card_positions` records per world (``[i, k]``: the ``k``-th card another
    seat chose with a choice in world ``i``; ``counts[i]`` of them, ``-1``: impossible world)."""

    views: np.ndarray
    seats: np.ndarray
    ntok: np.ndarray
    played: np.ndarray
    rbs: np.ndarray
    legal: np.ndarray
    counts: np.ndarray


def replay_card_positions(obs: "Observation", worlds: np.ndarray, params: np.ndarray) -> CardPositions:
    """Run :func:`card_positions` for ``obs.seat`` over ``worlds`` (``(n, 4)``, as sampled),
    the rule-based card from ``params``."""
    dealt, _ = _dealt_worlds(obs, worlds)
    n, m = len(dealt), MAX_OTHER_CARDS
    per = [np.zeros((n, m), np.int64) for _ in range(5)]
    pos = CardPositions(np.zeros((n, m, G.N_FIELDS), np.int64), per[0], per[1], per[2], per[3], per[4],
                        np.zeros(n, np.int64))
    card_positions(dealt, public_actions(obs, cards=True), np.int64(obs.seat),
                   np.array(params, dtype=np.float64),  # writable: one compiled signature
                   np.int64(obs.view[G.F_OPTIONS]), *pos)
    return pos


def card_log_likelihoods(obs: "Observation", worlds: np.ndarray, model: Any, params: np.ndarray,
                         mix: float = 0.1, rb_prior: float = 0.0) -> np.ndarray:
    """Log-likelihood of the other seats' cards in each of ``worlds`` (``(n, 4)``, as sampled)
    under the card network ``model`` (a :class:`agents.players.distilled.CardModel`): the sum,
    over every card another seat chose among two or more, of ``log((1 - mix) pi + mix / k)``
    with ``pi`` the network's policy probability of that card among the ``k`` legal ones in
    that seat's view of the world (``mix`` keeps a world the network finds unlikely alive).
    ``-inf`` for a world that cannot carry the history.

    With ``rb_prior > 0`` each other seat is, with that prior probability, a rule-based player
    (``params``) instead: its cards' likelihood under that type is the product of
    ``(1 - mix) [card = rule-based card] + mix / k``, and the seat's likelihood is the mixture
    of the two types' (a Bayesian model average per seat: the cards so far decide which type
    explains a world, so worlds that a rule-based opponent's play points to count when the
    opponent plays like one, and the network's otherwise)."""
    from .distilled import MAX_TOKENS, encode_arrays, legal_policy, played_sequence

    views, seats, ntok, played, rbs, legal, count = replay_card_positions(obs, worlds, params)
    n, m = seats.shape
    out = np.where(count < 0, -np.inf, 0.0)
    keep = np.arange(m)[None, :] < count[:, None]
    if not keep.any():
        return out
    world = np.nonzero(keep)[0]
    seq, who = played_sequence(obs)
    r = len(world)
    tok_cards = np.zeros((r, MAX_TOKENS), np.int64)
    tok_who = np.zeros((r, MAX_TOKENS), np.int64)
    k = min(len(seq), MAX_TOKENS)
    tok_cards[:, :k] = seq[:k]
    tok_who[:, :k] = who[:k]
    flat, tokens = encode_arrays(views[keep], seats[keep], tok_cards, tok_who, ntok[keep], rbs[keep])
    _, logits = model.outputs(flat, tokens)
    lm = ((legal[keep][:, None] >> np.arange(32)[None, :]) & 1).astype(bool)
    p = legal_policy(logits, int(obs.game_type or 0), lm)[np.arange(r), played[keep]]
    k_legal = lm.sum(axis=1)
    ll = np.log((1.0 - mix) * p + mix / k_legal)
    if rb_prior <= 0.0:
        np.add.at(out, world, ll)
        return out
    ll_rb = np.log((1.0 - mix) * (played[keep] == rbs[keep]) + mix / k_legal)
    cell = world * 3 + seats[keep]  # (world, seat) flattened
    net_seat, rb_seat = np.zeros(3 * n), np.zeros(3 * n)
    np.add.at(net_seat, cell, ll)
    np.add.at(rb_seat, cell, ll_rb)
    mixed = np.logaddexp(np.log1p(-rb_prior) + net_seat, np.log(rb_prior) + rb_seat)
    return out + mixed.reshape(n, 3).sum(axis=1)


def infer_weights(obs: "Observation", worlds: np.ndarray, params: np.ndarray, *, inference: bool = False,
                  inference_eps: float = 0.2, card_eps: float = 1.0, card_model: str = "", card_alpha: float = 1.0,
                  card_rb: float = 0.0) -> np.ndarray | None:
    """The weights of ``worlds`` (``(n, 4)``, as sampled) for ``obs``'s seat: the auction's
    (and the rule-based cards') likelihood with ``inference`` (:func:`weigh_worlds`), times the
    card network ``card_model``'s likelihood of the others' cards to the power ``card_alpha``
    (:func:`card_log_likelihoods`); ``None`` when no world has weight (use them uniformly).
    PIMC's and the rollout agent's inference (their options of the same names)."""
    from .distilled import card_network

    w = np.ones(len(worlds))
    if inference:
        w = weigh_worlds(obs, worlds, params, inference_eps, card_eps)
    if card_model:
        ll = card_alpha * card_log_likelihoods(obs, worlds, card_network(card_model), params, rb_prior=card_rb)
        ll[w <= 0] = -np.inf
        if np.isfinite(ll).any():
            w = w * np.exp(ll - ll[np.isfinite(ll)].max())
    return w if w.sum() > 0 else None


def draw_by_weight(candidates: np.ndarray, weights: np.ndarray | None, n: int, gen: np.random.Generator) -> np.ndarray:
    """``n`` of ``candidates`` drawn with replacement in proportion to ``weights`` (``None``:
    the first ``n``, which were drawn uniformly)."""
    if weights is None:
        return candidates[:n]
    idx = gen.choice(len(candidates), size=n, replace=True, p=weights / weights.sum())
    return candidates[idx]
