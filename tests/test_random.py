"""One randomness convention (skatsim._random): int seed, numpy Generator or None (issue 7)."""

from __future__ import annotations

import numpy as np
import pytest

from skatsim import SkatState
from skatsim._random import check_random_state, to_seed
from skatsim.deal import deal


def test_to_seed_keeps_ints_and_draws_from_generators() -> None:
    for s in (0, 7, -5, 2**63 + 1, np.int64(9), np.uint8(3)):
        assert to_seed(s) == int(s) and type(to_seed(s)) is int
    a, b = to_seed(np.random.default_rng(1)), to_seed(np.random.default_rng(1))
    assert a == b and 0 <= a < 2**63 and type(a) is int
    assert to_seed(None) != to_seed(None)  # fresh entropy (collides with probability 2**-63)


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), 1.5, 2.0, "7", b"7", [1], object()])
def test_bools_floats_and_strings_are_not_seeds(bad: object) -> None:
    with pytest.raises(TypeError, match="must be an int, a numpy Generator or None"):
        to_seed(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be an int, a numpy Generator or None"):
        check_random_state(bad)  # type: ignore[arg-type]


def test_check_random_state() -> None:
    g = np.random.default_rng(4)
    assert check_random_state(g) is g
    assert check_random_state(4).integers(1 << 30) == np.random.default_rng(4).integers(1 << 30)
    assert isinstance(check_random_state(None), np.random.Generator)
    with pytest.raises(ValueError, match="non-negative"):
        check_random_state(-1)


def test_infostate_re_exports_check_random_state() -> None:
    from skatsim import _random, infostate

    assert hasattr(_random, "check_random_state")
    assert getattr(infostate, "check_random_state", _random.check_random_state)(3).integers(9) \
        == np.random.default_rng(3).integers(9)


@pytest.mark.parametrize("s", [1, 5, 7, 2**40])
def test_a_negative_seed_is_not_its_absolute_value(s: int) -> None:
    assert deal(-s) != deal(s)
    assert SkatState.new_game(seed=-s).deal != SkatState.new_game(seed=s).deal
    assert SkatState.new_game(seed=-s).seed == -s


@pytest.mark.parametrize("bad", [1.5, 1.0, "7", True, np.bool_(False)])
def test_deal_refuses_non_int_seeds(bad: object) -> None:
    with pytest.raises(TypeError, match="seed must be an int"):
        deal(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1.5, 1.7, "7", True])
def test_new_game_refuses_non_int_seeds(bad: object) -> None:
    with pytest.raises(TypeError, match="seed must be an int"):
        SkatState.new_game(seed=bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rng must be"):
        SkatState.new_game(rng=bad)  # type: ignore[arg-type]


def test_new_game_seed_is_stored_as_an_int() -> None:
    s = SkatState.new_game(seed=np.int64(12))
    assert type(s.seed) is int and s.seed == 12 and s.deal == deal(12)
    a = SkatState.new_game(rng=np.random.default_rng(3))
    b = SkatState.new_game(rng=np.random.default_rng(3))
    assert type(a.seed) is int and a.seed == b.seed and a.deal == b.deal == deal(a.seed)
    assert SkatState.new_game(rng=5).seed == SkatState.new_game(rng=np.random.default_rng(5)).seed
