"""Action numbering shared by the state API, the kernels and the agents.

======  =========  ===============================================================
ids     name       meaning
======  =========  ===============================================================
0-31    card       play a card, or discard it into the skat (by phase)
32-94   bid        name the bid ``BID_VALUES[id - 32]`` (18 ... 264)
95      pass       pass (bidding, Kontra/Re)
96      yes        hold the bid just named ("yes")
97      pickup     pick up the skat
98      hand       play without the skat (hand game)
99-127  declare    announce ``DECLARATIONS[id - 99]`` (7 after a pickup, 22 hand)
128     kontra     a defender doubles (Kontra/Re variant only)
129     re         the declarer redoubles (Kontra/Re variant only)
======  =========  ===============================================================

Text forms: cards ``"CJ"``/``"S10"``, bids ``"18"``, ``"pass"``, ``"yes"``,
``"pickup"``, ``"hand"``, contracts as ISS tokens (``"C"``, ``"GHS"``, ``"NO"``),
``"kontra"``, ``"re"``.

>>> action_to_string(31), action_to_string(32), action_to_string(PASS), action_to_string(DECLARE_BASE)
('CJ', '18', 'pass', 'D')
>>> string_to_action("GO") - DECLARE_BASE, string_to_action("ct"), string_to_action("264")
(26, 29, 94)
"""

from __future__ import annotations

from .cards import card_name, parse_card
from .contracts import BID_VALUES, DECLARATIONS, N_DECLARATIONS, Contract

__all__ = [
    "BID_BASE", "PASS", "HOLD", "PICKUP", "HAND", "DECLARE_BASE", "KONTRA", "RE", "NUM_ACTIONS",
    "action_to_string", "string_to_action", "bid_action", "declare_action", "action_ids",
]

# Derived, in the order of the table above.
BID_BASE = 32  # after the 32 cards
PASS = BID_BASE + len(BID_VALUES)
HOLD = PASS + 1
PICKUP = HOLD + 1
HAND = PICKUP + 1
DECLARE_BASE = HAND + 1
KONTRA = DECLARE_BASE + N_DECLARATIONS
RE = KONTRA + 1
NUM_ACTIONS = RE + 1

# What the kernels' legal sets ``(base, lo, hi)`` (kernels/game.legal_set) rely on:
assert (PASS, HOLD, PICKUP, HAND, DECLARE_BASE, KONTRA, RE, NUM_ACTIONS) == (
    95, 96, 97, 98, 99, 128, 129, 130), "the action table in the module docstring is out of date"
assert HOLD == PASS + 1    # a responder's set is (PASS, 0b11): pass and yes
assert HAND == PICKUP + 1  # the skat decision is (PICKUP, 0b11): pickup and hand
assert PASS - BID_BASE == 63  # a bidder's pass is bit 63 of the set based at BID_BASE
assert 32 <= KONTRA - PASS < 64 and RE == KONTRA + 1 < PASS + 64  # (PASS, 1, 1 << (KONTRA|RE - PASS - 32))
assert N_DECLARATIONS <= 32  # declarations fit the low word of a set based at DECLARE_BASE

_WORDS = {PASS: "pass", HOLD: "yes", PICKUP: "pickup", HAND: "hand", KONTRA: "kontra", RE: "re"}
_WORD_ACTIONS = {v: k for k, v in _WORDS.items()}
# No single-letter "s" for the pickup (ISS writes it so): "S" is the spades declaration.
_WORD_ACTIONS.update({"p": PASS, "y": HOLD, "hold": HOLD, "take": PICKUP})
_DECL_ACTION = {code: DECLARE_BASE + i for i, code in enumerate(DECLARATIONS)}


def bid_action(value: int) -> int:
    """Action id of naming bid ``value``."""
    from .contracts import bid_index

    return BID_BASE + bid_index(value)


def declare_action(contract: Contract | str) -> int:
    """Action id of announcing a contract (``Contract`` or ISS token)."""
    c = contract if isinstance(contract, Contract) else Contract.parse(contract)
    try:
        return _DECL_ACTION[c.code]
    except KeyError:  # pragma: no cover - every normalised contract is declarable
        raise ValueError(f"{c.describe()} is not a declarable contract") from None


def action_to_string(action: int) -> str:
    """Text of an action id (see the module table)."""
    a = int(action)
    if 0 <= a < 32:
        return card_name(a)
    if BID_BASE <= a < BID_BASE + len(BID_VALUES):
        return str(BID_VALUES[a - BID_BASE])
    if a in _WORDS:
        return _WORDS[a]
    if DECLARE_BASE <= a < DECLARE_BASE + len(DECLARATIONS):
        return Contract.from_code(DECLARATIONS[a - DECLARE_BASE]).to_text()
    raise ValueError(f"action id {action!r} is not in 0..{NUM_ACTIONS - 1}")


def string_to_action(text: str) -> int:
    """Inverse of :func:`action_to_string`; raises ``ValueError`` naming the bad text."""
    t = text.strip()
    low = t.lower()
    if low in _WORD_ACTIONS:
        return _WORD_ACTIONS[low]
    if t.isdigit():
        return bid_action(int(t))
    if len(t) in (2, 3):
        try:
            return parse_card(t)
        except ValueError:
            pass
    try:
        return declare_action(t)
    except ValueError:
        pass
    raise ValueError(f"unknown action {text!r}: not a card, bid, contract or one of "
                     f"{sorted(_WORDS.values())}")


def _byte_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    return tuple(tuple(tuple(off + i for i in range(8) if b >> i & 1) for b in range(256))
                 for off in range(0, 64, 8))


_BYTES = _byte_tables()


def action_ids(base: int, lo: int, hi: int) -> list[int]:
    """Action ids ``base + i`` for the set bits ``i`` of ``lo | hi << 32`` (ascending): a legal
    set ``(base, lo, hi)`` of :func:`skatsim.kernels.game.legal_set` as a list.

    >>> action_ids(0, 0b101, 1)
    [0, 2, 32]
    """
    b0, b1, b2, b3, b4, b5, b6, b7 = _BYTES
    if base:  # bids, declarations ...: the bidder's set is one run of bits (next bid .. pass)
        m = lo | (hi << 32)
        low = m & -m
        if m and (m + low) & m == 0:
            return list(range(base + low.bit_length() - 1, base + m.bit_length()))
    out = [*b0[lo & 255], *b1[(lo >> 8) & 255], *b2[(lo >> 16) & 255], *b3[lo >> 24]]
    if hi:
        out += [*b4[hi & 255], *b5[(hi >> 8) & 255], *b6[(hi >> 16) & 255], *b7[hi >> 24]]
    if base:
        return [base + i for i in out]
    return out
