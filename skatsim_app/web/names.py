"""What the browser table calls cards and contracts, for each deck style.

Three deck styles: ``"german"`` (German suits, the Prague pattern: Eichel, Grün, Herz,
Schellen; Unter, Ober, König, Daus), ``"french"`` (clubs, spades, hearts, diamonds; jack,
queen, king, ace; black and red) and ``"french4"`` (the same in four colours, as the Skat
tournament deck and online Skat: clubs black, spades green, hearts red, diamonds orange).
Card ids and contract tokens stay those of :mod:`skatsim`
(``CJ``, ``S10``, ``GH``); only the words shown change, and they are made here, in Python,
so the page shows the same names in every screen.

>>> card_label("CJ", "german"), card_label("CJ", "french")
('Eichel Unter', 'Jack of Clubs')
>>> card_index("S10", "german"), card_index("HA", "german"), card_index("HA", "french")
('10', 'D', 'A')
>>> contract_label("CHS", "german"), contract_label("CHS", "french")
('Eichel hand, schneider announced', 'Clubs hand, schneider announced')
>>> contract_label("NO", "german"), contract_label("G", "french"), contract_label("passed", "german")
('Null ouvert', 'Grand', 'passed in')
>>> deck_text("Seat 1 played spades; the jacks count.", "german")
'Seat 1 played Grün; the Unter count.'
"""

from __future__ import annotations

import re

from skatsim.cards import card_rank, card_suit, parse_card
from skatsim.contracts import Contract
from skatsim.rules import GAME_NAMES, RAMSCH

__all__ = ["DECKS", "SUIT_NAMES", "RANK_NAMES", "RANK_INDEX", "card_label", "card_index", "suit_name",
           "contract_label", "game_label", "deck_text", "check_deck"]

#: The deck styles the table draws.
DECKS = ("german", "french", "french4")
#: Which words each deck style uses (the four-colour deck is French in its names).
_WORDS = {"german": "german", "french": "french", "french4": "french"}

#: Suit names by suit id (0 diamonds, 1 hearts, 2 spades, 3 clubs).
SUIT_NAMES: dict[str, tuple[str, ...]] = {
    "german": ("Schellen", "Herz", "Grün", "Eichel"),
    "french": ("Diamonds", "Hearts", "Spades", "Clubs"),
}
#: Rank names by rank id (7 8 9 Q K 10 A J).
RANK_NAMES: dict[str, tuple[str, ...]] = {
    "german": ("7", "8", "9", "Ober", "König", "10", "Daus", "Unter"),
    "french": ("7", "8", "9", "Queen", "King", "10", "Ace", "Jack"),
}
#: The corner index printed on a card, by rank id.
RANK_INDEX: dict[str, tuple[str, ...]] = {
    "german": ("7", "8", "9", "O", "K", "10", "D", "U"),
    "french": ("7", "8", "9", "Q", "K", "10", "A", "J"),
}
SUIT_NAMES["french4"], RANK_NAMES["french4"], RANK_INDEX["french4"] = (
    SUIT_NAMES["french"], RANK_NAMES["french"], RANK_INDEX["french"])


def check_deck(deck: str) -> str:
    """``deck`` if it is a deck style, else ``ValueError`` naming the styles."""
    if deck not in DECKS:
        raise ValueError(f"unknown deck style {deck!r}; deck styles: {', '.join(DECKS)}")
    return deck


def _card(card: int | str) -> int:
    return parse_card(card) if isinstance(card, str) else int(card)


def suit_name(suit: int, deck: str) -> str:
    """The name of suit ``suit`` (0..3, D H S C) in ``deck``."""
    return SUIT_NAMES[check_deck(deck)][suit]


def card_label(card: int | str, deck: str) -> str:
    """A card's full name: ``'Grün Ober'`` (German deck), ``'Queen of Spades'`` (French)."""
    c = _card(card)
    suit, rank = SUIT_NAMES[check_deck(deck)][card_suit(c)], RANK_NAMES[deck][card_rank(c)]
    return f"{suit} {rank}" if deck == "german" else f"{rank} of {suit}"


def card_index(card: int | str, deck: str) -> str:
    """The corner index of a card: ``U O K D 10 9 8 7`` (German), ``J Q K A 10 ...`` (French)."""
    return RANK_INDEX[check_deck(deck)][card_rank(_card(card))]


def game_label(game: int, deck: str) -> str:
    """The name of game type ``game`` (0..3 the suits, 4 grand, 5 null, 6 Ramsch)."""
    check_deck(deck)
    if game < 4:
        return SUIT_NAMES[deck][game]
    return GAME_NAMES[game].capitalize()


def contract_label(token: str | Contract | None, deck: str) -> str:
    """A contract (ISS token) in words, the game named as the deck names it; also the deals
    without one: ``"passed"`` (or ``None``: passed in) and ``"R"`` (Ramsch)."""
    if token is None or token == "passed":
        return "passed in"
    if token == "R":
        return game_label(RAMSCH, deck)
    c = token if isinstance(token, Contract) else Contract.parse(token)
    words = c.describe()
    return game_label(c.game, deck) + words[len(GAME_NAMES[c.game]):]


_WORD_MAP = {"diamonds": "Schellen", "hearts": "Herz", "spades": "Grün", "clubs": "Eichel",
             "jacks": "Unter", "jack": "Unter", "Diamonds": "Schellen", "Hearts": "Herz", "Spades": "Grün",
             "Clubs": "Eichel", "Jacks": "Unter", "Jack": "Unter"}
_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_WORD_MAP, key=len, reverse=True)) + r")\b")


def deck_text(text: str, deck: str) -> str:
    """A text in French suit words (e.g. :func:`.settle.explain`'s) with the suit and
    jack words of the German deck when ``deck`` is ``"german"`` (unchanged for French)."""
    if _WORDS[check_deck(deck)] == "french":
        return text
    return _WORD_RE.sub(lambda m: _WORD_MAP[m.group(1)], text)
