"""Agents for skatsim: the agent protocol, a registry of named agents, the game loop,
the shared agent test and duplicate tournaments.

Dependency arrows point one way: ``agents`` builds on :mod:`skatsim`; the core never
imports this package. Inside, three rooms by role (OpenSpiel's games, bots and algorithms):

- :mod:`agents.arena`: how games are played and measured. The protocol and registry
  (:mod:`agents.arena.base`: :class:`Agent`, :func:`register`, :func:`make_agent`,
  :func:`list_agents`, :class:`AgentSpec`), the game loop (:mod:`agents.arena.play`:
  :func:`play_game`, :func:`play`, :class:`Table`), the board runner of tournaments
  (:mod:`agents.arena.vecplay`), duplicate tournaments (:mod:`agents.arena.tournament`:
  :func:`run_tournament`) and :func:`agents.arena.testing.agent_api_test`, the test every
  registered agent passes;
- :mod:`agents.players`: the bots. :class:`RandomAgent`, ``RuleBasedAgent`` (made by name:
  ``make_agent("rule_based", **params)``), PIMC, the neural bidder, DMC and the terminal
  player for a person;
- :mod:`agents.learn`: learning algorithms and their infrastructure (the Gymnasium and
  PettingZoo wrappers, the networks' shared code, bidding labels);
- ``agents/models``: the shipped checkpoints.

Players may import the arena; the arena reaches players only through the registry's lazy
``"module:Class"`` strings; learning may import both. The modules of the flat layout before
(``agents.play``, ``agents.rule_based``, ...) still import, as the same module objects, with a
:class:`DeprecationWarning` naming the new place (:data:`MOVED`).

>>> sorted(list_agents())  # doctest: +NORMALIZE_WHITESPACE
['compose', 'distilled', 'dmc', 'expert', 'learned', 'neural_bidder', 'pimc', 'random', 'rollout', 'rule_based',
 'skat_search']
>>> s = play_game(["random", "random", "random"], seed=3)
>>> s.is_terminal()
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from typing import Any

from .arena.base import (DUPLICATE_LOSS_PENALTY, Agent, AgentInfo, AgentSpec, agent_info, list_agents, make_agent,
                         register)
from .arena.play import AgentError, IllegalActionError, PlayedGame, Table, play, play_game
from .players.random_agent import RandomAgent

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
         doc="uniformly random legal actions in every phase (the compiled random policy)")
def _rule_based_checks() -> dict[str, Any]:
    from .players.rule_based import PARAM_CHECKS

    return dict(PARAM_CHECKS)


register("rule_based", "agents.players.rule_based:RuleBasedAgent", _rule_based_docs, defaults=_rule_based_defaults,
         engine="rule_based", checks=_rule_based_checks,
         doc="heuristic player: bids, skat, declaration and card play (the compiled rule_based policy)")


def _pimc_defaults() -> dict[str, Any]:
    import inspect

    from .players.pimc import PIMCAgent

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
        "card_eps": "with inference: weight factor of a card the rule-based model would not have played (1: off)",
        "oversample": "candidate worlds drawn per world kept when inferring",
        "card_model": "weigh the worlds by the others' cards under a card network's policy: 'distilled' (the "
                      "shipped default), a shipped name ('distilled_v1') or a checkpoint path ('': off)",
        "card_alpha": "exponent of the card network's likelihood (below 1: flatter weights)",
        "card_rb": "with card_model: prior probability that another seat plays like the rule-based player "
                   "(each seat's cards explained by the mixture of the two models; 0: the network alone)",
        "node_limit": "search nodes per world and decision (0: none); worlds over it are dropped",
        "node_budget": "search nodes per decision (0: none): worlds solved in batches of 8 until spent "
                       "(like time_budget, but the same cards on any machine)",
        "log": "keep a record per searched decision",
        "tt_bits": "log2 of the solver's transposition-table entries",
        "bid_worlds": "worlds per contract of the simulation bidder (default: worlds)",
        "schneider": "'both' or 'declarer' (its decisions only): break a tie of cards on which every world "
                     "agrees (game won in all, or lost in all) by the chance of schneider, when more than "
                     "exact_tricks tricks are left; 'off' (default): never",
    }
    for k, v in _rule_based_docs().items():
        docs.setdefault(k, "delegated rule-based player: " + v)
    return docs


def _pimc_checks() -> dict[str, Any]:
    from .arena.base import in_range, one_of
    from .players.pimc import SCHNEIDER_MODES

    def count(lo: int, hi: int) -> Any:
        return lambda v: None if v is None or lo <= v <= hi else f"an int in {lo}..{hi}"

    return {**_rule_based_checks(), "worlds": count(1, 10_000), "bid_worlds": count(1, 10_000),
            "rule": one_of("wins", "points"), "bidding": one_of("rule_based", "simulation"),
            "schneider": one_of(*SCHNEIDER_MODES),
            "time_budget": lambda v: None if v is None or v > 0 else "a positive number of seconds",
            "node_budget": count(0, 10**12),
            "exact_tricks": count(0, 10), "inference_eps": in_range(0, 1, "a weight factor"),
            "card_eps": lambda v: None if 0 < v <= 1 else "a weight factor in (0, 1]",
            "card_alpha": lambda v: None if 0 < v <= 4 else "an exponent in (0, 4]",
            "card_rb": lambda v: None if 0 <= v < 1 else "a probability in [0, 1)",
            "oversample": count(1, 1000), "node_limit": count(0, 10**12), "tt_bits": count(10, 30)}


register("pimc", "agents.players.pimc:PIMCAgent", _pimc_docs, defaults=_pimc_defaults, checks=_pimc_checks,
         doc="Perfect-Information Monte Carlo card play (sampled worlds solved open-handed); "
             "bidding and skat by the rule-based player unless bidding='simulation'")


register("neural_bidder", "agents.players.neural_bidding:NeuralBidderAgent",
         {"model": "checkpoint path (default: the shipped model agents/models/bidding_v2)",
          "card_play": "rule_based or pimc", "aggressiveness": "SF points added before the bid test",
          "loss_penalty": "relative cost per defender of a lost game (20: duplicate scoring)",
          "discard": "rule_based, plans or model", "pimc_worlds": "worlds per card decision with pimc card play",
          "skats": "skats sampled to value a pickup",
          "calibration": "'none' or '(a,b;a,b;a,b)' (suit, grand, null): the network's p mapped to what the "
                         "card player wins, p' = logistic(a + b logit(p))"},
         defaults={"model": "", "card_play": "rule_based", "aggressiveness": 0.0,
                   "loss_penalty": DUPLICATE_LOSS_PENALTY,
                   "discard": "rule_based", "pimc_worlds": 32, "skats": 32, "calibration": "none"},
         checks=lambda: _neural_checks(),
         doc="bidding network (agents/players/neural_bidding.py) + delegated card play")


def _calibration_check(v: str) -> str | None:
    from .players.calibration import parse_calibration

    try:
        parse_calibration(v)
    except ValueError:
        return "'none' or three 'a,b' pairs '(a0,b0;a1,b1;a2,b2)' (suit, grand, null)"
    return None


def _neural_checks() -> dict[str, Any]:
    import math
    from pathlib import Path

    from .arena.base import one_of

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
            "calibration": _calibration_check,
            "loss_penalty": lambda v: None if 0 <= v < math.inf else "a number >= 0",
            "aggressiveness": lambda v: None if math.isfinite(v) else "a finite number"}


def _dmc_checks() -> dict[str, Any]:
    from pathlib import Path

    from .arena.base import one_of

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


register("dmc", "agents.players.dmc:DMCAgent",
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
         doc="Deep Monte-Carlo self-play Q network (agents/players/dmc.py); phases it did not learn by a delegate")


def _compose_docs() -> dict[str, str]:
    from .players.compose import compose_docs

    return compose_docs()


def _compose_checks() -> dict[str, Any]:
    from .players.compose import compose_checks

    return compose_checks()


register("compose", "agents.players.compose:ComposedAgent", _compose_docs,
         defaults={k: "" for k in ("early", "card_play", "bidding", "skat", "discard", "declare", "kontra",
                                   "declarer_play", "defender_play", "ramsch_play")},
         checks=_compose_checks,
         doc="a player made of parts, one agent per kind of decision "
             "(compose:early=neural_bidder,card_play=pimc(worlds=16))")


def _expert_checks() -> dict[str, Any]:
    from .arena.base import one_of
    from .players.pimc import SCHNEIDER_MODES

    return {"worlds": lambda v: None if 1 <= v <= 10_000 else "an int in 1..10000",
            "schneider": one_of(*SCHNEIDER_MODES), "calibration": _calibration_check}


register("expert", "agents.players.compose:expert",
         {"worlds": "PIMC worlds per card decision", "inference": "PIMC's worlds weighed by the auction",
          "card_inference": "PIMC's worlds weighed by the distilled card network's model of the others' cards",
          "schneider": "PIMC's schneider tie-break: 'declarer' (default), 'both' or 'off' (the expert "
                       "measured before 2026-12-06's fourteenth session; see pimc)",
          "calibration": "the bidder's win probabilities mapped to what this card play wins: '(a,b;a,b;a,b)' "
                         "(suit, grand, null; default fitted on expert's card play) or 'none' (the expert "
                         "measured before 2026-12-07's eighteenth session; see neural_bidder)"},
         checks=_expert_checks,  # the defaults: expert's signature
         doc="the strongest composition measured: the neural bidder's early decisions, calibrated to this card "
             "play, + PIMC card play whose worlds the distilled card network weighs, playing for schneider as "
             "declarer (compose:early=neural_bidder(calibration=(0.336,1.378;-0.6285,1.45;0,1)),"
             "card_play=pimc(worlds=32,card_model=distilled_v1,card_alpha=0.5,oversample=8,schneider=declarer))")


def _distilled_defaults() -> dict[str, Any]:
    from .players.distilled import DEFAULT_TIE

    return {"model": "", "tie": DEFAULT_TIE, "endgame": 0, "endgame_worlds": 8, "endgame_nodes": 0}


_DISTILLED_DOCS = {"model": "the card network: a checkpoint path or a shipped name "
                            "(default: agents/models/distilled_v2; the first: distilled_v1)",
                   "tie": "the card of highest value + tie x policy (set on held-out games: docs/strength.md)",
                   "endgame": "the last N tricks by PIMC search instead of the network (0: none)",
                   "endgame_worlds": "PIMC worlds per decision of that endgame search",
                   "endgame_nodes": "search nodes per decision of that endgame search: worlds solved in "
                                    "batches of 8 until spent (0: all endgame_worlds)"}


def _distilled_checks() -> dict[str, Any]:
    return {"tie": lambda v: None if 0 <= v <= 100 else "a number in 0..100",
            "endgame": lambda v: None if 0 <= v <= 10 else "a number of tricks in 0..10",
            "endgame_worlds": lambda v: None if 1 <= v <= 10_000 else "an int in 1..10000",
            "endgame_nodes": lambda v: None if v >= 0 else "a non-negative number of nodes (0: no budget)"}


register("distilled", "agents.players.distilled:DistilledAgent", _DISTILLED_DOCS, defaults=_distilled_defaults,
         checks=_distilled_checks,
         doc="card play by a network distilled from PIMC's values (well under 1 ms a card); "
             "bidding, skat and declaration by the rule-based player")


def _rollout_docs() -> dict[str, str]:
    docs = {"worlds": "worlds sampled per card decision; every legal card is rolled out in each",
            "model": "the card network of the rollouts: a checkpoint path or a shipped name (default: "
                     "agents/models/distilled_v2)",
            "tie": "the rollout players' policy weight (value + tie x policy)",
            "card_model": "weigh the worlds by a card network's model of the others' cards (as pimc's option; "
                          "'': uniform worlds)",
            "card_alpha": "exponent of the card network's likelihood (below 1: flatter weights)",
            "oversample": "candidate worlds drawn per world kept when weighing"}
    for k, v in _rule_based_docs().items():
        docs.setdefault(k, "rule-based player of the other phases: " + v)
    return docs


def _rollout_checks() -> dict[str, Any]:
    return {**_rule_based_checks(), "worlds": lambda v: None if 1 <= v <= 1024 else "an int in 1..1024",
            "tie": lambda v: None if 0 <= v <= 100 else "a number in 0..100",
            "card_alpha": lambda v: None if 0 < v <= 4 else "an exponent in (0, 4]",
            "oversample": lambda v: None if 1 <= v <= 64 else "an int in 1..64"}


def _rollout_defaults() -> dict[str, Any]:
    from .players.distilled import DEFAULT_TIE

    return {"worlds": 16, "model": "", "tie": DEFAULT_TIE, "card_model": "", "card_alpha": 1.0, "oversample": 4,
            **_rule_based_defaults()}


register("rollout", "agents.players.rollout:RolloutAgent", _rollout_docs, defaults=_rollout_defaults,
         checks=_rollout_checks,
         doc="card play by Monte-Carlo rollouts of the distilled card network over sampled worlds (every seat "
             "plays from its own view: no strategy fusion); bidding and skat by the rule-based player")


register("learned", "agents.players.compose:learned", _DISTILLED_DOCS, defaults=_distilled_defaults,
         checks=_distilled_checks,
         doc="every decision by a network: the neural bidder's early decisions + the distilled card play "
             "(compose:early=neural_bidder,card_play=distilled)")


register("skat_search", "agents.players.skat_search:SkatSearchAgent",
         {"worlds": "worlds per candidate (discard x game) in the first round",
          "finalists": "candidates searched again after the first round",
          "final_worlds": "worlds more per finalist",
          "discards": "discards per game searched (static score + the rule-based plan)",
          "loss_penalty": "relative cost per defender of a lost game (20: duplicate scoring)",
          "inference": "weigh the worlds by the defenders' bids (rule-based bidding model)",
          "calibration": "'none' or '(a,b;a,b;a,b)' (suit, grand, null): p = logistic(a + b logit(f))",
          "node_limit": "search nodes per world and candidate (0: none); a world over it is dropped",
          "tt_bits": "log2 of the solver's transposition-table entries"},
         checks=lambda: {"calibration": _calibration_check,
                         "node_limit": lambda v: None if 0 <= v <= 10**12 else "an int in 0..10^12",
                         "worlds": lambda v: None if 1 <= v <= 10_000 else "an int in 1..10000",
                         "finalists": lambda v: None if 0 <= v <= 100 else "an int in 0..100",
                         "final_worlds": lambda v: None if 0 <= v <= 10_000 else "an int in 0..10000",
                         "discards": lambda v: None if 1 <= v <= 66 else "an int in 1..66",
                         "tt_bits": lambda v: None if 10 <= v <= 30 else "an int in 10..30"},
         doc="discard and declaration by open-hand search over sampled worlds (other phases: rule_based); "
             "compose it with a bidder and a card player")


def __getattr__(name: str) -> Any:  # lazy: the tournament pulls in pandas, the rule-based agent its kernels
    if name in ("run_tournament", "TournamentResult", "resume_tournament", "load_tournament"):
        from .arena import tournament

        return getattr(tournament, name)
    if name == "RuleBasedAgent":
        from .players.rule_based import RuleBasedAgent

        return RuleBasedAgent
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


#: Where the modules of the flat layout live now (old name -> new name; their submodules
#: follow, ``agents.tournament.stats`` -> ``agents.arena.tournament.stats``).
MOVED: dict[str, str] = {
    "agents.base": "agents.arena.base", "agents.play": "agents.arena.play",
    "agents.vecplay": "agents.arena.vecplay", "agents.testing": "agents.arena.testing",
    "agents.tournament": "agents.arena.tournament",
    **{f"agents.{m}": f"agents.players.{m}" for m in ("random_agent", "rule_based", "pimc", "pimc_bidding",
                                                       "pimc_inference", "neural_bidding", "dmc", "human")},
    "agents.envs": "agents.learn.envs", "agents.bidding_data": "agents.learn.bidding_data",
    "agents.mlp": "agents.learn.nets", "agents.mlp_kernels": "agents.learn.nets",
}


def moved_to(name: str) -> str | None:
    """The current name of a module of the old flat layout (``None``: not moved).

    >>> moved_to("agents.tournament.stats"), moved_to("agents.arena.play")
    ('agents.arena.tournament.stats', None)
    """
    head, rest = name, ""
    while head.count(".") >= 1:
        if head in MOVED:
            return MOVED[head] + rest
        head, _, tail = head.rpartition(".")
        rest = "." + tail + rest
    return None


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module name as the module at its new place: the same object under both
    names in ``sys.modules``, with a :class:`DeprecationWarning` naming the new place."""

    def __init__(self) -> None:
        self._specs: dict[str, Any] = {}

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        return importlib.util.spec_from_loader(name, self) if moved_to(name) else None

    def create_module(self, spec: Any) -> types.ModuleType:
        new = moved_to(spec.name)
        assert new is not None
        level, frame = 2, sys._getframe(1)  # type: int, types.FrameType | None
        # warn at the importing line, past the import machinery
        while frame is not None and (frame.f_code.co_filename.startswith("<frozen importlib")
                                     or frame.f_code.co_filename.endswith(("importlib/__init__.py", __file__))):
            level += "_bootstrap" not in frame.f_code.co_filename  # warnings skips those frames itself
            frame = frame.f_back
        warnings.warn(f"{spec.name} moved to {new}: import it from there", DeprecationWarning, stacklevel=level)
        module = importlib.import_module(new)
        self._specs[spec.name] = module.__spec__  # the import system sets the alias's spec on it next
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        alias = module.__spec__
        assert alias is not None
        module.__spec__ = self._specs.pop(alias.name)  # the module keeps its own spec


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        # importing an old submodule name sets it on the package: the face keeps its own name
        # (``agents.play`` is the function :func:`play`, as before the move)
        if isinstance(value, types.ModuleType) and f"agents.{name}" in MOVED and not isinstance(
                self.__dict__.get(name, value), types.ModuleType):
            return
        super().__setattr__(name, value)


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())
sys.modules[__name__].__class__ = _Package
