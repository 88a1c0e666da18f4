"""Card-play rules on raw masks: trumps, following suit, trick winners (ISKO.md §2, §6).

These are the single source of the play rules. Each function is compiled by numba
(``@njit(cache=True)``) and is called from the Python state, the batch kernels and
the solver alike; the public wrappers at the bottom take ``CardSet`` / card strings.

Game types: ``DIAMONDS HEARTS SPADES CLUBS`` (0..3, the trump suit), ``GRAND`` (4),
``NULL`` (5) and ``RAMSCH`` (6, the optional all-pass variant: jacks only are trumps).

>>> from skatsim.cards import CardSet
>>> legal_cards(CardSet("CJ C7 SA D9"), led="S7", game=HEARTS)   # must follow spades
CardSet('SA')
>>> legal_cards(CardSet("CJ C7 SA D9"), led="HJ", game=HEARTS)   # a jack led calls for trumps
CardSet('CJ')
>>> trick_winner(["D10", "DJ", "DA"], game=NULL)                 # null: A > K > Q > J > 10
2
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import branchless
from .cards import (ACE, CLUBS, DIAMONDS, EIGHT, HEARTS, JACK, JACKS, KING, NINE, QUEEN, SEVEN, SPADES, SUIT_MASKS,
                    TEN, CardSet, CardsLike, parse_card, to_mask)

__all__ = [
    "DIAMONDS", "HEARTS", "SPADES", "CLUBS", "GRAND", "NULL", "RAMSCH", "GAME_TYPES",
    "GAME_NAMES", "GAME_LETTERS", "TRUMP_MASKS", "trump_mask", "follow_mask", "legal_mask",
    "beats", "trick_winner_pos", "legal_cards", "trick_winner", "trumps", "tricks_from_moves",
]

# A suit game's type is its trump suit: DIAMONDS .. CLUBS are the suits of skatsim.cards.
GRAND, NULL, RAMSCH = 4, 5, 6
GAME_TYPES = (DIAMONDS, HEARTS, SPADES, CLUBS, GRAND, NULL, RAMSCH)
GAME_NAMES = ("diamonds", "hearts", "spades", "clubs", "grand", "null", "ramsch")
#: ISS letters (ISS_FORMAT.md §3); ramsch has none on ISS
GAME_LETTERS = ("D", "H", "S", "C", "G", "N", "R")

TRUMP_MASKS = tuple(JACKS | SUIT_MASKS[g] for g in range(4)) + (JACKS, 0, JACKS)

# Null rank order 7 8 9 10 J Q K A, indexed by the OpenSpiel rank index 7 8 9 Q K 10 A J.
_NULL_ORDER = {SEVEN: 0, EIGHT: 1, NINE: 2, TEN: 3, JACK: 4, QUEEN: 5, KING: 6, ACE: 7}


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    """FOLLOW[g*32+c]: the cards that follow a led card c; STRENGTH[g*32+c]: trick power.

    A trump's strength is >= 16 (non-jack trumps 16..22 by rank, jacks 23 D .. 26 C);
    a plain card's strength is its rank order inside its suit (0..7).
    """
    follow = np.zeros(7 * 32, dtype=np.int64)
    strength = np.zeros(7 * 32, dtype=np.int64)
    for g in range(7):
        tm = TRUMP_MASKS[g]
        for c in range(32):
            suit, rank = c >> 3, c & 7
            if tm >> c & 1:
                follow[g * 32 + c] = tm
                strength[g * 32 + c] = 23 + suit if rank == JACK else 16 + rank
            else:
                follow[g * 32 + c] = SUIT_MASKS[suit] & ~tm
                strength[g * 32 + c] = _NULL_ORDER[rank] if g == NULL else rank
    follow.setflags(write=False)
    strength.setflags(write=False)
    return follow, strength


FOLLOW, STRENGTH = _build_tables()
_TRUMPS = np.array(TRUMP_MASKS, dtype=np.int64)
_TRUMPS.setflags(write=False)


@njit(cache=True)
def trump_mask(game: int) -> int:
    """Mask of the trumps of a game type (0 for null)."""
    return _TRUMPS[game]


@njit(cache=True)
def follow_mask(led: int, game: int) -> int:
    """Mask of the cards that follow the led card (its effective suit)."""
    return FOLLOW[game * 32 + led]


@njit(cache=True)
def legal_mask(hand: int, led: int, game: int) -> int:
    """Cards of ``hand`` that may be played to a trick led with ``led`` (-1: leading)."""
    if led < 0:
        return hand
    f = hand & FOLLOW[game * 32 + led]
    return f if f != 0 else hand


@njit(cache=True)
def beats(card: int, best: int, game: int) -> bool:
    """Does ``card`` beat ``best``, the card currently winning the trick?"""
    s = STRENGTH[game * 32 + card]
    return s > STRENGTH[game * 32 + best] and (s >= 16 or (card >> 3) == (best >> 3))


@njit(cache=True)
def trick_winner_pos(c0: int, c1: int, c2: int, game: int) -> int:
    """Position (0 = leader) of the winning card of a complete trick.

    The card of highest ``STRENGTH`` among the led card, the trumps and the cards of the
    led card's suit (what :func:`beats` decides card by card: a plain card of another suit
    never wins, a trump beats every plain card, and the eligible cards' strengths are
    distinct). Written without branches: the winner of a random trick is unpredictable,
    and a mispredicted branch costs more than the few extra operations.
    """
    off = game * 32
    suit = c0 >> 3
    k0 = STRENGTH[off + c0]
    s1 = STRENGTH[off + c1]
    s2 = STRENGTH[off + c2]
    k1 = branchless((s1 >= 16) | ((c1 >> 3) == suit), s1, -1)  # -1: c1 cannot win
    k2 = branchless((s2 >= 16) | ((c2 >> 3) == suit), s2, -1)
    w01 = branchless(k1 > k0, 1, 0)
    return branchless(k2 > branchless(k1 > k0, k1, k0), 2, w01)


# --------------------------------------------------------------------------- public wrappers


def _card(c: int | str) -> int:
    if isinstance(c, str):
        return parse_card(c)
    if isinstance(c, bool) or not hasattr(c, "__index__"):
        raise TypeError(f"a card is a card id 0..31 or a name like 'CJ', got {type(c).__name__} {c!r}")
    c = int(c)
    if not 0 <= c < 32:
        raise ValueError(f"card id {c!r} is not in 0..31")
    return c


def _game(game: int) -> int:
    if game not in GAME_TYPES:
        raise ValueError(f"unknown game type {game!r}: expected one of {GAME_TYPES} ({', '.join(GAME_NAMES)})")
    return int(game)


def trumps(game: int) -> CardSet:
    """The trumps of a game type as a ``CardSet``.

    >>> print(trumps(GRAND))
    ♣J ♠J ♥J ♦J
    """
    return CardSet.from_mask(int(trump_mask(_game(game))))


def legal_cards(hand: CardsLike, led: int | str | None, game: int) -> CardSet:
    """The cards of ``hand`` that may be played when ``led`` was led (``None``: to lead).

    The led card cannot be in ``hand`` (it is on the table):

    >>> legal_cards("CJ SA S7", "SA", GRAND)
    Traceback (most recent call last):
    ...
    ValueError: the led card SA cannot also be in the hand CJ SA S7
    """
    led_id = -1 if led is None else _card(led)
    mask = to_mask(hand)
    if led_id >= 0 and mask >> led_id & 1:
        raise ValueError(f"the led card {CardSet.from_mask(1 << led_id).to_text()} cannot also be in the hand "
                         f"{CardSet.from_mask(mask).to_text()}")
    return CardSet.from_mask(int(legal_mask(mask, led_id, _game(game))))


def trick_winner(cards: list[int | str], game: int) -> int:
    """Position (0 = leader, 1, 2) of the card that wins a complete trick."""
    if len(cards) != 3:
        raise ValueError(f"a trick has 3 cards, got {len(cards)}")
    c = [_card(x) for x in cards]
    if len(set(c)) != 3:
        raise ValueError(f"a trick needs 3 distinct cards, got {cards!r}")
    return int(trick_winner_pos(c[0], c[1], c[2], _game(game)))


def tricks_from_moves(cards: list[tuple[int, int]], last_winner: int) -> list[tuple[int, list[int], int]]:
    """Completed tricks ``(leader, [cards], winner)`` of the card play ``[(seat, card), ...]``
    (each trick's winner leads the next; the last completed one's is ``last_winner``)."""
    out: list[tuple[int, list[int], int]] = []
    for i in range(0, len(cards) - len(cards) % 3, 3):
        leader = cards[i][0]
        trick = [cards[i + j][1] for j in range(3)]
        winner = cards[i + 3][0] if i + 3 < len(cards) else last_winner
        out.append((leader, trick, winner))
    return out
