"""Rule options: only real booleans, in the constructor and in ``from_dict`` (issue 7)."""

from __future__ import annotations

import numpy as np
import pytest

from skatsim.options import SkatRules


@pytest.mark.parametrize("value", ["false", "true", 2, 1, 0, None, 1.0, [True]])
@pytest.mark.parametrize("name", ["ramsch", "kontra"])
def test_rule_options_must_be_booleans(name: str, value: object) -> None:
    with pytest.raises(TypeError, match=f"rule option '{name}' must be True or False"):
        SkatRules(**{name: value})
    with pytest.raises(TypeError, match=f"rule option '{name}' must be True or False"):
        SkatRules.from_dict({name: value})


def test_numpy_bools_are_booleans() -> None:
    r = SkatRules(ramsch=np.bool_(True), kontra=np.bool_(False))
    assert r == SkatRules(ramsch=True) and type(r.ramsch) is bool and r.flags == 1


def test_from_dict_round_trip_and_errors() -> None:
    for r in (SkatRules(), SkatRules(ramsch=True), SkatRules(kontra=True), SkatRules(True, True)):
        assert SkatRules.from_dict(r.to_dict()) == r
        assert SkatRules.from_flags(r.flags) == r
    assert SkatRules.from_dict({}) == SkatRules()
    with pytest.raises(ValueError, match=r"unknown rule options \['schieber'\]"):
        SkatRules.from_dict({"schieber": True})
    with pytest.raises(TypeError, match="rules must be a dict"):
        SkatRules.from_dict([("ramsch", True)])  # type: ignore[arg-type]


def test_version_names_the_variants() -> None:
    assert SkatRules().version == "isko-1999/skatsim-1"
    assert SkatRules(kontra=True).version == "isko-1999+kontra/skatsim-1"
    assert SkatRules(ramsch=True, kontra=True).version == "isko-1999+ramsch+kontra/skatsim-1"
