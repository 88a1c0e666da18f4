"""Agent parameters are checked when a spec is written down, before any game is played."""

from __future__ import annotations

import re

import pytest

from agents import AgentSpec
from agents.players.rule_based import PARAM_CHECKS, RuleBasedAgent
from skatsim.kernels.heuristic import PARAM_NAMES


@pytest.mark.parametrize("text, why", [
    ("rule_based:bid_threshold=7", "a probability in [0, 1]"),
    ("rule_based:max_bid=-5", "a bid on the ladder"),
    ("rule_based:max_bid=19", "a bid on the ladder"),
    ("rule_based:max_bid=nan", "is NaN"),
    ("rule_based:no_null=2", "one of 0, 1"),
    ("rule_based:scale=0", "a positive number"),
    ("pimc:worlds=4,worlds=8", "given twice"),
    ("pimc:worlds=0", "an int in 1..10000"),
    ("pimc:rule=best", "one of wins, points"),
    ("pimc:inference_eps=1.5", "in [0, 1]"),
    ("neural_bidder:model=/nope/model", "a model checkpoint that exists"),
    ("neural_bidder:card_play=xskat", "one of rule_based, pimc"),
    ("neural_bidder:skats=0", "1..231"),
])
def test_nonsense_parameters_are_refused_by_name(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)) as e:
        AgentSpec.parse(text)
    assert text.split(":")[1].split("=")[0].split(",")[0] in str(e.value)


def test_good_values_pass_and_inf_means_no_cap() -> None:
    assert AgentSpec.parse("rule_based:max_bid=inf,bid_threshold=0.5").param_dict["max_bid"] == float("inf")
    assert AgentSpec.parse("rule_based:max_bid=18").make().params["max_bid"] == 18.0
    with pytest.raises(ValueError, match="must be a probability"):
        RuleBasedAgent(hand_min_p=2.0)  # the class checks too, when made directly


def test_every_rule_based_parameter_has_a_check() -> None:
    assert set(PARAM_CHECKS) == set(PARAM_NAMES)
