"""Shuffling and dealing 3-skat-4-3 (ISKO.md §1) from an explicit seed.

A deal seed is any int (see :mod:`skatsim._random` for the seed convention); the
deal's random stream is the SplitMix64 state ``seed mod 2**63``, so ``deal(-5)`` is
``deal(2**63 - 5)``, never ``deal(5)``. ``deal(seed)`` here, ``SkatState.new_game(seed=...)`` and the
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

from ._random import SeedLike, to_seed
from .bits import iter_bits, nth_bit_mask, rand_below
from .cards import ALL_CARDS, CardSet, CardsLike, card_name, parse_card, to_mask
from .layout import SEAT_NAMES

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
        """The four card masks ``(forehand, middlehand, rearhand, skat)``."""
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
        bit = nth_bit_mask(remaining, k)
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


def deal(seed: SeedLike) -> Deal:
    """Shuffle and deal 3-skat-4-3 from ``seed`` (jit-compiled by numba).

    ``seed`` is an int deal seed (a simulation row's ``deal_seed``), or a
    ``numpy.random.Generator`` / ``None`` that draws one (:func:`skatsim._random.to_seed`);
    floats, strings and bools raise ``TypeError``.
    """
    h0, h1, h2, sk, _ = deal_masks(to_seed(seed) & SEED_MASK)
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
    """An explicit deal; the skat defaults to the two cards nobody holds.

    A card given to two holders is named:

    >>> deal_from_hands("CJ SJ HJ DJ CA C10 CK CQ C9 C8", "CJ S7 S8 S9 SQ SK S10 SA H7 H8",
    ...                 "H9 HQ HK H10 HA D7 D8 D9 DQ DK")
    Traceback (most recent call last):
    ...
    ValueError: card CJ is held twice: by forehand and middlehand
    """
    h = [to_mask(forehand), to_mask(middlehand), to_mask(rearhand)]
    named = list(zip(SEAT_NAMES, h))
    if skat is not None:
        named.append(("skat", to_mask(skat)))
    seen: dict[int, str] = {}
    for name, m in named:
        for c in iter_bits(m):
            if c in seen:
                raise ValueError(f"card {card_name(c)} is held twice: by {seen[c]} and {name}")
            seen[c] = name
    sk = (ALL_CARDS & ~(h[0] | h[1] | h[2])) if skat is None else to_mask(skat)
    for name, m, n in zip(SEAT_NAMES + ("skat",), h + [sk], (10, 10, 10, 2)):
        if bin(m).count("1") != n:
            raise ValueError(f"{name} must hold {n} cards, got {bin(m).count('1')}: {CardSet.from_mask(m)}")
    if h[0] | h[1] | h[2] | sk != ALL_CARDS:
        raise ValueError("the hands and the skat must hold each of the 32 cards exactly once")
    return _deal_of(h[0], h[1], h[2], sk)
