"""Bidding (Reizen): order, the ladder, yes/pass answers, passed in, Ramsch option.

Rules text: ISKO.md §3 (ISkO 3.3): middlehand bids to forehand, who answers "yes" or "pass";
rearhand then bids to the survivor, his first bid higher than the last value named; the winner
of the second duel declares at the last value named or held; after two passes forehand may play
at 18; three passes: passed in (Ramsch only as an option, §3.7, §16); a passed player cannot
re-enter; jump bids are allowed. §4: the 63 bid values, 18 ... 264.
"""

from __future__ import annotations

import random

import pytest

import reference as ref
from skatsim import BID_VALUES, SkatRules, SkatState
from skatsim.actions import HOLD, PASS, action_to_string, bid_action, string_to_action
from skatsim.contracts import bid_index, next_bid
from skatsim.rules import RAMSCH

SEED = 11


def new(rules: SkatRules = SkatRules(), seed: int = SEED) -> SkatState:
    return SkatState.new_game(seed=seed, rules=rules)


def do(s: SkatState, *moves: str) -> SkatState:
    for m in moves:
        s.apply_action(string_to_action(m))
    return s


def legal(s: SkatState) -> list[str]:
    return [action_to_string(a) for a in s.legal_actions()]


def bids_above(v: int) -> list[str]:
    return [str(b) for b in ref.BID_LADDER if b > v]


# ------------------------------------------------------------------------------ the ladder


def test_ladder_is_the_63_game_values() -> None:
    assert list(BID_VALUES) == ref.BID_LADDER == ref.derived_ladder()
    assert len(BID_VALUES) == 63 and BID_VALUES[0] == 18 and BID_VALUES[-1] == 264


def test_ladder_is_derived_from_the_base_and_null_values() -> None:
    from skatsim.contracts import BASE_VALUES, NULL_VALUES, _ladder

    assert _ladder() == BID_VALUES == tuple(ref.derived_ladder()) == tuple(ref.BID_LADDER)
    assert set(NULL_VALUES) <= set(BID_VALUES) and BID_VALUES[-1] == BASE_VALUES[4] * 11


def test_action_ids_are_the_documented_numbers_and_adjacent_where_the_kernels_need_it() -> None:
    from skatsim import actions as A

    assert (A.BID_BASE, A.PASS, A.HOLD, A.PICKUP, A.HAND, A.DECLARE_BASE, A.KONTRA, A.RE, A.NUM_ACTIONS) == \
        (32, 95, 96, 97, 98, 99, 128, 129, 130)
    assert A.HOLD == A.PASS + 1 and A.HAND == A.PICKUP + 1 and A.PASS == A.BID_BASE + len(BID_VALUES)
    assert [A.action_to_string(a) for a in range(A.PASS, A.DECLARE_BASE)] == ["pass", "yes", "pickup", "hand"]
    with pytest.raises(ValueError, match="unknown action 'XY'"):
        string_to_action("XY")


def test_next_bid_and_bid_index() -> None:
    # jSkat SkatConstantsTest: next(216) = 240, next(240) = 264; 264 is the top
    assert next_bid(18) == 20 and next_bid(22) == 23 and next_bid(59) == 60
    assert next_bid(216) == 240 and next_bid(240) == 264 and next_bid(264) is None
    assert next_bid(0) == 18
    for v in (17, 19, 21, 25, 265, 1000):
        with pytest.raises(ValueError):
            bid_index(v)
    with pytest.raises(ValueError, match="not a valid bid"):
        bid_action(265)
    with pytest.raises(ValueError):
        string_to_action("19")


# ------------------------------------------------------------------------- first duel (§3.2)


def test_middlehand_opens_by_bidding_to_forehand() -> None:
    s = new()
    assert s.phase == "bidding" and s.current_player() == 1
    assert legal(s) == bids_above(0) + ["pass"]  # any value on the ladder, no "yes"


def test_forehand_answers_yes_or_pass() -> None:
    s = do(new(), "18")
    assert s.current_player() == 0
    assert sorted(legal(s)) == ["pass", "yes"]
    with pytest.raises(ValueError):  # the senior player only equals, he cannot name a value
        do(s, "20")


def test_bidder_must_go_higher_after_yes() -> None:
    s = do(new(), "18", "yes")
    assert s.current_player() == 1
    assert legal(s) == bids_above(18) + ["pass"]
    with pytest.raises(ValueError):
        do(s, "18")
    with pytest.raises(ValueError):  # the bidder has no "yes"
        s.apply_action(HOLD)


def test_jump_bids_are_allowed_but_never_lower() -> None:
    s = do(new(), "18", "yes", "40", "yes")  # values may be skipped (ISkO 3.3.2)
    assert s.bid == 40 and s.current_player() == 1
    assert legal(s)[0] == "44"
    before = s.history()
    with pytest.raises(ValueError):
        do(s, "36")
    assert s.history() == before and s.bid == 40


def test_yes_and_pass_have_their_own_texts() -> None:
    assert action_to_string(HOLD) == "yes" and action_to_string(PASS) == "pass"
    assert string_to_action("y") == HOLD and string_to_action("p") == PASS
    assert string_to_action("YES") == HOLD and string_to_action("Pass") == PASS


# ----------------------------------------------------------------------- second duel (§3.3)


def test_rearhand_bids_to_forehand_after_middlehand_passes() -> None:
    s = do(new(), "pass")
    assert s.current_player() == 2
    assert legal(s) == bids_above(0) + ["pass"]
    do(s, "18")
    assert s.current_player() == 0 and sorted(legal(s)) == ["pass", "yes"]


def test_rearhand_bids_to_middlehand_after_forehand_passes() -> None:
    s = do(new(), "18", "pass")
    assert s.current_player() == 2
    assert legal(s) == bids_above(18) + ["pass"]  # higher than the last value named
    with pytest.raises(ValueError):
        do(s, "18")
    do(s, "20")
    assert s.current_player() == 1 and sorted(legal(s)) == ["pass", "yes"]


def test_rearhand_first_bid_is_higher_than_the_value_held() -> None:
    s = do(new(), "18", "yes", "30", "yes", "pass")  # forehand survives holding 30
    assert s.current_player() == 2 and s.bid == 30
    assert legal(s)[0] == "33"
    do(s, "pass")
    assert s.declarer == 0 and s.bid == 30 and s.phase == "skat"


def test_winner_of_the_second_duel_declares_at_the_last_value_named_or_held() -> None:
    s = do(new(), "18", "yes", "20", "yes", "pass", "22", "yes", "pass")
    assert s.declarer == 0 and s.bid == 22 and s.phase == "skat" and s.current_player() == 0
    s = do(new(), "18", "pass", "20", "pass")
    assert s.declarer == 2 and s.bid == 20
    s = do(new(), "18", "pass", "20", "yes", "24", "pass")  # middlehand passes at 24
    assert s.declarer == 2 and s.bid == 24
    s = do(new(), "18", "pass", "20", "yes", "24", "yes", "pass")  # middlehand holds 24
    assert s.declarer == 1 and s.bid == 24
    s = do(new(), "18", "pass", "pass")
    assert s.declarer == 1 and s.bid == 18


def test_declarer_holding_is_a_real_bid() -> None:
    s = do(new(), "pass", "27", "yes", "pass")
    assert s.declarer == 0 and s.bid == 27


def test_a_passed_player_cannot_reenter() -> None:
    s = do(new(), "18", "pass")  # forehand passed in the first duel
    movers = []
    for _ in range(10):  # rearhand and middlehand bid on for a while
        movers.append(s.current_player())
        do(s, "yes" if "yes" in legal(s) else legal(s)[0])
    do(s, "pass")
    assert set(movers) == {1, 2} and s.declarer in (1, 2) and s.phase == "skat"


# ------------------------------------------------------------------ forehand alone (§3.5)


def test_forehand_may_play_at_18_after_two_passes() -> None:
    s = do(new(), "pass", "pass")
    assert s.current_player() == 0 and s.phase == "bidding"
    assert sorted(legal(s)) == ["18", "pass"]
    with pytest.raises(ValueError):
        do(s, "20")
    do(s, "18")
    assert s.declarer == 0 and s.bid == 18 and s.phase == "skat"


def test_all_pass_is_passed_in() -> None:
    s = do(new(), "pass", "pass", "pass")
    assert s.is_terminal() and s.legal_actions() == []
    r = s.result
    assert r.passed_in and r.declarer is None and not r.ramsch
    assert r.scores == (0, 0, 0) and r.seeger_fabian == (0, 0, 0) and r.list_score == 0
    assert s.returns() == [0.0, 0.0, 0.0]
    assert r.rules == {"ramsch": False, "kontra": False} and r.rules_version == SkatRules().version


def test_all_pass_is_ramsch_with_the_option() -> None:
    rules = SkatRules(ramsch=True)
    s = do(new(rules), "pass", "pass", "pass")
    assert not s.is_terminal() and s.phase == "play" and s.game_type == RAMSCH
    assert s.current_player() == 0 and s.declarer is None and s.contract is None
    assert "ramsch" in rules.version


# ----------------------------------------------------------------------------- the top: 264


def test_264_is_the_maximum() -> None:
    s = do(new(), "264")
    assert s.bid == 264
    do(s, "yes")
    assert legal(s) == ["pass"]  # nothing above 264
    do(s, "pass")
    assert s.current_player() == 2 and legal(s) == ["pass"]
    do(s, "pass")
    assert s.declarer == 0 and s.bid == 264


# ------------------------------------------------------------------- real ISS bid sequences

ISS_BIDDING = [
    # (record id, moves as "seat move", declarer or None, bid)
    (541932, "1 p 2 18 0 p", 2, 18),
    (684159, "1 18 0 y 1 20 0 y 1 22 0 y 1 23 0 y 1 24 0 y 1 p 2 27 0 p", 2, 27),
    (8650652, "1 18 0 p 2 20 1 y 2 22 1 y 2 23 1 y 2 24 1 y 2 27 1 y 2 30 1 y 2 33 1 y 2 35 1 y 2 36 1 p", 2, 36),
    (756788, "1 p 2 p 0 p", None, 0),
    (26496, "1 18 0 y 1 20 0 y 1 22 0 y 1 23 0 y 1 p 2 24 0 y 2 27 0 y 2 30 0 y 2 33 0 y 2 35 0 y "
            "2 36 0 y 2 40 0 y 2 p", 0, 40),
    (727, "1 p 2 p 0 18", 0, 18),
    (596891, "1 18 0 y 1 20 0 p 2 22 1 y 2 23 1 y 2 24 1 y 2 27 1 y 2 30 1 y 2 33 1 y 2 35 1 y 2 36 1 p", 2, 36),
    (1390253, "1 18 0 y 1 20 0 y 1 22 0 y 1 23 0 y 1 24 0 y 1 27 0 y 1 30 0 y 1 33 0 y 1 35 0 p 2 p", 1, 35),
    (1039093, "1 18 0 p 2 p", 1, 18),
]


@pytest.mark.parametrize("rid,moves,declarer,bid", ISS_BIDDING, ids=[str(x[0]) for x in ISS_BIDDING])
def test_iss_bidding_sequences(rid: int, moves: str, declarer: int | None, bid: int) -> None:
    s = new()
    toks = moves.split()
    for seat, mv in zip(toks[0::2], toks[1::2]):
        assert s.current_player() == int(seat)
        do(s, {"y": "yes", "p": "pass"}.get(mv, mv))
    assert s.declarer == declarer
    if declarer is None:
        assert s.is_terminal() and s.result.passed_in
    else:
        assert s.bid == bid and s.phase == "skat" and s.current_player() == declarer


# -------------------------------------------------------------- random auctions vs reference


@pytest.mark.parametrize("ramsch", [False, True])
def test_random_auctions_match_the_reference(ramsch: bool) -> None:
    rng = random.Random(123 + ramsch)
    for i in range(1500):
        s = new(SkatRules(ramsch=ramsch), seed=i)
        a = ref.RefAuction()
        passed: set[int] = set()
        while s.phase == "bidding":
            mine = legal(s)
            assert set(mine) == set(a.legal()), (i, s.history())
            assert s.current_player() == a.to_move
            assert s.current_player() not in passed
            # bias towards short auctions with small steps, but cover jumps and passes
            r = rng.random()
            bids = [m for m in mine if m.isdigit()]
            if bids and r < 0.45:
                mv = bids[0] if rng.random() < 0.7 else rng.choice(bids[: 12])
            elif "yes" in mine and r < 0.8:
                mv = "yes"
            else:
                mv = rng.choice(mine)
            if mv == "pass":
                passed.add(s.current_player())
            do(s, mv)
            a.apply(mv)
        assert a.stage == "over"
        if a.passed_in:
            assert s.declarer is None
            assert s.is_terminal() != ramsch
        else:
            assert s.declarer == a.declarer and s.bid == a.highest and s.phase == "skat"
