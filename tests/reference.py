"""An independent, deliberately simple reference implementation of ISkO Skat.

Written from ``docs/ISKO.md`` (section numbers below refer to it), not from
skatsim's code, and it imports nothing from skatsim. It is the oracle the numba kernels
and the state machine are checked against. Clarity over speed: cards are ``(suit, rank)``
tuples of strings, orders are explicit lists, every rule is a few lines of plain Python.

- cards: suits ``C S H D``, ranks ``A 10 K Q J 9 8 7`` (§1, §16); ``T`` parses as ``10``
- trumps and rank orders per game type (§2); game letters ``D H S C G N`` and ``R`` (Ramsch, §16)
- follow suit and trick winner (§6), card points (§2)
- matadors, game value, overbid, list score, Seeger-Fabian (§7-§12)
- the bid ladder (§4), the auction (§3) and the declarations allowed (§5, §16)
- :class:`RefGame`: a whole game from the deal to the settlement
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

# --------------------------------------------------------------------------- cards (§1, §2)

SUITS = ("C", "S", "H", "D")
RANKS = ("A", "10", "K", "Q", "J", "9", "8", "7")
Card = tuple  # (suit, rank), e.g. ("C", "J")
DECK: list = [(s, r) for s in SUITS for r in RANKS]

POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}

#: Seats (§1): 0 forehand, 1 middlehand, 2 rearhand. The i-th card of a deck goes to:
DEAL_PATTERN = [0, 0, 0, 1, 1, 1, 2, 2, 2, "skat", "skat",
                0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                0, 0, 0, 1, 1, 1, 2, 2, 2]


def card(text: str) -> Card:
    """``"CJ"`` -> ``("C", "J")``; ``T`` and ``10`` are the ten; case-insensitive."""
    t = text.strip().upper()
    suit, rank = t[:1], t[1:]
    if rank == "T":
        rank = "10"
    if suit not in SUITS or rank not in RANKS:
        raise ValueError(f"not a card: {text!r}")
    return (suit, rank)


def cards(text: str) -> list:
    """Cards from whitespace/comma/dot separated text."""
    return [card(t) for t in text.replace(",", " ").replace(".", " ").split()]


def name(c: Card) -> str:
    return c[0] + c[1]


def names(cs: Iterable[Card]) -> str:
    return " ".join(name(c) for c in cs)


def points(cs: Iterable[Card]) -> int:
    return sum(POINTS[r] for _, r in cs)


def deal_in_order(deck: list) -> tuple:
    """Deal 3 - skat - 4 - 3 (§1): ``([forehand, middlehand, rearhand], skat)``."""
    hands: list = [[], [], []]
    skat = []
    for c, who in zip(deck, DEAL_PATTERN):
        (skat if who == "skat" else hands[who]).append(c)
    return hands, skat


# --------------------------------------------------------------------------- game types (§2)

GAMES = ("D", "H", "S", "C", "G", "N", "R")  # R: Ramsch, the optional all-pass variant (§16)
SUIT_GAMES = ("D", "H", "S", "C")
BASE_VALUE = {"D": 9, "H": 10, "S": 11, "C": 12, "G": 24}
NULL_VALUES = {(False, False): 23, (True, False): 35, (False, True): 46, (True, True): 59}  # (hand, ouvert)

JACKS_HIGH_TO_LOW = [("C", "J"), ("S", "J"), ("H", "J"), ("D", "J")]
PLAIN_ORDER = ["A", "10", "K", "Q", "9", "8", "7"]  # suit and grand games, high to low
NULL_ORDER = ["A", "K", "Q", "J", "10", "9", "8", "7"]  # null, high to low


def _trump_order(game: str) -> list:
    if game in SUIT_GAMES:
        return JACKS_HIGH_TO_LOW + [(game, r) for r in PLAIN_ORDER]
    if game in ("G", "R"):
        return list(JACKS_HIGH_TO_LOW)
    return []


_TRUMP_ORDERS = {g: _trump_order(g) for g in GAMES}


def trump_order(game: str) -> list:
    """The trumps of a game, highest first: 11 in a suit game, the 4 jacks in grand/Ramsch,
    none in null. (A shared list: do not modify it.)"""
    return _TRUMP_ORDERS[game]


def is_trump(c: Card, game: str) -> bool:
    return c in trump_order(game)


def effective_suit(c: Card, game: str) -> str:
    """``"trump"`` for a trump, else the printed suit (jacks are trumps except in null)."""
    return "trump" if is_trump(c, game) else c[0]


def legal_plays(hand: list, trick: list, game: str) -> list:
    """§6: follow the led card's effective suit if able, else play anything."""
    if not trick:
        return list(hand)
    want = effective_suit(trick[0], game)
    same = [c for c in hand if effective_suit(c, game) == want]
    return same if same else list(hand)


def trick_winner(trick: list, game: str) -> int:
    """§6: position (0 = leader) of the highest trump, else of the highest card of the led suit."""
    trumps = trump_order(game)
    in_trick = [i for i, c in enumerate(trick) if c in trumps]
    if in_trick:
        return min(in_trick, key=lambda i: trumps.index(trick[i]))
    led = trick[0][0]
    order = NULL_ORDER if game == "N" else PLAIN_ORDER
    followers = [i for i, c in enumerate(trick) if c[0] == led]
    return min(followers, key=lambda i: order.index(trick[i][1]))


# --------------------------------------------------------------------------- matadors (§8)

def matadors(cards12: Iterable[Card], game: str) -> int:
    """``+n`` "with n", ``-n`` "without n", counted from the declarer's 10 cards + the skat."""
    held = set(cards12)
    seq = trump_order(game)
    if game not in SUIT_GAMES and game != "G":
        return 0
    n = 0
    if seq[0] in held:
        while n < len(seq) and seq[n] in held:
            n += 1
        return n
    while n < len(seq) and seq[n] not in held:
        n += 1
    return -n


# --------------------------------------------------------------------------- contracts (§5)

@dataclass(frozen=True)
class RefContract:
    game: str  # D H S C G N
    hand: bool = False
    schneider_announced: bool = False
    schwarz_announced: bool = False
    ouvert: bool = False

    def normal(self) -> "RefContract":
        """Implications of §5/§8: ouvert (suit/grand) = hand + schneider + schwarz announced;
        schwarz announced implies schneider announced; announcements only in hand games."""
        if self.game == "N":
            return RefContract("N", self.hand, False, False, self.ouvert)
        h, s, z, o = self.hand, self.schneider_announced, self.schwarz_announced, self.ouvert
        if o:
            h = s = z = True
        if z:
            s = True
        if s:
            h = True
        return RefContract(self.game, h, s, z, o)

    @property
    def value_if_null(self) -> int:
        return NULL_VALUES[(self.hand, self.ouvert)]


def parse_iss_contract(token: str) -> RefContract:
    """ISS game-type token (ISS_FORMAT.md §3): letter then modifiers H S Z O in any order."""
    t = token.strip().upper()
    game, mods = t[0], set(t[1:])
    if game not in "DHSCGN" or not mods <= set("HSZO") or len(mods) != len(t) - 1:
        raise ValueError(f"not an ISS game token: {token!r}")
    if game == "N" and mods & set("SZ"):
        raise ValueError(f"null has no schneider/schwarz announcement: {token!r}")
    return RefContract(game, "H" in mods, "S" in mods, "Z" in mods, "O" in mods).normal()


def declarable(picked_up: bool, bid: int) -> set:
    """The contracts a declarer may announce (§5 and the project decisions of §16).

    After a pickup: the 4 suits and grand (no hand, no announcement, no ouvert, even when they
    can only end overbid), null and null ouvert. In a hand game: each suit and grand as hand,
    schneider announced, schwarz announced or ouvert; null hand and null ouvert hand. A null
    game whose fixed value is below the bid is not declarable.
    """
    out = set()
    for g in ("D", "H", "S", "C", "G"):
        if picked_up:
            out.add(RefContract(g))
        else:
            out.add(RefContract(g, hand=True))
            out.add(RefContract(g, True, True))
            out.add(RefContract(g, True, True, True))
            out.add(RefContract(g, True, True, True, True))
    for ouvert in (False, True):
        c = RefContract("N", hand=not picked_up, ouvert=ouvert)
        if c.value_if_null >= bid:
            out.add(c)
    return out


# --------------------------------------------------------------------------- bid ladder (§4)

#: Copied from ISKO.md §4.
BID_LADDER = [18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63, 66,
              70, 72, 77, 80, 81, 84, 88, 90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130, 132,
              135, 140, 143, 144, 150, 153, 154, 156, 160, 162, 165, 168, 170, 176, 180, 187, 192,
              198, 204, 216, 240, 264]


def derived_ladder() -> list:
    """§4: every possible game value: suit base x 2..18, grand 24 x 2..11, null values."""
    vals = {b * m for b in (9, 10, 11, 12) for m in range(2, 19)}
    vals |= {24 * m for m in range(2, 12)}
    vals |= set(NULL_VALUES.values())
    return sorted(vals)


# --------------------------------------------------------------------------- settlement (§7-§12)

@dataclass
class RefResult:
    won: bool
    matadors: int
    multiplier: int
    game_value: int
    overbid: bool
    charged_value: int
    list_score: int
    schneider: bool
    schwarz: bool
    sf_declarer: int
    sf_defender_3: int
    sf_defender_4: int


def lowest_multiple_at_least(base: int, bid: int) -> int:
    v = base
    while v < bid:
        v += base
    return v


def settle(contract: RefContract, cards12: Iterable[Card], bid: int, declarer_points: int,
           declarer_tricks: int) -> RefResult:
    """Settle a suit, grand or null game (§7-§12). ``declarer_points`` include the skat."""
    c = contract.normal()
    if c.game == "N":
        value = c.value_if_null
        if value < bid:
            raise ValueError("a null game below the bid is not declarable (ISKO.md §16)")
        won = declarer_tricks == 0
        score = value if won else -2 * value
        return RefResult(won, 0, 0, value, False, value, score, False, False,
                         score + (50 if won else -50), 0 if won else 40, 0 if won else 30)
    mat = matadors(cards12, c.game)
    schwarz = declarer_tricks == 0 or declarer_tricks == 10           # §9: by tricks
    schneider = declarer_points >= 90 or declarer_points <= 30 or schwarz  # §9: a party <= 30
    levels = abs(mat) + 1                                               # matadors + game
    levels += 1 if c.hand else 0
    levels += 1 if (schneider or c.schneider_announced) else 0          # schneider (once)
    levels += 1 if c.schneider_announced else 0
    levels += 1 if (schwarz or c.schwarz_announced) else 0
    levels += 1 if c.schwarz_announced else 0
    levels += 1 if c.ouvert else 0
    base = BASE_VALUE[c.game]
    value = base * levels
    if c.schwarz_announced:
        won = declarer_tricks == 10
    elif c.schneider_announced:
        won = declarer_points >= 90
    else:
        won = declarer_points >= 61
    overbid = value < bid
    charged = value
    if overbid:
        won = False
        charged = lowest_multiple_at_least(base, bid)
    score = charged if won else -2 * charged
    return RefResult(won, mat, levels, value, overbid, charged, score, schneider, schwarz,
                     score + (50 if won else -50), 0 if won else 40, 0 if won else 30)


# --------------------------------------------------------------------------- the auction (§3)

class RefAuction:
    """§3: middlehand bids to forehand, rearhand bids to the survivor, forehand may play at 18
    after two passes. Moves are strings: a bid value (``"18"``), ``"yes"`` or ``"pass"``."""

    def __init__(self) -> None:
        self.highest = 0            # the last value named (0: none yet)
        self.bidder, self.responder = 1, 0
        self.stage = "first duel"   # "first duel", "second duel", "forehand alone", "over"
        self.to_move = 1
        self.declarer: Optional[int] = None
        self.passed_in = False
        self.passed: set = set()

    def legal(self) -> list:
        if self.stage == "over":
            return []
        if self.stage == "forehand alone":
            return ["18", "pass"]
        if self.to_move == self.responder:
            return ["yes", "pass"]
        return [str(v) for v in BID_LADDER if v > self.highest] + ["pass"]

    def _duel_over(self, survivor: int) -> None:
        if self.stage == "first duel":
            self.stage, self.bidder, self.responder, self.to_move = "second duel", 2, survivor, 2
        elif self.highest > 0:
            self.stage, self.declarer, self.to_move = "over", survivor, None
        else:
            self.stage, self.to_move = "forehand alone", 0

    def apply(self, move: str) -> None:
        if move not in self.legal():
            raise ValueError(f"illegal bidding move {move!r}; legal {self.legal()}")
        p = self.to_move
        if self.stage == "forehand alone":
            if move == "pass":
                self.passed.add(0)
                self.stage, self.passed_in, self.to_move = "over", True, None
            else:
                self.highest, self.declarer, self.stage, self.to_move = 18, 0, "over", None
            return
        if move == "pass":
            self.passed.add(p)
            self._duel_over(self.responder if p == self.bidder else self.bidder)
        elif move == "yes":
            self.to_move = self.bidder
        else:
            self.highest = int(move)
            self.to_move = self.responder


# --------------------------------------------------------------------------- a whole game

@dataclass
class RefGame:
    """A whole game, driven by text moves: bids, ``pickup``/``hand``, discards, an ISS contract
    token, ``kontra``/``re`` (option), cards. ``legal()`` lists the legal moves as text."""

    hands: list
    skat: list
    ramsch: bool = False
    kontra_option: bool = False
    auction: RefAuction = field(default_factory=RefAuction)
    phase: str = "bidding"
    declarer: Optional[int] = None
    contract: Optional[RefContract] = None
    game: Optional[str] = None
    picked_up: bool = False
    to_move: Optional[int] = 1
    trick: list = field(default_factory=list)
    leader: int = 0
    tricks: list = field(default_factory=list)  # (leader, cards, winner)
    won_cards: list = field(default_factory=lambda: [[], [], []])
    kontra: int = 0
    kontra_asked: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.dealt = [list(h) for h in self.hands]
        self.dealt_skat = list(self.skat)
        self.hands = [list(h) for h in self.hands]
        self.skat = list(self.skat)

    # -------------------------------------------------------------- moves
    def legal(self) -> list:
        if self.phase == "bidding":
            return self.auction.legal()
        if self.phase == "skat":
            return ["pickup", "hand"]
        if self.phase == "discard":
            return [name(c) for c in self.hands[self.declarer]]
        if self.phase == "declare":
            return sorted(_token(c) for c in declarable(self.picked_up, self.auction.highest))
        if self.phase == "kontra":
            return ["pass", "re"] if self.kontra == 1 else ["pass", "kontra"]
        if self.phase == "play":
            return [name(c) for c in legal_plays(self.hands[self.to_move], self.trick, self.game)]
        return []

    def apply(self, move: str) -> None:
        legal = self.legal()
        if self.phase in ("discard", "play"):
            move = name(card(move))
        elif self.phase == "declare":
            move = _token(parse_iss_contract(move))
        if move not in legal:
            raise ValueError(f"illegal move {move!r} in phase {self.phase}; legal {legal}")
        getattr(self, "_apply_" + self.phase)(move)

    def _apply_bidding(self, move: str) -> None:
        self.auction.apply(move)
        self.to_move = self.auction.to_move
        if self.auction.stage != "over":
            return
        if self.auction.passed_in:
            if self.ramsch:
                self.game, self.phase, self.to_move = "R", "play", 0
            else:
                self.phase, self.to_move = "done", None
        else:
            self.declarer = self.auction.declarer
            self.phase, self.to_move = "skat", self.declarer

    def _apply_skat(self, move: str) -> None:
        if move == "pickup":
            self.picked_up = True
            self.hands[self.declarer] += self.skat
            self.skat = []
            self.phase = "discard"
        else:
            self.phase = "declare"

    def _apply_discard(self, move: str) -> None:
        c = card(move)
        self.hands[self.declarer].remove(c)
        self.skat.append(c)
        if len(self.skat) == 2:
            self.phase = "declare"

    def _apply_declare(self, move: str) -> None:
        self.contract = parse_iss_contract(move)
        self.game = self.contract.game
        if self.kontra_option:
            self.phase = "kontra"
            self.kontra_asked = [s for s in range(3) if s != self.declarer]
            self.to_move = self.kontra_asked.pop(0)
        else:
            self.phase, self.to_move = "play", 0

    def _apply_kontra(self, move: str) -> None:
        if move == "kontra":
            self.kontra, self.to_move = 1, self.declarer
        elif move == "re":
            self.kontra = 2
            self.phase, self.to_move = "play", 0
        elif self.kontra == 0 and self.kontra_asked:
            self.to_move = self.kontra_asked.pop(0)
        else:
            self.phase, self.to_move = "play", 0

    def _apply_play(self, move: str) -> None:
        c = card(move)
        self.hands[self.to_move].remove(c)
        self.trick.append(c)
        if len(self.trick) < 3:
            self.to_move = (self.to_move + 1) % 3
            return
        w = (self.leader + trick_winner(self.trick, self.game)) % 3
        self.tricks.append((self.leader, list(self.trick), w))
        self.won_cards[w] += self.trick
        self.trick = []
        self.leader = self.to_move = w
        if len(self.tricks) == 10 or (self.game == "N" and w == self.declarer):
            self.phase, self.to_move = "done", None

    # -------------------------------------------------------------- result
    def trick_points(self) -> list:
        return [points(w) for w in self.won_cards]

    def tricks_won(self) -> list:
        return [sum(1 for _, _, w in self.tricks if w == s) for s in range(3)]

    def result(self) -> dict:
        """The settlement as a dict of plain values (``None`` fields where not applicable)."""
        assert self.phase == "done"
        if self.game is None:
            return {"passed_in": True, "scores": [0, 0, 0]}
        if self.game == "R":  # §16: the skat goes to the last trick's winner; the most points pay
            pts = self.trick_points()
            pts[self.tricks[-1][2]] += points(self.skat)
            top = max(pts)
            return {"ramsch": True, "card_points": pts, "scores": [-p if p == top else 0 for p in pts]}
        d = self.declarer
        dpts = self.trick_points()[d] + points(self.skat)
        dtricks = self.tricks_won()[d]
        r = settle(self.contract, self.dealt[d] + self.dealt_skat, self.auction.highest, dpts, dtricks)
        score = r.list_score * (2 ** self.kontra)
        scores = [0, 0, 0]
        scores[d] = score
        return {"declarer": d, "bid": self.auction.highest, "contract": self.contract,
                "declarer_points": dpts, "declarer_tricks": dtricks, "won": r.won,
                "matadors": r.matadors, "multiplier": r.multiplier, "game_value": r.game_value,
                "overbid": r.overbid, "charged_value": r.charged_value, "list_score": score,
                "schneider": r.schneider, "schwarz": r.schwarz, "scores": scores,
                "seeger_fabian": [score + (50 if r.won else -50) if s == d else (0 if r.won else 40)
                                  for s in range(3)]}


def _token(c: RefContract) -> str:
    """A canonical ISS token for a normal contract (for comparisons only)."""
    c = c.normal()
    if c.game == "N":
        return "N" + ("O" if c.ouvert else "") + ("H" if c.hand else "")
    if c.ouvert:
        return c.game + "O"
    return c.game + ("H" if c.hand else "") + ("S" if c.schneider_announced else "") + \
        ("Z" if c.schwarz_announced else "")


canonical_token = _token
