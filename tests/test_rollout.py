"""Card-play rollout kernel vs SkatState: exact replays of recorded rollouts, and statistics."""

from __future__ import annotations

import random

import numpy as np
import pytest

from skatsim import SkatState, deal
from skatsim.bits import derive_seed
from skatsim.kernels import game as G
from skatsim.rollout import position_state, rollouts, rollouts_from_state
from skatsim.solver import Position


def position(seed: int, extra_cards: int, want_null: bool = False) -> SkatState | None:
    """A random game driven to the play phase, then ``extra_cards`` random cards further."""
    rng = random.Random(seed)
    s = SkatState.new_game(seed=seed)
    while s.phase != "play" and not s.is_terminal():
        legal = s.legal_actions()
        if want_null and s.phase == "bidding":  # bid low so that null stays declarable
            legal = [legal[0], legal[-1]]
        if want_null and s.phase == "declare":
            nulls = [a for a in legal if s.action_to_string(a).startswith("N")]
            legal = nulls or legal
        s.apply_action(rng.choice(legal))
    for _ in range(extra_cards):
        if s.is_terminal():
            return None
        s.apply_action(rng.choice(s.legal_actions()))
    return None if s.is_terminal() or s.contract is None else s


def positions():
    out = []
    for seed in range(60):
        s = position(seed, extra_cards=seed % 28, want_null=seed % 4 == 0)
        if s is not None:
            out.append(s)
    return out


def test_recorded_rollouts_replay_exactly_through_state():
    games = set()
    for s in positions():
        res = rollouts_from_state(s, 40, seed=9, record=True)
        games.add(s.contract.game)
        for r in range(40):
            t = s.clone()
            cards = [int(c) for c in res.actions[r] if c >= 0]
            for c in cards:
                t.apply_action(c)
            assert t.is_terminal(), (s.seed, r, cards)
            out = t._result_array()
            assert int(res.points[r]) == out[G.R_DECL_POINTS]
            assert int(res.tricks[r]) == out[G.R_DECL_TRICKS]
            if not out[G.R_OVERBID]:
                assert bool(res.won[r]) == bool(out[G.R_WON])
    assert {4, 5} <= games and len(games) >= 5


def test_rollout_r_uses_its_own_stream():
    s = position(3, 4)
    a = rollouts_from_state(s, 50, seed=1, record=True)
    b = rollouts_from_state(s, 50, seed=1, record=True)
    assert (a.actions == b.actions).all()
    assert derive_seed(1, 7) != derive_seed(1, 8)
    c = rollouts_from_state(s, 10, seed=1, record=True)
    assert (c.actions == a.actions[:10]).all()


def test_rollout_statistics_match_state_playouts():
    """Mean declarer points of kernel rollouts and of SkatState random playouts agree."""
    s = position(21, 0)
    assert s is not None
    res = rollouts_from_state(s, 20_000, seed=5)
    rng = random.Random(5)
    pts = []
    for _ in range(2000):
        t = s.clone()
        while not t.is_terminal():
            t.apply_action(rng.choice(t.legal_actions()))
        pts.append(t._result_array()[G.R_DECL_POINTS])
    pts = np.array(pts, dtype=float)
    se = np.sqrt(pts.var() / len(pts) + res.points.var() / len(res.points))
    assert abs(pts.mean() - res.mean_points) < 4 * se


def test_rollouts_from_explicit_hands():
    d = deal(5)
    r = rollouts(d.hands, d.skat, "G", declarer=0, n=2000, seed=1)
    assert r.points.min() >= d.skat.points and r.points.max() <= 120
    assert 0 <= r.tricks.min() and r.tricks.max() <= 10
    assert ((r.points >= 61) == r.won).all()
    n = rollouts(d.hands, d.skat, "N", declarer=1, n=2000, seed=1)
    assert ((n.tricks == 0) == n.won).all() and (n.tricks <= 1).all()
    assert 0 < r.win_rate_se < 0.02


def test_rollouts_mid_trick():
    d = deal(8)
    h = [m.mask for m in d.hands]
    lead = h[1] & -h[1]  # seat 1 leads its lowest card
    c = lead.bit_length() - 1
    h[1] ^= lead
    r = rollouts(h, d.skat, "C", declarer=2, n=500, seed=3, trick=[c], leader=1, record=True)
    assert (r.actions[:, 29] == -1).all() and (r.actions[:, 28] >= 0).all()


def test_rollout_errors():
    d = deal(5)
    with pytest.raises(ValueError, match="repeats card"):
        rollouts([d.hands[0], d.hands[0], d.hands[2]], d.skat, "G", 0, 10, 1)
    with pytest.raises(ValueError, match="wrong card counts"):
        h0 = d.hands[0].mask
        rollouts([h0 & (h0 - 1), d.hands[1], d.hands[2]], d.skat, "G", 0, 10, 1)
    with pytest.raises(ValueError, match="declarer must be a seat"):
        rollouts(d.hands, d.skat, "G", 3, 10, 1)
    with pytest.raises(ValueError, match="play phase"):
        rollouts_from_state(SkatState.new_game(seed=1), 10, 1)
    with pytest.raises(ValueError, match="non-negative"):
        rollouts(d.hands, d.skat, "G", 0, -1, 1)
    with pytest.raises(TypeError):
        rollouts(d.hands, d.skat, "G", 0, 10, 1.5)
    with pytest.raises(ValueError, match="unknown rollout policy"):
        rollouts(d.hands, d.skat, "G", 0, 10, 1, policy="greedy")


def test_rollouts_reject_what_the_solver_rejects():
    """The new-user pass: impossible points at trick 1 and a revoke in the trick in progress."""
    d = deal(5)
    with pytest.raises(ValueError, match="declarer_points 100 is impossible"):
        rollouts(d.hands, d.skat, "G", 0, 100, 1, declarer_points=100)
    # middlehand plays HA to SA while holding S7: a revoke
    hands = ("CJ", "S7", "DA D7")
    with pytest.raises(ValueError, match="could follow suit"):
        rollouts(hands, "D8 D9", "G", 0, 10, 1, trick=["SA", "HA"], leader=0)
    with pytest.raises(ValueError, match="could follow suit"):
        Position.make(hands=hands, skat="D8 D9", game=4, declarer=0, trick=["SA", "HA"], leader=0)


def test_position_form_equals_card_form_and_announcements_count():
    d = deal(9)
    h0, h1, h2, sk = d.masks()
    pos = Position((h0, h1, h2), sk, 3, 0)
    a = rollouts(pos, 3000, 4)
    b = rollouts(d.hands, d.skat, "C", 0, 3000, 4)
    assert (a.points == b.points).all() and (a.won == b.won).all()
    s = rollouts(pos, 3000, 4, contract="CHS")  # schneider announced: 90 needed
    assert (s.points == a.points).all() and (s.won == (s.points >= 90)).all()
    assert (a.won == (a.points >= 61)).all()
    with pytest.raises(ValueError, match="is not game"):
        rollouts(pos, 10, 1, contract="G")
    st = position_state(pos)
    assert st[G.F_PHASE] == G.PH_PLAY and st[G.F_PLAYER] == 0 and st[G.F_NTRICKS] == 0
