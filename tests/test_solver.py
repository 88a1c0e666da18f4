"""Open-hand solver against an independent brute-force minimax (ISKO.md §2, §6, §7).

The oracle below is written from the rules text alone: cards are ``(suit, rank)``
letters, the trump order and following suit are spelled out here, and play is a
memoised plain minimax over card lists. Only the card-id convention
(``id = suit * 8 + rank`` with suits D H S C and ranks 7 8 9 Q K 10 A J) is shared
with the package, to hand positions to the solver.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest

from skatsim import SkatState
from skatsim.rules import beats, legal_mask
from skatsim.solver import Position, Solver, solve, target_for
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


def val(r) -> int:
    """A solution as one int: the declarer's points when known, else 1/0 (he wins / loses)."""
    return r.declarer_points if r.declarer_points is not None else int(r.declarer_wins)


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


def positions(seed: int, game: int, count: int, max_tricks: int = 5):
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
        assert val(got) == want, (str(pos), got, want)


@pytest.mark.parametrize("name", list(GAME_IDS))
def test_threshold_agrees_with_exact(name):
    game = GAME_IDS[name]
    solver = Solver(tt_bits=16)
    rng = np.random.default_rng(7)
    for pos, o in positions(200 + game, game, 80):
        ex = val(solver.solve(pos, mode="exact"))
        if game == 5:
            assert val(solver.solve(pos, mode="threshold")) == ex
            continue
        for t in {61, 90, 31, ex, ex + 1, int(rng.integers(0, 121))}:
            if 0 <= t <= 120:
                assert val(solver.solve(pos, mode="threshold", threshold=t)) == int(ex >= t), (str(pos), t, ex)


@pytest.mark.parametrize("name", ["clubs", "grand", "diamonds"])
def test_schwarz_threshold_matches_brute_force(name):
    game = GAME_IDS[name]
    solver = Solver(tt_bits=16)
    for pos, o in positions(300 + game, game, 100):
        hands, trick, leader, declarer, g, dpts, dtricks, skat = o
        played = 10 - pos.tricks_left
        want = brute(hands, trick, leader, declarer, g, "all") if dtricks == played else 0
        assert val(solver.solve(pos, mode="threshold", threshold="schwarz")) == want, str(pos)


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
        assert sorted(r.move_values) == pos.legal_cards()
        for c, v in r.move_values.items():
            ch = child_position(pos, c)
            if game == 5 and ch.declarer_tricks:
                want = 0
            elif ch.tricks_left == 0 and not ch.trick:
                want = (ch.declarer_points + (ch.skat and sum(POINTS[card(x)[1]] for x in range(32) if ch.skat >> x & 1))
                        if game != 5 else 1)
            else:
                want = val(fresh.solve(ch, mode=mode))
            assert v == want, (str(pos), card(c), v, want)
        assert val(r) == val(solver.solve(pos, mode=mode))
        top = max(r.move_values.values()) if pos.player == pos.declarer else min(r.move_values.values())
        assert set(r.best_moves) == {c for c, v in r.move_values.items() if v == top}
        # threshold move values
        if game != 5:
            t = 61
            rt = solver.solve(pos, mode="threshold", threshold=t, move_values=True)
            assert rt.move_values == {c: int(v >= t) for c, v in r.move_values.items()}


@pytest.mark.parametrize("name", ["hearts", "grand", "null"])
def test_best_moves_are_optimal(name):
    game = GAME_IDS[name]
    solver = Solver(tt_bits=16)
    for pos, o in positions(500 + game, game, 60):
        mv = solver.solve(pos, mode="exact", move_values=True).move_values
        r = solver.solve(pos, mode="exact")
        assert r.best_moves and all(mv[c] == val(r) for c in r.best_moves), (str(pos), r, mv)
        if game == 5:
            continue
        rt = solver.solve(pos, mode="threshold", threshold=61)
        mover_is_declarer = pos.player == pos.declarer
        if val(rt) == int(mover_is_declarer):  # the mover reaches his goal: the move must too
            assert all((mv[c] >= 61) == mover_is_declarer for c in rt.best_moves), (str(pos), rt, mv)
        else:
            assert set(rt.best_moves) == set(pos.legal_cards())


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAME_IDS))
def test_exact_matches_brute_force_six_tricks(name):
    game = GAME_IDS[name]
    rng = np.random.default_rng(600 + game)
    solver = Solver(tt_bits=18)
    done = 0
    while done < 25:
        r = random_position(rng, game, 6, int(rng.integers(3)))
        if r is None:
            continue
        pos, o = r
        assert val(solver.solve(pos, mode="exact")) == oracle_exact(o), str(pos)
        done += 1


# --------------------------------------------------------------------------- API


def play_game(seed: int, contract: str, n_cards: int) -> SkatState:
    """Forehand plays ``contract`` (hand); then ``n_cards`` cards of seeded random legal play."""
    s = SkatState.new_game(seed=seed)
    for a in ("18", "yes", "pass", "pass", "hand", contract):
        s.apply_action(s.string_to_action(a))
    rng = np.random.default_rng(seed)
    for _ in range(n_cards):
        if s.is_terminal():
            break
        acts = s.legal_actions()
        s.apply_action(acts[int(rng.integers(len(acts)))])
    return s


@pytest.mark.parametrize("contract", ["CH", "GH", "NH", "CO", "GO", "NOH", "DHZ"])
def test_state_input_and_ouvert(contract):
    """A SkatState in the play phase (ouvert contracts too) solves like its Position,
    and near the end like the brute force."""
    for seed in range(3):
        s = play_game(seed, contract, 3 * 7 + seed)
        if s.is_terminal():
            continue
        pos = Position.from_state(s)
        assert pos.player == s.current_player()
        assert sorted(pos.legal_cards()) == sorted(s.legal_actions())
        assert solve(s).target == target_for(s.contract)  # a state is judged against its announced goal
        r = solve(s, mode="exact", move_values=True, threshold=61 if pos.game != 5 else "null")
        assert r == solve(pos, mode="exact", move_values=True)
        hands = [{card(c) for c in range(32) if pos.hands[p] >> c & 1} for p in range(3)]
        g = GAMES[pos.game]
        skat = [card(c) for c in range(32) if pos.skat >> c & 1]
        o = (hands, tuple(card(c) for c in pos.trick), pos.leader, pos.declarer, g,
             pos.declarer_points, pos.declarer_tricks, skat)
        assert val(r) == oracle_exact(o)


def test_solve_along_a_game_reuses_table_consistently():
    """One Solver along the positions of a game (its table reused) agrees with fresh solvers."""
    s = play_game(11, "SH", 0)
    shared = Solver(tt_bits=18)
    while not s.is_terminal():
        r = shared.solve(s, mode="exact", move_values=True)
        assert val(r) == val(Solver(tt_bits=16).solve(s, mode="exact"))
        assert val(r) == max(r.move_values.values()) if s.current_player() == s.declarer \
            else val(r) == min(r.move_values.values())
        s.apply_action(r.best_moves[0])
    assert s.result.declarer_points == r.move_values[s.history()[-1]]


def test_full_deals_threshold_consistent_with_exact():
    solver = Solver()
    for seed, contract in ((1, "GH"), (2, "CH"), (3, "SH"), (4, "HH")):
        s = play_game(seed, contract, 0)
        ex = val(solver.solve(s, mode="exact"))
        for t in (61, 90, ex, ex + 1):
            if t <= 120:
                assert val(solver.solve(s, mode="threshold", threshold=t)) == int(ex >= t)
        sch = val(solver.solve(s, mode="threshold", threshold="schwarz"))
        assert sch == 0 or ex == 120


def test_null_full_deal():
    s = play_game(5, "NH", 0)
    r = solve(s, mode="threshold", move_values=True)
    assert r.target == "null" and val(r) in (0, 1)
    assert val(r) == val(solve(s, mode="exact"))


def test_position_validation_errors():
    ok = dict(hands=("CJ SA", "C7 S7", "SK H7"), skat="D7 D8", game=3, declarer=0, leader=0)
    Position.make(**ok)
    bad = [
        (dict(ok, hands=("CJ SA", "C7", "SK H7")), "wrong card counts"),
        (dict(ok, hands=("CJ SA", "CJ S7", "SK H7")), "repeats card"),
        (dict(ok, skat="D7"), "skat must hold 2 cards"),
        (dict(ok, skat="D7 SA"), "repeats card"),
        (dict(ok, game=6), "game must be 0..5"),
        (dict(ok, declarer=3), "declarer must be a seat"),
        (dict(ok, trick=["HA", "HK", "HQ"]), "0..2 cards"),
        (dict(ok, declarer_points=200), "declarer_points 200 is impossible"),
        (dict(ok, declarer_tricks=9), "declarer_tricks 9 is impossible"),
        (dict(ok, game=5, declarer_tricks=1), "null game is over"),
        (dict(ok, hands=("CJ SA", "C7 S7", "SK H7 HA")), "wrong card counts"),
        (dict(ok, hands=("CJ", "S7", "SK H7"), trick=["SA", "H8"]), "could follow suit"),
        (dict(ok, trick=["S9", "XX"]), "malformed card"),
    ]
    for kw, msg in bad:
        with pytest.raises(ValueError, match=msg):
            Position.make(**kw)
    p = Position.make(hands=("CJ", "C7 S7", "SK H7"), skat="D7 D8", game=3, declarer=0, leader=0,
                      trick=["SA"])
    assert p.player == 1 and p.legal_cards() == [cid("S7")]
    with pytest.raises(ValueError, match="mode must be"):
        solve(p, mode="fast")
    with pytest.raises(ValueError, match="threshold must be"):
        solve(p, mode="threshold", threshold=121)
    with pytest.raises(ValueError, match="play phase"):
        solve(SkatState.new_game(seed=1))
    with pytest.raises(ValueError, match="tt_bits"):
        Solver(tt_bits=40)
    with pytest.raises(ValueError, match="not both"):
        solve(p, hands=("CJ", "C7", "SK"))


_NOJIT_SCRIPT = """
import json
from skatsim import deal
from skatsim.solver import Position, Solver
out = []
for i, g in enumerate((0, 3, 4, 5)):
    h0, h1, h2, sk = deal(900 + i).masks()
    # a 2-trick ending: keep each seat's two highest cards
    hs = [sum(1 << c for c in sorted(c for c in range(32) if h >> c & 1)[-2:]) for h in (h0, h1, h2)]
    p = Position((hs[0], hs[1], hs[2]), sk, g, 1, (), 0, 0, 0)
    r = Solver(tt_bits=12).solve(p, mode="exact", move_values=True)
    out.append([r.declarer_points, r.declarer_wins, sorted(r.move_values.items()), list(r.best_moves)])
print(json.dumps(out))
"""


def test_pure_python_solver_agrees():
    """NUMBA_DISABLE_JIT=1 runs the same kernel source as plain Python, with the same answers."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", _NOJIT_SCRIPT], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    jit = subprocess.run([sys.executable, "-c", _NOJIT_SCRIPT], capture_output=True, text=True, timeout=600)
    assert jit.returncode == 0, jit.stderr[-2000:]
    assert json.loads(proc.stdout) == json.loads(jit.stdout)


def oracle_of(pos: Position):
    """The oracle's form of a Position."""
    hands = [{card(c) for c in range(32) if h >> c & 1} for h in pos.hands]
    skat = [card(c) for c in range(32) if pos.skat >> c & 1]
    return (hands, tuple(card(c) for c in pos.trick), pos.leader, pos.declarer, GAMES[pos.game],
            pos.declarer_points, pos.declarer_tricks, skat)


@pytest.mark.parametrize("name", ["clubs", "grand", "null"])
def test_batched_root_values_match_brute_force(name):
    """Kernel root move values of small endgames (one batch call) = brute force per child."""
    game = GAME_IDS[name]
    ps = [p for p, _ in positions(700 + game, game, 30, max_tricks=3)]
    solver = Solver(tt_bits=14)
    ex = solver.solve_many(ps, mode="exact")
    th = solver.solve_many(ps, mode="threshold", threshold=61 if game != 5 else "null")
    for pos, row_ex, row_th in zip(ps, ex, th):
        assert {c for c in range(32) if row_ex[c] >= 0} == set(pos.legal_cards())
        for c in pos.legal_cards():
            ch = child_position(pos, c)
            if game == 5 and ch.declarer_tricks:
                want = 0
            elif ch.tricks_left == 0 and not ch.trick:
                want = 1 if game == 5 else ch.declarer_points + sum(POINTS[card(x)[1]] for x in range(32)
                                                                    if ch.skat >> x & 1)
            else:
                want = oracle_exact(oracle_of(ch))
            assert row_ex[c] == want, (str(pos), card(c))
            assert row_th[c] == (want if game == 5 else int(want >= 61))


def test_solution_fields_and_targets():
    from skatsim.contracts import Contract

    s = play_game(2, "CH", 0)
    r = solve(s, mode="exact")
    assert r.declarer_points == 78 and r.declarer_wins and r.target == 61
    assert r.value_for(s.declarer) == 78.0 and r.value_for((s.declarer + 1) % 3) == 42.0
    t = solve(s, mode="threshold", threshold=90)
    assert t.declarer_points is None and not t.declarer_wins and t.target == 90
    assert t.value_for((s.declarer + 1) % 3) == 1.0 and t.mover_value == float(t.player != s.declarer)
    assert not solve(s, mode="exact", threshold=90).declarer_wins
    assert solve(s, mode="exact", threshold=90).declarer_points == 78
    with pytest.warns(DeprecationWarning):
        assert r.value == 78
    assert [target_for(c) for c in ("D", "GH", "HHS", "CHSZ", "SO", "N", "NOH")] == \
        [61, 61, 90, "schwarz", "schwarz", "null", "null"]
    assert target_for(Contract(4)) == 61
    with pytest.raises(ValueError, match="null"):
        solve(play_game(5, "NH", 0), threshold=90)
    n = solve(play_game(5, "NH", 0), threshold="null")
    assert n.declarer_points is None and n.target == "null"
    vf = Solver().value_function()
    assert vf(s, s.declarer) == 1.0 and vf(s, (s.declarer + 1) % 3) == 0.0
    assert Solver().value_function("exact")(s, s.declarer) == 78.0


def test_node_limit_rows_unknown_or_exact():
    """A per-world node budget: rows over it are -2 on every legal card, rows within it
    are the unbudgeted answers, and an abandoned search leaves the table sound."""
    from skatsim.infostate import InfoState, sample_worlds

    s = play_game(11, "GH", 3)  # a grand at the lead of trick 2
    info = InfoState.from_state(s, s.current_player())
    worlds = sample_worlds(info, 12, rng=5)
    ref = Solver(tt_bits=16)
    want = ref.root_values(worlds, info, threshold=61)
    used = ref.row_nodes.copy()
    assert used.shape == (12,) and (used > 1).all() and used.sum() == ref.nodes
    legal = want >= 0
    assert (want[legal] <= 1).all() and (want[~legal] == -1).all()

    tiny = Solver(tt_bits=16)
    got = tiny.root_values(worlds, info, threshold=61, node_limit=1)
    assert (got[legal] == -2).all() and (got[~legal] == -1).all()
    # the same solver, with no budget now, still gives the exact answers (nothing wrong stored)
    assert np.array_equal(tiny.root_values(worlds, info, threshold=61), want)
    assert np.array_equal(Solver(tt_bits=16).root_values(worlds, info, threshold=61, node_limit=10**12), want)

    # a budget between the rows' needs: identical to the unbudgeted run up to the first row
    # over it (same table state until then), that row unknown, every row -2 or exact
    lim = int(np.sort(used)[len(used) // 2])
    first_over = int(np.flatnonzero(used > lim)[0])
    mid = Solver(tt_bits=16)
    got = mid.root_values(worlds, info, threshold=61, node_limit=lim)
    assert np.array_equal(got[:first_over], want[:first_over])
    assert (got[first_over][legal[first_over]] == -2).all()
    for g, w, lg in zip(got, want, legal):
        assert (g[lg] == -2).all() or np.array_equal(g, w)
    assert (mid.row_nodes[got.max(axis=1) == -2] > lim).all()
    assert np.array_equal(mid.root_values(worlds, info, threshold=61), want)

    # exact mode and solve_many take the budget too
    ex = Solver(tt_bits=16).root_values(worlds[:3], info, mode="exact")
    assert np.array_equal(Solver(tt_bits=16).root_values(worlds[:3], info, mode="exact", node_limit=10**12), ex)
    assert (Solver(tt_bits=16).root_values(worlds[:3], info, mode="exact", node_limit=1)[ex >= 0] == -2).all()
    ps = [info.position(w) for w in worlds[:3]]
    assert (Solver().solve_many(ps, node_limit=1)[want[:3] >= 0] == -2).all()
    for bad in (0, -5, True, 1.5, "10"):
        with pytest.raises(ValueError, match="node_limit"):
            Solver().root_values(worlds, info, node_limit=bad)


def test_node_limit_small_endgames_match_brute_force():
    """A generous budget changes nothing: batched values of endgames = brute force."""
    ps = [p for p, _ in positions(901, 4, 12, max_tricks=3)]
    got = Solver(tt_bits=12).solve_many(ps, mode="exact", node_limit=10**9)
    for pos, row in zip(ps, got):
        for c in pos.legal_cards():
            ch = child_position(pos, c)
            if ch.tricks_left == 0 and not ch.trick:
                w = ch.declarer_points + sum(POINTS[card(x)[1]] for x in range(32) if ch.skat >> x & 1)
            else:
                w = oracle_exact(oracle_of(ch))
            assert row[c] == w
