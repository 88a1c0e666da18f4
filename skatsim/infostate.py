"""Information sets: what a seat knows, and uniform sampling of worlds consistent with it.

:func:`resample` backs ``SkatState.resample_from_infostate(player, rng)`` (the PIMC
hook): it redeals every card the player cannot see, uniformly among all deals that
agree with what the player saw — own cards, every card played, the skat for a
declarer who picked it up, an ouvert declarer's hand, and the voids revealed when a
player did not follow suit — and replays the game's history on that deal. The
declarer's discards are hidden from the defenders, so in a defender's world the
declarer discards that world's own skat pile; every other action is the same.

Sampling is exact, not rejection-based: hidden cards fall into classes by which
holders may take them (the two other hands, and the skat pile when it is hidden),
the class counts are drawn with probability proportional to the number of deals
they allow (products of binomials), then the cards uniformly within classes.

>>> import numpy as np
>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=5)
>>> w = s.resample_from_infostate(0, np.random.default_rng(1))
>>> w.hand(0) == s.hand(0), w.history() == s.history(), w.hand(1) == s.hand(1)
(True, True, False)
"""

from __future__ import annotations

from itertools import product
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from .bits import iter_bits, popcount
from .cards import ALL_CARDS
from .deal import deal_from_hands
from .kernels import game as K
from .rules import follow_mask

if TYPE_CHECKING:
    from .state import SkatState

__all__ = ["void_masks", "known_mask", "resample", "check_random_state"]


def check_random_state(rng: np.random.Generator | int | None) -> np.random.Generator:
    """Normalise ``rng`` (a Generator, an int seed, or None for fresh entropy)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be a numpy Generator, an int seed or None, got {type(rng).__name__}")


def void_masks(state: "SkatState") -> list[int]:
    """Per seat, the cards it cannot hold: every effective suit it failed to follow."""
    voids = [0, 0, 0]
    game = state.game_type
    if game is None:
        return voids
    moves = state._play_moves()
    for i in range(0, len(moves), 3):
        trick = moves[i:i + 3]
        led = trick[0][1]
        fm = int(follow_mask(led, game))
        for p, c in trick[1:]:
            if not (fm >> c) & 1:
                voids[p] |= fm
    return voids


def _skat_known(state: "SkatState", player: int) -> bool:
    return state.declarer == player and state.skat_picked_up


def known_mask(state: "SkatState", player: int) -> int:
    """Cards whose location ``player`` knows: own hand, played cards, a seen skat, an ouvert hand."""
    st = state._st
    known = state.hand_mask(player)
    for s in range(3):
        known |= int(st[K.F_PLAYED0 + s])
    if _skat_known(state, player):
        known |= state.skat_mask() | state.deal.skat.mask
    d = state.declarer
    c = state.contract
    if d is not None and c is not None and c.ouvert and state.phase in ("kontra", "play", "done"):
        known |= state.hand_mask(d)
    return known


def _choose(rng: np.random.Generator, mask: int, k: int) -> int:
    """A uniformly random k-subset of the set bits of ``mask``."""
    if k == 0:
        return 0
    cards = list(iter_bits(mask))
    picked = rng.choice(len(cards), size=k, replace=False)
    out = 0
    for i in picked:
        out |= 1 << cards[int(i)]
    return out


def _sample_holdings(rng: np.random.Generator, hidden: int, q1: int, n1: int, v1: int, q2: int, n2: int,
                     v2: int, ns: int) -> tuple[int, int, int]:
    """Split ``hidden`` into n1 cards for seat q1, n2 for q2 and ns for the skat pile,
    uniformly among the splits that respect the voids v1, v2 (the skat takes anything)."""
    a = hidden & ~v1 & ~v2       # either hand
    b = hidden & ~v1 & v2        # only q1 (or skat)
    c = hidden & v1 & ~v2        # only q2 (or skat)
    d = hidden & v1 & v2         # only the skat
    na, nb, nc, nd = popcount(a), popcount(b), popcount(c), popcount(d)
    free = ns - nd
    combos, weights = [], []
    if free >= 0:
        for a_s, b_s, c_s in product(range(free + 1), repeat=3):
            if a_s + b_s + c_s != free or a_s > na or b_s > nb or c_s > nc:
                continue
            need1 = n1 - (nb - b_s)      # q1 takes all remaining b, the rest from a
            need2 = n2 - (nc - c_s)
            if need1 < 0 or need2 < 0 or need1 + need2 != na - a_s:
                continue
            w = comb(na, a_s) * comb(nb, b_s) * comb(nc, c_s) * comb(na - a_s, need1)
            if w:
                combos.append((a_s, b_s, c_s, need1))
                weights.append(w)
    if not combos:
        raise ValueError("no deal is consistent with this information set (inconsistent history?)")
    total = sum(weights)
    r = int(rng.integers(total)) if total < 2**63 else int(rng.random() * total)
    for (a_s, b_s, c_s, need1), w in zip(combos, weights):
        if r < w:
            break
        r -= w
    skat = d | _choose(rng, a, a_s) | _choose(rng, b, b_s) | _choose(rng, c, c_s)
    a_rest = a & ~skat
    h1 = (b & ~skat) | _choose(rng, a_rest, need1)
    h2 = (c & ~skat) | (a_rest & ~h1)
    return h1, h2, skat


def resample(state: "SkatState", player: int, rng: np.random.Generator | int | None = None) -> "SkatState":
    """A state with the same history, redealt uniformly among deals consistent with
    what ``player`` knows (see the module docstring)."""
    from .state import SkatState

    if player not in (0, 1, 2):
        raise ValueError(f"player must be a seat 0, 1 or 2, got {player!r}")
    gen = check_random_state(rng)
    st = state._st
    known = known_mask(state, player)
    voids = void_masks(state)
    others = [q for q in (0, 1, 2) if q != player]
    hands = [state.hand_mask(q) for q in range(3)]
    skat_pile = state.skat_mask()
    d = state.declarer
    ouvert_known = [q for q in others if hands[q] and (hands[q] & ~known) == 0]
    hidden_skat = not _skat_known(state, player)
    hidden = ALL_CARDS & ~known
    if ouvert_known:  # an ouvert declarer's hand is fixed: sample only the other seat and the skat
        q = [x for x in others if x not in ouvert_known][0]
        nq, ns = popcount(hands[q]), popcount(skat_pile) if hidden_skat else 0
        h1, _, sk = _sample_holdings(gen, hidden, q, nq, voids[q], q, 0, ALL_CARDS, ns)
        hands[q] = h1
    else:
        q1, q2 = others
        ns = popcount(skat_pile) if hidden_skat else 0
        h1, h2, sk = _sample_holdings(gen, hidden, q1, popcount(hands[q1]), voids[q1], q2,
                                      popcount(hands[q2]), voids[q2], ns)
        hands[q1], hands[q2] = h1, h2
    if hidden_skat:
        skat_pile = sk
    # reconstruct a deal on which the whole history is legal
    dealt = [hands[q] | int(st[K.F_PLAYED0 + q]) for q in range(3)]
    dealt_skat = skat_pile
    if state.skat_picked_up and d is not None:
        twelve = dealt[d] | skat_pile
        if d == player:
            dealt_skat = state.deal.skat.mask
        else:  # unseen: take the discards (and, mid-discard, random held cards) as the original skat
            dealt_skat = skat_pile | _choose(gen, dealt[d], 2 - popcount(skat_pile))
        dealt[d] = twelve & ~dealt_skat
    world = SkatState(deal_from_hands(dealt[0], dealt[1], dealt[2], dealt_skat), state.rules, None)
    # the declarer's discards are hidden from the defenders: in their worlds he discards the
    # world's own skat pile (in the original order of the discard moves)
    own_discards = list(iter_bits(skat_pile)) if (state.skat_picked_up and d != player) else None
    k = 0
    for a, ph in zip(state._actions, state._phases):
        if ph == K.PH_DISCARD and own_discards is not None:
            a = own_discards[k]
            k += 1
        world.apply_action(a)
    return world
