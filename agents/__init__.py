"""Agents for skatsim: the agent protocol, a registry of named agents, the game loop,
the shared agent test and duplicate tournaments.

Dependency arrows point one way: ``agents`` builds on :mod:`skatsim`; the core never
imports this package.

- protocol and registry (:mod:`agents.base`): :class:`Agent`, :func:`register`,
  :func:`make_agent`, :func:`list_agents`, :class:`AgentSpec`;
- :class:`RandomAgent` (:mod:`agents.random_agent`), ``RuleBasedAgent``
  (:mod:`agents.rule_based`, made by name: ``make_agent("rule_based", **params)``);
- the game loop (:mod:`agents.play`): :func:`play_game`, :func:`play`, :class:`Table`;
- duplicate tournaments (:mod:`agents.tournament`): :func:`run_tournament`;
- :func:`agents.testing.agent_api_test`: the test every registered agent passes.

>>> sorted(list_agents())
['dmc', 'neural_bidder', 'pimc', 'random', 'rule_based']
>>> s = play_game(["random", "random", "random"], seed=3)
>>> s.is_terminal()
True
"""

from __future__ import annotations

from typing import Any

from .base import DUPLICATE_LOSS_PENALTY, Agent, AgentInfo, AgentSpec, agent_info, list_agents, make_agent, register
from .play import AgentError, IllegalActionError, PlayedGame, Table, play, play_game
from .random_agent import RandomAgent

__all__ = ["Agent", "AgentInfo", "AgentSpec", "agent_info", "list_agents", "make_agent", "register",
           "AgentError", "IllegalActionError", "PlayedGame", "Table", "play", "play_game", "RandomAgent",
           "run_tournament", "resume_tournament", "load_tournament", "TournamentResult", "RuleBasedAgent"]


def _rule_based_defaults() -> dict[str, float]:
    from skatsim.kernels.heuristic import DEFAULT_PARAMS, PARAM_NAMES

    return {n: float(v) for n, v in zip(PARAM_NAMES, DEFAULT_PARAMS)}


def _rule_based_docs() -> dict[str, str]:
    from skatsim.kernels import heuristic

    return dict(getattr(heuristic, "PARAM_DOCS", {}) or {})


register("random", RandomAgent, {}, defaults={}, engine="random",
         doc="uniformly random legal actions in every phase (the batch engine's random policy)")
def _rule_based_checks() -> dict[str, Any]:
    from .rule_based import PARAM_CHECKS

    return dict(PARAM_CHECKS)


register("rule_based", "agents.rule_based:RuleBasedAgent", _rule_based_docs, defaults=_rule_based_defaults,
         engine="rule_based", checks=_rule_based_checks,
         doc="heuristic player: bids, skat, declaration and card play (the batch engine's rule_based policy)")


def _pimc_defaults() -> dict[str, Any]:
    import inspect

    from .pimc import PIMCAgent

    out: dict[str, Any] = {}
    for p in inspect.signature(PIMCAgent).parameters.values():
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            out[p.name] = p.default
    out.update(_rule_based_defaults())  # passed to the delegated rule-based player
    return out


def _pimc_docs() -> dict[str, str]:
    docs = {
        "worlds": "worlds sampled (or enumerated) per card decision (Kermit used 160)",
        "rule": "'wins': the card reaching the side's goal in most worlds; 'points': best mean card points",
        "time_budget": "optional seconds per decision (worlds solved in batches of 8 until spent)",
        "exact_tricks": "tie-break by exact mean points when at most this many tricks are left",
        "enumerate": "enumerate every world when no more than `worlds` remain",
        "bidding": "'rule_based' (delegate bidding, skat, declaration, Kontra/Re) or 'simulation'",
        "inference": "weight the worlds by how well the rule-based model explains the others' auction",
        "inference_eps": "weight factor of a call the rule-based model would not have made",
        "oversample": "candidate worlds drawn per world kept when inferring",
        "node_limit": "search nodes per world and decision (0: none); worlds over it are dropped",
        "log": "keep a record per searched decision",
        "tt_bits": "log2 of the solver's transposition-table entries",
        "bid_worlds": "worlds per contract of the simulation bidder (default: worlds)",
    }
    for k, v in _rule_based_docs().items():
        docs.setdefault(k, "delegated rule-based player: " + v)
    return docs


def _pimc_checks() -> dict[str, Any]:
    from .base import in_range, one_of

    def count(lo: int, hi: int) -> Any:
        return lambda v: None if v is None or lo <= v <= hi else f"an int in {lo}..{hi}"

    return {**_rule_based_checks(), "worlds": count(1, 10_000), "bid_worlds": count(1, 10_000),
            "rule": one_of("wins", "points"), "bidding": one_of("rule_based", "simulation"),
            "time_budget": lambda v: None if v is None or v > 0 else "a positive number of seconds",
            "exact_tricks": count(0, 10), "inference_eps": in_range(0, 1, "a weight factor"),
            "oversample": count(1, 1000), "node_limit": count(0, 10**12), "tt_bits": count(10, 30)}


register("pimc", "agents.pimc:PIMCAgent", _pimc_docs, defaults=_pimc_defaults, checks=_pimc_checks,
         doc="Perfect-Information Monte Carlo card play (sampled worlds solved open-handed); "
             "bidding and skat by the rule-based player unless bidding='simulation'")


register("neural_bidder", "agents.neural_bidding:NeuralBidderAgent",
         {"model": "checkpoint path (default: the shipped model agents/models/bidding_v2)",
          "card_play": "rule_based or pimc", "aggressiveness": "SF points added before the bid test",
          "loss_penalty": "relative cost per defender of a lost game (20: duplicate scoring)",
          "discard": "rule_based, plans or model", "pimc_worlds": "worlds per card decision with pimc card play",
          "skats": "skats sampled to value a pickup"},
         defaults={"model": "", "card_play": "rule_based", "aggressiveness": 0.0,
                   "loss_penalty": DUPLICATE_LOSS_PENALTY,
                   "discard": "rule_based", "pimc_worlds": 32, "skats": 32},
         checks=lambda: _neural_checks(),
         doc="bidding network (agents/neural_bidding.py) + delegated card play")


def _neural_checks() -> dict[str, Any]:
    import math
    from pathlib import Path

    from .base import one_of

    def model(v: str) -> str | None:
        if not v:
            return None
        p = Path(v)
        ok = p.exists() or p.with_suffix(".pt").exists() or p.with_suffix(".json").exists()
        return None if ok else "a model checkpoint that exists (its .pt and .json; '' for the shipped one)"

    return {"model": model, "card_play": one_of("rule_based", "pimc"),
            "discard": one_of("rule_based", "plans", "model"),
            "pimc_worlds": lambda v: None if 1 <= v <= 10_000 else "an int in 1..10000",
            "skats": lambda v: None if 1 <= v <= 231 else "an int in 1..231 (the skats a hand can find)",
            "loss_penalty": lambda v: None if 0 <= v < math.inf else "a number >= 0",
            "aggressiveness": lambda v: None if math.isfinite(v) else "a finite number"}


def _dmc_checks() -> dict[str, Any]:
    from pathlib import Path

    from .base import one_of

    def model(v: str) -> str | None:
        if not v:
            return None
        p = Path(v)
        p = p.with_suffix("") if p.suffix in (".pt", ".json") else p
        ok = p.with_name(p.name + ".pt").is_file() and p.with_name(p.name + ".json").is_file()
        return None if ok else "a DMC checkpoint that exists (its .pt and .json; '' for the shipped one)"

    play = one_of("model", "rule_based", "pimc")
    return {"model": model, "early": one_of("auto", "model", "rule_based", "neural_bidder"),
            "declarer_play": play, "defender_play": play,
            "pimc_worlds": lambda v: None if 1 <= v <= 10_000 else "an int in 1..10000",
            "trust": lambda v: None if v == -1 or 0 <= v < 1000 else "-1 (off) or a number in [0, 1000)"}


register("dmc", "agents.dmc:DMCAgent",
         {"model": "checkpoint path (default: the shipped model agents/models/dmc_v2)",
          "early": "bidding, skat, discard, declaration, Kontra/Re: auto (the model where it learned them, "
                   "else rule_based), model, rule_based or neural_bidder",
          "declarer_play": "card play as declarer: model, rule_based or pimc",
          "defender_play": "card play as defender (and in Ramsch): model, rule_based or pimc",
          "pimc_worlds": "worlds per card decision of a pimc delegate",
          "trust": ">= 0: play the model's card only if its Q beats the rule-based card's by more than this "
                   "many SF points (-1: off)"},
         defaults={"model": "", "early": "auto", "declarer_play": "model", "defender_play": "model",
                   "pimc_worlds": 32, "trust": -1.0},
         checks=_dmc_checks,
         doc="Deep Monte-Carlo self-play Q network (agents/dmc.py); phases it did not learn by a delegate")


def __getattr__(name: str) -> Any:  # lazy: the tournament pulls in pandas, the rule-based agent its kernels
    if name in ("run_tournament", "TournamentResult", "resume_tournament", "load_tournament"):
        from . import tournament

        return getattr(tournament, name)
    if name == "RuleBasedAgent":
        from .rule_based import RuleBasedAgent

        return RuleBasedAgent
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
