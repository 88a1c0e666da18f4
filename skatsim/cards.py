"""Cards as bits of a 32-bit mask, the named mask constants, and the ``CardSet`` wrapper.

Card ids follow OpenSpiel's ``skat``: ``id = suit * 8 + rank`` with suits
``D H S C`` (0..3) and ranks ``7 8 9 Q K 10 A J`` (0..7). Each suit's bits are
then in trick order (7 low ... A high) and the jacks sit on bits 7, 15, 23, 31,
so the highest jack bit is the top trump (``CJ``).

All constants here are plain ints or tuples and are never mutated (numba
freezes module globals when it compiles a kernel).

>>> CardSet("CJ S10 HA D7")
CardSet('CJ S10 HA D7')
>>> print(CardSet("cj sj ha"))
♣J ♠J ♥A
>>> int(card_points(CardSet("CA CT DJ").mask))
23
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Iterator
from typing import Union

import numpy as np
from numba import njit

from .bits import iter_bits, popcount

__all__ = [
    "DIAMONDS", "HEARTS", "SPADES", "CLUBS", "SUITS",
    "SEVEN", "EIGHT", "NINE", "QUEEN", "KING", "TEN", "ACE", "JACK", "RANKS",
    "ALL_CARDS", "JACKS", "ACES", "TENS", "KINGS", "QUEENS", "NINES", "EIGHTS", "SEVENS",
    "SUIT_MASKS", "SUIT_NO_JACK", "CARD_POINTS", "CARD_POINTS_ARRAY", "SUIT_LETTERS", "RANK_NAMES",
    "card_id", "card_suit", "card_rank", "card_name", "card_symbol", "parse_card",
    "card_points", "CardSet", "DISPLAY_ORDER",
]

DIAMONDS, HEARTS, SPADES, CLUBS = 0, 1, 2, 3
SUITS = (DIAMONDS, HEARTS, SPADES, CLUBS)
SEVEN, EIGHT, NINE, QUEEN, KING, TEN, ACE, JACK = range(8)
RANKS = (SEVEN, EIGHT, NINE, QUEEN, KING, TEN, ACE, JACK)

ALL_CARDS = 0xFFFF_FFFF
SEVENS = 0x0101_0101
EIGHTS = 0x0202_0202
NINES = 0x0404_0404
QUEENS = 0x0808_0808
KINGS = 0x1010_1010
TENS = 0x2020_2020
ACES = 0x4040_4040
JACKS = 0x8080_8080
SUIT_MASKS = (0x0000_00FF, 0x0000_FF00, 0x00FF_0000, 0xFF00_0000)
SUIT_NO_JACK = (0x0000_007F, 0x0000_7F00, 0x007F_0000, 0x7F00_0000)

_RANK_POINTS = (0, 0, 0, 3, 4, 10, 11, 2)
CARD_POINTS = tuple(_RANK_POINTS[c & 7] for c in range(32))
#: :data:`CARD_POINTS` as a read-only ``int64`` array, the one table kernels index.
CARD_POINTS_ARRAY = np.array(CARD_POINTS, dtype=np.int64)
CARD_POINTS_ARRAY.setflags(write=False)

SUIT_LETTERS = "DHSC"
SUIT_SYMBOLS = "♦♥♠♣"
RANK_NAMES = ("7", "8", "9", "Q", "K", "10", "A", "J")
_RANK_PARSE = {"7": SEVEN, "8": EIGHT, "9": NINE, "Q": QUEEN, "K": KING, "10": TEN, "T": TEN,
               "A": ACE, "J": JACK}
_SUIT_PARSE = {"D": DIAMONDS, "H": HEARTS, "S": SPADES, "C": CLUBS,
               "♦": DIAMONDS, "♥": HEARTS, "♠": SPADES, "♣": CLUBS}

#: Stable human order: jacks (C S H D), then clubs, spades, hearts, diamonds, each A 10 K Q 9 8 7.
DISPLAY_ORDER = (31, 23, 15, 7) + tuple(
    s * 8 + r for s in (CLUBS, SPADES, HEARTS, DIAMONDS) for r in (ACE, TEN, KING, QUEEN, NINE, EIGHT, SEVEN)
)
_DISPLAY_POS = {c: i for i, c in enumerate(DISPLAY_ORDER)}


def card_id(suit: int, rank: int) -> int:
    """Card id of ``(suit, rank)``: ``suit * 8 + rank``."""
    return suit * 8 + rank


def card_suit(card: int) -> int:
    """Printed suit of a card id (0 D, 1 H, 2 S, 3 C)."""
    return card >> 3


def card_rank(card: int) -> int:
    """Rank index of a card id (0 = 7 ... 6 = A, 7 = J)."""
    return card & 7


def card_name(card: int) -> str:
    """ASCII name, e.g. ``'CJ'``, ``'S10'``.

    >>> card_name(31), card_name(21)
    ('CJ', 'S10')
    """
    if not 0 <= card < 32:
        raise ValueError(f"card id {card!r} is not in 0..31")
    return SUIT_LETTERS[card >> 3] + RANK_NAMES[card & 7]


def card_symbol(card: int) -> str:
    """Unicode name, e.g. ``'♣J'``."""
    return SUIT_SYMBOLS[card >> 3] + RANK_NAMES[card & 7]


_CARD_RE = re.compile(r"^([CSHD♣♠♥♦])(10|[789TQKAJ])$")


def parse_card(token: str) -> int:
    """Parse one card: suit ``C S H D`` (or ``♣ ♠ ♥ ♦``) then rank ``A 10/T K Q J 9 8 7``.

    Case-insensitive. Raises ``ValueError`` naming the token when malformed.

    >>> parse_card("ct"), parse_card("D7"), parse_card("♣J")
    (29, 0, 31)
    """
    m = _CARD_RE.match(token.strip().upper())
    if not m:
        raise ValueError(
            f"malformed card {token!r}: expected a suit C S H D then a rank A 10 (or T) K Q J 9 8 7, e.g. 'CJ', 'S10'"
        )
    return _SUIT_PARSE[m.group(1)] * 8 + _RANK_PARSE[m.group(2)]


@njit(cache=True)
def card_points(mask: int) -> int:
    """Card points in a mask (A 11, 10 10, K 4, Q 3, J 2; 120 in the deck).

    >>> int(card_points(ALL_CARDS))
    120
    """
    return (11 * popcount(mask & ACES) + 10 * popcount(mask & TENS) + 4 * popcount(mask & KINGS)
            + 3 * popcount(mask & QUEENS) + 2 * popcount(mask & JACKS))


CardsLike = Union["CardSet", int, str, Iterable[int]]


def to_mask(cards: CardsLike) -> int:
    """Convert a ``CardSet``, mask, card string or iterable of card ids to a mask.

    >>> to_mask("CJ D7"), to_mask([0, 31]), to_mask(CardSet("D7")), to_mask(1)
    (2147483649, 2147483649, 1, 1)
    >>> to_mask(b"CJ")
    Traceback (most recent call last):
    ...
    TypeError: cards must be a CardSet, a mask, a card string or card ids, got bytes b'CJ' (decode it to str)
    """
    if isinstance(cards, CardSet):
        return cards.mask
    if isinstance(cards, str):
        return CardSet.parse(cards).mask
    if isinstance(cards, (bytes, bytearray, memoryview)):
        raise TypeError(f"cards must be a CardSet, a mask, a card string or card ids, got "
                        f"{type(cards).__name__} {bytes(cards)!r} (decode it to str)")
    if isinstance(cards, bool) or type(cards).__name__ == "bool_":
        raise TypeError(f"cards must be a CardSet, a mask, a card string or card ids, got bool {cards!r}")
    if isinstance(cards, int) or hasattr(cards, "__index__"):
        m = operator.index(cards)  # type: ignore[arg-type]
        if not 0 <= m <= ALL_CARDS:
            raise ValueError(f"card mask {m:#x} is not a 32-bit mask")
        return m
    if not isinstance(cards, Iterable):
        raise TypeError(f"cards must be a CardSet, a mask, a card string or card ids, got "
                        f"{type(cards).__name__} {cards!r}")
    m = 0
    for c in cards:
        if isinstance(c, str):
            c = parse_card(c)
        elif isinstance(c, bool) or not hasattr(c, "__index__"):
            raise TypeError(f"a card id is an int 0..31 (or a card name), got {type(c).__name__} {c!r}")
        c = int(c)
        if not 0 <= c < 32:
            raise ValueError(f"card id {c!r} is not in 0..31")
        if m >> c & 1:
            raise ValueError(f"duplicate card {card_name(c)}")
        m |= 1 << c
    return m


class CardSet:
    """An immutable set of cards backed by a 32-bit mask (like ``chess.SquareSet``).

    Iterates in :data:`DISPLAY_ORDER` (jacks, then clubs, spades, hearts, diamonds).

    >>> hand = CardSet("CJ HJ SA S10 D7")
    >>> len(hand), 31 in hand, "SA" in hand
    (5, True, True)
    >>> (hand & CardSet("SA SK")).to_text()
    'SA'
    >>> int(hand | "DA") == hand.mask | (1 << 6)
    True
    >>> CardSet("CJ CJ")
    Traceback (most recent call last):
    ...
    ValueError: duplicate card CJ in 'CJ CJ'
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: CardsLike = 0) -> None:
        if isinstance(cards, str):
            self.mask = CardSet.parse(cards).mask
        else:
            self.mask = to_mask(cards)

    @classmethod
    def parse(cls, text: str) -> "CardSet":
        """Parse whitespace/comma/dot separated cards; duplicates are an error."""
        m = 0
        for tok in re.split(r"[\s,.]+", text.strip()):
            if not tok:
                continue
            c = parse_card(tok)
            if m >> c & 1:
                raise ValueError(f"duplicate card {card_name(c)} in {text!r}")
            m |= 1 << c
        obj = cls.__new__(cls)
        obj.mask = m
        return obj

    @classmethod
    def from_mask(cls, mask: int) -> "CardSet":
        """The set of a 32-bit card mask (``ValueError`` outside ``0 .. 2**32 - 1``).

        >>> CardSet.from_mask(0x8000_0001)
        CardSet('CJ D7')
        """
        m = int(mask)
        if not 0 <= m <= ALL_CARDS:
            raise ValueError(f"card mask {m:#x} is not a 32-bit mask (0 .. 0xffffffff)")
        obj = cls.__new__(cls)
        obj.mask = m
        return obj

    # set protocol -------------------------------------------------------------------------
    def __iter__(self) -> Iterator[int]:
        m = self.mask
        return (c for c in DISPLAY_ORDER if m >> c & 1)

    def __len__(self) -> int:
        return popcount(self.mask)

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            card = parse_card(card)
        if isinstance(card, bool) or not hasattr(card, "__index__"):
            return False
        c = operator.index(card)  # type: ignore[call-overload]
        return 0 <= c < 32 and bool(self.mask >> c & 1)

    def __bool__(self) -> bool:
        return self.mask != 0

    def __eq__(self, other: object) -> bool:
        """Equal to anything that converts to the same mask (:func:`to_mask`):
        ``CardSet("CJ") == "CJ" == 1 << 31``; False for what is not a card set."""
        if isinstance(other, CardSet):
            return self.mask == other.mask
        try:
            return self.mask == to_mask(other)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def __and__(self, other: CardsLike) -> "CardSet":
        return CardSet.from_mask(self.mask & to_mask(other))

    def __or__(self, other: CardsLike) -> "CardSet":
        return CardSet.from_mask(self.mask | to_mask(other))

    def __xor__(self, other: CardsLike) -> "CardSet":
        return CardSet.from_mask(self.mask ^ to_mask(other))

    def __sub__(self, other: CardsLike) -> "CardSet":
        return CardSet.from_mask(self.mask & ~to_mask(other))

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __rsub__(self, other: CardsLike) -> "CardSet":
        return CardSet.from_mask(to_mask(other) & ~self.mask)

    def __invert__(self) -> "CardSet":
        return CardSet.from_mask(~self.mask & ALL_CARDS)

    def __le__(self, other: CardsLike) -> bool:
        return self.mask & ~to_mask(other) == 0

    def __ge__(self, other: CardsLike) -> bool:
        return to_mask(other) & ~self.mask == 0

    def __int__(self) -> int:
        return self.mask

    __index__ = __int__

    @property
    def points(self) -> int:
        """Card points of the set."""
        return int(card_points(self.mask))

    def ids(self) -> list[int]:
        """Card ids in increasing id order."""
        return list(iter_bits(self.mask))

    def sorted(self, game: int | None = None) -> list[int]:
        """The card ids in the order a hand is shown for game type ``game`` (0..3 a suit,
        4 grand, 5 null, 6 Ramsch; ``None``: not declared yet, shown as in grand): the
        trumps first, then clubs, spades, hearts, diamonds, each highest first, as the rules
        rank them (:data:`skatsim.rules.STRENGTH`, :data:`~skatsim.rules.TRUMP_MASKS`).

        >>> h = CardSet("C7 HJ SA S10 CA DJ H9 HK")
        >>> [card_name(c) for c in h.sorted(1)]          # hearts: jacks, then the hearts
        ['HJ', 'DJ', 'HK', 'H9', 'CA', 'C7', 'SA', 'S10']
        >>> [card_name(c) for c in h.sorted(5)]          # null: no trumps, A K Q J 10 9 8 7
        ['CA', 'C7', 'SA', 'S10', 'HK', 'HJ', 'H9', 'DJ']
        """
        from .rules import GRAND, STRENGTH, TRUMP_MASKS  # the rules build on this module

        g = GRAND if game is None else int(game)
        trumps = TRUMP_MASKS[g]

        def key(c: int) -> tuple[int, int]:
            group = 0 if trumps >> c & 1 else 4 - (c >> 3)  # clubs (suit 3) first among the suits
            return group, -int(STRENGTH[g * 32 + c])

        return sorted(iter_bits(self.mask), key=key)

    def to_text(self) -> str:
        """ASCII text, ``'CJ S10 HA'``, parseable by :meth:`parse`."""
        return " ".join(card_name(c) for c in self)

    def __str__(self) -> str:
        return " ".join(card_symbol(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet({self.to_text()!r})"

    def _repr_html_(self) -> str:
        colours = ("#d4a017", "#c00", "#000", "#000")
        return " ".join(
            f'<span style="color:{colours[c >> 3]}">{card_symbol(c)}</span>' for c in self
        )
