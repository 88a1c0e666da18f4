"""skatsim.iss: parsing, replay with the server's endings, validation against the result line,
export and round trip, streaming import to parquet.

The real records (tests/iss_records.py and tests/data/iss_records.txt) must reproduce every
field of the server's result line exactly; the ending rules (RE, SC, time-out, left, the
schwarz stop) are checked against those records and against independent counts.
"""

from __future__ import annotations

import bz2
import json
import random
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iss_records import RECORDS, all_records

from skatsim import SkatState, iss, simulate, to_play
from skatsim.cards import CardSet
from skatsim import iss_import
from skatsim.iss import IssError, check, iter_iss, parse_iss, replay, rows_to_iss, to_iss
from skatsim.iss_import import import_iss
from skatsim_app.cli import main as cli_main
from skatsim.table import RESULT_COLUMNS

REAL = all_records()


def _card(name: str) -> int:
    return iss._CARD_OF[name]


# --------------------------------------------------------------------------- real records
@pytest.mark.parametrize("rid", sorted(REAL))
def test_real_record_matches_every_field_of_the_server_result(rid: int) -> None:
    g = parse_iss(REAL[rid])
    s = replay(g)
    assert g.id == rid and s.is_terminal()
    assert check(g, s) == []


@pytest.mark.parametrize("rid,ending,points,tricks,value,schneider,schwarz", [
    (1039093, "defenders_resigned", 84, 5, 48, False, False),  # declarer gets the 5 tricks still out
    (6934288, "defenders_resigned", 86, 8, 72, False, False),
    (727, "defenders_resigned", 120, 10, 192, True, True),  # GO after one card: all of it is his
    (1390253, "defenders_resigned", 14, 0, 46, False, False),  # null ouvert: the discards only, no trick
    (13577, "schwarz_lost", 13, 0, -192, False, False),  # CO stopped at the defenders' first trick
    (25, "played", 12, 1, -118, False, False),  # null ends at the declarer's first trick (rules)
    (10327743, "played", 12, 1, -144, True, False),  # the declarer schneidered: s:1
])
def test_endings_reproduce_the_server(rid, ending, points, tricks, value, schneider, schwarz) -> None:
    s = replay(parse_iss(REAL[rid]))
    r = s.result
    assert s.ending == ending
    assert (r.declarer_points, r.declarer_tricks, r.list_score) == (points, tricks, value)
    assert (r.schneider, r.schwarz) == (schneider, schwarz)


def test_penalty_records_are_kept_and_flagged() -> None:
    left = replay(parse_iss(REAL[30]))
    assert (left.ending, left.ending_seat) == ("left", 2)
    assert left.result.passed_in and left.returns("list") == [0.0, 0.0, 0.0]
    out = replay(parse_iss(REAL[8]))
    assert (out.ending, out.ending_seat) == ("timeout", 2)
    assert parse_iss(REAL[8]).result.timeout == 2


def test_parsed_fields() -> None:
    g = parse_iss(RECORDS[541932])
    assert (g.id, g.series, g.date, g.place) == (541932, 24072, "2010-12-06/18:59:24/UTC", "International Skat Server")
    assert g.players == ("zoot", "kermit", "foo") and g.ratings == ("", "", "0.0")
    assert g.deal.hands[0] == CardSet("HA SK SJ SA CQ S8 C9 H7 H9 DQ")
    assert g.deal.skat == CardSet("H8 CK")
    assert g.moves[:4] == (("1", "p"), ("2", "18"), ("0", "p"), ("2", "s"))
    r = g.result
    assert (r.outcome, r.declarer, r.value, r.matadors, r.overbid, r.points, r.tricks) == ("loss", 2, -54, -2, False, 59, 4)
    assert (r.left, r.timeout, r.resigned) == (-1, -1, False)
    assert parse_iss(REAL[727]).result.resigned is None  # older records leave out r:
    s = replay(g)
    assert s.skat_mask() == CardSet("ST H8").mask and s.contract.to_text() == "D"


def test_split_form_discards_give_the_same_game_as_the_combined_form() -> None:
    g = parse_iss(REAL[596891])  # "2 D" then "2 D9.DQ"
    split = replay(g)
    combined = REAL[596891].replace(" 2 D 2 D9.DQ ", " 2 D.D9.DQ ")
    assert combined != REAL[596891]
    assert replay(parse_iss(combined)).history() == split.history()
    assert split.skat_mask() == CardSet("D9 DQ").mask


def test_shown_cards_and_resignations_are_events() -> None:
    s = replay(parse_iss(REAL[1039093]))
    kinds = [(e["seat"], e["kind"]) for e in s.events()]
    assert kinds == [(1, "show"), (2, "resign"), (0, "resign")]
    assert s.events()[0]["cards"]  # the hand the declarer showed


# --------------------------------------------------------------------------- errors
BAD = [
    (RECORDS[541932].replace("w HA.SK", "w HX.SK"), "HX", "not a card"),
    (RECORDS[541932].replace("w HA.SK.SJ", "w HA.SK.HA"), None, "32 cards once"),
    (RECORDS[541932].replace(" 0 SA 1 S7", " 4 SA 1 S7"), "4", "mover"),
    (RECORDS[541932].replace(" 1 S7 ", " 1 S77 "), "S77", "not an ISS action"),
    (RECORDS[541932].replace(" 1 S7 ", " 1 "), None, "odd number"),
    (RECORDS[541932].replace("R[d:2 loss", "X[d:2 loss"), None, "no R"),
    (RECORDS[541932].replace("v:-54", "v:x"), "x", "v:"),
    (RECORDS[541932].replace("d:2 loss", "d:2 lost"), None, "outcome"),
]


@pytest.mark.parametrize("text,token,why", BAD)
def test_malformed_record_names_line_and_token(text: str, token, why: str) -> None:
    with pytest.raises(IssError, match=why) as ei:
        parse_iss(text, line=17)
    e = ei.value
    assert e.line == 17 and "line 17" in str(e) and e.kind == "malformed"
    if token is not None:
        assert e.token == token and repr(token) in str(e)


@pytest.mark.parametrize("old,new,token,why", [
    (" 0 SA 1 S7 ", " 0 SA 1 HQ ", "HQ", "illegal"),  # middlehand must follow spades (he holds S7)
    (" 0 SA 1 S7 ", " 1 SA 1 S7 ", "SA", "turn"),  # out of turn
    (" 2 D.ST.H8 ", " 2 D.H8.ST ", "D.H8.ST", None),  # the discards in the other order: fine
    (" 2 D.ST.H8 ", " 2 D.ST.SJ ", "D.ST.SJ", "illegal"),  # SJ is forehand's card
    (" 2 D.ST.H8 ", " 2 DH.ST.H8 ", "DH.ST.H8", "not a legal declaration"),  # hand after pickup
    ("w H8.CK", "w H8.CA", "H8.CA", "dealt skat"),
    (" 1 DK 2 HT ]", " ]", "SK", "ends before"),  # truncated: the game is not over
    (" 0 SK 1 DK 2 HT ]", " 0 SK 1 DK 2 HT 0 RE ]", "RE", "cannot resign"),  # after the end
])
def test_illegal_record_names_the_move(old: str, new: str, token: str, why) -> None:
    text = RECORDS[541932].replace(old, new)
    assert text != RECORDS[541932]
    g = parse_iss(text, line=5)
    if why is None:
        replay(g)
        return
    with pytest.raises(IssError, match=why) as ei:
        replay(g)
    assert ei.value.token == token and ei.value.record_id == 541932 and "line 5" in str(ei.value)


def test_a_tampered_result_is_reported_by_field() -> None:
    g = parse_iss(RECORDS[541932].replace("v:-54", "v:-56").replace("p:59", "p:60"))
    mism = check(g, replay(g))
    assert [(m.record_id, m.field, m.server, m.ours) for m in mism] == [(541932, "v", -56, -54), (541932, "p", 60, 59)]
    assert "ID 541932" in str(mism[0]) and "v" in str(mism[0])


def test_iter_iss_collects_errors_and_goes_on(tmp_path) -> None:
    lines = ["# a comment", RECORDS[541932], "(;GM[Skat]MV[w CJ ]R[passed] ;)", "",
             RECORDS[684159].replace(" 0 DK ", " 0 ZZ "), "garbage", RECORDS[756788]]
    path = tmp_path / "mixed.sgf"
    path.write_text("\n".join(lines) + "\n")
    errors: list[IssError] = []
    got = [g.id for g in iter_iss(path, errors=errors)]
    assert got == [541932, 756788]
    assert [(e.line, e.kind) for e in errors] == [(3, "malformed"), (5, "malformed"), (6, "malformed")]
    assert errors[1].token == "ZZ" and errors[1].record_id == 684159
    # replayed=True: a record the rules refuse is collected too
    path.write_text(RECORDS[541932].replace(" 0 SA 1 S7 ", " 0 SA 1 HQ ") + "\n" + RECORDS[684159] + "\n")
    errors = []
    pairs = list(iter_iss(path, errors=errors, replayed=True))
    assert [g.id for g, _ in pairs] == [684159] and errors[0].kind == "illegal" and errors[0].line == 1


# --------------------------------------------------------------------------- the engine's endings
def _played_to(s: SkatState, n_cards: int, seed: int = 0) -> SkatState:
    rng = random.Random(seed)
    while not s.is_terminal() and len(s.play_history()) < n_cards:
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def test_declarer_resigning_in_the_first_trick_loses_without_schneider() -> None:
    s = to_play(11, 0, "G")
    s.apply_action(s.legal_actions()[0])
    assert s.resign(0) is True and s.ending == "declarer_resigned" and s.ending_seat == 0
    r = s.result
    assert not r.won and not r.schneider and not r.schwarz
    assert r.declarer_tricks == 0 and r.declarer_points == s.deal.skat.points  # the rest went to the defenders
    m = abs(r.matadors)
    assert r.game_value == 24 * (m + 1) and r.list_score == -2 * r.game_value
    assert sum(s.tricks_won()) == 10 and sum(s.points()) == 120 - s.deal.skat.points


def test_declarer_resigning_later_can_be_schneidered() -> None:
    for seed in range(40):
        s = _played_to(to_play(seed, 1, "D"), 6, seed)
        if s.is_terminal():
            continue
        s.resign(1)
        r = s.result
        defenders = 120 - r.declarer_points
        assert not r.won and r.schneider == (r.declarer_points <= 30)
        assert defenders == s.points()[0] + s.points()[2]
        assert r.declarer_tricks == s.tricks_won()[1]


def test_a_winning_declarer_who_resigns_still_loses() -> None:
    s = to_play(3, 0, "N")
    assert s.resign(0) and not s.result.won and s.result.list_score == -46


def test_defenders_resign_only_together() -> None:
    s = _played_to(to_play(5, 2, "C"), 4)
    assert not s.is_terminal()
    assert s.resign(0) is False and not s.is_terminal()
    s.apply_action(s.legal_actions()[0])  # play goes on after one RE
    with pytest.raises(ValueError, match="cannot resign"):
        s.resign(0)  # said twice
    pts_def = s.points()[0] + s.points()[1]
    completed = len(s.play_history()) // 3
    mine = s.tricks_won()[2]
    assert s.resign(1) is True and s.ending == "defenders_resigned" and s.ending_seat is None
    r = s.result
    assert r.declarer_points == 120 - pts_def  # every card still out is his, the skat too
    assert r.declarer_tricks == mine + 10 - completed and sum(s.tricks_won()) == 10


def test_defenders_resigning_a_null_game_let_the_declarer_win() -> None:
    s = to_play(8, 1, "NO")
    s.resign(0)
    s.resign(2)
    r = s.result
    assert r.won and r.declarer_tricks == 0 and r.list_score == 46


def test_resign_and_stop_refused_where_they_make_no_sense() -> None:
    s = SkatState.new_game(seed=1)
    with pytest.raises(ValueError, match="cannot resign"):
        s.resign(0)  # bidding: no declared game
    with pytest.raises(ValueError, match="only the declarer"):
        to_play(1, 0, "C").show_cards(1)
    with pytest.raises(ValueError, match="schwarz"):
        to_play(1, 0, "C").end_schwarz_lost()  # not an announced schwarz game
    g = to_play(1, 0, "GO")
    with pytest.raises(ValueError, match="schwarz"):
        g.end_schwarz_lost()  # no defender trick yet


def test_schwarz_stop_only_right_after_the_first_defender_trick() -> None:
    found = 0
    for seed in range(60):
        s = to_play(seed, 0, "CHZ")
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            if len(s.current_trick()) == 0 and s.tricks() and s.tricks()[-1][2] != 0:
                break
        if s.is_terminal():
            continue
        t = s.clone()
        t.end_schwarz_lost()
        found += 1
        r = t.result
        assert not r.won and not r.schneider and not r.schwarz and t.ending == "schwarz_lost"
        m = abs(r.matadors)
        assert r.list_score == -2 * 12 * (m + 6)  # game, hand, schneider (+ann.), schwarz (+ann.)
        # played out under the ISkO instead, the list score is the same
        rng = random.Random(seed + 1000)
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        assert s.result.list_score == r.list_score
        # one more trick later, the stop is refused
    assert found > 10


def test_events_do_not_change_normal_play() -> None:
    rng = random.Random(3)
    a = to_play(21, 2, "GH")
    b = to_play(21, 2, "GH")
    b.show_cards(2)
    while not a.is_terminal():
        x = rng.choice(a.legal_actions())
        assert b.legal_actions() == a.legal_actions()
        a.apply_action(x)
        b.apply_action(x)
    assert a.result == b.result and b.ending == a.ending == "played"


def test_timeout_in_the_card_play() -> None:
    s = _played_to(to_play(2, 0, "S"), 5)
    s.abandon(1, "timeout")
    assert s.is_terminal() and s.ending == "timeout" and s.ending_seat == 1
    assert s.result.passed_in and s.legal_actions() == []
    g = parse_iss(to_iss(s))
    assert g.result.outcome == "penalty" and g.result.timeout == 1 and check(g, replay(g)) == []


# --------------------------------------------------------------------------- round trip
def _random_game(seed: int, ev: int) -> SkatState:
    """A random game with random record-level events (ev: 0 none, 1 show, 2 defenders
    resign, 3 declarer resigns, 4 time-out, 5 left), at a random moment."""
    rng = random.Random(seed)
    s = SkatState.new_game(seed=seed)
    at = rng.randrange(0, 40)
    k = 0
    while not s.is_terminal():
        if k == at and ev:
            if ev in (4, 5):
                s.abandon(rng.randrange(3), "timeout" if ev == 4 else "left")
                break
            if s.declarer is not None and s.phase == "play":
                d = s.declarer
                if ev == 1:
                    s.show_cards(d, CardSet.from_mask(s.hand_mask(d) & -s.hand_mask(d)))
                elif ev == 2:
                    s.resign((d + 1) % 3)
                    s.resign((d + 2) % 3)
                    break
                elif ev == 3:
                    s.resign(d)
                    break
            else:
                at += 1
        s.apply_action(rng.choice(s.legal_actions()))
        k += 1
    return s


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1), ev=st.integers(0, 5))
def test_round_trip_export_parse_replay_is_identical(seed: int, ev: int) -> None:
    s = _random_game(seed, ev)
    text = to_iss(s, game_id=seed % 10**9, players=("a", "b:2", "c"))
    g = parse_iss(text)
    back = replay(g)
    assert back.history() == s.history()
    assert back.events() == s.events()
    assert back.ending == s.ending and back.result == s.result
    assert check(g, back) == []  # our R line is what our replay gives
    assert to_iss(back, game_id=seed % 10**9, players=("a", "b:2", "c")) == text


@pytest.mark.parametrize("policy", ["random", "rule_based"])
def test_simulate_rows_export_and_import_to_the_same_rows(policy: str, tmp_path) -> None:
    df = simulate(300, policy=policy, seed=7, record_actions=True, workers=1, progress=False)
    path = tmp_path / "sim.sgf"
    n = iss.write_iss(rows_to_iss(df), path)
    assert n == 300
    summ = import_iss(path, tmp_path / "out", progress=False, chunk=64)
    assert (summ.records, summ.games, sum(summ.skipped.values()), summ.mismatched_games) == (300, 300, 0, 0)
    import pandas as pd

    games = pd.read_parquet(tmp_path / "out" / "games.parquet")
    cols = [c for c in RESULT_COLUMNS if c not in ("deal_index", "deal_seed")]
    a = df[cols].reset_index(drop=True)
    b = games[cols].reset_index(drop=True)
    for c in cols:
        assert np.array_equal(a[c].astype(str).to_numpy(), b[c].astype(str).to_numpy()), c
    assert list(games["player_0"].unique()) == [f"{policy}:0"]


def test_export_refuses_what_iss_cannot_hold() -> None:
    from skatsim import SkatRules

    s = SkatState.new_game(seed=1, rules=SkatRules(kontra=True))
    with pytest.raises(ValueError, match="finished"):
        to_iss(s)
    rng = random.Random(1)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    with pytest.raises(ValueError, match="Kontra"):
        to_iss(s)
    with pytest.raises(ValueError, match="name"):
        to_iss(replay(parse_iss(RECORDS[541932])), players=("a]", "b", "c"))


# --------------------------------------------------------------------------- import tables
def test_import_real_records(tmp_path) -> None:
    import pandas as pd

    src = tmp_path / "real.sgf.bz2"
    with bz2.open(src, "wt") as f:
        for rec in REAL.values():
            f.write(rec + "\n")
        f.write(RECORDS[541932].replace(" 0 SA 1 S7 ", " 0 SA 1 HQ ") + "\n")  # illegal
        f.write("(;GM[Skat]ID[5]MV[w C7 ]R[passed] ;)\n")  # malformed
        f.write(RECORDS[684159].replace("v:96", "v:97") + "\n")  # differs from the server
    summ = import_iss(src, tmp_path / "out", progress=False)
    assert summ.records == len(REAL) + 3 and summ.games == len(REAL) + 1
    assert dict(summ.skipped) == {"illegal": 1, "malformed": 1}
    assert summ.mismatched_games == 1 and dict(summ.mismatches) == {"v": 1}
    assert summ.endings["defenders_resigned"] == 4 and summ.endings["schwarz_lost"] == 1
    games = pd.read_parquet(tmp_path / "out" / "games.parquet")
    assert tuple(games.columns) == RESULT_COLUMNS + iss_import.GAME_EXTRA_COLUMNS
    bad = games[games["mismatch"] != ""]
    assert list(bad["iss_id"]) == [684159] and list(bad["mismatch"]) == ["v"]
    ok = games[games["mismatch"] == ""]
    assert (ok["list_score"] == ok["server_value"]).all()
    errs = [json.loads(x) for x in (tmp_path / "out" / "errors.jsonl").read_text().splitlines()]
    assert [(e["kind"], e["token"]) for e in errs] == [("illegal", "HQ"), ("malformed", "C7")]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["games"] == summ.games and "skipped: 2" in str(summ)

    dec = pd.read_parquet(tmp_path / "out" / "decisions.parquet")
    assert tuple(dec.columns) == iss_import.DECISION_COLUMNS
    d = dec[dec["iss_id"] == 541932]
    # 1 p, 2 18, 0 p, 2 s, two discards, the declaration
    assert list(d["action_text"]) == ["pass", "18", "pass", "pickup", "S10", "H8", "D"]
    assert list(d["seat"]) == [1, 2, 0, 2, 2, 2, 2]
    assert list(d["auction"])[:3] == ["", "1:pass", "1:pass 2:18"]  # the auction text of every game table
    first = d.iloc[0]
    assert first["hand"] == CardSet("CJ S9 DJ S7 D9 SQ C8 HQ DK CA").mask
    assert d.iloc[4]["hand"] == CardSet("D8 D7 DT CT ST C7 HK DA HT HJ H8 CK").mask  # 12 cards at the discard
    assert (d["declarer"] == 2).all() and (d["list_score"] == -54).all() and not d["won"].any()


def _single_resignation(rid: int = 1039093) -> str:
    """Record 1039093 as the second ISS server writes it: the declarer shows his cards, one
    defender resigns and the server ends the game (no partner's RE)."""
    rec = REAL[rid]
    assert rec.count(" 0 RE ]") == 1
    return rec.replace(" 0 RE ]", " ]")


def test_a_single_defender_resignation_after_shown_cards_is_kept() -> None:
    both = replay(parse_iss(REAL[1039093]))
    g = parse_iss(_single_resignation())
    with pytest.raises(IssError, match="ends before"):  # what a strict replay did before
        iss.replay_notes(parse_iss(REAL[1039093].replace(" 2 RE 0 RE ]", " ]")))
    s, notes = iss.replay_notes(g)
    assert notes == ("single_resignation",) and s.ending == "defenders_resigned"
    assert s.result == both.result and check(g, s) == []


def test_hidden_cards_are_filled_from_the_moves() -> None:
    rec = RECORDS[541932]  # every card of it is played or discarded: all hidden ones follow
    deck = rec.split("MV[w ")[1].split(" ")[0]
    cards = deck.split(".")
    hidden = ".".join("??" if i in (0, 13, 25, 31) else c for i, c in enumerate(cards))  # fh, mh, rh, skat
    g = parse_iss(rec.replace(deck, hidden).replace("w H8.CK", "w ??.??"))
    assert (g.hidden, g.guessed) == (4, 0) and g.cards == parse_iss(rec).cards
    s, notes = iss.replay_notes(g)
    assert notes == ("hidden_cards",) and check(g, s) == []


def test_hidden_cards_the_moves_do_not_show_are_guessed_and_flagged(tmp_path) -> None:
    rec = REAL[1039093]  # resigned after trick 6: some cards are never played
    deck = rec.split("MV[w ")[1].split(" ")[0]
    cards = deck.split(".")
    never = [i for i, c in enumerate(cards[:30]) if f" {c} " not in rec.split(deck)[1] and f".{c}" not in rec.split(deck)[1]]
    hidden = ".".join("??" if i in never[:2] else c for i, c in enumerate(cards))
    src = tmp_path / "h.sgf"
    src.write_text(rec.replace(deck, hidden) + "\n" + _single_resignation() + "\n")
    summ = import_iss(src, tmp_path / "out", progress=False)
    assert summ.games == 2 and not summ.skipped
    games = pd.read_parquet(tmp_path / "out" / "games.parquet")
    assert list(games["notes"]) == ["hidden_cards guessed_cards", "single_resignation"]
    assert list(games["ending"]) == ["defenders_resigned", "defenders_resigned"]
    assert dict(summ.notes) == {"hidden_cards": 1, "guessed_cards": 1, "single_resignation": 1}
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["kind"] == "iss_import"


def test_file_problems_are_named(tmp_path, capsys) -> None:
    good = tmp_path / "r.sgf.bz2"
    with bz2.open(good, "wt") as f:
        for rec in REAL.values():
            f.write(rec + "\n")
    data = good.read_bytes()
    (tmp_path / "trunc.bz2").write_bytes(data[: len(data) // 2])
    (tmp_path / "a_file").write_text("x")
    cases = [(tmp_path / "trunc.bz2", tmp_path / "o1", "ends early"), (tmp_path, tmp_path / "o2", "is a folder"),
             (good, tmp_path / "a_file", "is a file"), (tmp_path / "nope.sgf", tmp_path / "o3", "no such file")]
    for src, out, why in cases:
        assert cli_main(["import-iss", str(src), "--out", str(out), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err and err.count("\n") == 1, err
    assert not (tmp_path / "o1" / "games.parquet").exists()  # nothing half-written


def test_main_prints_the_summary(tmp_path, capsys) -> None:
    src = tmp_path / "r.sgf"
    src.write_text("\n".join(RECORDS.values()) + "\n")
    assert cli_main(["import-iss", str(src), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "4 records" in out and "games written: 4" in out and "skipped: 0" in out
    assert cli_main(["import-iss", str(tmp_path / "missing.sgf"), "--out", str(tmp_path / "o")]) == 2


# --------------------------------------------------------------------------- speed and memory
def _synthetic(path, n: int, seed: int = 1) -> None:
    half = n // 2
    parts = [simulate(half, policy="rule_based", seed=seed, record_actions=True, workers=1, progress=False),
             simulate(n - half, policy="random", seed=seed + 1, record_actions=True, workers=1, progress=False)]
    with bz2.open(path, "wt") if str(path).endswith(".bz2") else open(path, "w") as f:
        k = 0
        for df in parts:
            for rec in rows_to_iss(df, first_id=k + 1):
                f.write(rec + "\n")
            k += len(df)


def test_streaming_is_flat_in_memory(tmp_path) -> None:
    small, big = tmp_path / "s.sgf", tmp_path / "b.sgf"
    _synthetic(small, 200)
    _synthetic(big, 800)

    def peak(path) -> int:
        tracemalloc.start()
        n = sum(1 for _ in iter_iss(path, replayed=True))
        _, pk = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert n in (200, 800)
        return pk

    p_small, p_big = peak(small), peak(big)
    assert p_big < 1.5 * p_small + 200_000, (p_small, p_big)


@pytest.mark.slow
def test_import_speed_on_a_few_thousand_games(tmp_path) -> None:
    src = tmp_path / "synthetic.sgf.bz2"
    _synthetic(src, 4000)
    t0 = time.perf_counter()
    summ = import_iss(src, tmp_path / "out", progress=False)
    rate = summ.records / (time.perf_counter() - t0)
    assert summ.games == 4000 and summ.mismatched_games == 0 and not summ.skipped
    assert rate > 500, rate
