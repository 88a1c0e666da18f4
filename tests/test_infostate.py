"""resample_from_infostate: worlds agree with everything the player saw, and are uniform."""

from __future__ import annotations

import collections
import itertools
import random

import numpy as np
import pytest

from skatsim import SkatState
from skatsim.state import random_game as play_random_game
from skatsim.bits import iter_bits, popcount
from skatsim.cards import ALL_CARDS, SUIT_MASKS
from skatsim.infostate import check_random_state, known_mask, void_masks
from skatsim.rules import follow_mask


@pytest.mark.parametrize("seed", range(120))
def test_world_agrees_with_the_information_set(seed: int) -> None:
    s = play_random_game(seed, max_moves=random.Random(seed).randrange(0, 45))
    gen = np.random.default_rng(seed)
    for p in range(3):
        w = s.resample_from_infostate(p, gen)
        assert w.hand_mask(p) == s.hand_mask(p)
        assert len(w.history()) == len(s.history())
        assert w.phase == s.phase and w.current_player() == s.current_player()
        assert w.points() == s.points() and w.tricks_won() == s.tricks_won()
        assert w.legal_actions(p) == s.legal_actions(p)
        for q in range(3):
            assert w.played_mask(q) == s.played_mask(q)
            assert popcount(w.hand_mask(q)) == popcount(s.hand_mask(q))
        if s.declarer == p and s.skat_picked_up:
            assert w.skat_mask() == s.skat_mask()
            assert w.history() == s.history()
        # nothing the player saw moved
        known = known_mask(s, p)
        assert known_mask(w, p) == known
        if s.contract is not None and s.contract.ouvert and s.phase in ("play", "done"):
            assert w.hand_mask(s.declarer) == s.hand_mask(s.declarer)


def test_voids_are_inferred_from_not_following() -> None:
    # find a game where somebody fails to follow suit and check the void mask
    for seed in range(200):
        s = play_random_game(seed, max_moves=60)
        if s.game_type is None:
            continue
        moves = s.play_history()
        expected = [0, 0, 0]
        for i in range(0, len(moves) - 2, 3):
            led = moves[i][1]
            fm = int(follow_mask(led, s.game_type))
            for p, c in moves[i + 1:i + 3]:
                if not fm >> c & 1:
                    expected[p] |= fm
        assert void_masks(s) == expected
        if any(expected):
            return
    pytest.fail("no void found in 200 random games")


def _consistent_worlds(s: SkatState, p: int) -> list[tuple[int, int, int]]:
    """Brute force: every (hand q1, hand q2, skat pile) consistent with p's information."""
    known = known_mask(s, p)
    voids = void_masks(s)
    q1, q2 = [q for q in range(3) if q != p]
    hidden = list(iter_bits(ALL_CARDS & ~known))
    n1, n2 = popcount(s.hand_mask(q1)), popcount(s.hand_mask(q2))
    out = []
    for c1 in itertools.combinations(hidden, n1):
        m1 = sum(1 << c for c in c1)
        if m1 & voids[q1]:
            continue
        rest = [c for c in hidden if not m1 >> c & 1]
        for c2 in itertools.combinations(rest, n2):
            m2 = sum(1 << c for c in c2)
            if m2 & voids[q2]:
                continue
            sk = sum(1 << c for c in rest if not m2 >> c & 1)
            out.append((m1, m2, sk))
    return out


def test_resampling_is_uniform_over_consistent_worlds() -> None:
    # a late position of a hand game seen by a defender: the skat is hidden too
    s = None
    for seed in range(500):
        t = play_random_game(seed, max_moves=0)
        r = random.Random(seed)
        while not t.is_terminal() and not (t.phase == "play" and len(t.play_history()) == 22):
            t.apply_action(r.choice(t.legal_actions()))
        if t.phase == "play" and not t.skat_picked_up and any(void_masks(t)) and t.declarer != 0:
            s = t
            break
    assert s is not None
    worlds = _consistent_worlds(s, 0)
    assert 5 < len(worlds) < 3000
    gen = np.random.default_rng(123)
    n = 60 * len(worlds)
    counts = collections.Counter()
    q1, q2 = 1, 2
    for _ in range(n):
        w = s.resample_from_infostate(0, gen)
        counts[(w.hand_mask(q1), w.hand_mask(q2), w.skat_mask())] += 1
    assert set(counts) <= set(worlds)
    expected = n / len(worlds)
    chi2 = sum((counts.get(wd, 0) - expected) ** 2 / expected for wd in worlds)
    dof = len(worlds) - 1
    # mean dof, sd sqrt(2 dof): 6 sd is a false alarm about once in 10^9
    assert chi2 < dof + 6 * (2 * dof) ** 0.5, (chi2, dof)


def test_declarer_discards_are_hidden_from_defenders() -> None:
    for seed in range(300):
        r = random.Random(seed)
        s = SkatState.new_game(seed=seed)
        while not s.is_terminal() and s.phase != "play":
            s.apply_action(r.choice(s.legal_actions()))
        if s.phase == "play" and s.skat_picked_up:
            d = s.declarer
            defender = (d + 1) % 3
            piles = {s.resample_from_infostate(defender, np.random.default_rng(i)).skat_mask() for i in range(30)}
            assert len(piles) > 1, "the defender's worlds must vary the hidden discards"
            own = {s.resample_from_infostate(d, np.random.default_rng(i)).skat_mask() for i in range(10)}
            assert own == {s.skat_mask()}
            return
    pytest.fail("no picked-up game found")


def test_check_random_state() -> None:
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    assert isinstance(check_random_state(3), np.random.Generator)
    with pytest.raises(TypeError, match="rng must be"):
        check_random_state("seed")  # type: ignore[arg-type]


def test_suit_masks_sanity() -> None:  # the void masks above are built from these
    assert sum(popcount(m) for m in SUIT_MASKS) == 32
