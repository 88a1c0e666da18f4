"""Cards and CardSet: parsing, printing, the set protocol, card points, ids, dealing.

Rules text: ISKO.md §1 (deck, deal 3-skat-4-3), §2 (card points), §16 (card text: suits C S H D,
ranks A 10 K Q J 9 8 7, ``T`` accepted for 10). Card ids follow OpenSpiel (``suit*8+rank``,
suits D H S C, ranks 7 8 9 Q K 10 A J; STYLE.md 1).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference as ref
from skatsim import CardSet, deal, deal_from_hands, deal_from_order
from skatsim.cards import (ACES, ALL_CARDS, DISPLAY_ORDER, EIGHTS, JACKS, KINGS, NINES, QUEENS,
                           SEVENS, SUIT_MASKS, SUIT_NO_JACK, TENS, card_name, card_points, parse_card)
from skatsim.deal import DEAL_TARGETS

ALL_NAMES = [ref.name(c) for c in ref.DECK]
masks = st.integers(min_value=0, max_value=ALL_CARDS)


def names_of(cs: CardSet) -> set[str]:
    return set(cs.to_text().split())


# ------------------------------------------------------------------------------------- parsing


def test_parse_the_issue_example() -> None:
    cs = CardSet("CJ S10 HA D7")
    assert len(cs) == 4
    assert names_of(cs) == {"CJ", "S10", "HA", "D7"}
    for n in ("CJ", "S10", "HA", "D7"):
        assert n in cs
    assert "SJ" not in cs


@pytest.mark.parametrize("text", ["cj s10 ha d7", "Cj sT Ha d7", "CJ ST HA D7", "cj,st,ha,d7",
                                  "CJ.S10.HA.D7", "  CJ   s10\tHA\nD7  ", "♣J ♠10 ♥A ♦7"])
def test_parse_is_case_insensitive_and_accepts_t_for_ten(text: str) -> None:
    assert CardSet(text) == CardSet("CJ S10 HA D7")


def test_ten_spellings_name_the_same_card() -> None:
    for suit in "CSHD":
        assert parse_card(suit + "T") == parse_card(suit + "10") == parse_card(suit.lower() + "t")


def test_every_card_name_round_trips() -> None:
    ids = {parse_card(n) for n in ALL_NAMES}
    assert ids == set(range(32))
    for n in ALL_NAMES:
        assert card_name(parse_card(n)) == n


@pytest.mark.parametrize("bad", ["X7", "C1", "C11", "CJJ", "10", "J", "CZ", "S0", "H 10", "DD", "7D", "JC"])
def test_malformed_token_raises_value_error_naming_it(bad: str) -> None:
    tok = bad.split()[0]
    with pytest.raises(ValueError) as e:
        CardSet(f"CJ {bad} HA")
    assert repr(tok) in str(e.value) or tok in str(e.value)
    with pytest.raises(ValueError):
        parse_card(tok)


@pytest.mark.parametrize("text,dup", [("CJ CJ", "CJ"), ("CJ cj", "CJ"), ("S10 ST", "S10"),
                                      ("HA D7 ha", "HA"), ("♣J CJ", "CJ")])
def test_duplicates_are_an_error(text: str, dup: str) -> None:
    with pytest.raises(ValueError, match="duplicate") as e:
        CardSet(text)
    assert dup in str(e.value)


def test_duplicate_ids_in_an_iterable_are_an_error() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        CardSet([31, 31])
    with pytest.raises(ValueError):
        CardSet([32])
    with pytest.raises(ValueError):
        CardSet(1 << 32)


def test_empty_text_is_the_empty_set() -> None:
    assert len(CardSet("")) == 0 and not CardSet("") and list(CardSet()) == []


# ------------------------------------------------------------------------- ids and constants


def test_card_ids_follow_openspiel() -> None:
    # id = suit*8 + rank, suits D H S C, ranks 7 8 9 Q K 10 A J
    suits, ranks = "DHSC", ["7", "8", "9", "Q", "K", "10", "A", "J"]
    for s, sl in enumerate(suits):
        for r, rn in enumerate(ranks):
            assert parse_card(sl + rn) == s * 8 + r


def test_mask_constants_hold_the_named_cards() -> None:
    def m(text: str) -> int:
        return CardSet(text).mask

    assert JACKS == m("CJ SJ HJ DJ")
    assert ACES == m("CA SA HA DA") and TENS == m("C10 S10 H10 D10")
    assert KINGS == m("CK SK HK DK") and QUEENS == m("CQ SQ HQ DQ")
    assert NINES == m("C9 S9 H9 D9") and EIGHTS == m("C8 S8 H8 D8") and SEVENS == m("C7 S7 H7 D7")
    assert ALL_CARDS == m(" ".join(ALL_NAMES))
    for i, s in enumerate("DHSC"):
        assert SUIT_MASKS[i] == m(" ".join(s + r for r in ref.RANKS))
        assert SUIT_NO_JACK[i] == m(" ".join(s + r for r in ref.RANKS if r != "J"))


# ------------------------------------------------------------------------------ card points


def test_card_points_per_rank_and_deck_total() -> None:
    # §2: A 11, 10 10, K 4, Q 3, J 2, 9/8/7 0; 30 per suit, 120 in the deck
    expect = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
    for n in ALL_NAMES:
        assert CardSet(n).points == expect[n[1:]]
    for s in "CSHD":
        assert CardSet(" ".join(s + r for r in expect)).points == 30
    assert int(card_points(ALL_CARDS)) == 120


@given(masks)
def test_card_points_agree_with_the_reference(mask: int) -> None:
    cs = CardSet.from_mask(mask)
    assert cs.points == ref.points(ref.cards(cs.to_text())) == int(card_points(mask))


# --------------------------------------------------------------------------- set protocol


@given(masks, masks)
def test_set_operations_match_python_sets(a: int, b: int) -> None:
    A, B = CardSet.from_mask(a), CardSet.from_mask(b)
    sa, sb = names_of(A), names_of(B)
    assert names_of(A & B) == sa & sb
    assert names_of(A | B) == sa | sb
    assert names_of(A - B) == sa - sb
    assert names_of(A ^ B) == sa ^ sb
    assert names_of(~A) == set(ALL_NAMES) - sa
    assert (A <= B) == (sa <= sb) and (A >= B) == (sa >= sb)
    assert (A == B) == (sa == sb)
    assert len(A) == len(sa)
    assert all((n in A) == (n in sa) for n in ALL_NAMES)
    # operands may be card strings
    assert names_of(A | B.to_text()) == sa | sb
    assert names_of(A & B.to_text()) == sa & sb


@given(masks, masks)
def test_set_operations_with_the_other_operand_on_the_left(a: int, b: int) -> None:
    A, B = CardSet.from_mask(a), CardSet.from_mask(b)
    for other in (B.to_text(), b, B.ids()):
        assert other | A == B | A and other & A == B & A
        assert other ^ A == B ^ A and other - A == B - A


@given(masks)
def test_text_round_trip_and_int_conversion(mask: int) -> None:
    cs = CardSet.from_mask(mask)
    assert CardSet(cs.to_text()) == cs
    assert CardSet(str(cs)) == cs  # the Unicode form parses too
    assert int(cs) == mask and CardSet(mask) == cs
    assert [1, 2, 3][CardSet.from_mask(1):] == [2, 3]  # __index__
    assert hash(CardSet(cs.to_text())) == hash(cs)
    assert set(cs) == set(cs.ids()) and len(list(cs)) == len(cs)


@given(masks)
def test_iteration_order_is_stable(mask: int) -> None:
    cs = CardSet.from_mask(mask)
    full = list(CardSet.from_mask(ALL_CARDS))
    # iteration is the subsequence of one fixed order, whatever order the cards were given in
    assert list(cs) == [c for c in full if c in cs]
    shuffled = list(cs)
    random.Random(mask).shuffle(shuffled)
    assert list(CardSet(shuffled)) == list(cs)
    assert list(CardSet(" ".join(reversed(cs.to_text().split())))) == list(cs)


def test_display_order_is_jacks_then_suits_high_to_low() -> None:
    order = [card_name(c) for c in CardSet.from_mask(ALL_CARDS)]
    expected = ["CJ", "SJ", "HJ", "DJ"] + [s + r for s in "CSHD" for r in ("A", "10", "K", "Q", "9", "8", "7")]
    assert order == expected == [card_name(c) for c in DISPLAY_ORDER]


def test_printing() -> None:
    cs = CardSet("d7 HA cj s10")
    assert cs.to_text() == "CJ S10 HA D7"
    assert str(cs) == "♣J ♠10 ♥A ♦7"
    assert repr(cs) == "CardSet('CJ S10 HA D7')"
    assert "♣J" in cs._repr_html_()


def test_contains_with_ids_names_and_foreign_objects() -> None:
    cs = CardSet("CJ D7")
    assert 31 in cs and 0 in cs and 1 not in cs
    assert "cj" in cs and "d7" in cs and "DA" not in cs
    assert 32 not in cs and -1 not in cs and None not in cs


# ------------------------------------------------------------------------------------ deal


def test_deal_from_order_is_3_skat_4_3() -> None:
    # §1: 3 to each player, 2 to the skat, 4 to each, 3 to each; forehand first
    deck = ALL_NAMES[:]
    random.Random(5).shuffle(deck)
    d = deal_from_order(deck)
    hands, skat = ref.deal_in_order([ref.card(n) for n in deck])
    for s in range(3):
        assert names_of(d.hands[s]) == {ref.name(c) for c in hands[s]}
    assert names_of(d.skat) == {ref.name(c) for c in skat}
    assert DEAL_TARGETS == tuple(3 if t == "skat" else t for t in ref.DEAL_PATTERN)


@given(st.integers(min_value=0, max_value=2**64))
def test_deal_from_a_seed_gives_32_distinct_cards(seed: int) -> None:
    d = deal(seed)
    assert [len(h) for h in d.hands] == [10, 10, 10] and len(d.skat) == 2
    union = d.hands[0] | d.hands[1] | d.hands[2] | d.skat
    assert len(union) == 32
    assert deal(seed) == d  # deterministic


def test_deal_validation() -> None:
    d = deal(1)
    with pytest.raises(ValueError):
        deal_from_hands(d.hands[0], d.hands[0], d.hands[2], d.skat)  # overlapping hands
    with pytest.raises(ValueError):
        deal_from_hands(d.hands[0] - CardSet(d.hands[0].ids()[:1]), d.hands[1], d.hands[2])  # 9 cards
    with pytest.raises(ValueError):
        deal_from_order(ALL_NAMES[:31] + ALL_NAMES[:1])
    assert deal_from_hands(*d.hands) == d  # the skat defaults to the two cards nobody holds


def test_a_card_held_twice_is_named_with_both_holders() -> None:
    d = deal(1)
    c = d.hands[0].ids()[0]
    name = CardSet.from_mask(1 << c).to_text()
    mh = (d.hands[1] - CardSet(d.hands[1].ids()[:1])) | (1 << c)
    with pytest.raises(ValueError, match=f"card {name} is held twice: by forehand and middlehand"):
        deal_from_hands(d.hands[0], mh, d.hands[2])
    with pytest.raises(ValueError, match=f"card {name} is held twice: by forehand and skat"):
        deal_from_hands(d.hands[0], d.hands[1], d.hands[2], CardSet(d.skat.ids()[:1]) | (1 << c))


# ------------------------------------------------------------------------------ edge cases


@pytest.mark.parametrize("mask", [-1, 2**32, 2**40, -(2**31)])
def test_from_mask_refuses_what_is_not_a_32_bit_mask(mask: int) -> None:
    with pytest.raises(ValueError, match="is not a 32-bit mask"):
        CardSet.from_mask(mask)
    with pytest.raises(ValueError, match="is not a 32-bit mask"):
        CardSet(mask)


@pytest.mark.parametrize("bad", [b"CJ", bytearray(b"CJ"), True, 1.5, object(), [1.0], [True]])
def test_cardset_refuses_bytes_bools_and_floats_with_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="card"):
        CardSet(bad)  # type: ignore[arg-type]


def test_cardset_compares_equal_to_anything_with_the_same_mask() -> None:
    cs = CardSet("CJ D7")
    assert cs == "CJ D7" and cs == "d7, cj" and cs == [31, 0] and cs == (1 << 31) | 1
    assert "CJ D7" == cs and cs != "CJ" and cs != "garbage" and cs != None  # noqa: E711
    assert cs != 1.5 and CardSet() == "" and CardSet(["CJ", "D7"]) == cs
    import numpy as np

    assert np.int64(31) in cs and np.uint8(0) in cs and True not in cs
