"""InfoState from a seat's view and sample_worlds: consistent, uniform, and fed to the batched solver."""

from __future__ import annotations

import collections
import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skatsim import SkatState
from skatsim.bits import iter_bits, popcount
from skatsim.cards import ALL_CARDS
from skatsim.state import random_game as play_random_game
from skatsim.infostate import InfoState, count_worlds, masked_view, sample_worlds, void_masks
from skatsim.options import SkatRules
from skatsim.solver import Position, Solver, target_for

RULES = [SkatRules(), SkatRules(ramsch=True), SkatRules(kontra=True), SkatRules(ramsch=True, kontra=True)]


def true_world(s: SkatState) -> tuple[int, int, int, int]:
    return s.hand_mask(0), s.hand_mask(1), s.hand_mask(2), s.skat_mask()


def random_state(seed: int, rules: SkatRules, moves: int) -> SkatState:
    return play_random_game(seed, rules=rules, max_moves=moves)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**40), rules=st.sampled_from(RULES), moves=st.integers(0, 45),
       seat=st.integers(0, 2))
def test_sampled_worlds_never_contradict_the_observation(seed, rules, moves, seat):
    s = random_state(seed, rules, moves)
    info = InfoState.from_state(s, seat)
    assert info.consistent(true_world(s))  # the InfoState itself is right
    worlds = sample_worlds(info, 25, rng=seed)
    hidden_cards = info.hidden
    for w in worlds:
        assert info.consistent(w), (s, seat, w)
        assert int(w[seat]) == s.hand_mask(seat)
        for q in range(3):
            assert popcount(int(w[q])) == popcount(s.hand_mask(q))
            assert int(w[q]) & void_masks(s)[q] == 0
        assert popcount(int(w[3])) == popcount(s.skat_mask())
        if s.declarer == seat and s.skat_picked_up:
            assert int(w[3]) == s.skat_mask()
        c = s.contract
        if c is not None and c.ouvert and s.phase in ("kontra", "play", "done"):
            assert int(w[s.declarer]) == s.hand_mask(s.declarer)
        assert (int(w[0]) | int(w[1]) | int(w[2]) | int(w[3])) & ~info.known == hidden_cards


@pytest.mark.parametrize("seed", range(40))
def test_worlds_replay_to_the_same_observation(seed):
    """A sampled world, as a deal with the history replayed (resample), shows the seat the
    same observation: nothing the seat saw moved."""
    rules = RULES[seed % 4]
    s = random_state(seed, rules, random.Random(seed).randrange(0, 45))
    for p in range(3):
        w = s.resample_from_infostate(p, np.random.default_rng(seed))
        assert w.observation_string(p) == s.observation_string(p)
        assert np.array_equal(w.observation_tensor(p), s.observation_tensor(p))
        assert InfoState.from_state(w, p) == InfoState.from_state(s, p)


def test_info_state_reads_only_the_view():
    """Redealing the hidden cards never changes the InfoState; mask_view hides them."""
    for seed in range(30):
        s = random_state(seed, RULES[seed % 4], 20 + seed % 20)
        for p in range(3):
            info = InfoState.from_state(s, p)
            assert InfoState.from_view(masked_view(s._st, p), p) == info
            assert InfoState.from_view(s._st, p).hand == info.hand
            w = s.resample_from_infostate(p, np.random.default_rng(seed))
            assert InfoState.from_state(w, p) == info


def test_from_observation():
    s = random_state(3, SkatRules(), 25)
    obs = s.observation(1)
    if getattr(obs, "view", None) is None:
        pytest.skip("Observation.view not there yet")
    assert InfoState.from_observation(obs) == InfoState.from_state(s, 1)


def _brute_worlds(info: InfoState) -> list[tuple[int, ...]]:
    """Every world consistent with ``info``, by enumeration."""
    others = [q for q in range(3) if q != info.seat and not (info.ouvert_hand and q == info.declarer)]
    hidden = list(iter_bits(info.hidden))
    out = []
    n1 = info.hand_sizes[others[0]]
    for c1 in itertools.combinations(hidden, n1):
        m1 = sum(1 << c for c in c1)
        rest = [c for c in hidden if not m1 >> c & 1]
        for c2 in (itertools.combinations(rest, info.hand_sizes[others[1]]) if len(others) > 1 else [()]):
            m2 = sum(1 << c for c in c2)
            w = [0, 0, 0, 0]
            w[info.seat] = info.hand
            if info.ouvert_hand:
                w[info.declarer] = info.ouvert_hand
            w[others[0]] = m1
            if len(others) > 1:
                w[others[1]] = m2
            w[3] = sum(1 << c for c in rest if not m2 >> c & 1) if info.skat_hidden else info.skat
            if info.consistent(w):
                out.append(tuple(w))
    return out


def _late_defender_state() -> SkatState:
    for seed in range(500):
        r = random.Random(seed)
        t = SkatState.new_game(seed=seed)
        while not t.is_terminal() and not (t.phase == "play" and len(t.play_history()) == 22):
            t.apply_action(r.choice(t.legal_actions()))
        if t.phase == "play" and t.declarer != 0 and any(void_masks(t)):
            return t
    raise AssertionError("no position found")


@pytest.mark.parametrize("picked", [False, True])
def test_sample_worlds_is_uniform(picked):
    s = None
    for seed in range(2000):
        r = random.Random(seed)
        t = SkatState.new_game(seed=seed)
        while not t.is_terminal() and not (t.phase == "play" and len(t.play_history()) == 22):
            t.apply_action(r.choice(t.legal_actions()))
        if t.phase == "play" and t.declarer != 0 and any(void_masks(t)) and t.skat_picked_up == picked:
            s = t
            break
    assert s is not None
    info = InfoState.from_state(s, 0)
    worlds = _brute_worlds(info)
    assert count_worlds(info) == len(worlds)
    assert 5 < len(worlds) < 3000
    n = 60 * len(worlds)
    counts = collections.Counter(tuple(int(x) for x in w) for w in sample_worlds(info, n, rng=123))
    assert set(counts) <= set(worlds)
    expected = n / len(worlds)
    chi2 = sum((counts.get(wd, 0) - expected) ** 2 / expected for wd in worlds)
    dof = len(worlds) - 1
    assert chi2 < dof + 6 * (2 * dof) ** 0.5, (chi2, dof)


def test_sample_worlds_reproducible_and_validated():
    s = random_state(8, SkatRules(), 30)
    info = InfoState.from_state(s, 2)
    a = sample_worlds(info, 16, rng=5)
    assert np.array_equal(a, sample_worlds(info, 16, rng=5))
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    assert np.array_equal(sample_worlds(info, 16, rng=g1), sample_worlds(info, 16, rng=g2))
    assert not np.array_equal(a, sample_worlds(info, 16, rng=6))
    assert sample_worlds(info, 0, rng=1).shape == (0, 4)
    with pytest.raises(ValueError, match="non-negative"):
        sample_worlds(info, -1)
    with pytest.raises(TypeError):
        sample_worlds(info, 4, rng=1.5)
    with pytest.raises(ValueError, match="seat"):
        InfoState.from_state(s, 3)
    bad = info._replace(voids=(ALL_CARDS, ALL_CARDS, ALL_CARDS))
    with pytest.raises(ValueError, match="no world"):
        sample_worlds(bad, 3)


# --------------------------------------------------------------------------- batched root values


def play_positions(seed: int, n: int):
    """Play-phase SkatStates of random games (suit, grand, null), at various tricks."""
    out = []
    for i in range(400):
        s = play_random_game(seed * 1000 + i, max_moves=9 + (i * 7) % 26)
        if s.phase == "play" and s.game_type is not None and s.game_type <= 5:
            out.append(s)
            if len(out) == n:
                break
    return out


def test_root_values_equal_per_move_solves():
    """Batched root move values of sampled worlds = move values of fresh per-world solves."""
    states = play_positions(1, 12)
    assert {s.game_type for s in states} >= {4} and len(states) == 12
    batch = Solver(tt_bits=16)
    for s in states:
        p = s.current_player()
        info = InfoState.from_state(s, p)
        worlds = sample_worlds(info, 6, rng=s.seed)
        goal = target_for(s.contract)
        for mode in ("threshold", "exact"):
            got = batch.root_values(worlds, info, mode=mode, threshold=goal)  # one table for all
            assert got.shape == (6, 32)
            for w, row in zip(worlds, got):
                r = Solver(tt_bits=14).solve(info.position(w), mode=mode, threshold=goal, move_values=True)
                legal = {c for c in range(32) if row[c] >= 0}
                assert legal == set(r.move_values)
                assert {c: int(row[c]) for c in legal} == r.move_values


def test_tt_is_shared_soundly_across_worlds_and_contracts():
    """One table through many worlds, both modes and several contracts agrees with fresh tables.
    (Entries carry every seat's cards: two worlds with the same cards in play but swapped
    between the defenders are different entries.)"""
    shared = Solver(tt_bits=12)  # small: many collisions and replacements
    for s in play_positions(2, 8):
        info = InfoState.from_state(s, s.current_player())
        worlds = sample_worlds(info, 10, rng=1)
        for mode in ("threshold", "exact"):
            a = shared.root_values(worlds, info, mode=mode)
            b = np.stack([Solver(tt_bits=12).root_values(w[None, :], info, mode=mode)[0] for w in worlds])
            assert np.array_equal(a, b)


def test_swapped_worlds_differ():
    """Worlds with the same live cards, swapped between seats, have different values: so the
    table must key on each seat's cards (it does), not on the live set."""
    from skatsim.rules import GRAND

    a = Position.make(hands=("CJ SJ", "HA HT", "S7 S8"), skat="D7 D8", game=GRAND, declarer=0)
    b = Position.make(hands=("CJ SJ", "S7 S8", "HA HT"), skat="D7 D8", game=GRAND, declarer=0)
    solver = Solver(tt_bits=10)
    va = solver.solve(a, mode="exact").declarer_points
    vb = solver.solve(b, mode="exact").declarer_points
    assert va == Solver(tt_bits=10).solve(a, mode="exact").declarer_points
    assert vb == Solver(tt_bits=10).solve(b, mode="exact").declarer_points
    w = np.array([a.hands + (a.skat,), b.hands + (b.skat,)])
    vals = solver.root_values(w, a, mode="exact")
    assert vals[0].max() == va and vals[1].max() == vb


def test_true_world_alone_gives_solver_optimal_moves():
    for s in play_positions(3, 10):
        p = s.current_player()
        info = InfoState.from_state(s, p)
        goal = target_for(s.contract)
        vals = Solver().root_values(np.array([true_world(s)]), info, mode="exact")[0]
        legal = [c for c in range(32) if vals[c] >= 0]
        pick = max(legal, key=lambda c: vals[c]) if p == s.declarer else min(legal, key=lambda c: vals[c])
        r = Solver().solve(s, mode="exact", threshold=goal, move_values=True)
        assert pick in r.best_moves


def test_root_values_validation():
    s = play_positions(4, 1)[0]
    info = InfoState.from_state(s, s.current_player())
    w = sample_worlds(info, 3, rng=2)
    solver = Solver(tt_bits=12)
    with pytest.raises(ValueError, match="shape"):
        solver.root_values(w[:, :3], info)
    bad = w.copy()
    bad[1, 3] = w[0, 3] ^ 1  # a card added or dropped
    with pytest.raises(ValueError, match="world 1"):
        solver.root_values(bad, info)
    with pytest.raises(ValueError, match="mode"):
        solver.root_values(w, info, mode="fast")
    with pytest.raises(ValueError, match="solver needs"):
        InfoState.from_state(SkatState.new_game(seed=1), 0).public_position()
    assert solver.solve_many([info.position(x) for x in w]).shape == (3, 32)
    assert np.array_equal(solver.solve_many([info.position(x) for x in w]), solver.root_values(w, info))
