"""Settlement: matadors, levels, game value, overbid, list score, Seeger-Fabian.

Rules text: ISKO.md §7 (win conditions), §8 (game value, matadors from all 12 cards, levels
count won or lost, announced levels count when missed), §9 (schneider <= 30 for either party,
schwarz by tricks), §10 (overbid: lowest multiple of the base >= bid, doubled), §11 (list
score), §12 (Seeger-Fabian), §14 edge cases, §15 disagreements. The exact vectors live in
``data/scoring_vectors.txt`` (with their sources) and are checked against ``settle`` and
against the plain-Python reference.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference as ref
from skatsim import RULES_VERSION, CardSet, Contract, GameResult, settle
from skatsim.cards import card_name
from skatsim.contracts import BID_VALUES, DECLARATIONS
from skatsim.rules import CLUBS, DIAMONDS, GRAND, HEARTS, NULL, SPADES
from skatsim.scoring import matadors_of, possible_declarer_points
from skatsim.deal import deal

GAME_LETTER = {DIAMONDS: "D", HEARTS: "H", SPADES: "S", CLUBS: "C", GRAND: "G", NULL: "N"}


def _vectors() -> list:
    out = []
    path = Path(__file__).parent / "data" / "scoring_vectors.txt"
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.startswith("score "):
            continue
        contract, cards, skat, inputs, expected = [f.strip() for f in line[6:].split("|")]
        inp = {k: int(v) for k, v in (kv.split("=") for kv in inputs.split())}
        exp = {k: int(v) for k, v in (kv.split("=") for kv in expected.split())}
        out.append(pytest.param(contract, cards, skat, inp, exp, id=f"line{lineno}-{contract}"))
    return out


VECTORS = _vectors()


def _signed_matadors(r: GameResult) -> int:
    """``GameResult.matadors`` is signed (ISS); ``with_matadors`` is derived from it."""
    assert r.with_matadors == (r.matadors > 0)
    return r.matadors


@pytest.mark.parametrize("contract,cards,skat,inp,exp", VECTORS)
def test_scoring_vector(contract: str, cards: str, skat: str, inp: dict, exp: dict) -> None:
    r = settle(contract, cards, skat, bid=inp["bid"], declarer_points=inp["points"],
               declarer_tricks=inp["tricks"])
    got = {"won": int(r.won), "mat": _signed_matadors(r), "mult": r.multiplier, "value": r.game_value,
           "overbid": int(r.overbid), "charged": r.charged_value, "list": r.list_score,
           "sf": r.seeger_fabian_declarer, "def3": r.seeger_fabian_defender,
           "def4": r.seeger_fabian_defender_4}
    assert {k: got[k] for k in exp} == exp


@pytest.mark.parametrize("contract,cards,skat,inp,exp", VECTORS)
def test_reference_agrees_with_the_vector(contract: str, cards: str, skat: str, inp: dict, exp: dict) -> None:
    c = ref.parse_iss_contract(contract)
    r = ref.settle(c, ref.cards(cards) + ref.cards(skat), inp["bid"], inp["points"], inp["tricks"])
    got = {"won": int(r.won), "mat": r.matadors, "mult": r.multiplier, "value": r.game_value,
           "overbid": int(r.overbid), "charged": r.charged_value, "list": r.list_score,
           "sf": r.sf_declarer, "def3": r.sf_defender_3, "def4": r.sf_defender_4}
    assert {k: got[k] for k in exp} == exp


def test_vector_file_covers_the_issue_list() -> None:
    assert len(VECTORS) >= 45


# ----------------------------------------------------------------------------- matadors (§8)

MATADORS = [
    ("C", "CJ SJ HJ DJ CA C10 CK CQ C9 C8 C7 SA", 11),
    ("C", "SA S10 SK SQ S9 S8 S7 HA H10 HK HQ H9", -11),
    ("H", "CJ SJ HJ DJ HA H10 HK H9 H8 H7 SA DA", 7),
    ("H", "CJ DJ HA H10 HK H9 H8 H7 SA DA SK D7", 1),
    ("S", "S7 CA C10 CK CQ C9 C8 C7 HA H10 HK HQ", -10),
    ("D", "SJ HJ DJ DA D10 DK DQ D9 D8 D7 CA C10", -1),
    ("D", "HJ DJ DA D10 DK DQ D9 D8 D7 CA C10 CK", -2),
    ("G", "CJ SJ HJ DJ CA C10 SA S10 HA H10 D7 D8", 4),
    ("G", "CJ SJ DJ CA C10 SA S10 HA H10 D7 D8 D9", 2),
    ("G", "DJ CA C10 SA S10 HA H10 D7 D8 D9 DQ DK", -3),
    ("G", "CA C10 SA S10 HA H10 D7 D8 D9 DQ DK DA", -4),
    ("N", "CJ SJ HJ DJ CA C10 SA S10 HA H10 D7 D8", 0),
]


@pytest.mark.parametrize("game,cards,expected", MATADORS)
def test_matadors(game: str, cards: str, expected: int) -> None:
    g = "DHSCGN".index(game)
    assert int(matadors_of(CardSet(cards).mask, g)) == expected
    assert ref.matadors(ref.cards(cards), game) == expected


@given(st.lists(st.integers(0, 31), min_size=12, max_size=12, unique=True), st.sampled_from(range(6)))
def test_matadors_agree_with_the_reference(ids: list, game: int) -> None:
    mask = sum(1 << c for c in ids)
    expected = ref.matadors([ref.card(card_name(c)) for c in ids], GAME_LETTER[game])
    assert int(matadors_of(mask, game)) == expected


def test_matadors_count_the_skat_in_a_hand_game() -> None:
    # SKG angesagte-gewinnstufe: the 4th jack in the skat gives "with 4" although never seen
    hand = "CJ SJ HJ CA C10 CK SA S10 HA H10"
    assert settle("GH", hand, "DJ D7", 18, 61, 6).matadors == 4
    assert settle("GH", hand, "D8 D7", 18, 61, 6).matadors == 3


# ------------------------------------------------------------------------ levels one by one


HAND_A, SKAT_A = "CJ HJ CA C10 CK SA S10 HA H10 D7", "D8 D9"  # clubs with 1


def _mult(contract: str, points: int, tricks: int) -> int:
    return settle(contract, HAND_A, SKAT_A, 18, points, tricks).multiplier


def test_each_level_adds_one() -> None:
    # §8: multiplier = matadors + game + hand + schneider + announced + schwarz + announced + ouvert
    assert _mult("C", 61, 6) == 2                  # with 1, game
    assert _mult("CH", 61, 6) == 3                 # + hand
    assert _mult("CH", 95, 9) == 4                 # + schneider
    assert _mult("CHS", 95, 9) == 5                # + schneider announced
    assert _mult("CH", 120, 10) == 5               # + schneider + schwarz
    assert _mult("CHZ", 120, 10) == 7              # + schneider, announced, schwarz, announced
    assert _mult("CO", 120, 10) == 8               # + ouvert
    assert _mult("C", 120, 10) == 4                # schwarz implies schneider


def test_levels_count_won_or_lost() -> None:
    # §8 ISAR: "gewonnen oder verloren"; announced levels count when missed
    assert _mult("CHS", 70, 6) == 5 and not settle("CHS", HAND_A, SKAT_A, 18, 70, 6).won
    assert _mult("CHZ", 100, 9) == 7 and not settle("CHZ", HAND_A, SKAT_A, 18, 100, 9).won
    assert _mult("CO", 61, 5) == 8
    # schneider and schwarz against the declarer (§8, §9)
    assert _mult("C", 20, 1) == 3 and _mult("C", 0, 0) == 4 and _mult("CH", 0, 0) == 5


# ------------------------------------------------------------------------- overbid (§10)


@pytest.mark.parametrize("contract,base", [("D", 9), ("H", 10), ("S", 11), ("C", 12), ("G", 24)])
def test_overbid_charges_the_lowest_multiple_of_the_base_at_least_the_bid(contract: str, base: int) -> None:
    # a hand that is "without 11"/"without 4" would be worth a lot; use "with 1" instead
    hand, skat = "CJ D7 D8 D9 H7 H8 H9 S7 S8 S9", "C7 C8"
    if contract == "C":
        hand, skat = "CJ D7 D8 D9 H7 H8 H9 S7 S8 S9", "HA H10"
    for bid in BID_VALUES:
        r = settle(contract, hand, skat, bid, 70, 7)
        value = 2 * base  # with 1, game
        assert r.game_value == value
        if bid <= value:
            assert not r.overbid and r.won and r.list_score == value
        else:
            charged = next(k * base for k in range(1, 100) if k * base >= bid)
            assert r.overbid and not r.won and r.charged_value == charged
            assert r.list_score == -2 * charged


def test_null_below_the_bid_cannot_be_settled() -> None:
    # §16: a null game worth less than the bid is not a legal declaration, so never overbid
    with pytest.raises(ValueError, match="not a legal declaration"):
        settle("N", "D7 D8 D9 H7 H8 H9 S7 S8 C7 C8", "CA HA", 24, 0, 0)
    with pytest.raises(ValueError):
        settle("NOH", "D7 D8 D9 H7 H8 H9 S7 S8 C7 C8", "CA HA", 60, 0, 0)
    assert settle("NOH", "D7 D8 D9 H7 H8 H9 S7 S8 C7 C8", "CA HA", 59, 22, 0).list_score == 59


# ------------------------------------------------------------------- result fields, variants


def test_result_carries_rules_and_version_and_seats() -> None:
    r = settle("G", "CJ SJ HJ DJ CA C10 SA S10 HA H10", "D7 D8", 18, 85, 8, declarer=2)
    assert r.rules == {"ramsch": False, "kontra": False} and r.rules_version == RULES_VERSION
    assert r.declarer == 2 and r.contract == "G" and r.bid == 18
    assert r.scores == (0, 0, 120) and r.seeger_fabian == (0, 0, 170)
    lost = settle("G", "CJ SJ HJ DJ CA C10 SA S10 HA H10", "D7 D8", 18, 50, 4, declarer=0)
    assert lost.scores == (-240, 0, 0) and lost.seeger_fabian == (-290, 40, 40)
    assert GameResult.from_dict(lost.to_dict()) == lost
    assert "lost" in lost.summary() and "-240" in lost.summary()


def test_kontra_and_re_double_the_list_score() -> None:
    args = ("C", HAND_A, SKAT_A, 18)
    assert settle(*args, 61, 6, kontra=1).list_score == 48
    assert settle(*args, 61, 6, kontra=2).list_score == 96
    assert settle(*args, 60, 5, kontra=1).list_score == -96
    assert settle(*args, 60, 5, kontra=2).list_score == -192
    assert settle(*args, 61, 6, kontra=1).rules["kontra"] is True


@pytest.mark.parametrize("kw,msg", [
    (dict(declarer_cards="CJ SJ", skat="D7 D8"), "10 dealt cards"),
    (dict(skat="D7"), "2 skat cards"),
    (dict(skat="CJ D7"), "distinct"),
    (dict(bid=19), "bid ladder"),
    (dict(declarer_points=121), "declarer_points"),
    (dict(declarer_points=-1), "declarer_points"),
    (dict(declarer_tricks=11), "declarer_tricks"),
    (dict(kontra=3), "kontra"),
    (dict(declarer=3), "seat"),
])
def test_settle_rejects_impossible_input(kw: dict, msg: str) -> None:
    args = dict(contract="C", declarer_cards=HAND_A, skat=SKAT_A, bid=18, declarer_points=61,
                declarer_tricks=6)
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        settle(**args)


# ------------------------------------------------------------------ random: settle vs reference


@given(st.sampled_from(DECLARATIONS), st.lists(st.integers(0, 31), min_size=12, max_size=12, unique=True),
       st.sampled_from(BID_VALUES), st.integers(0, 120), st.integers(0, 10))
def test_settle_agrees_with_the_reference(code: int, ids: list, bid: int, points: int, tricks: int) -> None:
    c = Contract.from_code(code)
    cards, skat = CardSet(ids[:10]), CardSet(ids[10:])
    if points not in possible_declarer_points(c, cards, skat, tricks):
        with pytest.raises(ValueError, match="is impossible with"):
            settle(c, cards, skat, bid if not c.is_null else 18, points, tricks)
        return
    rc = ref.parse_iss_contract(c.to_text())
    ref_cards = [ref.card(card_name(x)) for x in ids]
    if c.is_null and c.base_value < bid:
        with pytest.raises(ValueError):
            settle(c, cards, skat, bid, points, tricks)
        with pytest.raises(ValueError):
            ref.settle(rc, ref_cards, bid, points, tricks)
        return
    r = settle(c, cards, skat, bid, points, tricks)
    e = ref.settle(rc, ref_cards, bid, points, tricks)
    assert (r.won, _signed_matadors(r) if not c.is_null else 0, r.game_value, r.overbid, r.charged_value,
            r.list_score, r.seeger_fabian_declarer, r.seeger_fabian_defender, r.seeger_fabian_defender_4) == \
           (e.won, e.matadors, e.game_value, e.overbid, e.charged_value, e.list_score, e.sf_declarer,
            e.sf_defender_3, e.sf_defender_4)
    if not c.is_null:
        assert (r.multiplier, r.schneider, r.schwarz) == (e.multiplier, e.schneider, e.schwarz)


# ------------------------------------------------------------- impossible results (issue 7)


@pytest.mark.parametrize("contract,points,tricks,msg", [
    ("GH", 100, 0, "possible totals are 0$"),       # no trick: only the skat (D7 D8, 0 points)
    ("G", 100, 0, "possible totals are 0"),         # no trick: only the two discards
    ("GH", 50, 10, "possible totals are 120$"),     # all ten tricks are all the points
    ("CH", 10, 5, "impossible"),                    # the review's "10 points with a 22-point skat" kind
    ("GH", 1, 1, "impossible"),                     # no three cards make 1 point
    ("GH", 120, 5, "impossible"),                   # 15 defender cards cannot all be blank
])
def test_settle_rejects_points_the_tricks_do_not_allow(contract: str, points: int, tricks: int, msg: str) -> None:
    skat = "CA HA" if contract == "CH" else "D7 D8"
    cards = "CJ SJ HJ DJ CA C10 SA S10 HA H10" if contract != "CH" else "CJ SJ HJ DJ C10 CK S10 SK H10 HK"
    with pytest.raises(ValueError, match=msg):
        settle(contract, cards, skat, 18, points, tricks)


def test_a_hand_game_counts_the_dealt_skat_and_a_pickup_any_two_discards() -> None:
    cards = "CJ SJ HJ DJ C10 CK S10 SK H10 HK"
    assert possible_declarer_points("CH", cards, "CA HA", 0) == [22]
    # after a pickup he may have discarded any two of the 12 cards
    values = [CardSet([x]).points for x in CardSet(cards) | "CA HA"]
    assert possible_declarer_points("C", cards, "CA HA", 0) == sorted(
        {a + b for i, a in enumerate(values) for b in values[i + 1:]})
    with pytest.raises(ValueError, match="possible totals are 22"):
        settle("CH", cards, "CA HA", 18, 10, 0)


@pytest.mark.parametrize("seed", range(6))
def test_possible_points_by_brute_force_for_one_and_nine_tricks(seed: int) -> None:
    from itertools import combinations

    d = deal(seed)
    dc, sk = d.hands[0], d.skat
    own = [CardSet([c]).points for c in dc]
    theirs = [CardSet([c]).points for c in (d.hands[1] | d.hands[2])]
    pairs = {a + b for a, b in combinations(theirs, 2)}
    one = sorted({sk.points + o + p for o in own for p in pairs})
    assert possible_declarer_points("GH", dc, sk, 1) == one
    assert possible_declarer_points("GH", dc, sk, 9) == sorted({120 - o - p for o in own for p in pairs})
    assert possible_declarer_points("GH", dc, sk, 0) == [sk.points]
    assert possible_declarer_points("GH", dc, sk, 10) == [120]


def test_every_played_game_is_a_possible_settlement() -> None:
    """No false rejections: the points and tricks of real games are always accepted."""
    import random

    from skatsim import SkatState

    rnd = random.Random(3)
    checked = 0
    for seed in range(300):
        s = SkatState.new_game(seed=seed)
        while not s.is_terminal():
            s.apply_action(rnd.choice(s.legal_actions()))
        r = s.result
        if r.declarer is None:
            continue
        d = r.declarer
        again = settle(r.contract, s.deal.hands[d], s.deal.skat, r.bid, r.declarer_points, r.declarer_tricks,
                       declarer=d)
        assert again.list_score == r.list_score and again.matadors == r.matadors
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("kw", [dict(declarer_points=70.5), dict(declarer_points=61.0), dict(declarer_tricks=True),
                                dict(bid=18.0), dict(kontra=True), dict(declarer=True), dict(declarer_points="61")])
def test_settle_takes_integers_only(kw: dict) -> None:
    args = dict(contract="C", declarer_cards=HAND_A, skat=SKAT_A, bid=18, declarer_points=61, declarer_tricks=6)
    args.update(kw)
    with pytest.raises(TypeError, match="must be an int"):
        settle(**args)


def test_settle_with_kontra_records_the_kontra_rules_version() -> None:
    from skatsim import SkatRules

    r = settle("C", HAND_A, SKAT_A, 18, 61, 6, kontra=1)
    assert r.rules == SkatRules(kontra=True).to_dict() and r.rules_version == SkatRules(kontra=True).version
    assert settle("C", HAND_A, SKAT_A, 18, 61, 6).rules_version == SkatRules().version


# ------------------------------------------------------------------ one result schema


def test_matadors_are_signed_and_with_matadors_is_derived() -> None:
    with1 = settle("C", HAND_A, SKAT_A, 18, 61, 6)
    without = settle("D", "SJ HJ DJ DA D10 DK DQ D9 D8 D7", "CA C10", 18, 70, 6)
    assert (with1.matadors, with1.with_matadors) == (1, True)
    assert (without.matadors, without.with_matadors) == (-1, False)
    assert "with_matadors" not in with1.to_dict() and "without 1" in without.summary()
    # a format-1 dict (unsigned matadors + with_matadors) still loads
    old = dict(without.to_dict(), matadors=1, with_matadors=False)
    assert GameResult.from_dict(old) == without


def test_to_row_has_the_result_columns() -> None:
    from skatsim.table import RESULT_COLUMNS

    r = settle("GH", "CJ SJ HJ DJ CA C10 SA S10 HA H10", "D7 D8", 18, 85, 8, declarer=2)
    row = r.to_row(deal_index=3, deal_seed=11, n_actions=40)
    assert tuple(row) == RESULT_COLUMNS
    assert {k: row[k] for k in ("deal_index", "deal_seed", "n_actions", "declarer", "bid", "contract", "game",
                                "flags", "picked_up", "matadors", "won", "list_score", "score_2", "sf_2",
                                "sf_0", "points_0")} == {
        "deal_index": 3, "deal_seed": 11, "n_actions": 40, "declarer": 2, "bid": 18, "contract": "GH", "game": 4,
        "flags": 1, "picked_up": False, "matadors": 4, "won": True, "list_score": 144, "score_2": 144,
        "sf_2": 194, "sf_0": 0, "points_0": None}
    assert settle("C", HAND_A, SKAT_A, 18, 61, 6).to_row()["picked_up"] is True
