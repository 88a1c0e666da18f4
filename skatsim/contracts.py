"""Contracts (what the declarer announces) and the bid ladder (ISKO.md §3-§5, §8).

A contract is a game type plus announcement flags, packed into one int for the
kernels: ``code = game * 16 + flags`` with flags ``HAND | SCHNEIDER_ANNOUNCED |
SCHWARZ_ANNOUNCED | OUVERT``. Flags are normalised: a suit/grand ouvert implies
hand and both announcements, schwarz announced implies schneider announced, and
either announcement implies hand.

Text uses the ISS game-type tokens (ISS_FORMAT.md §3): ``C``, ``CH``, ``CHS``,
``CHZ``, ``CO``, ``G``, ``GO``, ``N``, ``NH``, ``NO``, ``NOH`` ...

>>> Contract.parse("GO")
Contract('GO')
>>> Contract.parse("GO").hand, Contract.parse("GO").schwarz_announced
(True, True)
>>> Contract.parse("CHS").describe()
'clubs hand, schneider announced'
>>> BID_VALUES[:6], len(BID_VALUES), next_bid(216), next_bid(264)
((18, 20, 22, 23, 24, 27), 63, 240, None)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import CLUBS, DIAMONDS, GAME_LETTERS, GAME_NAMES, GRAND, HEARTS, NULL, SPADES
from .valuation import (BASE_VALUES, HAND, NULL_VALUES, OUVERT, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, base_value,
                        null_value)

__all__ = [
    "HAND", "SCHNEIDER_ANNOUNCED", "SCHWARZ_ANNOUNCED", "OUVERT", "BASE_VALUES",
    "BID_VALUES", "next_bid", "bid_index", "Contract", "DECLARATIONS", "N_DECLARATIONS",
    "normalise_flags", "null_value", "NULL_VALUES", "N_PICKUP_DECLARATIONS",
    "PICKUP_DECL_BITS", "HAND_DECL_BITS", "DECL_MIN_VALUE", "DECLARABLE_BITS", "DECLARATION_INDEX",
]

#: Most matadors of a suit game (the 4 jacks and 7 suit cards) and of a grand (the 4 jacks).
MAX_MATADORS_SUIT, MAX_MATADORS_GRAND = 11, 4
#: Levels above the matadors: game, hand, schneider, schneider announced, schwarz, schwarz
#: announced, ouvert (ISKO.md §8).
N_LEVELS = 7


def _ladder() -> tuple[int, ...]:
    """Every game value a contract can reach: base x (1 matador + game .. all matadors + all
    levels) for the suit games and grand, and the four null values."""
    values = set(NULL_VALUES)
    for game, base in enumerate(BASE_VALUES[:GRAND + 1]):
        most = (MAX_MATADORS_GRAND if game == GRAND else MAX_MATADORS_SUIT) + N_LEVELS
        values |= {base * m for m in range(2, most + 1)}
    return tuple(sorted(values))


#: The 63 valid bids, 18 ... 264: every possible game value (ISKO.md §4).
BID_VALUES: tuple[int, ...] = _ladder()
_BID_INDEX = {v: i for i, v in enumerate(BID_VALUES)}
BID_ARRAY = np.array(BID_VALUES, dtype=np.int64)
BID_ARRAY.setflags(write=False)


def bid_index(value: int) -> int:
    """Index of a bid value in :data:`BID_VALUES`; ``ValueError`` if it is not on the ladder."""
    try:
        return _BID_INDEX[int(value)]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{value!r} is not a valid bid; valid bids are 18, 20, 22, 23, 24, 27, ... 264") from None


def next_bid(value: int) -> int | None:
    """The next higher valid bid, or ``None`` above 264 (``0`` gives 18)."""
    if value < 18:
        return 18
    i = bid_index(value)
    return BID_VALUES[i + 1] if i + 1 < len(BID_VALUES) else None


def normalise_flags(game: int, flags: int) -> int:
    """Apply the implications between announcement flags (see module docstring)."""
    if game == NULL:
        return flags & (HAND | OUVERT)
    if flags & OUVERT:
        return HAND | SCHNEIDER_ANNOUNCED | SCHWARZ_ANNOUNCED | OUVERT
    if flags & SCHWARZ_ANNOUNCED:
        flags |= SCHNEIDER_ANNOUNCED
    if flags & SCHNEIDER_ANNOUNCED:
        flags |= HAND
    return flags & (HAND | SCHNEIDER_ANNOUNCED | SCHWARZ_ANNOUNCED)


@dataclass(frozen=True)
class Contract:
    """A declared game: game type and announcements (flags normalised on construction)."""

    game: int
    flags: int = 0

    def __post_init__(self) -> None:
        if self.game not in (DIAMONDS, HEARTS, SPADES, CLUBS, GRAND, NULL):
            raise ValueError(f"a contract's game type must be 0..5 (D H S C G N), got {self.game!r}")
        object.__setattr__(self, "flags", normalise_flags(self.game, int(self.flags)))

    @classmethod
    def from_code(cls, code: int) -> "Contract":
        """Inverse of :attr:`code`.

        >>> Contract.from_code(4 * 16 + 1)
        Contract('GH')
        """
        return cls(int(code) >> 4, int(code) & 15)

    @property
    def code(self) -> int:
        """The packed int ``game * 16 + flags`` used by the kernels."""
        return self.game * 16 + self.flags

    @property
    def hand(self) -> bool:
        """Played without the skat (implied by an announcement and by suit/grand ouvert)."""
        return bool(self.flags & HAND)

    @property
    def schneider_announced(self) -> bool:
        """Schneider announced (implied by schwarz announced and by suit/grand ouvert)."""
        return bool(self.flags & SCHNEIDER_ANNOUNCED)

    @property
    def schwarz_announced(self) -> bool:
        """Schwarz announced (implied by suit/grand ouvert)."""
        return bool(self.flags & SCHWARZ_ANNOUNCED)

    @property
    def ouvert(self) -> bool:
        """The declarer plays with his cards open."""
        return bool(self.flags & OUVERT)

    @property
    def is_null(self) -> bool:
        """A null game (the declarer must take no trick)."""
        return self.game == NULL

    @property
    def base_value(self) -> int:
        """Base value (suit/grand) or the fixed value (null)."""
        return int(base_value(self.game, self.flags))

    @classmethod
    def parse(cls, token: str) -> "Contract":
        """Parse an ISS game-type token; modifier letters may come in any order."""
        t = token.strip().upper()
        if not t or t[0] not in "DHSCGN":
            raise ValueError(f"malformed contract {token!r}: expected a game letter D H S C G N, "
                             "then modifiers H S Z O")
        game = "DHSCGN".index(t[0])
        flags = 0
        for ch in t[1:]:
            if ch == "H":
                flags |= HAND
            elif ch == "S" and game != NULL:
                flags |= SCHNEIDER_ANNOUNCED | HAND
            elif ch == "Z" and game != NULL:
                flags |= SCHWARZ_ANNOUNCED | SCHNEIDER_ANNOUNCED | HAND
            elif ch == "O":
                flags |= OUVERT
            else:
                raise ValueError(f"malformed contract {token!r}: unknown modifier {ch!r} "
                                 "(H hand, S schneider, Z schwarz, O ouvert)")
        return cls(game, flags)

    def to_text(self) -> str:
        """ISS token: ``C``, ``CH``, ``CHS``, ``CHZ``, ``CO``, ``N``, ``NO``, ``NH``, ``NOH``."""
        s = GAME_LETTERS[self.game]
        if self.game == NULL:
            return s + ("O" if self.ouvert else "") + ("H" if self.hand else "")
        if self.ouvert:
            return s + "O"
        if self.schwarz_announced:
            return s + "HZ"
        if self.schneider_announced:
            return s + "HS"
        return s + ("H" if self.hand else "")

    def describe(self) -> str:
        """Readable name, e.g. ``'grand ouvert'``, ``'null ouvert hand'``."""
        words = [GAME_NAMES[self.game]]
        if self.ouvert:
            words.append("ouvert")
        if self.hand and not (self.ouvert and self.game != NULL):
            words.append("hand")
        s = " ".join(words)
        if self.game != NULL and not self.ouvert:
            if self.schwarz_announced:
                s += ", schwarz announced"
            elif self.schneider_announced:
                s += ", schneider announced"
        return s

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Contract({self.to_text()!r})"


def _declarations() -> tuple[int, ...]:
    pickup = [g * 16 for g in range(5)] + [NULL * 16, NULL * 16 + OUVERT]
    hand = []
    for g in range(5):
        hand += [g * 16 + HAND, g * 16 + (HAND | SCHNEIDER_ANNOUNCED),
                 g * 16 + (HAND | SCHNEIDER_ANNOUNCED | SCHWARZ_ANNOUNCED),
                 g * 16 + (HAND | SCHNEIDER_ANNOUNCED | SCHWARZ_ANNOUNCED | OUVERT)]
    hand += [NULL * 16 + HAND, NULL * 16 + (HAND | OUVERT)]
    return tuple(pickup + hand)


#: Contract codes of the declaration actions: 7 after a skat pickup, then 22 hand games.
DECLARATIONS: tuple[int, ...] = _declarations()
N_DECLARATIONS = len(DECLARATIONS)
#: The first declarations are the ones after a skat pickup (no hand flag).
N_PICKUP_DECLARATIONS = sum(1 for c in DECLARATIONS if not c & HAND)
DECLARATION_ARRAY = np.array(DECLARATIONS, dtype=np.int64)
DECLARATION_ARRAY.setflags(write=False)
assert all(not c & HAND for c in DECLARATIONS[:N_PICKUP_DECLARATIONS])

#: ``DECLARATION_INDEX[code]``: the declaration action index ``i`` of contract ``code``
#: (``DECLARATIONS[i] == code``), -1 for a code that is no declaration (``int64[96]``,
#: read-only; the inverse of :data:`DECLARATION_ARRAY` for the kernels).
DECLARATION_INDEX = np.full((NULL + 1) * 16, -1, dtype=np.int64)
DECLARATION_INDEX[DECLARATION_ARRAY] = np.arange(len(DECLARATIONS))
DECLARATION_INDEX.setflags(write=False)
assert N_DECLARATIONS <= 32  # the kernels keep the declaration set in one 32-bit word

#: Bit ``i`` set for declaration ``DECLARATIONS[i]`` playable after a pickup (``int``, 0x7F).
PICKUP_DECL_BITS: int = sum(1 << i for i, c in enumerate(DECLARATIONS) if not c & HAND)
#: Bit ``i`` set for the hand declarations (``int``, 22 bits above the pickup ones).
HAND_DECL_BITS: int = sum(1 << i for i, c in enumerate(DECLARATIONS) if c & HAND)


def _decl_min_value(code: int) -> int:
    c = Contract.from_code(code)
    return c.base_value if c.is_null else BID_VALUES[-1]


#: Per declaration (``int64[N_DECLARATIONS]``, read-only): the value the declaration is
#: worth at least. A declaration is legal when ``bid <= DECL_MIN_VALUE[i]``: for a null
#: game that is its fixed value (a null game below the bid is not declarable, ISKO.md
#: §16); suit and grand games may always be declared (an overbid is settled as lost),
#: so theirs is the top bid, 264.
DECL_MIN_VALUE = np.array([_decl_min_value(c) for c in DECLARATIONS], dtype=np.int64)
DECL_MIN_VALUE.setflags(write=False)

#: ``DECLARABLE_BITS[picked, bid_index]``: the 29-bit set of legal declarations after a
#: pickup (``picked`` 1) or in a hand game (0) at bid ``BID_VALUES[bid_index]``
#: (``int64[2, 63]``, read-only): ``(PICKUP_DECL_BITS or HAND_DECL_BITS) & {i: bid <=
#: DECL_MIN_VALUE[i]}``, one lookup for the kernels.
DECLARABLE_BITS = np.array(
    [[sum(1 << i for i in range(N_DECLARATIONS)
          if (bits >> i) & 1 and bid <= DECL_MIN_VALUE[i]) for bid in BID_VALUES]
     for bits in (HAND_DECL_BITS, PICKUP_DECL_BITS)], dtype=np.int64)
DECLARABLE_BITS.setflags(write=False)
