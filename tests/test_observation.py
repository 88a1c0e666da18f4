"""Observations show exactly what a seat may know, in a documented flat layout."""

from __future__ import annotations

import random

import numpy as np
import pytest

from skatsim import SkatState, deal_from_hands
from skatsim.cli import play_random_game
from skatsim.observation import OBS_LAYOUT, OBS_OFFSETS, OBS_SIZE


def test_layout_is_contiguous_and_documented() -> None:
    assert OBS_SIZE == sum(n for _, n in OBS_LAYOUT) == 429
    pos = 0
    for name, n in OBS_LAYOUT:
        assert OBS_OFFSETS[name] == slice(pos, pos + n)
        pos += n
    import skatsim.observation as mod

    for name, n in OBS_LAYOUT:  # every part is in the module's table
        assert f"{name:<14}  {n:<4}" in (mod.__doc__ or ""), name


@pytest.mark.parametrize("seed", range(60))
def test_observation_does_not_leak_hidden_cards(seed: int) -> None:
    """Redealing what a seat cannot see must not change what it observes."""
    s = play_random_game(seed, max_moves=random.Random(seed).randrange(0, 45))
    gen = np.random.default_rng(seed)
    for p in range(3):
        mine = s.observation(p)
        for _ in range(3):
            w = s.resample_from_infostate(p, gen)
            theirs = w.observation(p)
            np.testing.assert_array_equal(mine.tensor, theirs.tensor)
            assert mine.fields["legal_actions"] == theirs.fields["legal_actions"]


def test_views_are_slices_of_the_tensor() -> None:
    s = play_random_game(3, max_moves=10)
    obs = s.observation(0)
    for name, sl in OBS_OFFSETS.items():
        assert np.shares_memory(obs.views[name], obs.tensor)
        np.testing.assert_array_equal(obs.views[name], obs.tensor[sl])
    assert obs.tensor.dtype == np.float32 and obs.tensor.shape == (OBS_SIZE,)
    assert int(obs.views["seat"][0]) == 1 and obs.views["hand"].sum() == len(s.hand(0))


def _ouvert_game() -> SkatState:
    d = deal_from_hands("CJ SJ HJ DJ CA C10 CK SA S10 HA", "CQ C9 C8 C7 SK SQ S9 S8 S7 HK",
                        "H10 HQ H9 H8 H7 DA D10 DK DQ D9")
    s = SkatState.new_game(deal=d)
    for a in ["pass", "18", "yes", "pass", "hand", "GO"]:
        s.apply_action(s.string_to_action(a))
    return s


def test_ouvert_hand_is_public_and_skat_is_private() -> None:
    s = _ouvert_game()
    for p in range(3):
        obs = s.observation(p)
        assert obs.fields["ouvert_hand"] == s.hand(0)
        assert obs.views["ouvert_hand"].sum() == 10
        assert obs.fields["skat"] is None  # a hand game: nobody saw the skat
        assert obs.fields["contract"] == "GO"
    # a pickup: only the declarer sees the skat and his discards
    r = random.Random(0)
    for seed in range(100):
        t = SkatState.new_game(seed=seed)
        while t.phase not in ("play", "done"):
            t.apply_action(r.choice(t.legal_actions()))
        if t.skat_picked_up:
            d = t.declarer
            od = t.observation(d)
            assert od.fields["skat"] == t.deal.skat and od.fields["discard"].mask == t.skat_mask()
            assert od.views["skat"].sum() == 2 and od.views["discard"].sum() == 2
            for q in range(3):
                if q != d:
                    oq = t.observation(q)
                    assert oq.fields["skat"] is None and oq.fields["discard"] is None
                    assert oq.views["skat"].sum() == 0 and oq.views["discard"].sum() == 0
            return
    pytest.fail("no pickup game found")


def test_bidding_fields() -> None:
    s = SkatState.new_game(seed=2)
    for a in ["18", "yes", "20", "pass"]:
        s.apply_action(s.string_to_action(a))
    o = s.observation(2)
    assert o.fields["bids"] == [(1, "18"), (0, "yes"), (1, "20"), (0, "pass")]
    assert o.fields["bid"] == 20 and o.fields["passed"] == [0]
    assert o.views["bid_level"].argmax() == 2  # 0 = none, 1 = 18, 2 = 20
    np.testing.assert_allclose(o.views["seat_bids"], [18 / 264, 20 / 264, 0], rtol=1e-6)
    assert o.fields["legal_actions"] == s.legal_actions() and o.fields["to_move"] == 2
    with pytest.raises(ValueError, match="seat 0, 1 or 2"):
        s.observation(3)
