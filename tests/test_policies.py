"""Jitted policies: per-seat ids and parameters in one cached runner, information-safe views."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from numba import njit

from skatsim import SkatRules, SkatState, simulate
from skatsim.state import random_game as play_random_game
from skatsim.kernels import game as G
from skatsim.kernels.policies import BUILTIN, PARAMS_SIZE, policy_act
from skatsim.simulate import PolicySpec, policy_specs


def _view(state: SkatState, seat: int) -> np.ndarray:
    v = np.empty(G.N_FIELDS, dtype=np.int64)
    G.mask_view(state._st, seat, v)
    return v


def _mid_game(seed: int, offset: int, live: bool = True) -> SkatState:
    """A random game stopped after a seeded number of moves, under rules varied by ``seed``:
    before its end when ``live`` (about a third of the games end within 60 moves)."""
    rules = SkatRules(ramsch=seed % 3 == 0, kontra=seed % 2 == 1)
    end = len(play_random_game(offset + seed, rules).history()) if live else 60
    return play_random_game(offset + seed, rules, max_moves=random.Random(seed).randrange(0, min(end, 60)))


def _to_move(seed: int, offset: int, name: str) -> tuple[SkatState, int, int, np.ndarray, np.ndarray]:
    """A live mid-game state, the seat to move, built-in policy ``name``'s id and defaults,
    and the seat's view."""
    s = _mid_game(seed, offset)
    assert not s.is_terminal()
    p = s.current_player()
    pid, params = _builtin(name)
    return s, p, pid, params, _view(s, p)


def _builtin(name: str) -> tuple[int, np.ndarray]:
    """Built-in policy ``name``'s id and its default parameter row."""
    pid, _, defaults = BUILTIN[name]
    params = np.zeros(PARAMS_SIZE)
    params[:len(defaults)] = defaults
    return pid, params


@pytest.mark.parametrize("name", sorted(BUILTIN))
@pytest.mark.parametrize("seed", range(25))
def test_redealing_hidden_cards_never_changes_a_decision(name: str, seed: int) -> None:
    """The view a policy gets is identical in every world the seat cannot tell apart,
    so its decision is too (for any parameters and random stream)."""
    s, p, pid, params, mine = _to_move(seed, 500, name)
    gen = np.random.default_rng(seed)
    for k in range(4):
        w = s.resample_from_infostate(p, gen)
        np.testing.assert_array_equal(_view(w, p), mine)
        rng = 1000 + k
        assert policy_act(pid, _view(w, p), p, params, rng) == policy_act(pid, mine, p, params, rng)
        a, _ = policy_act(pid, mine, p, params, rng)
        assert a in s.legal_actions()


def test_seats_can_differ_and_a_seat_keeps_its_stream_whoever_sits_elsewhere() -> None:
    """Common random numbers: seat 0's random player draws from a stream keyed on (deal,
    seat), so its first decision is the same whoever plays the other seats."""
    a = simulate(400, policy="random", seed=9, workers=1, record_actions=True)
    b = simulate(400, policy=["random", "rule_based", "rule_based"], seed=9, workers=1, record_actions=True)
    assert b.attrs["policy"] == "random,rule_based,rule_based"
    assert [p["name"] for p in b.attrs["policies"]] == ["random", "rule_based", "rule_based"]
    assert (a["deal_seed"] == b["deal_seed"]).all()
    # middlehand (seat 1) makes the first decision of every deal: random there -> same first action
    c = simulate(400, policy=["rule_based", "random", "rule_based"], seed=9, workers=1, record_actions=True)
    np.testing.assert_array_equal(a.attrs["actions"][:, 0], c.attrs["actions"][:, 0])


def test_parameters_are_data_and_change_play() -> None:
    """A parameter row changes the games without recompiling: capping the bid at 18 caps
    every bid, and the games differ from the default player's on the same deals."""
    assert "max_bid" in BUILTIN["rule_based"][1]
    low = simulate(2000, policy=("rule_based", {"max_bid": 18}), seed=4, workers=1, record_actions=True)
    full = simulate(2000, policy="rule_based", seed=4, workers=1, record_actions=True)
    assert low.attrs["policy"] == "rule_based:max_bid=18"
    assert (low["bid"] <= 18).all() and (full["bid"] > 18).sum() > 100
    assert (low["deal_seed"] == full["deal_seed"]).all()
    changed = (low.attrs["actions"] != full.attrs["actions"]).any(axis=1)
    assert changed.sum() > 100 and changed[full["bid"].to_numpy() > 18].all()  # every deal bid above 18 changed


def test_max_bid_inf_is_no_cap() -> None:
    """``max_bid=inf`` (accepted by ``RuleBasedAgent``) plays like the default cap 264, the
    top bid: the kernel caps it, not the callers (it used to pass every hand)."""
    inf = simulate(1000, policy=("rule_based", {"max_bid": math.inf}), seed=4, workers=1, record_actions=True)
    top = simulate(1000, policy="rule_based", seed=4, workers=1, record_actions=True)
    np.testing.assert_array_equal(inf.attrs["actions"], top.attrs["actions"])
    assert (inf["bid"] > 18).sum() > 50


def test_policy_spec_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="unknown policy 'nope'"):
        PolicySpec.parse("nope")
    with pytest.raises(ValueError, match="unknown parameter"):
        PolicySpec.parse(("random", {"x": 1}))
    with pytest.raises(ValueError, match="needs 3 entries"):
        policy_specs(["random", "random"])
    with pytest.raises(TypeError, match="must be a number"):
        PolicySpec.parse(("rule_based", {BUILTIN["rule_based"][1][0]: "high"}))


def test_rows_do_not_depend_on_workers_with_mixed_seats() -> None:
    spec = ["rule_based", "random", ("rule_based", {})]
    one = simulate(3000, policy=spec, seed=12, workers=1)
    two = simulate(3000, policy=spec, seed=12, workers=2, chunk_size=777)
    assert one.equals(two)


@njit(cache=False)
def _masked_in_place(st, seat, out):
    """``mask_in_place``'s view copied into ``out``, then ``unmask``."""
    saved = G.mask_in_place(st, seat)
    out[:] = st
    G.unmask(st, saved)


@pytest.mark.parametrize("seed", range(40))
def test_mask_in_place_is_the_view_and_unmask_restores(seed: int) -> None:
    """Batch simulation's in-place mask (its built-in seats' view) is field for field
    ``mask_view``'s view, for every seat and phase, and ``unmask`` restores the state."""
    s = _mid_game(seed, 900, live=False)  # ended games too
    for seat in range(3):
        st = s._st.copy()
        got = np.empty(G.N_FIELDS, dtype=np.int64)
        _masked_in_place(st, seat, got)
        np.testing.assert_array_equal(got, _view(s, seat))
        np.testing.assert_array_equal(st, s._st)


@pytest.mark.parametrize("name", sorted(BUILTIN))
@pytest.mark.parametrize("seed", range(40))
def test_builtin_policies_never_write_to_their_view(name: str, seed: int) -> None:
    """What lets batch simulation hand a built-in policy the state masked in place."""
    _, p, pid, params, v = _to_move(seed, 700, name)
    before = v.copy()
    policy_act(pid, v, p, params, 77)
    np.testing.assert_array_equal(v, before)
