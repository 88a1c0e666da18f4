"""Skat pickup, discard and the declaration: which contracts may be announced when.

Rules text: ISKO.md §5 (ISkO 3.4): schneider/schwarz announced only in hand games; ouvert
suit/grand is a hand game including both announcements; null ouvert after a pickup (46) or
as a hand game (59); discard any 2 cards; the skat belongs to the declarer in suit and grand
games. §16 (project decisions): a null game worth less than the bid is not declarable;
after a pickup hand, announcements and suit/grand ouvert are not legal actions; suit and grand
games stay declarable after a pickup even when they can only end overbid. §3.6: a bid that
names a game does not commit the bidder to it.
"""

from __future__ import annotations

import random

import pytest

import reference as ref
from skatsim import CardSet, Contract, SkatState, deal_from_hands
from skatsim.actions import DECLARE_BASE, HAND, PICKUP, action_to_string, declare_action, string_to_action
from skatsim.contracts import (BID_VALUES, DECLARATIONS, HAND as F_HAND, OUVERT, SCHNEIDER_ANNOUNCED,
                               SCHWARZ_ANNOUNCED)
from skatsim.rules import CLUBS, GRAND, NULL


def at_declaration(bid: int, pickup: bool, seed: int = 5) -> SkatState:
    """Middlehand wins the auction at ``bid`` and reaches the declaration."""
    s = SkatState.new_game(seed=seed)
    for m in (str(bid), "pass", "pass"):
        s.apply_action(string_to_action(m))
    assert s.declarer == 1 and s.bid == bid and s.phase == "skat"
    if pickup:
        s.apply_action(PICKUP)
        cards = s.legal_actions()
        s.apply_action(cards[0])
        s.apply_action(cards[1])
    else:
        s.apply_action(HAND)
    assert s.phase == "declare" and s.current_player() == 1
    return s


def legal_contracts(s: SkatState) -> set:
    return {ref.parse_iss_contract(action_to_string(a)) for a in s.legal_actions()}


# ---------------------------------------------------------------- the declarable contracts


@pytest.mark.parametrize("pickup", [True, False], ids=["pickup", "hand"])
def test_declarable_contracts_for_every_bid_match_the_reference(pickup: bool) -> None:
    for bid in BID_VALUES:
        s = at_declaration(bid, pickup)
        assert all(DECLARE_BASE <= a < DECLARE_BASE + len(DECLARATIONS) for a in s.legal_actions())
        assert legal_contracts(s) == ref.declarable(pickup, bid), bid


def test_after_pickup_seven_contracts_at_a_low_bid() -> None:
    s = at_declaration(18, pickup=True)
    assert sorted(action_to_string(a) for a in s.legal_actions()) == sorted(["D", "H", "S", "C", "G", "N", "NO"])


def test_hand_game_contracts_at_a_low_bid() -> None:
    s = at_declaration(18, pickup=False)
    texts = {action_to_string(a) for a in s.legal_actions()}
    assert len(texts) == 22
    for g in "DHSCG":  # hand, schneider announced, schwarz announced, ouvert
        assert {g + "H", g + "HS", g + "HZ", g + "O"} <= {Contract.parse(t).to_text() for t in texts}
    assert {"NH", "NOH"} <= texts and "N" not in texts and "NO" not in texts


@pytest.mark.parametrize("token", ["DH", "CH", "GH", "CHS", "GHS", "SHZ", "CO", "GO", "HO", "NH", "NOH"])
def test_hand_announcements_and_ouvert_are_not_legal_after_a_pickup(token: str) -> None:
    s = at_declaration(18, pickup=True)
    before = (s.history(), s.phase, s.current_player())
    with pytest.raises(ValueError, match="illegal action"):
        s.apply_action(declare_action(token))
    assert (s.history(), s.phase, s.current_player()) == before


@pytest.mark.parametrize("token", ["D", "C", "G", "N", "NO"])
def test_pickup_contracts_are_not_legal_in_a_hand_game(token: str) -> None:
    s = at_declaration(18, pickup=False)
    with pytest.raises(ValueError, match="illegal action"):
        s.apply_action(declare_action(token))


# ------------------------------------------------------------------------ null below the bid


@pytest.mark.parametrize("bid,pickup,allowed", [
    (23, True, {"N", "NO"}), (24, True, {"NO"}), (46, True, {"NO"}), (48, True, set()),
    (35, False, {"NH", "NOH"}), (36, False, {"NOH"}), (59, False, {"NOH"}), (60, False, set()),
])
def test_null_below_the_bid_is_not_declarable(bid: int, pickup: bool, allowed: set) -> None:
    s = at_declaration(bid, pickup)
    nulls = {action_to_string(a) for a in s.legal_actions() if action_to_string(a).startswith("N")}
    assert nulls == allowed


def test_suit_and_grand_stay_declarable_after_pickup_even_if_they_can_only_be_overbid() -> None:
    s = at_declaration(264, pickup=True)
    assert sorted(action_to_string(a) for a in s.legal_actions()) == sorted(["D", "H", "S", "C", "G"])
    s = at_declaration(264, pickup=False)
    assert {"DH", "GO"} <= {action_to_string(a) for a in s.legal_actions()}


def test_a_bid_naming_a_null_value_does_not_commit_to_null() -> None:
    # §3.6: bidding 35 ("null hand") is only a way of saying 35
    s = at_declaration(35, pickup=True)
    assert {"C", "G"} <= {action_to_string(a) for a in s.legal_actions()}
    s = at_declaration(35, pickup=False)
    assert {"CH", "NH"} <= {action_to_string(a) for a in s.legal_actions()}


# ------------------------------------------------------------------------ skat and discard


def _deal_with_jacks_for_middlehand() -> SkatState:
    d = deal_from_hands("D7 D8 D9 DQ DK H7 H8 H9 HQ HK",
                        "CJ HJ CA C10 CK SA S10 SK HA H10",
                        "C7 C8 C9 CQ S7 S8 S9 SQ DA D10",
                        "SJ DJ")
    s = SkatState.new_game(deal=d)
    for m in ("18", "pass", "pass"):
        s.apply_action(string_to_action(m))
    return s


def test_pickup_then_discard_any_two_cards_including_jacks() -> None:
    s = _deal_with_jacks_for_middlehand()
    s.apply_action(PICKUP)
    assert s.phase == "discard" and s.current_player() == 1
    assert len(s.hand(1)) == 12 and s.skat_mask() == 0
    assert set(s.legal_actions()) == set(s.hand(1))  # any of the 12 cards
    s.apply_action(string_to_action("CJ"))
    assert s.phase == "discard"  # two discards before the declaration
    with pytest.raises(ValueError):
        s.apply_action(declare_action("G"))
    s.apply_action(string_to_action("SJ"))
    assert s.phase == "declare"
    assert s.hand(1) == CardSet("HJ DJ CA C10 CK SA S10 SK HA H10")
    assert CardSet.from_mask(s.skat_mask()) == CardSet("CJ SJ")
    s.apply_action(declare_action("G"))
    assert s.phase == "play" and s.current_player() == 0  # forehand leads (§6)
    rng = random.Random(0)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    r = s.result
    # matadors count the 10 dealt cards + the dealt skat, whatever was discarded (§8)
    assert r.with_matadors and r.matadors == 4
    # the discarded skat is the declarer's (§5): its 4 points count for him
    assert r.declarer_points == s.points()[1] + 4


def test_hand_game_keeps_the_skat_untouched_and_it_counts_for_the_declarer() -> None:
    s = _deal_with_jacks_for_middlehand()
    s.apply_action(HAND)
    assert s.phase == "declare" and not s.skat_picked_up
    assert CardSet.from_mask(s.skat_mask()) == CardSet("SJ DJ") and len(s.hand(1)) == 10
    assert all(a >= DECLARE_BASE for a in s.legal_actions())  # no discard in a hand game
    s.apply_action(declare_action("GH"))
    rng = random.Random(1)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    r = s.result
    assert r.declarer_points == s.points()[1] + 4 and r.matadors == 4 and r.with_matadors


def test_skat_choice_is_pickup_or_hand_only() -> None:
    s = _deal_with_jacks_for_middlehand()
    assert s.phase == "skat" and s.current_player() == 1
    assert sorted(action_to_string(a) for a in s.legal_actions()) == ["hand", "pickup"]


# ---------------------------------------------------------------------------- contract text


def test_ouvert_implies_hand_and_both_announcements() -> None:
    for token in ("CO", "CHO", "COH", "CHOSZ", "CZO"):
        c = Contract.parse(token)
        assert c.ouvert and c.hand and c.schneider_announced and c.schwarz_announced
        assert c.to_text() == "CO" and c == Contract(CLUBS, OUVERT)
    go = Contract.parse("GO")
    assert go == Contract(GRAND, OUVERT) == Contract.parse("GHO")
    assert go.flags == F_HAND | SCHNEIDER_ANNOUNCED | SCHWARZ_ANNOUNCED | OUVERT


def test_announcements_imply_hand_and_schwarz_implies_schneider() -> None:
    z = Contract.parse("CHZ")
    assert z.hand and z.schneider_announced and z.schwarz_announced and not z.ouvert
    assert Contract.parse("CZ") == z  # schwarz announced is only possible in a hand game
    s = Contract.parse("GHS")
    assert s.hand and s.schneider_announced and not s.schwarz_announced
    assert Contract.parse("GSH") == s


def test_null_contracts_and_values() -> None:
    values = {"N": 23, "NH": 35, "NO": 46, "NOH": 59, "NHO": 59}
    for token, v in values.items():
        c = Contract.parse(token)
        assert c.is_null and c.base_value == v
        assert not c.schneider_announced and not c.schwarz_announced
    assert Contract.parse("NO").ouvert and not Contract.parse("NO").hand
    assert Contract.parse("NHO").to_text() == "NOH"


@pytest.mark.parametrize("bad", ["", "X", "CX", "NS", "NZ", "C1", "GG", "Q"])
def test_malformed_contracts_raise_naming_the_token(bad: str) -> None:
    with pytest.raises(ValueError) as e:
        Contract.parse(bad)
    assert repr(bad) in str(e.value)


def test_every_declaration_action_round_trips_through_text() -> None:
    seen = set()
    for i, code in enumerate(DECLARATIONS):
        a = DECLARE_BASE + i
        text = action_to_string(a)
        assert string_to_action(text) == a == declare_action(Contract.from_code(code))
        assert Contract.parse(text).code == code
        seen.add(ref.canonical_token(ref.parse_iss_contract(text)))
    # 7 after pickup + 22 hand, all different
    assert len(DECLARATIONS) == 29 and len(seen) == 29
    assert Contract.from_code(DECLARATIONS[0]).game == 0 and Contract(NULL, 0).base_value == 23


# ---------------------------------------------------------------- derived declaration tables


@pytest.mark.parametrize("pickup", [True, False], ids=["pickup", "hand"])
def test_declarable_bits_table_matches_the_reference(pickup: bool) -> None:
    from skatsim.contracts import DECL_MIN_VALUE, DECLARABLE_BITS, HAND_DECL_BITS, PICKUP_DECL_BITS

    assert PICKUP_DECL_BITS & HAND_DECL_BITS == 0 and PICKUP_DECL_BITS | HAND_DECL_BITS == (1 << len(DECLARATIONS)) - 1
    base = PICKUP_DECL_BITS if pickup else HAND_DECL_BITS
    for k, bid in enumerate(BID_VALUES):
        bits = int(DECLARABLE_BITS[int(pickup), k])
        assert bits == sum(1 << i for i in range(len(DECLARATIONS)) if base >> i & 1 and bid <= DECL_MIN_VALUE[i])
        got = {ref.parse_iss_contract(action_to_string(DECLARE_BASE + i)) for i in range(len(DECLARATIONS))
               if bits >> i & 1}
        assert got == ref.declarable(pickup, bid), bid


def test_decl_min_value_is_the_null_value_or_the_top_bid() -> None:
    from skatsim.contracts import DECL_MIN_VALUE

    for code, v in zip(DECLARATIONS, DECL_MIN_VALUE):
        c = Contract.from_code(code)
        assert int(v) == ({"N": 23, "NH": 35, "NO": 46, "NOH": 59}[c.to_text()] if c.is_null else 264)
    assert not DECL_MIN_VALUE.flags.writeable


def test_base_values_are_one_table() -> None:

    from skatsim import valuation
    from skatsim.contracts import BASE_VALUES, NULL_VALUES

    assert BASE_VALUES is valuation.BASE_VALUES and NULL_VALUES is valuation.NULL_VALUES
    assert [int(valuation.base_value(g, 0)) for g in range(5)] == list(BASE_VALUES[:5])
    assert [Contract.parse(t).base_value for t in "D H S C G N NH NO NOH".split()] == \
        list(BASE_VALUES[:5]) + list(NULL_VALUES)
