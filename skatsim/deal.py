"""Shuffling and dealing 3-skat-4-3 (ISKO.md §1) from an explicit seed.

A deal seed is any int; the deal's random stream is the SplitMix64 state
``seed mod 2**63``. ``deal(seed)`` here, ``SkatState.new_game(seed=...)`` and the
batch kernels all produce the same cards for the same seed, so a row of a
simulation can be replayed from its ``deal_seed``.

>>> d = deal(7)
>>> [len(h) for h in d.hands], len(d.skat)
([10, 10, 10], 2)
>>> deal_from_order(list(range(32))).skat
CardSet('H9 H8')
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
from numba import njit

from .bits import nth_bit, rand_below
from .cards import ALL_CARDS, CardSet, CardsLike, parse_card, to_mask

__all__ = ["Deal", "deal", "deal_from_order", "deal_from_hands", "DEAL_TARGETS", "deal_masks",
           "SEED_MASK"]

SEED_MASK = (1 << 63) - 1

#: Who receives the i-th card dealt: 3 each, 2 to the skat (3), 4 each, 3 each.
DEAL_TARGETS = (0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3,
                0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                0, 0, 0, 1, 1, 1, 2, 2, 2)
_TARGETS = np.array(DEAL_TARGETS, dtype=np.int64)
_TARGETS.setflags(write=False)


class Deal(NamedTuple):
    """Three hands (forehand, middlehand, rearhand) and the skat."""

    hands: tuple[CardSet, CardSet, CardSet]
    skat: CardSet

    def masks(self) -> tuple[int, int, int, int]:
        return (self.hands[0].mask, self.hands[1].mask, self.hands[2].mask, self.skat.mask)

    def __str__(self) -> str:
        names = ("forehand  ", "middlehand", "rearhand  ")
        lines = [f"{n} {h}" for n, h in zip(names, self.hands)]
        return "\n".join(lines + [f"skat       {self.skat}"])


@njit(cache=True)
def deal_masks(rng: int):
    """Shuffle and deal from a generator state: ``(h0, h1, h2, skat, rng)``."""
    remaining = ALL_CARDS
    h0 = 0
    h1 = 0
    h2 = 0
    sk = 0
    for i in range(32):
        k, rng = rand_below(rng, 32 - i)
        c = nth_bit(remaining, k)
        bit = 1 << c
        remaining ^= bit
        t = _TARGETS[i]
        if t == 0:
            h0 |= bit
        elif t == 1:
            h1 |= bit
        elif t == 2:
            h2 |= bit
        else:
            sk |= bit
    return h0, h1, h2, sk, rng


def _deal_of(h0: int, h1: int, h2: int, sk: int) -> Deal:
    return Deal((CardSet.from_mask(h0), CardSet.from_mask(h1), CardSet.from_mask(h2)), CardSet.from_mask(sk))


def deal(seed: int) -> Deal:
    """Shuffle and deal 3-skat-4-3 from ``seed`` (an int; jit-compiled by numba)."""
    h0, h1, h2, sk, _ = deal_masks(int(seed) & SEED_MASK)
    return _deal_of(int(h0), int(h1), int(h2), int(sk))


def deal_from_order(cards: Sequence[int | str]) -> Deal:
    """Deal a given card order (32 card ids or names, top of the deck first) 3-skat-4-3."""
    ids = [parse_card(c) if isinstance(c, str) else int(c) for c in cards]
    if len(ids) != 32 or to_mask(ids) != ALL_CARDS:
        raise ValueError("a deck order must list each of the 32 cards exactly once")
    masks = [0, 0, 0, 0]
    for c, t in zip(ids, DEAL_TARGETS):
        masks[t] |= 1 << c
    return _deal_of(*masks)


def deal_from_hands(forehand: CardsLike, middlehand: CardsLike, rearhand: CardsLike,
                    skat: CardsLike | None = None) -> Deal:
    """An explicit deal; the skat defaults to the two cards nobody holds."""
    h = [to_mask(forehand), to_mask(middlehand), to_mask(rearhand)]
    sk = (ALL_CARDS & ~(h[0] | h[1] | h[2])) if skat is None else to_mask(skat)
    for name, m, n in zip(("forehand", "middlehand", "rearhand", "skat"), h + [sk], (10, 10, 10, 2)):
        if bin(m).count("1") != n:
            raise ValueError(f"{name} must hold {n} cards, got {bin(m).count('1')}: {CardSet.from_mask(m)}")
    if h[0] | h[1] | h[2] | sk != ALL_CARDS:
        raise ValueError("the hands and the skat must hold each of the 32 cards exactly once")
    return _deal_of(h[0], h[1], h[2], sk)
