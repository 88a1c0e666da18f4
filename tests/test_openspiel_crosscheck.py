"""Differential test of the play phase against OpenSpiel's ``skat`` (STYLE.md 13).

OpenSpiel's bidding and scoring are simplified (ISKO.md §15.7: the first player to name a game
type gets it, rewards are normalised card points), so only the play phase is compared: for
20,000 random deals both engines get the same cards, the same declarer, game type and skat,
then random legal cards are played and at every step the legal cards (as sets), the player to
move and the end of the game agree, after every trick the winner and the card points of the
declarer (solo) and the defenders (team) agree, and at the end the declarer's card points
including the skat.

OpenSpiel conventions used (open_spiel/games/skat/skat.cc): the same card ids (``suit*8+rank``,
suits D H S C, ranks 7 8 9 Q K T A J); chance actions deal 3 to P0, 3 to P1, 3 to P2, 2 to the
skat, then 4, 4, 4, then 3, 3, 3 (``skatsim.deal.DEAL_TARGETS``); bidding starts with player 0
and the first non-pass action ``32 + type`` (type 1..6 = D H S C G N) wins; the winner always
takes the skat and discards 2 cards (for a skatsim hand game we discard the original skat, which
leaves the same cards in play); forehand (player 0) leads the first trick.

Known OpenSpiel differences, excluded narrowly:

- When a null game ends, ``SkatState::ScoreUp`` replaces the card points by a 30/90 reward proxy
  (and adds 1 to the solo points when the declarer takes a trick), so card points are not compared
  at the terminal state of a null game (they are compared after every earlier trick).
- Old OpenSpiel ``PlayLegalActions`` (e.g. commit 0f246e2 of ``open_spiel/games/skat.cc``, fixed in
  c8c9084 before the move to ``games/skat/skat.cc``) had two follow-suit bugs: in null it indexed
  cards ``rank * kNumSuits + suit`` (wrong cards), and a jack led in a suit or grand game also
  called for the jack's printed suit. :func:`_old_follow_bugs` probes the installed OpenSpiel
  with one known position for each; only when a bug is present is the legal-card comparison
  skipped, and only in the affected positions (null with a card led / a jack led in a trump game).
  Trick winners and points are still compared there. The installed version at the time of
  writing (2.0.2) has neither bug, so the full comparison runs.
"""

from __future__ import annotations

import random
import re

import pytest

pyspiel = pytest.importorskip("pyspiel")

from skatsim import SkatState, deal_from_order  # noqa: E402
from skatsim.actions import DECLARE_BASE, HAND, PICKUP, string_to_action  # noqa: E402
from skatsim.cards import card_name  # noqa: E402
from skatsim.contracts import DECLARATIONS  # noqa: E402
from skatsim.rules import NULL  # noqa: E402

N_DEALS = 20_000
OS_BID_BASE = 32  # OpenSpiel: kBiddingActionBase; + 0 pass, + 1..6 D H S C G N
_POINTS = re.compile(r"Points \(Solo / Team\): \((-?\d+) / (-?\d+)\)")
# skatsim bidding that makes seat k the declarer at 18
_AUCTION = {0: ("pass", "pass", "18"), 1: ("18", "pass", "pass"), 2: ("pass", "18", "pass")}


def _os_points(os_state) -> tuple[int, int]:
    m = _POINTS.search(str(os_state))
    assert m, str(os_state)
    return int(m.group(1)), int(m.group(2))


def _os_hand(os_state, player: int) -> set[int]:
    t = os_state.observation_tensor(player)
    return {c for c in range(32) if t[6 + c]}  # 3 (seat) + 3 (phase) entries precede the hand


def _old_follow_bugs(game) -> tuple[bool, bool]:
    """Probe the installed OpenSpiel for the two pre-c8c9084 follow-suit bugs (module doc)."""
    def position(game_type: int, lead: int):
        st = game.new_initial_state()
        for c in range(32):  # deck order 0..31: P0 gets D7 D8 D9 HQ HK H10 HA SJ C7 C8, skat H8 H9
            st.apply_action(c)
        st.apply_action(OS_BID_BASE + 1 + game_type)  # player 0 declares
        st.apply_action(9)
        st.apply_action(10)  # discards the skat again
        st.apply_action(lead)
        return sorted(st.legal_actions())  # player 1: DQ DK D10 HJ S7 S8 S9 C9 CQ CK
    null_bug = position(NULL, 0) != [3, 4, 5]  # D7 led: only DQ DK D10 follow
    jack_bug = position(4, 23) != [15]  # grand, SJ led: only HJ follows (no spades)
    return null_bug, jack_bug


def play_one_deal(game, rng: random.Random, check_deal: bool = False,
                  old_bugs: tuple[bool, bool] = (False, False)) -> tuple[int, int]:
    """Play one random deal in both engines, asserting agreement. Returns (game type, cards played)."""
    order = list(range(32))
    rng.shuffle(order)
    os_state = game.new_initial_state()
    for c in order:
        os_state.apply_action(c)
    s = SkatState.new_game(deal=deal_from_order(order))
    if check_deal:
        for p in range(3):
            assert _os_hand(os_state, p) == set(s.hand(p)), (order, p)
    declarer = rng.randrange(3)
    gtype = rng.randrange(6)  # skatsim game type 0..5 = D H S C G N
    # OpenSpiel: player 0 acts first; the first non-pass action names the declarer and the game
    for _ in range(declarer):
        os_state.apply_action(OS_BID_BASE)
    os_state.apply_action(OS_BID_BASE + 1 + gtype)
    # skatsim: a real auction at 18, then pickup or hand, discards, a declaration of that game type
    for m in _AUCTION[declarer]:
        s.apply_action(string_to_action(m))
    assert s.declarer == declarer
    skat = list(s.deal.skat)
    if rng.random() < 0.5:
        s.apply_action(PICKUP)
        discards = rng.sample(s.legal_actions(), 2)
        for c in discards:
            s.apply_action(c)
    else:
        s.apply_action(HAND)
        discards = skat
    options = [a for a in s.legal_actions() if DECLARATIONS[a - DECLARE_BASE] >> 4 == gtype]
    s.apply_action(rng.choice(options))
    for c in discards:
        os_state.apply_action(c)
    assert s.phase == "play" and s.game_type == gtype
    assert s.hand(declarer).mask == sum(1 << c for c in _os_hand(os_state, declarer))

    n_played = 0
    while True:
        assert os_state.is_terminal() == s.is_terminal(), (order, s.history())
        if s.is_terminal():
            break
        assert os_state.current_player() == s.current_player(), (order, s.history())
        mine = s.legal_actions()
        theirs = os_state.legal_actions()
        led = s.current_trick()
        known_bug = bool(led) and ((old_bugs[0] and gtype == NULL) or
                                   (old_bugs[1] and gtype != NULL and led[0] & 7 == 7))
        assert known_bug or set(mine) == set(theirs), (
            f"legal cards differ in {('D', 'H', 'S', 'C', 'G', 'N')[gtype]}: skatsim "
            f"{[card_name(c) for c in mine]} vs OpenSpiel {[card_name(c) for c in theirs]}; "
            f"deal order {order}, moves {s.history()}")
        c = rng.choice(mine)
        s.apply_action(c)
        os_state.apply_action(c)
        n_played += 1
        if n_played % 3 == 0:  # a trick is complete
            winner = s.tricks()[-1][2]
            if not os_state.is_terminal():
                assert os_state.current_player() == winner, (order, s.history())
            if s.is_terminal() and gtype == NULL:
                continue  # ScoreUp's 30/90 null proxy replaces the card points (see module doc)
            pts = s.points()
            solo, team = _os_points(os_state)
            if s.is_terminal():  # the skat is the declarer's (ISKO.md §5)
                assert solo == s.result.declarer_points, (order, s.history())
            else:
                assert solo == pts[declarer], (order, s.history())
            assert team == sum(pts) - pts[declarer], (order, s.history())
    if gtype != NULL:
        r = s.result
        assert r.declarer_points + sum(s.points()) - s.points()[declarer] == 120
        assert os_state.returns()[declarer] == pytest.approx((r.declarer_points - 60) / 120.0)
    return gtype, n_played


def test_play_phase_agrees_with_openspiel() -> None:
    game = pyspiel.load_game("skat")
    old_bugs = _old_follow_bugs(game)
    rng = random.Random(20240601)
    per_type = [0] * 6
    null_early = 0
    for i in range(N_DEALS):
        gtype, n = play_one_deal(game, rng, check_deal=i < 500, old_bugs=old_bugs)
        per_type[gtype] += 1
        null_early += gtype == NULL and n < 30
    assert sum(per_type) == N_DEALS and min(per_type) > N_DEALS // 8  # every game type is well covered
    assert null_early > 0  # null games that end when the declarer takes a trick were compared too


@pytest.mark.slow
def test_play_phase_agrees_with_openspiel_long() -> None:
    game = pyspiel.load_game("skat")
    old_bugs = _old_follow_bugs(game)
    rng = random.Random(7)
    for i in range(200_000):
        play_one_deal(game, rng, check_deal=i % 100 == 0, old_bugs=old_bugs)


def test_probe_positions_follow_isko() -> None:
    """The probe's expected answers are right by ISKO.md §6 (null: the led suit, jacks included;
    grand: a jack led calls for jacks only), so a "bug" it reports is OpenSpiel's."""
    from skatsim import CardSet
    from skatsim.rules import GRAND, legal_cards

    p1 = CardSet("DQ DK D10 HJ S7 S8 S9 C9 CQ CK")
    assert p1 == SkatState.new_game(deal=deal_from_order(list(range(32)))).hand(1)
    assert legal_cards(p1, "D7", NULL) == CardSet([3, 4, 5]) == CardSet("DQ DK D10")
    assert legal_cards(p1, "SJ", GRAND) == CardSet([15]) == CardSet("HJ")
    print("OpenSpiel old follow-suit bugs (null, jack led):", _old_follow_bugs(pyspiel.load_game("skat")))
