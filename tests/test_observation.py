"""Observations show exactly what a seat may know, in a documented flat layout."""

from __future__ import annotations

import random

import numpy as np
import pytest

from skatsim import SkatRules, SkatState, deal_from_hands
from skatsim.state import random_game as play_random_game
from skatsim.kernels import game as G
from skatsim.observation import OBS_LAYOUT, OBS_OFFSETS, OBS_SIZE, decode_tensor, encode_records


def test_layout_is_contiguous_and_documented() -> None:
    assert OBS_SIZE == sum(n for _, n in OBS_LAYOUT) == 574
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
    assert o.fields["bids"] == ((1, "18"), (0, "yes"), (1, "20"), (0, "pass"))
    assert o.fields["bid"] == 20 and o.fields["passed"] == (0,)
    assert o.views["bid_level"].argmax() == 2  # 0 = none, 1 = 18, 2 = 20
    np.testing.assert_allclose(o.views["seat_bids"], [18 / 264, 20 / 264, 0], rtol=1e-6)
    assert o.fields["legal_actions"] == tuple(s.legal_actions()) and o.fields["to_move"] == 2
    with pytest.raises(ValueError, match="seat 0, 1 or 2"):
        s.observation(3)


def _random_prefix(seed: int, rules: SkatRules | None = None) -> SkatState:
    return play_random_game(seed, rules, max_moves=random.Random(seed).randrange(0, 50))


@pytest.mark.parametrize("seed", range(40))
def test_tensor_decodes_back_to_the_fields(seed: int) -> None:
    """The tensor holds everything the readable fields say (OpenSpiel's string-from-tensor idea)."""
    rules = SkatRules(ramsch=seed % 3 == 0, kontra=seed % 2 == 0)
    s = _random_prefix(seed, rules)
    for p in range(3):
        o = s.observation(p)
        d = decode_tensor(o.tensor)
        assert d["seat"] == p and d["phase"] == o.phase and d["to_move"] == o.to_move
        assert d["hand"] == o.hand and d["bid"] == o.bid and d["passed"] == o.passed
        assert d["declarer"] == o.declarer and d["game_type"] == o.game_type
        assert d["skat"] == (o.skat or 0) and d["discard"] == (o.discard or 0)
        assert d["ouvert_hand"] == (o.ouvert_hand or 0)
        assert d["played"] == [s.played_mask(q) for q in range(3)]
        assert d["current_trick"] == o.current_trick and d["trick_leader"] == o.trick_leader
        assert d["points"] == o.points and d["tricks_won"] == o.tricks_won
        assert d["legal_actions"] == o.legal_actions == tuple(s.legal_actions() if s.current_player() == p else [])
        assert tuple(np.flatnonzero(o.legal_mask)) == o.legal_actions
        assert d["kontra"] == sum(1 for _, a in o.kontra if a in ("kontra", "re"))
        # seat bids: the highest value each seat named or held, from the public history
        held = [0, 0, 0]
        cur = 0
        for q, a in o.bids:
            if a.isdigit():
                cur = int(a)
            if a != "pass":
                held[q] = max(held[q], cur)
        assert d["seat_bids"] == held


def _voids_by_replay(s: SkatState) -> list[int]:
    """Independent: the follow masks of every led suit a seat did not follow."""
    from skatsim.rules import follow_mask

    voids = [0, 0, 0]
    moves = [(p, a) for p, a, ph in s.phase_history() if ph == "play"]
    for i in range(0, len(moves), 3):
        trick = moves[i:i + 3]
        fm = int(follow_mask(trick[0][1], s.game_type))
        for p, c in trick[1:]:
            if not fm >> c & 1:
                voids[p] |= fm
    return voids


@pytest.mark.parametrize("seed", range(30))
def test_voids_in_the_state_vector_match_the_history(seed: int) -> None:
    s = play_random_game(1000 + seed, max_moves=random.Random(seed).randrange(20, 60))
    o = s.observation(0)
    assert list(o.voids) == _voids_by_replay(s)
    names = "DHSCT"
    for q in range(3):  # the tensor's effective-suit voids agree
        d = decode_tensor(o.tensor)["voids"][q]
        assert bool(d) == bool(o.voids[q]), (q, d, o.voids[q])
        assert all(k in names for k in d)


def test_batch_encoder_equals_the_state_observation() -> None:
    """encode_records over simulate() records == SkatState.observation at the same point."""
    from skatsim import simulate

    rules = SkatRules(ramsch=True, kontra=True)
    df = simulate(300, seed=21, rules=rules, workers=1, record_actions=True)
    acts = df.attrs["actions"]
    r = random.Random(5)
    seats = np.array([r.randrange(3) for _ in range(len(df))])
    steps = np.array([r.randrange(0, int(n) + 1) if i % 4 else -1 for i, n in enumerate(df["n_actions"])])
    x, at = encode_records(df["deal_seed"], acts, seats, steps, rules=rules)
    for i in range(len(df)):
        s = SkatState.new_game(seed=int(df["deal_seed"].iloc[i]), rules=rules)
        k = 0
        while (steps[i] >= 0 and k < steps[i]) or (steps[i] < 0 and s.current_player() != seats[i]
                                                     and not s.is_terminal()):
            s.apply_action(int(acts[i, k]))
            k += 1
        if steps[i] < 0 and s.is_terminal():
            assert at[i] == -1
            continue
        assert at[i] == k
        np.testing.assert_array_equal(x[i], s.observation(int(seats[i])).tensor)


def test_batch_encoder_refuses_records_of_another_run() -> None:
    from skatsim import simulate

    df = simulate(5, seed=1, workers=1, record_actions=True)
    with pytest.raises(ValueError, match="not legal on that deal"):
        encode_records(df["deal_seed"] + 1, df.attrs["actions"], seats=0, steps=40)
    with pytest.raises(ValueError, match="seats must be"):
        encode_records(df["deal_seed"], df.attrs["actions"], seats=3)


@pytest.mark.parametrize("seed", range(40))
def test_view_hides_exactly_the_hidden_cards(seed: int) -> None:
    rules = SkatRules(ramsch=seed % 4 == 0, kontra=seed % 2 == 0)
    s = _random_prefix(2000 + seed, rules)
    for p in range(3):
        v = s.observation(p).view
        assert not v.flags.writeable
        d = s.declarer
        ouvert_open = s.contract is not None and s.contract.ouvert and s.phase in ("kontra", "play", "done")
        for q in range(3):
            shown = q == p or (q == d and ouvert_open)
            assert v[G.F_HAND0 + q] == (s.hand_mask(q) if shown else 0)
            assert v[G.F_DEALT0 + q] == (s._st[G.F_DEALT0 + q] if q == p else 0)
        sees_skat = p == d and s.skat_picked_up
        assert v[G.F_SKAT] == (s.skat_mask() if sees_skat else 0)
        assert v[G.F_DEALT_SKAT] == (s.deal.skat.mask if sees_skat else 0)
        hidden = {G.F_HAND0, G.F_HAND1, G.F_HAND2, G.F_DEALT0, G.F_DEALT1, G.F_DEALT2, G.F_SKAT, G.F_DEALT_SKAT}
        for f in range(G.N_FIELDS):
            if f not in hidden:
                assert v[f] == s._st[f], f


def test_golden_playthrough(data_dir) -> None:
    """Every step's observation string and tensor hash of four seeded games (layout frozen)."""
    import playthrough

    want = (data_dir / "playthrough.txt").read_text().splitlines()
    got = playthrough.lines()
    for i, (a, b) in enumerate(zip(want, got)):
        assert a == b, f"line {i + 1} of tests/data/playthrough.txt differs:\n want {a}\n got  {b}"
    assert len(want) == len(got)
