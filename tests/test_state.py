"""SkatState: the OpenSpiel-style API, errors, records, real ISS games, Kontra/Re and Ramsch.

Rules text: ISKO.md §1-§12 through the whole game; §16 (variants recorded with every result);
ISS_FORMAT.md (the real server records replayed here must reproduce the server's ``v:``
(list score), ``m:`` (matadors), ``p:`` (declarer's points), ``t:`` (declarer's tricks) and
win/loss/overbid).
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

import reference as ref
from iss_records import all_records

from skatsim import (TERMINAL_PLAYER, CardSet, RecordError, SkatRules, SkatState, deal,
                     deal_from_hands)
from skatsim.actions import (DECLARE_BASE, HAND, HOLD, KONTRA, NUM_ACTIONS, PASS, PICKUP, RE,
                             action_to_string, string_to_action)
from skatsim.cards import card_name, parse_card
from skatsim import iss
from skatsim.rules import RAMSCH

# ------------------------------------------------------------------------------ helpers


def do(s: SkatState, *moves: str) -> SkatState:
    for m in moves:
        s.apply_action(string_to_action(m))
    return s


def random_game(seed: int, rules: SkatRules = SkatRules(), *, choose=None) -> SkatState:
    """A random legal game; bidding is biased to be short so that most deals are played."""
    rng = random.Random(seed)
    s = SkatState.new_game(seed=seed, rules=rules)
    while not s.is_terminal():
        la = s.legal_actions()
        a = None if choose is None else choose(s, la, rng)
        if a is None:
            if s.phase == "bidding":
                bids = [x for x in la if x < PASS]
                a = bids[0] if bids and rng.random() < 0.5 else (HOLD if HOLD in la and rng.random() < 0.5
                                                                  else rng.choice(la))
            else:
                a = rng.choice(la)
        s.apply_action(a)
    return s


def played_game(seed: int = 3, rules: SkatRules = SkatRules()) -> SkatState:
    """A random game that has a declarer (not passed in)."""
    for k in range(seed, seed + 100):
        s = random_game(k, rules)
        if s.declarer is not None:
            return s
    raise AssertionError("no declarer in 100 deals")


def snapshot(s: SkatState) -> tuple:
    return (s.history(), s.phase, s.current_player(), s.legal_actions(), [s.hand_mask(p) for p in range(3)],
            s.skat_mask(), s.points(), str(s))


# ---------------------------------------------------------------------------- construction


def test_new_game_from_a_seed_deals_like_deal() -> None:
    s = SkatState.new_game(seed=7)
    assert s.deal == deal(7) and s.seed == 7
    assert [s.hand(p) for p in range(3)] == list(deal(7).hands)
    assert CardSet.from_mask(s.skat_mask()) == deal(7).skat


def test_new_game_from_an_explicit_deal_or_rng() -> None:
    d = deal(3)
    assert SkatState.new_game(deal=d).deal == d
    with pytest.raises(ValueError):
        SkatState.new_game(seed=1, deal=d)
    a = SkatState.new_game(rng=np.random.default_rng(42))
    b = SkatState.new_game(rng=np.random.default_rng(42))
    assert a.deal == b.deal and a.seed == b.seed


# --------------------------------------------------------------- phases and current player


def test_a_scripted_game_walks_through_every_phase() -> None:
    d = deal_from_hands("CJ SJ HJ DJ CA C10 CK SA S10 HA", "D7 D8 D9 DQ DK H7 H8 H9 HQ HK",
                        "C7 C8 C9 CQ S7 S8 S9 SQ DA D10", "SK H10")
    s = SkatState.new_game(deal=d)
    assert (s.phase, s.current_player()) == ("bidding", 1)
    do(s, "pass", "pass")
    assert (s.phase, s.current_player()) == ("bidding", 0)
    do(s, "18")
    assert (s.phase, s.current_player(), s.declarer, s.bid) == ("skat", 0, 0, 18)
    do(s, "pickup")
    assert (s.phase, s.current_player(), len(s.hand(0))) == ("discard", 0, 12)
    do(s, "SK", "H10")
    assert (s.phase, s.current_player(), len(s.hand(0))) == ("declare", 0, 10)
    do(s, "G")
    assert (s.phase, s.current_player(), s.trick_leader()) == ("play", 0, 0)
    assert str(s.contract) == "G" and s.trumps() == CardSet("CJ SJ HJ DJ")
    # forehand leads the jacks; every defender must follow with a jack if he has one: none
    order = ["CJ", "D7", "C7", "SJ", "D8", "C8", "HJ", "D9", "C9", "DJ", "DQ", "CQ", "CA", "DK", "S7",
             "C10", "H7", "S8", "CK", "H8", "S9", "SA", "H9", "SQ", "S10", "HQ", "DA", "HA", "HK", "D10"]
    for i, c in enumerate(order):
        assert s.current_player() == (0 if i % 3 == 0 else i % 3), i
        assert parse_card(c) in s.legal_actions()
        do(s, c)
    assert s.is_terminal() and s.phase == "done" and s.current_player() == TERMINAL_PLAYER == -4
    r = s.result
    # all 10 tricks: grand with 4, schneider, schwarz = 4+1+1+1 = 7 x 24 = 168
    assert (r.won, r.declarer_tricks, r.declarer_points, r.matadors, r.multiplier) == (True, 10, 120, 4, 7)
    assert r.list_score == 168 and s.returns("list") == [168.0, 0.0, 0.0] and s.returns() == [218.0, 0.0, 0.0]
    assert r.seeger_fabian == (218, 0, 0) and r.schwarz and r.schneider
    assert [w for _, _, w in s.tricks()] == [0] * 10


@pytest.mark.parametrize("declarer", [0, 1, 2])
def test_forehand_leads_the_first_trick_whoever_declares(declarer: int) -> None:
    # ISKO.md §6: forehand leads the first trick; the winner of each trick leads the next
    auction = {0: ("pass", "pass", "18"), 1: ("18", "pass", "pass"), 2: ("pass", "18", "pass")}[declarer]
    s = do(SkatState.new_game(seed=40), *auction, "hand", "CH")
    assert s.declarer == declarer and s.phase == "play" and s.current_player() == 0 == s.trick_leader()
    rng = random.Random(declarer)
    for _ in range(3):
        s.apply_action(rng.choice(s.legal_actions()))
    leader, cards, winner = s.tricks()[0]
    assert leader == 0 and s.current_player() == winner == s.trick_leader()


def test_null_is_lost_at_once_by_a_zero_point_trick() -> None:
    # ISKO.md §7: the null declarer loses as soon as he takes a trick, even a 0-point trick
    d = deal_from_hands("D9 C7 C8 C9 S7 S8 S9 H7 H8 H9", "D7 CA C10 CK CQ CJ SA S10 SK SQ",
                        "D8 SJ HA H10 HK HQ HJ DA D10 DK", "DQ DJ")
    s = do(SkatState.new_game(deal=d), "pass", "pass", "18", "hand", "NH")
    assert set(s.legal_actions()) == set(s.hand(0))  # forehand may lead any card
    do(s, "D9")
    assert s.legal_actions() == [parse_card("D7")]  # middlehand must follow diamonds
    do(s, "D7", "D8")
    assert s.is_terminal() and len(s.tricks()) == 1 and s.tricks()[0][2] == 0
    r = s.result
    assert not r.won and r.declarer_tricks == 1 and r.game_value == 35 and r.list_score == -70
    assert s.returns("list") == [-70.0, 0.0, 0.0] and r.seeger_fabian == (-120, 40, 40)
    assert s.returns() == [-120.0, 40.0, 40.0] and s.returns("zero_sum") == [-70.0, 35.0, 35.0]


def test_null_is_won_without_a_trick() -> None:
    d = deal_from_hands("D7 C7 C8 C9 S7 S8 S9 H7 H8 H9", "D9 CA C10 CK CQ CJ SA S10 SK SQ",
                        "D8 SJ HA H10 HK HQ HJ DA D10 DK", "DQ DJ")
    s = do(SkatState.new_game(deal=d), "pass", "pass", "18", "pickup", "DQ", "DJ", "NO")
    rng = random.Random(0)
    while not s.is_terminal():
        la = s.legal_actions()
        # the declarer ducks with his lowest card; this hand can never be forced to win a trick
        s.apply_action(min(la, key=lambda c: (c & 7 if s.current_player() == 0 else rng.random())))
    r = s.result
    assert r.won and r.declarer_tricks == 0 and r.list_score == 46 and len(s.tricks()) == 10


def test_rules_object() -> None:
    for rules in (SkatRules(), SkatRules(ramsch=True), SkatRules(kontra=True), SkatRules(True, True)):
        assert SkatRules.from_dict(rules.to_dict()) == rules == SkatRules.from_flags(rules.flags)
    versions = {r.version for r in (SkatRules(), SkatRules(ramsch=True), SkatRules(kontra=True))}
    assert len(versions) == 3
    with pytest.raises(ValueError, match="bock"):
        SkatRules.from_dict({"bock": True})


# ------------------------------------------------------------------------- legal actions


def test_legal_actions_are_sorted_and_only_for_the_player_to_move() -> None:
    s = SkatState.new_game(seed=1)
    la = s.legal_actions()
    assert la == sorted(la) and len(la) == 64
    assert s.legal_actions(1) == la and s.legal_actions(0) == [] and s.legal_actions(2) == []
    m = s.legal_actions_mask()
    assert m.shape == (NUM_ACTIONS,) and m.dtype == bool and list(np.flatnonzero(m)) == la


def test_legal_cards_in_play_equal_the_legal_actions() -> None:
    s = played_game(4)
    replay = SkatState.new_game(deal=s.deal, rules=s.rules)
    for a in s.history():
        if replay.phase == "play":
            p = replay.current_player()
            assert set(replay.legal_cards()) == set(replay.legal_actions())
            assert replay.legal_cards_mask(p) == sum(1 << c for c in replay.legal_actions())
            assert replay.legal_cards((p + 1) % 3) == CardSet()
        else:
            assert replay.legal_cards_mask() == 0
        replay.apply_action(a)


def test_legal_actions_never_empty_before_the_end() -> None:
    for seed in range(40):
        s = SkatState.new_game(seed=seed, rules=SkatRules(ramsch=seed % 2 == 0, kontra=seed % 3 == 0))
        rng = random.Random(seed)
        while not s.is_terminal():
            la = s.legal_actions()
            assert la
            s.apply_action(rng.choice(la))
        assert s.legal_actions() == [] and not s.legal_actions_mask().any()


# ---------------------------------------------------------------------- illegal actions


def test_illegal_bid_names_the_action_and_the_legal_ones_and_changes_nothing() -> None:
    s = do(SkatState.new_game(seed=2), "18")
    before = snapshot(s)
    with pytest.raises(ValueError) as e:
        s.apply_action(string_to_action("20"))  # forehand may only answer
    msg = str(e.value)
    assert "'20'" in msg and str(string_to_action("20")) in msg
    assert "yes" in msg and "pass" in msg and "seat 0" in msg and "bidding" in msg
    assert snapshot(s) == before


def test_illegal_card_names_the_card_and_the_legal_cards() -> None:
    rng = random.Random(9)
    for seed in range(300):
        s = SkatState.new_game(seed=seed)
        while not s.is_terminal():
            la = s.legal_actions()
            if s.phase == "play" and len(la) < len(s.hand(s.current_player())):
                bad = next(c for c in s.hand(s.current_player()) if c not in la)
                before = snapshot(s)
                with pytest.raises(ValueError) as e:
                    s.apply_action(bad)
                msg = str(e.value)
                assert repr(card_name(bad)) in msg and "phase play" in msg
                for c in la:
                    assert card_name(c) in msg
                assert snapshot(s) == before
                return
            s.apply_action(la[0] if s.phase == "bidding" and la[0] < PASS and not s.history() else rng.choice(la))
    raise AssertionError("no position with a follow-suit restriction found")


@pytest.mark.parametrize("bad", [-1, 130, 999, "CJ", None, 2.5])
def test_non_actions_raise_value_error(bad) -> None:
    s = SkatState.new_game(seed=2)
    before = snapshot(s)
    with pytest.raises(ValueError, match="illegal action"):
        s.apply_action(bad)
    assert snapshot(s) == before


def test_no_action_after_the_end() -> None:
    s = played_game(5)
    with pytest.raises(ValueError, match="game is over"):
        s.apply_action(0)


# ------------------------------------------------------------------------ clone and child


def test_clone_is_independent() -> None:
    s = do(SkatState.new_game(seed=8), "18", "yes")
    c = s.clone()
    before = snapshot(s)
    do(c, "20", "pass")
    assert snapshot(s) == before
    do(s, "pass")
    assert c.history() != s.history() and c.current_player() == 2 and s.current_player() == 2
    assert c.bid == 20 and s.bid == 18


def test_child() -> None:
    s = SkatState.new_game(seed=8)
    before = snapshot(s)
    a = string_to_action("18")
    ch = s.child(a)
    assert ch.history() == [a] and ch.current_player() == 0
    assert snapshot(s) == before
    with pytest.raises(ValueError):
        s.child(HOLD)
    assert snapshot(s) == before


# ---------------------------------------------------------------------- returns and result


def test_returns_and_result() -> None:
    s = SkatState.new_game(seed=8)
    assert s.returns() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="not over"):
        s.result
    for seed in range(30):
        s = random_game(seed)
        r = s.result
        assert s.returns("list") == [float(x) for x in r.scores]
        assert s.returns() == s.returns("sf") == [float(x) for x in r.seeger_fabian]
        assert sum(s.returns("zero_sum")) == 0
        if r.passed_in:
            assert s.returns() == s.returns("zero_sum") == [0.0, 0.0, 0.0]
            continue
        d = r.declarer
        assert r.scores[d] == r.list_score and all(r.scores[p] == 0 for p in range(3) if p != d)
        assert r.seeger_fabian[d] == r.list_score + (50 if r.won else -50)
        assert all(r.seeger_fabian[p] == (0 if r.won else 40) for p in range(3) if p != d)
        assert r.rules == {"ramsch": False, "kontra": False} and r.rules_version == SkatRules().version
        assert s.seeger_fabian() == list(r.seeger_fabian)
        assert isinstance(r.summary(), str) and str(r.list_score) in r.summary().replace("+", "")


def test_action_strings_round_trip_for_every_action() -> None:
    for a in range(NUM_ACTIONS):
        text = SkatState.action_to_string(a)
        assert SkatState.string_to_action(text) == a, (a, text)
        assert string_to_action(text.lower()) == a, (a, text)
    with pytest.raises(ValueError, match="'nonsense'"):
        string_to_action("nonsense")
    with pytest.raises(ValueError):
        action_to_string(NUM_ACTIONS)
    assert [action_to_string(a) for a in (PASS, HOLD, PICKUP, HAND, KONTRA, RE)] == \
        ["pass", "yes", "pickup", "hand", "kontra", "re"]
    assert action_to_string(DECLARE_BASE + 2) == "S" and string_to_action("S") == DECLARE_BASE + 2


def test_str_shows_the_game() -> None:
    s = SkatState.new_game(seed=1)
    text = str(s)
    assert "phase: bidding" in text and "seat 1" in text
    for p in range(3):
        assert str(s.hand(p)) in text
    s = played_game(6)
    text = str(s)
    assert "phase: done" in text and "result:" in text and "trick  1:" in text
    assert repr(s).startswith("<SkatState")


# ------------------------------------------------------------------------------- records


def test_every_finished_game_becomes_a_complete_record() -> None:
    s = played_game(10)
    rec = s.to_record()
    for key in ("deal", "bids", "skat_choice", "discard", "contract", "cards", "result", "rules",
                "rules_version", "moves"):
        assert key in rec
    assert json.loads(s.to_json()) == rec
    assert CardSet(rec["deal"]["forehand"]) == s.deal.hands[0] and CardSet(rec["deal"]["skat"]) == s.deal.skat
    assert rec["bids"] == [[p, action_to_string(a)] for p, a in s.history_with_players() if a < PICKUP and a >= 32]
    assert rec["skat_choice"] in ("pickup", "hand")
    assert len(rec["discard"]) == (2 if rec["skat_choice"] == "pickup" else 0)
    assert rec["contract"] == str(s.contract)
    assert len(rec["cards"]) == 3 * sum(s.tricks_won())
    assert rec["result"] == s.result.to_dict()
    assert rec["rules_version"] == s.rules.version


def test_records_are_json_without_jit_too() -> None:
    code = ("import random; from skatsim import SkatState\n"
            "s = SkatState.new_game(seed=10); r = random.Random(0)\n"
            "while not s.is_terminal(): s.apply_action(r.choice(s.legal_actions()))\n"
            "SkatState.from_record(s.to_json())\n")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("rules", [SkatRules(), SkatRules(ramsch=True), SkatRules(kontra=True),
                                   SkatRules(ramsch=True, kontra=True)], ids=lambda r: r.version)
def test_records_round_trip(rules: SkatRules) -> None:
    for seed in range(25):
        s = random_game(seed, rules)
        back = SkatState.from_record(s.to_json())
        assert back.history() == s.history() and back.result == s.result
        assert back.to_record() == s.to_record()
        assert SkatState.from_record(s.to_record()).result.to_dict() == s.result.to_dict()


def test_unfinished_game_record_replays_to_the_same_position() -> None:
    s = do(SkatState.new_game(seed=12), "18", "yes", "20", "pass")
    rec = s.to_record()
    assert rec["result"] is None
    back = SkatState.from_record(rec)
    assert snapshot(back) == snapshot(s)


def _record_with_bad_move():
    s = played_game(20)
    rec = s.to_record()
    moves = rec["moves"]
    # first card play where the player to move had a card he may not play; else any card he lacks
    replay = SkatState.new_game(deal=s.deal)
    for i, (seat, text) in enumerate(moves):
        if replay.phase == "play":
            held = set(replay.hand(seat))
            not_held = [c for c in range(32) if c not in held]
            moves[i] = [seat, card_name(not_held[0])]
            return rec, i
        replay.apply_action(string_to_action(text))
    raise AssertionError


def test_record_with_a_bad_move_names_the_move_number() -> None:
    rec, i = _record_with_bad_move()
    with pytest.raises(RecordError) as e:
        SkatState.from_record(rec)
    assert f"move {i + 1}" in str(e.value) and rec["moves"][i][1] in str(e.value)
    assert isinstance(e.value, ValueError)


def test_record_with_a_wrong_seat_or_an_unknown_move() -> None:
    rec = played_game(21).to_record()
    bad = copy.deepcopy(rec)
    bad["moves"][0][0] = 0  # middlehand opens, not forehand
    with pytest.raises(RecordError, match="move 1"):
        SkatState.from_record(bad)
    bad = copy.deepcopy(rec)
    bad["moves"][0][1] = "17"
    with pytest.raises(RecordError, match="move 1"):
        SkatState.from_record(bad)
    bad = copy.deepcopy(rec)
    bad["moves"].append([0, "CJ"])
    with pytest.raises(RecordError, match=f"move {len(bad['moves'])}.*over"):
        SkatState.from_record(bad)


@pytest.mark.parametrize("field,value", [("list_score", 12345), ("won", None), ("declarer_points", 7),
                                         ("game_value", 1), ("seeger_fabian", [1, 2, 3])])
def test_tampered_result_names_the_field(field: str, value) -> None:
    rec = played_game(22).to_record()
    if value is None:
        value = not rec["result"][field]
    rec["result"][field] = value
    with pytest.raises(RecordError, match=repr(field)):
        SkatState.from_record(rec)


@pytest.mark.parametrize("field", ["contract", "declarer", "bid", "cards", "discard"])
def test_tampered_summary_names_the_field(field: str) -> None:
    rec = played_game(23).to_record()
    new = {"contract": "NOH", "declarer": 9, "bid": 1, "cards": ["CJ"], "discard": ["CJ", "SJ"]}[field]
    assert rec[field] != new
    rec[field] = new
    with pytest.raises(RecordError, match=repr(field)):
        SkatState.from_record(rec)


def test_malformed_records() -> None:
    with pytest.raises(RecordError):
        SkatState.from_record({"moves": []})
    with pytest.raises(RecordError, match="format"):
        SkatState.from_record({"format": "other/9", "deal": {}, "moves": []})
    rec = played_game(24).to_record()
    rec["deal"]["skat"] = rec["deal"]["forehand"].split()[0] + " " + rec["deal"]["skat"].split()[0]
    with pytest.raises(RecordError, match="deal"):
        SkatState.from_record(rec)
    rec = played_game(24).to_record()
    rec["moves"] = rec["moves"][:-1]  # the result no longer matches an unfinished game
    with pytest.raises(RecordError):
        SkatState.from_record(rec)


# --------------------------------------------------------------------------- ISS records
# The real server records replayed through SkatState by the one importer, skatsim.iss
# (tests/test_iss.py tests the importer itself).


@pytest.mark.parametrize("rid", sorted(all_records()))
def test_iss_record_replays_to_the_server_result(rid: int) -> None:
    g = iss.parse_iss(all_records()[rid])
    s = iss.replay(g)
    assert s.is_terminal()
    res = g.result
    r = s.result
    if res.passed:
        assert r.passed_in and s.ending == "played" and s.returns() == [0.0, 0.0, 0.0]
        return
    if res.outcome == "penalty":
        assert r.passed_in and s.ending in ("timeout", "left") and s.returns("list") == [0.0, 0.0, 0.0]
        assert s.ending_seat == (res.left if s.ending == "left" else res.timeout)
        return
    assert r.declarer == res.declarer
    assert r.list_score == res.value
    assert r.matadors == res.matadors
    assert r.declarer_points == res.points and r.declarer_tricks == res.tricks
    assert r.won == (res.outcome == "win") and r.overbid == res.overbid
    assert r.schneider == res.schneider and r.schwarz == res.schwarz


def test_resigned_and_stopped_records_are_settled_by_the_state() -> None:
    """RE and the schwarz stop end the SkatState itself (no settle() by hand), and the
    state's own record reproduces the game, events included."""
    for rid, want in ((1039093, "defenders_resigned"), (727, "defenders_resigned"),
                      (1390253, "defenders_resigned"), (13577, "schwarz_lost"), (30, "left"), (8, "timeout")):
        s = iss.replay(iss.parse_iss(all_records()[rid]))
        assert s.ending == want, rid
        back = SkatState.from_record(s.to_json())
        assert back.ending == want and back.result == s.result and back.events() == s.events()
        assert back.history() == s.history()


# ------------------------------------------------------------------------------ Kontra/Re


def _to_declaration(rules: SkatRules, seed: int = 30) -> SkatState:
    s = SkatState.new_game(seed=seed, rules=rules)
    do(s, "pass", "18", "pass", "hand", "GH")  # rearhand plays grand hand at 18
    return s


def test_kontra_phase_only_with_the_option() -> None:
    s = _to_declaration(SkatRules())
    assert s.phase == "play" and KONTRA not in s.legal_actions()
    s = _to_declaration(SkatRules(kontra=True))
    assert s.phase == "kontra" and s.current_player() == 0  # the first defender in seat order
    assert sorted(action_to_string(a) for a in s.legal_actions()) == ["kontra", "pass"]
    do(s, "pass")
    assert s.phase == "kontra" and s.current_player() == 1
    do(s, "kontra")
    assert s.phase == "kontra" and s.current_player() == 2  # the declarer may answer re
    assert sorted(action_to_string(a) for a in s.legal_actions()) == ["pass", "re"]
    do(s, "re")
    assert s.phase == "play" and s.current_player() == 0


@pytest.mark.parametrize("answers,factor", [(("pass", "pass"), 1), (("kontra", "pass"), 2), (("kontra", "re"), 4),
                                            (("pass", "kontra", "re"), 4)])
def test_kontra_and_re_double_the_score(answers: tuple, factor: int) -> None:
    plain = _to_declaration(SkatRules())
    k = _to_declaration(SkatRules(kontra=True))
    do(k, *answers)
    rng = random.Random(4)
    while not plain.is_terminal():
        a = rng.choice(plain.legal_actions())
        plain.apply_action(a)
        k.apply_action(a)
    assert k.is_terminal()
    assert k.result.list_score == factor * plain.result.list_score
    assert k.result.kontra == {1: 0, 2: 1, 4: 2}[factor]
    assert k.result.rules["kontra"] is True and "kontra" in k.result.rules_version
    rec = k.to_record()
    assert rec["kontra"] == [a for a in answers if a in ("kontra", "re")]
    assert rec["bids"] == [[1, "pass"], [2, "18"], [0, "pass"]]  # Kontra-phase passes are not bids
    assert SkatState.from_record(rec).result == k.result


# ---------------------------------------------------------------------------------- Ramsch


def test_ramsch_result_follows_the_house_rule() -> None:
    for seed in range(20):
        s = SkatState.new_game(seed=seed, rules=SkatRules(ramsch=True))
        do(s, "pass", "pass", "pass")
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        r = s.result
        assert r.ramsch and not r.passed_in and r.declarer is None and s.game_type == RAMSCH
        pts = list(r.card_points)
        last_winner = s.tricks()[-1][2]
        skat_pts = CardSet.from_mask(s.skat_mask()).points
        assert pts == [s.points()[p] + (skat_pts if p == last_winner else 0) for p in range(3)]
        assert sum(pts) == 120
        top = max(pts)
        assert list(r.scores) == [-top if p == top else 0 for p in pts]
        assert s.returns("list") == [float(x) for x in r.scores]
        assert s.returns() == [float(x) for x in r.seeger_fabian] == [float(x) for x in r.scores]
        z = s.returns("zero_sum")
        assert abs(sum(z)) < 1e-9 and [z[p] - z[q] for p in range(3) for q in range(3)] == \
            pytest.approx([float(r.scores[p] - r.scores[q]) for p in range(3) for q in range(3)])
        # tricks follow the Ramsch trump rule (jacks only) in the reference
        for leader, cards, winner in s.tricks():
            rc = [ref.card(card_name(c)) for c in cards]
            assert (leader + ref.trick_winner(rc, "R")) % 3 == winner


def test_legal_action_lists_match_their_bit_sets() -> None:
    """The fast list builder behind legal_actions() (byte tables, runs of bids) is exact."""
    from skatsim.actions import action_ids as _bits_list

    r = random.Random(0)
    for _ in range(20000):
        kind = r.randrange(4)
        if kind == 0:
            lo, hi = r.getrandbits(32), r.getrandbits(32)
        elif kind == 1:  # a run up to bit 63: the bidder's set
            j = r.randrange(64)
            m = ((1 << 64) - 1) >> j << j
            lo, hi = m & 0xFFFF_FFFF, m >> 32
        elif kind == 2:
            lo, hi = r.getrandbits(3), 0
        else:
            lo, hi = 0, 0
        base = r.choice([0, 32, 95, 97, 99])
        m = lo | hi << 32
        assert _bits_list(base, lo, hi) == [base + i for i in range(64) if m >> i & 1]


# ------------------------------------------------------------------ returns kinds (issue 7)


def test_a_defenders_return_moves_opposite_to_the_declarers() -> None:
    """Default returns are Seeger-Fabian: the defence gets +40 each when the declarer loses."""
    won = lost = 0
    for seed in range(60):
        s = random_game(seed)
        r = s.result
        if r.declarer is None:
            continue
        d = r.declarer
        defenders = [p for p in range(3) if p != d]
        sf, zs, ls = s.returns(), s.returns("zero_sum"), s.returns("list")
        if r.won:
            won += 1
            assert sf[d] > 0 and all(sf[p] == 0 for p in defenders)
            assert zs[d] > 0 and all(zs[p] == -zs[d] / 2 < 0 for p in defenders)
        else:
            lost += 1
            assert sf[d] < 0 and all(sf[p] == 40 for p in defenders)
            assert zs[d] < 0 and all(zs[p] == -zs[d] / 2 > 0 for p in defenders)
        assert ls == [float(x) for x in r.scores]
    assert won and lost


def test_returns_kind_is_validated() -> None:
    s = SkatState.new_game(seed=1)
    for bad in ("SF", "openspiel", None, 0):
        with pytest.raises(ValueError, match="returns kind must be one of"):
            s.returns(bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- bad input refused (issue 7)


@pytest.mark.parametrize("seat", [3, -1, 5, True, 1.0, "1", None])
def test_seats_are_validated_everywhere(seat) -> None:
    s = SkatState.new_game(seed=1)
    for call in (s.hand, s.hand_mask, s.played_mask, s.legal_cards_mask, s.legal_cards, s.legal_actions,
                 s.resample_from_infostate):
        if seat is None and call in (s.legal_cards_mask, s.legal_cards, s.legal_actions):
            continue  # None means "the player to move" there
        with pytest.raises(ValueError, match=f"must be a seat 0, 1 or 2.*got {seat!r}"):
            call(seat)


def test_hand_3_no_longer_returns_the_skat() -> None:
    s = SkatState.new_game(seed=1)
    with pytest.raises(ValueError, match="got 3"):
        s.hand(3)
    import numpy as np

    assert s.hand(np.int64(2)) == s.deal.hands[2]


@pytest.mark.parametrize("phase_moves", [(), ("18", "yes", "pass", "pass", "pickup"), ("18", "pass", "pass", "hand", "GH")])
def test_booleans_are_not_actions(phase_moves) -> None:
    import numpy as np

    s = do(SkatState.new_game(seed=4), *phase_moves)
    before = snapshot(s)
    for b in (True, False, np.bool_(True)):
        with pytest.raises(ValueError, match="not an action id"):
            s.apply_action(b)
        assert not s.is_legal(b)
    assert snapshot(s) == before


def test_is_legal_agrees_with_legal_actions_in_every_phase() -> None:
    import numpy as np

    for seed in range(8):
        s = SkatState.new_game(seed=seed, rules=SkatRules(kontra=True, ramsch=seed % 2 == 0))
        rng = random.Random(seed)
        while True:
            legal = set(s.legal_actions())
            assert {a for a in range(-3, 140) if s.is_legal(a)} == legal
            assert np.flatnonzero(s.legal_actions_mask()).tolist() == sorted(legal)
            assert not s.is_legal(1.0) and not s.is_legal("18") and not s.is_legal(2**70)
            if s.is_terminal():
                break
            s.apply_action(rng.choice(sorted(legal)))


def test_new_game_refuses_rules_that_are_not_skatrules() -> None:
    for bad in ("isko", {"kontra": True}, None, 1):
        with pytest.raises(TypeError, match="rules must be a SkatRules"):
            SkatState.new_game(seed=1, rules=bad)


# ------------------------------------------------------------------------ into the play phase


@pytest.mark.parametrize("declarer", [0, 1, 2])
@pytest.mark.parametrize("contract", ["CH", "C", "GO", "NOH", "N", "DHZ"])
def test_to_play_reaches_the_card_play(declarer: int, contract: str) -> None:
    from skatsim.state import to_play

    for rules in (SkatRules(), SkatRules(kontra=True)):
        s = to_play(11, declarer, contract, rules=rules)
        assert (s.phase, s.declarer, str(s.contract), s.bid, s.current_player()) == \
            ("play", declarer, contract, 18, 0)
        assert s.deal == SkatState.new_game(seed=11).deal and s.rules == rules
        if not s.contract.hand:
            assert s.skat_mask() == s.deal.skat.mask and s.hand(declarer) == s.deal.hands[declarer]
        assert SkatState.new_game(seed=11, rules=rules, declare=(declarer, contract)).history() == s.history()


def test_to_play_repeats_the_literal_forehand_sequence() -> None:
    from skatsim.state import to_play

    s = do(SkatState.new_game(seed=2), "18", "yes", "pass", "pass", "hand", "CH")
    assert to_play(2, 0, "CH").history() == s.history()
    start = SkatState.new_game(seed=2)
    assert to_play(start, 0, "CH").history() == s.history() and start.history() == []
    assert to_play(start.deal, 0, "CH").history() == s.history()


def test_to_play_options_and_errors() -> None:
    from skatsim.state import to_play

    s = to_play(5, 1, "G", bid=48, discard=None)
    assert s.bid == 48 and s.declarer == 1
    twelve = s.deal.hands[1] | s.deal.skat
    two = CardSet(twelve.ids()[:2])
    s = to_play(5, 1, "S", discard=two)
    assert s.skat_mask() == two.mask and s.hand(1) == twelve - two
    with pytest.raises(ValueError, match="cannot be declared at bid 24"):
        to_play(5, 1, "N", bid=24)
    with pytest.raises(ValueError, match="hand game: there is no discard"):
        to_play(5, 1, "GH", discard=two)
    with pytest.raises(ValueError, match="discard must be 2 of the declarer's 12 cards"):
        to_play(5, 1, "G", discard=s.deal.hands[0].ids()[:2])
    with pytest.raises(ValueError, match="declarer must be a seat"):
        to_play(5, 3, "G")
    with pytest.raises(ValueError, match="start of bidding"):
        to_play(to_play(5, 1, "G"), 1, "G")
    with pytest.raises(ValueError, match="declare must be a pair"):
        SkatState.new_game(seed=5, declare="CH")


# ------------------------------------------------------------------ records: every field checked


@pytest.mark.parametrize("field,value,msg", [
    ("bids", [[0, "264"]], "'bids'"),
    ("kontra", ["kontra", "re"], "'kontra'"),
    ("seed", 999, "not deal\\(999\\)"),
    ("seed", "7", "'seed' must be an int"),
    ("seed", True, "'seed' must be an int"),
    ("rules_version", "isko-2099/other-9", "'rules_version'"),
    ("rules", {"ramsch": "false"}, "must be True or False"),
    ("rules", {"ramsch": True}, "'rules_version'"),
    ("skat_choice", "hand", "'skat_choice'"),
    ("moves", None, "'moves' must be a list"),
    ("moves", "18 yes", "'moves' must be a list"),
    ("result", [], "'result' must be a dict"),
    ("result", None, "'result' is null"),
    ("deal", "CJ SJ", "'deal' must map"),
    ("colour", "red", "unknown field"),
])
def test_tampered_record_fields_are_refused(field: str, value, msg: str) -> None:
    rec = played_game(25).to_record()
    assert rec.get(field) != value
    rec[field] = value
    with pytest.raises(RecordError, match=msg):
        SkatState.from_record(rec)
    with pytest.raises(RecordError, match=msg):
        SkatState.from_record(json.dumps(rec))


@pytest.mark.parametrize("field,value", [("rules", {"ramsch": True}), ("rules_version", "foo"),
                                         ("matadors", "4"), ("with_matadors", True)])
def test_tampered_result_rules_and_unknown_result_fields(field: str, value) -> None:
    rec = played_game(26).to_record()
    rec["result"][field] = value
    with pytest.raises(RecordError, match=repr(field)):
        SkatState.from_record(rec)
    rec = played_game(26).to_record()
    del rec["result"]["won"]
    with pytest.raises(RecordError, match="lacks field"):
        SkatState.from_record(rec)


@pytest.mark.parametrize("seat", ["1", 1.9, True, 3, -1, None])
def test_record_move_seats_must_be_ints_0_to_2(seat) -> None:
    rec = played_game(27).to_record()
    rec["moves"][0][0] = seat
    with pytest.raises(RecordError, match="move 1: expected \\[seat, action\\]"):
        SkatState.from_record(rec)
    rec = played_game(27).to_record()
    rec["moves"][0] = [1]
    with pytest.raises(RecordError, match="move 1"):
        SkatState.from_record(rec)


def test_truncated_or_malformed_json_is_a_record_error() -> None:
    text = played_game(28).to_json()
    for bad in (text[: len(text) // 2], text[:-1], "", "not json", "[1, 2]", "null"):
        with pytest.raises(RecordError):
            SkatState.from_record(bad)


def test_format_1_records_still_load() -> None:
    from skatsim.records import RECORD_FORMAT

    assert RECORD_FORMAT == "skatsim-record/2"
    s = played_game(29)
    rec = s.to_record()
    r = rec["result"]
    old = dict(rec, format="skatsim-record/1",
               result=dict(r, matadors=abs(r["matadors"]), with_matadors=r["matadors"] > 0))
    assert SkatState.from_record(old).result == s.result
    old["result"]["with_matadors"] = not old["result"]["with_matadors"]
    with pytest.raises(RecordError, match="'matadors'"):
        SkatState.from_record(old)
