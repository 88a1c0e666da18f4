"""The rule-based player (skatsim.kernels.heuristic, agents.players.rule_based): legal, deterministic,
information-safe, the same in batch simulation and through the agent protocol, and it plays
like a Skat player in hand-picked situations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from skatsim.actions import BID_BASE, HAND, PASS, PICKUP, string_to_action
from skatsim.bits import seat_stream
from skatsim.cards import JACKS, CardSet, parse_card
from skatsim.deal import deal_from_hands
from skatsim.kernels import game as G
from skatsim.kernels.heuristic import (DEFAULT_PARAMS, PARAM_NAMES, _mat, _strengths, bid_limit,
                                       grand_strength, null_bad, params_array, suit_strength)
from skatsim.kernels.policies import POLICY_RULE_BASED, policy_act
from skatsim.options import SkatRules
from skatsim.rules import CLUBS, GRAND, NULL, RAMSCH
from skatsim.scoring import matadors_of
from skatsim.state import SkatState

from agents.players.rule_based import RuleBasedAgent

RULES = (SkatRules(), SkatRules(ramsch=True, kontra=True))
P = params_array()


def _view(state: SkatState, seat: int) -> np.ndarray:
    v = np.zeros(G.N_FIELDS, dtype=np.int64)
    G.mask_view(state._st, seat, v)
    return v


def _decide(state: SkatState, params=P, rng: int = 1) -> int:
    seat = state.current_player()
    v = _view(state, seat)
    before = v.copy()
    a, _ = policy_act(POLICY_RULE_BASED, v, seat, params, rng)
    assert np.array_equal(v, before), "the policy wrote to its view"
    return int(a)


def _play(state: SkatState, params=P, until=None) -> SkatState:
    """Play on with the policy for every seat (seat streams of deal seed 0)."""
    rngs = [seat_stream(0, s) for s in range(3)]
    while not state.is_terminal() and (until is None or not until(state)):
        seat = state.current_player()
        v = _view(state, seat)
        before = v.copy()
        a, rngs[seat] = policy_act(POLICY_RULE_BASED, v, seat, params, rngs[seat])
        assert np.array_equal(v, before)
        assert int(a) in state.legal_actions(), (state.phase, int(a), state.legal_actions())
        state.apply_action(int(a))
    return state


def _state(deal, actions: str = "", rules=SkatRules()) -> SkatState:
    s = SkatState.new_game(deal=deal, rules=rules)
    for t in actions.split():
        s.apply_action(string_to_action(t))
    return s


# ----------------------------------------------------------------------------- contract


def test_parameters_documented_and_bounded():
    assert len(PARAM_NAMES) == len(DEFAULT_PARAMS) <= 32
    assert len(set(PARAM_NAMES)) == len(PARAM_NAMES)
    for name in ("random_cards", "max_bid", "no_null", "bid_threshold"):
        assert name in PARAM_NAMES
    with pytest.raises(ValueError, match="max_bid"):
        params_array(nonsense=1)


@pytest.mark.parametrize("rules", RULES, ids=["isko", "ramsch+kontra"])
@pytest.mark.parametrize("variant", [{}, {"random_cards": 1}, {"max_bid": 18}, {"no_null": 1, "no_grand": 1},
                                     {"random_bidding": 1}, {"bid_threshold": 0.3, "hand_min_p": 0.3}])
def test_only_legal_actions_in_every_phase(rules, variant):
    params = params_array(**variant)
    phases = set()
    for i in range(60):
        s = SkatState.new_game(seed=1000 + i, rules=rules)
        rngs = [seat_stream(i, q) for q in range(3)]
        while not s.is_terminal():
            seat = s.current_player()
            phases.add(s.phase)
            v = _view(s, seat)
            before = v.copy()
            a, rngs[seat] = policy_act(POLICY_RULE_BASED, v, seat, params, rngs[seat])
            assert np.array_equal(v, before)
            assert int(a) in s.legal_actions(), (s.phase, int(a))
            s.apply_action(int(a))
    assert {"bidding", "skat", "discard", "declare", "play"} <= phases
    if rules.kontra:
        assert "kontra" in phases


def test_fallback_keeps_odd_views_legal():
    # a discard by a declarer who bid with almost nothing: still a legal discard
    s = _state(deal_from_hands("CJ SJ HJ DJ CA C10 CK CQ C9 C8", "C7 SA S10 SK SQ S9 S8 S7 HA H10",
                               "HK HQ H9 H8 H7 DA D10 DK DQ D9"), "18 yes 20 pass pass pickup")
    assert s.phase == "discard"
    assert _decide(s) in s.legal_actions()


def test_deterministic():
    for seed in (1, 2, 3):
        a = _play(SkatState.new_game(seed=seed, rules=RULES[1])).history()
        b = _play(SkatState.new_game(seed=seed, rules=RULES[1])).history()
        assert a == b


def test_information_safe_under_resampling():
    gen = np.random.default_rng(5)
    for seed in range(8):
        s = SkatState.new_game(seed=seed, rules=RULES[1])
        while not s.is_terminal():
            want = _decide(s)
            for _ in range(3):
                w = s.resample_from_infostate(s.current_player(), gen)
                assert _decide(w) == want, (seed, s.phase)
            s.apply_action(want)


def test_agent_plays_the_engine_games():
    from skatsim.simulate import simulate

    from agents import play_game

    df = simulate(12, "rule_based", seed=11, workers=1, record_actions=True, progress=False)
    acts = df.attrs["actions"]
    for i, row in enumerate(df.itertuples()):
        s = play_game([RuleBasedAgent(), RuleBasedAgent(), RuleBasedAgent()], seed=int(row.deal_seed))
        want = [int(a) for a in acts[i] if a >= 0]
        assert s.history() == want


def test_agent_params():
    a = RuleBasedAgent(max_bid=18, random_cards=1)
    assert a.params["max_bid"] == 18.0 and a.params["random_cards"] == 1.0
    assert a.params["bid_threshold"] == DEFAULT_PARAMS[PARAM_NAMES.index("bid_threshold")]
    with pytest.raises(ValueError, match="bid_threshold"):
        RuleBasedAgent(agression=2)


def test_shared_agent_test():
    from agents.arena.testing import agent_api_test

    report = agent_api_test(RuleBasedAgent, n_deals=4, hidden_deals=1)
    assert report["games"] == 8


# ----------------------------------------------------------------------------- bidding, skat


def test_four_jacks_and_clubs_bid_and_declare_clubs_or_grand():
    d = deal_from_hands("CJ SJ HJ DJ CA C10 CK C9 C8 SA", "C7 S10 SK SQ S9 S8 S7 HA H10 HK",
                        "HQ H9 H8 H7 DA D10 DK DQ D9 D8")
    h = CardSet("CJ SJ HJ DJ CA C10 CK C9 C8 SA").mask
    assert bid_limit(h, 0, P) >= 60  # clubs with 4, pickup: 5 x 12
    s = _play(_state(d))
    assert s.declarer == 0
    assert s.game_type in (CLUBS, GRAND)
    assert s.result.won


def test_weak_hand_passes():
    h = CardSet("C7 C8 SK S9 HQ H9 H8 D10 D9 DK").mask
    assert bid_limit(h, 1, P) == 0
    s = _state(deal_from_hands("CJ SJ CA C10 CK S10 SA HA H10 DA", "C7 C8 SK S9 HQ H9 H8 D10 D9 DK",
                               "HJ DJ CQ C9 SQ S8 S7 HK H7 DQ"))
    assert _decide(s) == PASS  # middlehand holds the weak cards


def test_max_bid_caps_the_auction():
    h = CardSet("CJ SJ HJ DJ CA C10 CK C9 C8 SA").mask
    assert bid_limit(h, 0, params_array(max_bid=18)) == 18


def test_null_perfect_hand_bids_and_declares_null():
    h = CardSet("C7 C8 C9 S7 S8 S9 H7 H8 D7 D8").mask
    assert null_bad(h) == 0
    assert bid_limit(h, 0, P) >= 23
    assert bid_limit(h, 0, params_array(no_null=1)) == 0
    d = deal_from_hands("C7 C8 C9 S7 S8 S9 H7 H8 D7 D8", "CJ SJ CA C10 CK S10 SA HA H10 DA",
                        "HJ DJ CQ SQ SK HK HQ DK DQ D9")
    s = _state(d, "pass pass")
    assert _decide(s) == BID_BASE  # forehand alone plays at 18
    s = _play(s, until=lambda st: st.phase == "play")
    assert s.game_type == NULL


def test_unsafe_null_counts():
    assert null_bad(CardSet("CA").mask) == 1                # a lone ace
    assert null_bad(CardSet("C7 C9 CJ").mask) == 0          # 7 9 J: always a lower card to duck with
    assert null_bad(CardSet("C7 C9 CQ").mask) == 1          # the queen can be forced
    assert null_bad(CardSet("C8").mask) == 1
    assert null_bad(CardSet("C7 C8 C9 C10 CJ CQ CK CA").mask) == 0


def test_hand_only_with_a_very_strong_hand():
    weak_pick = _state(deal_from_hands("CJ HJ CA C9 C8 SA S7 H10 H7 D8", "C7 S10 SK SQ S9 S8 HA HK HQ DA",
                                       "SJ DJ C10 CK CQ H9 H8 D10 DK DQ"), "pass pass 18")
    assert weak_pick.phase == "skat"
    assert _decide(weak_pick) == PICKUP
    strong = _state(deal_from_hands("CJ SJ HJ DJ CA C10 CK CQ SA S10", "C7 SK SQ S9 S8 HA HK HQ DA D10",
                                    "C9 C8 S7 H10 H9 H8 H7 DK DQ D9"), "pass pass 18")
    assert _decide(strong) == HAND


def test_discards_never_a_jack_in_trump_games():
    checked = 0
    for i in range(150):
        s = SkatState.new_game(seed=5000 + i)
        s = _play(s, until=lambda st: st.phase in ("discard", "play"))
        if s.phase != "discard":
            continue
        d = s.declarer
        discards = []
        while s.phase == "discard":
            a = _decide(s)
            discards.append(a)
            s.apply_action(a)
        s = _play(s, until=lambda st: st.phase == "play")
        if s.game_type in (0, 1, 2, 3, GRAND):
            checked += 1
            for c in discards:
                assert not (JACKS >> c) & 1, (i, CardSet(s.hand(d)))
                assert not (s.trumps_mask() >> c) & 1 or (s.hand(d).mask & ~s.trumps_mask()) == 0
    assert checked > 50


def test_discard_pushes_a_bare_ten():
    # declarer for clubs: the bare H10 (with H7) goes into the skat rather than small cards
    s = _state(deal_from_hands("CJ SJ HJ CA C10 C9 C8 SA SK H10", "C7 S10 SQ S9 S8 HA HK HQ DA D10",
                               "CK CQ S7 H9 H8 D9 D8 D7 DK DQ", skat="H7 DJ"), "pass pass 18 pickup")
    first = _decide(s)
    s.apply_action(first)
    second = _decide(s)
    assert parse_card("H10") in (first, second)
    s.apply_action(second)
    assert _decide(s) - string_to_action("D") in (CLUBS, GRAND)


# ----------------------------------------------------------------------------- card play

_DEF_DEAL = ("SA SK SQ C7 C8 H7 H8 D7 D8 D9",      # forehand: defender, leads SA
             "CJ SJ HJ DJ CA C10 CK S7 HA DA",     # middlehand: declarer (clubs hand)
             "S10 S8 H10 H9 HQ C9 CQ DQ DK D10")   # rearhand: defender


def test_smears_a_ten_on_partners_ace():
    s = _state(deal_from_hands(*_DEF_DEAL), "18 pass pass hand CH SA S7")
    assert s.current_player() == 2
    assert _decide(s) == parse_card("S10")


def test_smears_a_ten_when_void():
    d = deal_from_hands("SA SK SQ S10 S9 S8 C7 H7 D7 D8", "CJ SJ HJ DJ CA C10 CK S7 HA DA",
                        "H10 H9 HQ HK C9 CQ C8 DQ DK D10")
    s = _state(d, "18 pass pass hand CH SA S7")
    assert _decide(s) in (parse_card("H10"), parse_card("D10"))


def test_follows_low_when_it_cannot_win():
    d = deal_from_hands("CJ SJ HJ DJ CA C10 CK SA HA DA", "SK S8 H7 H8 H9 D7 D8 D9 C7 C8",
                        "S10 SQ S9 S7 HK HQ H10 DK DQ D10")
    s = _state(d, "pass pass 18 hand CH SA")
    assert s.current_player() == 1
    assert _decide(s) == parse_card("S8")


def test_declarer_draws_trumps_with_the_top_jack():
    d = deal_from_hands("CJ SJ HJ C10 CK C9 SA HA DA D7", "SK S8 H7 H8 H9 D8 D9 C7 C8 DJ",
                        "S10 SQ S9 S7 HK HQ H10 DK DQ D10")
    s = _state(d, "pass pass 18 hand CH")
    assert s.current_player() == 0
    assert _decide(s) == parse_card("CJ")


def test_defender_wins_cheaply_at_the_end_of_the_trick():
    # declarer leads SK, partner follows low, rearhand wins with the 10 keeping the ace
    d = deal_from_hands("S7 H7 H8 H9 D7 D8 D9 C7 C8 C9", "CJ SJ HJ DJ CA C10 CK SK HA DA",
                        "SA S10 S9 HK HQ H10 DK DQ D10 CQ")
    s = _state(d, "18 pass pass hand CH")
    # forehand leads (a defender); script it: S7, declarer SK, rearhand to play
    s.apply_action(parse_card("S7"))
    s.apply_action(parse_card("SK"))
    assert _decide(s) == parse_card("S10")


def test_null_declarer_ducks_under_the_led_card():
    d = deal_from_hands("C7 C9 S7 S8 S9 H7 H8 D7 D8 D9", "CA CK CJ SA SK HA HK DA DK DQ",
                        "C8 C10 CQ S10 SJ SQ H9 H10 HJ HQ")
    s = _state(d, "pass pass 18 hand NH")
    s.apply_action(parse_card("S7"))  # declarer leads (forehand); script the first trick
    s.apply_action(parse_card("SA"))
    s.apply_action(parse_card("SQ"))
    # middlehand won and leads; now check the declarer ducks under a club lead
    assert s.current_player() == 1
    s.apply_action(parse_card("CK"))
    s.apply_action(parse_card("CQ"))
    assert _decide(s) == parse_card("C9")


def test_ramsch_ducks_and_dumps_points():
    r = SkatRules(ramsch=True)
    d = deal_from_hands("C7 C9 S7 S8 S9 H7 H8 D7 D8 D9", "CA CK CJ SA SK HA HK DA DK DQ",
                        "C8 C10 CQ S10 SJ SQ H9 H10 HJ HQ")
    s = _state(d, "pass pass pass", rules=r)
    assert s.game_type == RAMSCH
    s.apply_action(parse_card("S7"))
    # middlehand must win (SA SK): second in the trick, with the lowest winning card
    assert _decide(s) == parse_card("SK")
    s.apply_action(parse_card("SK"))
    # rearhand (S10 SQ; SJ is a trump) ducks under the king with the queen
    assert _decide(s) == parse_card("SQ")


def test_suit_strength_orders_hands():
    strong = CardSet("CJ SJ HJ CA C10 CK C9 SA S10 HA").mask
    weak = CardSet("DJ C7 C8 C9 SK S9 HQ H8 D10 D9").mask
    assert suit_strength(strong, CLUBS, 0, P) > suit_strength(weak, CLUBS, 0, P) + 5


# ----------------------------------------------------------------------------- properties

_masks = st.integers(min_value=0, max_value=0xFFFF_FFFF)


@given(_masks, st.integers(0, 2))
def test_shared_lookups_equal_the_single_game_functions(h, seat):
    s = _strengths(h, seat, P)
    for g in range(4):
        assert s[g] == pytest.approx(suit_strength(h, g, seat, P))
    assert s[4] == pytest.approx(grand_strength(h, seat, P))
    for g in range(5):
        assert _mat(h, g) == abs(matadors_of(h, g))


@given(st.integers(0, 2**40), st.integers(0, 60), st.booleans())
def test_legal_and_information_safe_from_random_positions(seed, moves, variants):
    from skatsim.state import random_game as play_random_game

    rules = RULES[1] if variants else RULES[0]
    s = play_random_game(seed, rules=rules, max_moves=moves)
    assume(not s.is_terminal())  # an ended game has no decision: hypothesis draws another
    a = _decide(s)
    assert a in s.legal_actions()
    w = s.resample_from_infostate(s.current_player(), np.random.default_rng(seed))
    assert _decide(w) == a


def _greedy_discard_reference(h: int, g: int, params=P) -> int:
    """Plain-Python greedy discard, card by card: the value of each card's removal from the
    per-suit tables (suit / grand: side value, voids, pushed points; null: unsafe cards
    removed x 100 + null strength), the first best card in card order."""
    from skatsim.cards import CARD_POINTS
    from skatsim.kernels import heuristic as H
    from skatsim.rules import STRENGTH, TRUMP_MASKS

    if g == NULL:
        cands = [c for c in range(32) if h >> c & 1]

        def value(c):
            b = (h >> (c & 0x18)) & 0xFF
            return (int(H._NULL_BAD[b]) - int(H._NULL_BAD[b & ~(1 << (c & 7))])) * 100.0 + STRENGTH[NULL * 32 + (c & 7)]
    else:
        tm = TRUMP_MASKS[g]
        cands = [c for c in range(32) if (h & ~tm) >> c & 1]
        if not cands:  # only trumps: the cheapest one to throw away
            return min((c for c in range(32) if h >> c & 1), key=lambda c: (int(H._DUMP[g * 32 + c]), c))
        nt = bin(h & tm).count("1")
        vb = params[H.P_VOID] if nt >= 5 else 0.4 * params[H.P_VOID]

        def value(c):
            b = (h >> (c & 0x18)) & 0x7F
            b2 = b & ~(1 << (c & 7))
            if g == GRAND:
                v = H._SV_GRAND[b2] - H._SV_GRAND[b]
            else:
                v = (H._SV_SUIT[b2] - H._SV_SUIT[b]) + vb * (H._VOIDISH[b2] - H._VOIDISH[b])
            return v + params[H.P_SKATPTS] * CARD_POINTS[c]
    best, bv = -1, -1e18
    for c in cands:
        if value(c) > bv:
            best, bv = c, value(c)
    return best


_hands12 = st.lists(st.integers(0, 31), min_size=12, max_size=12, unique=True).map(lambda cs: sum(1 << c for c in cs))


@given(_hands12, st.integers(0, 5), st.sampled_from([0.45, 3.0]))
def test_greedy_discard_equals_the_plain_python_reference(h, g, void_bonus):
    from skatsim.kernels.heuristic import greedy_discard

    params = params_array(void_bonus=void_bonus)
    c1 = _greedy_discard_reference(h, g, params)
    assert greedy_discard(h, g, params) == c1
    h2 = h & ~(1 << c1)
    assert greedy_discard(h2, g, params) == _greedy_discard_reference(h2, g, params)


def test_greedy_discard_with_only_trumps_left():
    from skatsim.kernels.heuristic import greedy_discard

    # eleven clubs trumps and one side card: the side card first, then the cheapest trump (C7)
    h = CardSet("CJ SJ HJ DJ CA C10 CK CQ C9 C8 C7 HA").mask
    assert greedy_discard(h, CLUBS, P) == parse_card("HA")
    assert greedy_discard(h & ~(1 << parse_card("HA")), CLUBS, P) == parse_card("C7")


@given(a=st.integers(-5, 200), base=st.sampled_from([0, BID_BASE, PASS, PICKUP]),
       lo=st.integers(0, 2**32 - 1), hi=st.integers(0, 2**32 - 1))
def test_a_built_in_decision_outside_the_legal_set_becomes_its_lowest_action(a, base, lo, hi):
    """The one fallback check of every built-in decision (cards and other phases) against
    the action set written out as a Python set."""
    from skatsim.kernels.heuristic import _checked_card, _in_or_lowest

    if lo == 0 and hi == 0:
        hi = 1
    actions = sorted([base + i for i in range(32) if lo >> i & 1] + [base + 32 + i for i in range(32) if hi >> i & 1])
    assert _in_or_lowest(a, base, lo, hi) == (a if a in actions else actions[0])
    if lo:
        cards = [i for i in range(32) if lo >> i & 1]
        assert _checked_card(a, lo) == (a if a in cards else cards[0])


# ----------------------------------------------------------------------------- bid cutoffs
_hands10 = st.lists(st.integers(0, 31), min_size=10, max_size=10, unique=True).map(lambda cs: sum(1 << c for c in cs))
_bid_rows = st.fixed_dictionaries({
    "bid_threshold": st.floats(0.0, 1.0), "hand_min_p": st.floats(0.0, 1.0), "scale": st.floats(0.001, 5.0),
    "pickup_scale": st.floats(0.001, 5.0), "suit_T": st.floats(-20.0, 30.0), "pickup_gain": st.floats(-10.0, 10.0),
    "trump_length": st.floats(-2.0, 2.0), "no_hand": st.sampled_from([0.0, 1.0]),
    "no_grand": st.sampled_from([0.0, 1.0])})


@given(_bid_rows, st.lists(_hands10, min_size=30, max_size=30), st.integers(0, 2))
def test_bid_limit_cut_equals_bid_limit(row, hands, seat):
    from skatsim.kernels.heuristic import bid_cutoffs, bid_limit_cut

    p = params_array(**row)
    xp, xh, ok = bid_cutoffs(p)
    assert ok
    for h in hands:
        assert bid_limit_cut(h, seat, p, xp, xh) == bid_limit(h, seat, p)


@given(_bid_rows, st.booleans())
def test_bid_cutoff_is_where_the_chance_test_turns_true(row, hand):
    """The test is ``x >= cutoff`` on both sides of the cutoff, for the neighbouring doubles
    and a sweep of margins, not only at the margins random hands happen to reach."""
    from skatsim.kernels.heuristic import P_THR, _chance_ok, _hand_threshold, bid_cutoffs

    p = params_array(**row)
    thr = _hand_threshold(p) if hand else p[P_THR]
    cut = bid_cutoffs(p)[1 if hand else 0]
    if np.isfinite(cut):
        below, above = np.nextafter(cut, -np.inf), np.nextafter(cut, np.inf)
        assert _chance_ok(cut, p, thr, hand) and _chance_ok(above, p, thr, hand)
        assert not _chance_ok(below, p, thr, hand)
    for x in np.linspace(-40.0, 40.0, 801):
        assert _chance_ok(x, p, thr, hand) == (x >= cut)


@pytest.mark.parametrize("row", [dict(pickup_scale=-1.0), dict(suit_T=1e7), dict(scale=1e-4)])
def test_engine_bids_with_bid_limit_where_cutoffs_do_not_apply(row):
    from skatsim.deal import deal as make_deal
    from skatsim.kernels.heuristic import _seat_limit, bid_cutoffs, seat_cutoffs

    p = params_array(**row)
    assert not bid_cutoffs(p)[2]
    params = np.stack([p, P, p])
    cuts = seat_cutoffs(params)
    assert list(cuts[:, 2]) == [0.0, 1.0, 0.0]
    for seed in range(200):
        st_ = SkatState.new_game(deal=make_deal(seed)).vector
        for seat in range(3):
            assert _seat_limit(st_, seat, params, cuts) == bid_limit(int(st_[G.F_HAND0 + seat]), seat, params[seat])
