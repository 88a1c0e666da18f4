"""Property tests over random full games, and the engine against the plain-Python reference.

For random deals, rule options and random legal play (hypothesis chooses the seeds), at every
step: the 32 cards stay distinct and are all somewhere, legal actions are never empty before the
end, and the state agrees with ``tests/reference.py`` (phase, player to move, legal moves, trick
winners, card points); at the end: 120 points in tricks + skat, exactly one winner per trick,
the same result as the reference, and replaying the history or the JSON record reproduces it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference as ref
from skatsim import SkatRules, SkatState
from skatsim.actions import HOLD, PASS, action_to_string, string_to_action
from skatsim.cards import ALL_CARDS, card_points

RULES = [SkatRules(), SkatRules(ramsch=True), SkatRules(kontra=True), SkatRules(ramsch=True, kontra=True)]
STYLES = ["short", "random", "hand", "null", "high"]


def _norm(phase: str, moves) -> set:
    if phase == "declare":
        return {ref.canonical_token(ref.parse_iss_contract(m)) for m in moves}
    return set(moves)


def _choose(s: SkatState, la: list, rng: random.Random, style: str) -> int:
    """A random legal action; the style biases bidding and the declaration towards rare games."""
    texts = [action_to_string(a) for a in la]
    if s.phase == "bidding":
        bids = [a for a in la if a < PASS]
        if style == "random":
            return rng.choice(la)
        if style == "high" and bids and rng.random() < 0.8:
            return rng.choice(bids[:20])
        if bids and rng.random() < 0.5:
            return bids[0]
        if HOLD in la and rng.random() < 0.6:
            return HOLD
        return rng.choice(la)
    if s.phase == "skat":
        return string_to_action("hand" if style in ("hand", "null") and rng.random() < 0.8 else "pickup") \
            if style != "random" else rng.choice(la)
    if s.phase == "declare":
        if style == "null":
            nulls = [a for a, t in zip(la, texts) if t.startswith("N")]
            if nulls:
                return rng.choice(nulls)
        return rng.choice(la)
    return rng.choice(la)


def check_game(seed: int, play_seed: int, rules: SkatRules, style: str) -> SkatState:
    rng = random.Random(play_seed)
    s = SkatState.new_game(seed=seed, rules=rules)
    d = s.deal
    g = ref.RefGame([ref.cards(h.to_text()) for h in d.hands], ref.cards(d.skat.to_text()),
                    ramsch=rules.ramsch, kontra_option=rules.kontra)
    # 32 distinct cards in the deal
    assert [len(h) for h in d.hands] == [10, 10, 10] and len(d.skat) == 2
    assert d.hands[0].mask | d.hands[1].mask | d.hands[2].mask | d.skat.mask == ALL_CARDS
    n_tricks = 0
    while not s.is_terminal():
        la = s.legal_actions()
        assert la, "no legal action before the end"
        assert s.phase == g.phase and s.current_player() == g.to_move
        assert _norm(s.phase, [action_to_string(a) for a in la]) == _norm(g.phase, g.legal())
        # conservation: hands, skat, cards played are disjoint and make up the deck
        parts = [s.hand_mask(p) for p in range(3)] + [s.skat_mask()] + [s.played_mask(p) for p in range(3)]
        assert sum(bin(m).count("1") for m in parts) == 32
        u = 0
        for m in parts:
            u |= m
        assert u == ALL_CARDS
        a = _choose(s, la, rng, style)
        s.apply_action(a)
        g.apply(action_to_string(a))
        if s.phase in ("play", "done") and len(s.tricks()) > n_tricks:
            n_tricks = len(s.tricks())
            leader, cards, winner = s.tricks()[-1]
            assert (leader, [action_to_string(c) for c in cards], winner) == \
                (g.tricks[-1][0], [ref.name(c) for c in g.tricks[-1][1]], g.tricks[-1][2])
            assert s.points() == g.trick_points() and s.tricks_won() == g.tricks_won()
    assert g.phase == "done" and s.legal_actions() == []
    r = s.result
    # exactly one winner per trick, and the winner leads the next trick
    tricks = s.tricks()
    assert sum(s.tricks_won()) == len(tricks)
    for (_, _, w), (nxt, _, _) in zip(tricks, tricks[1:]):
        assert w in (0, 1, 2) and nxt == w
    # 120 card points: tricks + skat (+ cards still in hand when a null game ends early)
    left = sum(int(card_points(s.hand_mask(p))) for p in range(3))
    assert sum(s.points()) + int(card_points(s.skat_mask())) + left == 120
    if len(tricks) == 10:
        assert left == 0
    # the same result as the reference
    e = g.result()
    if e.get("passed_in"):
        assert r.passed_in and r.scores == (0, 0, 0)
    elif e.get("ramsch"):
        assert r.ramsch and list(r.card_points) == e["card_points"] and list(r.scores) == e["scores"]
        assert sum(r.card_points) == 120
    else:
        c = s.contract
        assert ref.parse_iss_contract(c.to_text()) == e["contract"]
        for k in ("declarer", "bid", "declarer_points", "declarer_tricks", "won", "game_value", "overbid",
                  "charged_value", "list_score"):
            assert getattr(r, k) == e[k], k
        if not c.is_null:
            assert (r.multiplier, r.schneider, r.schwarz) == (e["multiplier"], e["schneider"], e["schwarz"])
            assert r.matadors == e["matadors"]
            if len(tricks) == 10:
                assert r.declarer_points + sum(s.points()[p] for p in range(3) if p != r.declarer) == 120
        assert list(r.scores) == e["scores"]
        if not rules.kontra or r.kontra == 0:
            assert list(r.seeger_fabian) == e["seeger_fabian"]
    assert r.rules == rules.to_dict() and r.rules_version == rules.version
    # replay and record round trip reproduce the game
    again = SkatState.new_game(seed=seed, rules=rules)
    for a in s.history():
        again.apply_action(a)
    assert again.is_terminal() and again.result == r
    back = SkatState.from_record(s.to_json())
    assert back.result == r and back.history() == s.history()
    return s


seeds = st.integers(min_value=0, max_value=2**63 - 1)


@given(seeds, st.integers(0, 2**32), st.sampled_from(RULES), st.sampled_from(STYLES))
def test_random_full_game_properties(seed: int, play_seed: int, rules: SkatRules, style: str) -> None:
    check_game(seed, play_seed, rules, style)


@given(seeds, st.integers(0, 2**32), st.sampled_from(["hand", "null", "high"]))
def test_random_rare_contracts(seed: int, play_seed: int, style: str) -> None:
    check_game(seed, play_seed, SkatRules(), style)


def test_many_random_games_agree_with_the_reference() -> None:
    """A fixed batch of games (fast: about a millisecond each), spread over options and styles."""
    contracts = set()
    for i in range(1200):
        s = check_game(10_000 + i, i, RULES[i % 4], STYLES[i % 5])
        if s.contract is not None:
            contracts.add(str(s.contract))
    # the batch reaches every game type, hand games, announcements, ouvert and null variants
    assert {"D", "H", "S", "C", "G", "N", "NO", "NH", "NOH"} <= contracts
    assert any(c.endswith("O") and c[0] != "N" for c in contracts)
    assert any(c.endswith("HS") for c in contracts) and any(c.endswith("HZ") for c in contracts)


@pytest.mark.slow
def test_very_many_random_games_agree_with_the_reference() -> None:
    for i in range(50_000):
        check_game(1_000_000 + i, i, RULES[i % 4], STYLES[i % 5])
