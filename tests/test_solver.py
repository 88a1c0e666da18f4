"""Open-hand solver against an independent brute-force minimax (ISKO.md §2, §6, §7).

The oracle below is written from the rules text alone: cards are ``(suit, rank)``
letters, the trump order and following suit are spelled out here, and play is a
memoised plain minimax over card lists. Only the card-id convention
(``id = suit * 8 + rank`` with suits D H S C and ranks 7 8 9 Q K 10 A J) is shared
with the package, to hand positions to the solver.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from skatsim import SkatState
from skatsim.rules import beats, legal_mask
from skatsim.solver import Position, Solver, solve
from skatsim.kernels import solver as K

# --------------------------------------------------------------------------- the oracle

SUITS = "DHSC"
RANKS = "789QKTAJ"  # card id = suit * 8 + rank index (the package's numbering)
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
GAMES = "DHSCGN"  # diamonds hearts spades clubs (trump suits), grand, null


def card(cid: int) -> str:
    return SUITS[cid // 8] + RANKS[cid % 8]


def cid(c: str) -> int:
    return SUITS.index(c[0]) * 8 + RANKS.index(c[1])


def eff_suit(c: str, game: str) -> str:
    """Suit for following: in suit and grand games every jack is a trump ("T"),
    and so is every card of the trump suit; in null each card keeps its suit."""
    if game == "N":
        return c[0]
    if c[1] == "J" or c[0] == game:
        return "T"
    return c[0]


def power(c: str, game: str) -> int:
    """Order inside the effective suit: null A K Q J 10 9 8 7; otherwise
    CJ > SJ > HJ > DJ above A > 10 > K > Q > 9 > 8 > 7."""
    if game == "N":
        return "789TJQKA".index(c[1])
    if c[1] == "J":
        return 10 + "DHSC".index(c[0])
    return "789QKTA".index(c[1])


def trick_winner(trick: tuple[str, ...], game: str) -> int:
    """Highest trump wins, else the highest card of the led suit."""
    best = 0
    for i in (1, 2):
        a, b = trick[i], trick[best]
        sa, sb = eff_suit(a, game), eff_suit(b, game)
        if (sa == sb and power(a, game) > power(b, game)) or (sa == "T" and sb != "T"):
            best = i
    return best


def legal(hand: frozenset[str], trick: tuple[str, ...], game: str) -> list[str]:
    if not trick:
        return sorted(hand)
    led = eff_suit(trick[0], game)
    follow = [c for c in hand if eff_suit(c, game) == led]
    return sorted(follow or hand)


def brute(hands, trick, leader, declarer, game, goal):
    """Minimax from a position. ``goal``: "points" -> the declarer's card points from
    here on; "all" -> 1 if he can take every remaining trick; "none" (null) -> 1 if
    he can avoid every remaining trick."""

    @lru_cache(maxsize=None)
    def value(hs: tuple[frozenset[str], ...], tr: tuple[str, ...], lead: int) -> int:
        if not any(hs) and not tr:
            return 0 if goal == "points" else 1
        p = (lead + len(tr)) % 3
        results = []
        for c in legal(hs[p], tr, game):
            nh = list(hs)
            nh[p] = hs[p] - {c}
            nt = tr + (c,)
            if len(nt) < 3:
                results.append(value(tuple(nh), nt, lead))
                continue
            w = (lead + trick_winner(nt, game)) % 3
            pts = sum(POINTS[x[1]] for x in nt)
            if goal == "points":
                results.append((pts if w == declarer else 0) + value(tuple(nh), (), w))
            elif goal == "all":
                results.append(value(tuple(nh), (), w) if w == declarer else 0)
            else:
                results.append(value(tuple(nh), (), w) if w != declarer else 0)
        return max(results) if p == declarer else min(results)

    return value(tuple(frozenset(h) for h in hands), tuple(trick), leader)


def test_oracle_trick_winner_by_hand():
    assert trick_winner(("S7", "SJ", "SA"), "G") == 1       # a jack trumps in grand
    assert trick_winner(("S7", "SJ", "SA"), "N") == 2       # null: A > J
    assert trick_winner(("HA", "DJ", "CJ"), "H") == 2       # CJ tops the trumps
    assert trick_winner(("H7", "HA", "DJ"), "H") == 2       # DJ above the trump ace
    assert trick_winner(("C7", "S7", "H7"), "D") == 0       # not followed: the lead wins
    assert trick_winner(("ST", "SK", "SA"), "C") == 2
    assert trick_winner(("ST", "SQ", "SK"), "N") == 2       # null: K > Q > 10
    assert legal(frozenset({"SJ", "S7", "HA"}), ("SA",), "G") == ["S7"]   # jack is no spade
    assert legal(frozenset({"SJ", "HA"}), ("SA",), "N") == ["SJ"]         # null: it is
    assert legal(frozenset({"HJ", "DA", "S7"}), ("D7",), "D") == ["DA", "HJ"]


def test_oracle_agrees_with_rules_module():
    """Cross-check of the oracle's rules against skatsim.rules on every card pair."""
    for gi, g in enumerate(GAMES):
        for a in range(32):
            for b in range(32):
                if a == b:
                    continue
                mine = trick_winner((card(b), card(a), card(b)), g) == 1
                assert bool(beats(a, b, gi)) == mine, (g, card(a), card(b))
        rng = np.random.default_rng(gi)
        for _ in range(300):
            hand = frozenset(card(int(c)) for c in rng.choice(32, size=6, replace=False))
            led = card(int(rng.integers(32)))
            if led in hand:
                continue
            want = sum(1 << cid(c) for c in legal(hand, (led,), g))
            assert int(legal_mask(sum(1 << cid(c) for c in hand), cid(led), gi)) == want


def test_rank_tables_agree_with_rules():
    """The solver's rank space is a relabelling of rules.beats / rules.legal_mask."""
    for g in range(6):
        ts = int(K.TRUMP_START[g])
        for a in range(32):
            ra = int(K.TO_RANK[g, a])
            assert int(K.FROM_RANK[g, ra]) == a
            follow_r = int(K.SEG_MASK[g, ra])
            assert int(K.from_rank_mask(follow_r, g)) == int(legal_mask(0xFFFF_FFFF, a, g))
            for b in range(32):
                if a != b:
                    rb = int(K.TO_RANK[g, b])
                    # b leads (so b's suit is led) and a is played to it
                    mine = ra > rb and (ra >= ts or bool(int(K.SEG_MASK[g, rb]) >> ra & 1))
                    assert mine == bool(beats(a, b, g)), (g, a, b)


# --------------------------------------------------------------------------- random positions


def random_position(rng: np.random.Generator, game: int, n_tricks: int, n_trick_cards: int = 0,
                    ouvert_declarer: int | None = None):
    """Deal, then play random legal cards (oracle rules) down to ``n_tricks`` tricks left
    plus ``n_trick_cards`` cards of the next trick. Returns (Position, oracle position)."""
    g = GAMES[game]
    deck = [card(int(c)) for c in rng.permutation(32)]
    hands = [set(deck[0:10]), set(deck[10:20]), set(deck[20:30])]
    skat = deck[30:32]
    declarer = int(rng.integers(3)) if ouvert_declarer is None else ouvert_declarer
    leader, trick = 0, []
    dpts = dtricks = 0
    to_play = 3 * (10 - n_tricks) + n_trick_cards
    for _ in range(to_play):
        p = (leader + len(trick)) % 3
        opts = legal(frozenset(hands[p]), tuple(trick), g)
        c = opts[int(rng.integers(len(opts)))]
        hands[p].discard(c)
        trick.append(c)
        if len(trick) == 3:
            w = (leader + trick_winner(tuple(trick), g)) % 3
            if w == declarer:
                dpts += sum(POINTS[x[1]] for x in trick)
                dtricks += 1
            leader, trick = w, []
            if g == "N" and dtricks:
                return None
    pos = Position.make(hands=[[cid(c) for c in h] for h in hands], skat=[cid(c) for c in skat],
                        game=game, declarer=declarer, trick=[cid(c) for c in trick], leader=leader,
                        declarer_points=dpts, declarer_tricks=dtricks)
    oracle = (hands, tuple(trick), leader, declarer, g, dpts, dtricks, skat)
    return pos, oracle


def oracle_exact(o) -> int:
    hands, trick, leader, declarer, g, dpts, dtricks, skat = o
    if g == "N":
        return brute(hands, trick, leader, declarer, g, "none")
    base = dpts + sum(POINTS[x[1]] for x in skat)
    return base + brute(hands, trick, leader, declarer, g, "points")


def positions(seed: int, game: int, count: int, max_tricks: int = 4):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(1, max_tricks + 1))
        k = int(rng.integers(3))
        r = random_position(rng, game, n, k)
        if r is not None:
            out.append(r)
    return out


GAME_IDS = {"diamonds": 0, "hearts": 1, "spades": 2, "clubs": 3, "grand": 4, "null": 5}


@pytest.mark.parametrize("name", list(GAME_IDS))
def test_exact_matches_brute_force(name):
    game = GAME_IDS[name]
    solver = Solver(tt_bits=16)
    for pos, o in positions(100 + game, game, 150):
        want = oracle_exact(o)
        got = solver.solve(pos, mode="exact")
        assert got.value == want, (str(pos), got, want)


@pytest.mark.parametrize("name", list(GAME_IDS))
def test_threshold_agrees_with_exact(name):
    game = GAME_IDS[name]
    solver = Solver(tt_bits=16)
    rng = np.random.default_rng(7)
    for pos, o in positions(200 + game, game, 80):
        ex = solver.solve(pos, mode="exact").value
        if game == 5:
            assert solver.solve(pos, mode="threshold").value == ex
            continue
        for t in {61, 90, 31, ex, ex + 1, int(rng.integers(0, 121))}:
            if 0 <= t <= 120:
                assert solver.solve(pos, mode="threshold", threshold=t).value == int(ex >= t), (str(pos), t, ex)


@pytest.mark.parametrize("name", ["clubs", "grand", "diamonds"])
def test_schwarz_threshold_matches_brute_force(name):
    game = GAME_IDS[name]
    solver = Solver(tt_bits=16)
    for pos, o in positions(300 + game, game, 100):
        hands, trick, leader, declarer, g, dpts, dtricks, skat = o
        played = 10 - pos.tricks_left
        want = brute(hands, trick, leader, declarer, g, "all") if dtricks == played else 0
        assert solver.solve(pos, mode="threshold", threshold="schwarz").value == want, str(pos)


def child_position(pos: Position, c: int) -> Position:
    """The position after the player to move plays card ``c`` (oracle rules)."""
    g = GAMES[pos.game]
    p = pos.player
    hands = list(pos.hands)
    hands[p] &= ~(1 << c)
    trick = pos.trick + (c,)
    if len(trick) < 3:
        return Position(tuple(hands), pos.skat, pos.game, pos.declarer, trick, pos.leader,
                        pos.declarer_points, pos.declarer_tricks)
    w = (pos.leader + trick_winner(tuple(card(x) for x in trick), g)) % 3
    pts = sum(POINTS[card(x)[1]] for x in trick) if w == pos.declarer else 0
    return Position(tuple(hands), pos.skat, pos.game, pos.declarer, (), w,
                    pos.declarer_points + pts, pos.declarer_tricks + (w == pos.declarer))


@pytest.mark.parametrize("name", list(GAME_IDS))
def test_move_values_match_children(name):
    game = GAME_IDS[name]
    solver = Solver(tt_bits=16)
    fresh = Solver(tt_bits=16)
    for pos, o in positions(400 + game, game, 40, max_tricks=4):
        mode = "exact"
        r = solver.solve(pos, mode=mode, move_values=True)
        assert sorted(r.move_values) == pos.legal_moves()
        for c, v in r.move_values.items():
            ch = child_position(pos, c)
            if game == 5 and ch.declarer_tricks:
                want = 0
            elif ch.tricks_left == 0 and not ch.trick:
                want = (ch.declarer_points + (ch.skat and sum(POINTS[card(x)[1]] for x in range(32) if ch.skat >> x & 1))
                        if game != 5 else 1)
            else:
                want = fresh.solve(ch, mode=mode).value
            assert v == want, (str(pos), card(c), v, want)
        assert r.value == solver.solve(pos, mode=mode).value
        top = max(r.move_values.values()) if pos.player == pos.declarer else min(r.move_values.values())
        assert set(r.best_moves) == {c for c, v in r.move_values.items() if v == top}
        # threshold move values
        if game != 5:
            t = 61
            rt = solver.solve(pos, mode="threshold", threshold=t, move_values=True)
            assert rt.move_values == {c: int(v >= t) for c, v in r.move_values.items()}
