"""What determines a duplicate tournament's games: the agents, boards, seed, rules and time limit.

How the games are spread over threads or processes (:func:`agents.arena.tournament.engine.plan`)
changes no game, so it is no part of the configuration; the ``engine`` of earlier manifests
("batch" / "python") is read and ignored.

>>> ["".join("ABC"[i] for i in a) for a in arrangements(2)]
['AAB', 'ABA', 'BAA', 'ABB', 'BAB', 'BBA']
>>> ["".join("ABC"[i] for i in a) for a in arrangements(2, one_seat=True)]
['ABB', 'BAB', 'BBA']
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import permutations
from typing import Any, Sequence

from skatsim._random import SeedLike, check_deal_count, check_run_seed
from skatsim.options import ISKO, SkatRules
from skatsim.table import RESULT_COLUMNS

from ..base import AgentObject, AgentSpec, SpecLike, as_spec
from ..seat import DEFAULT_TIME_LIMIT, time_limit_of

__all__ = ["TournamentConfig", "make_config", "arrangements", "arrangement_text", "GAME_COLUMNS",
           "TOURNAMENT_FORMAT", "DEFAULT_TIME_LIMIT", "time_limit_of"]

TOURNAMENT_FORMAT = "skatsim-tournament/1"

#: Column order of a tournament game row.
GAME_COLUMNS: tuple[str, ...] = (("deal_id", "arrangement", "agent_0", "agent_1", "agent_2") + RESULT_COLUMNS
                                 + ("auction", "time_0", "time_1", "time_2", "error", "error_seats", "traceback"))

_LETTERS = "ABC"


def arrangements(n_agents: int, one_seat: bool = False) -> list[tuple[int, int, int]]:
    """Seat arrangements of a board: agent index per seat. ``one_seat`` (two agents only): the
    three in which the first agent holds one seat and the second the two others (``ABB BAB
    BBA``), the shape of a measurement against a field: A in one seat, the field B in the two
    others; another run of C against the same B on the same seed pairs with it seat by seat
    (``skatsim compare RUN_A RUN_C``).

    >>> ["".join("ABC"[i] for i in a) for a in arrangements(2)]
    ['AAB', 'ABA', 'BAA', 'ABB', 'BAB', 'BBA']
    >>> ["".join("ABC"[i] for i in a) for a in arrangements(3)]
    ['ABC', 'ACB', 'BAC', 'BCA', 'CAB', 'CBA']
    """
    if one_seat and n_agents != 2:
        raise ValueError(f"one_seat seats the first of two agents against the second; got {n_agents} agents")
    if n_agents == 3:
        return [tuple(p) for p in permutations(range(3))]  # type: ignore[misc]
    if n_agents == 2:
        alone = [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
        return alone if one_seat else [(0, 0, 1), (0, 1, 0), (1, 0, 0), *alone]
    raise ValueError(f"a tournament seats 2 or 3 agents, got {n_agents}")


def arrangement_text(arr: tuple[int, int, int]) -> str:
    return "".join(_LETTERS[i] for i in arr)


class RecordedAgent:
    """An agent object of a finished run, known by its recorded name only (it cannot play)."""

    engine_policy = staticmethod(lambda: None)

    def __init__(self, recorded: dict[str, Any]) -> None:
        self.recorded = dict(recorded)
        self.name = str(recorded["name"])

    def to_text(self) -> str:
        return self.name

    def to_dict(self) -> dict[str, Any]:
        return dict(self.recorded)

    def make(self) -> Any:
        raise ValueError(f"the agent object {self.name!r} is recorded by name only; pass it again to play")


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that determines a tournament's games (what a manifest writes down)."""

    agents: tuple[AgentSpec | AgentObject | RecordedAgent, ...]
    n_deals: int
    seed: int
    rules: SkatRules = ISKO
    time_limit: float | None = None
    one_seat: bool = False

    @property
    def compiled(self) -> bool:
        """Every agent has a compiled policy (plays inside the compiled step: no Python
        decision, so the chunks run on threads of one process)."""
        return all(s.engine_policy() is not None for s in self.agents)

    @property
    def engine(self) -> str:
        """Retired: ``"batch"`` when :attr:`compiled`, else ``"python"`` (every game is played by
        one engine; use :attr:`compiled`)."""
        warnings.warn("TournamentConfig.engine is retired (one engine plays every game): use .compiled",
                      DeprecationWarning, stacklevel=2)
        return "batch" if self.compiled else "python"

    @property
    def labels(self) -> tuple[str, ...]:
        """Agent labels: the spec text, ``#2``, ``#3`` appended to repeats."""
        out: list[str] = []
        texts = [s.to_text() for s in self.agents]
        for i, t in enumerate(texts):
            k = texts[:i].count(t)
            out.append(t if k == 0 else f"{t}#{k + 1}")
        return tuple(out)

    @property
    def arrangements(self) -> list[tuple[int, int, int]]:
        return arrangements(len(self.agents), self.one_seat)

    def to_dict(self) -> dict[str, Any]:
        d = {"format": TOURNAMENT_FORMAT, "agents": [s.to_dict() for s in self.agents],
             "labels": list(self.labels), "n_deals": self.n_deals, "seed": self.seed,
             "rules": self.rules.to_dict(), "rules_version": self.rules.version, "time_limit": self.time_limit}
        if self.one_seat:  # written only when set: the manifests of every earlier run stay as they were
            d["one_seat"] = True
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], objects: Sequence[Any] | None = None, *,
                  placeholders: bool = False) -> "TournamentConfig":
        """The configuration a manifest wrote down. Agents seated as objects (:class:`AgentObject`)
        are recorded by name only: give them again, in order, as ``objects`` (or, to read the
        results without playing, ``placeholders=True``)."""
        tl = d.get("time_limit")
        given = list(objects or [])
        agents: list[AgentSpec | AgentObject | RecordedAgent] = []
        for a in d["agents"]:
            if "object" not in a:
                agents.append(AgentSpec.from_dict(a))
                continue
            if not given and placeholders:
                agents.append(RecordedAgent(a))
                continue
            if not given:
                raise ValueError(f"this tournament seats the agent object {a['name']!r} ({a['object']}), which a run "
                                 "directory cannot rebuild: resume it from Python with the objects, "
                                 "resume_tournament(path, agents=[...])")
            obj = as_spec(given.pop(0))
            if not isinstance(obj, AgentObject) or obj.name != a["name"]:
                raise ValueError(f"the run seats the agent object {a['name']!r}; got {obj!r} in its place")
            agents.append(obj)
        return cls(tuple(agents), int(d["n_deals"]), int(d["seed"]), SkatRules.from_dict(d["rules"]),
                   None if tl is None else float(tl), bool(d.get("one_seat", False)))

    def differences(self, other: "TournamentConfig") -> list[str]:
        """What differs from ``other``, as ``"key: this vs other"`` lines (empty: the same games)."""
        a, b = self.to_dict(), other.to_dict()
        a["one_seat"], b["one_seat"] = self.one_seat, other.one_seat
        out = []
        for k in ("agents", "n_deals", "seed", "rules", "time_limit", "one_seat"):
            if a.get(k) != b.get(k):
                fa = ", ".join(s.to_text() for s in self.agents) if k == "agents" else a.get(k)
                fb = ", ".join(s.to_text() for s in other.agents) if k == "agents" else b.get(k)
                out.append(f"{k}: {fa} vs {fb}")
        return out


def make_config(agents: Sequence[SpecLike], n_deals: int, seed: SeedLike = 0, *, rules: SkatRules = ISKO,
                time_limit: float | None = DEFAULT_TIME_LIMIT, one_seat: bool = False) -> TournamentConfig:
    """Validate the arguments of :func:`run_tournament` into a :class:`TournamentConfig`
    (``time_limit``: :func:`time_limit_of`; ``one_seat``: :func:`arrangements`)."""
    if isinstance(agents, (str, AgentSpec, AgentObject)) or len(agents) not in (2, 3):
        raise ValueError(f"a tournament seats 2 or 3 agents, got {agents!r}")
    if not isinstance(one_seat, bool):
        raise TypeError(f"one_seat must be True or False, got {one_seat!r}")
    if one_seat and len(agents) != 2:
        raise ValueError(f"one_seat seats the first of two agents against the second (the field) in the two "
                         f"other seats; got {len(agents)} agents")
    specs = tuple(as_spec(a) for a in agents)
    n_deals = check_deal_count(n_deals)
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    return TournamentConfig(specs, n_deals, check_run_seed(seed), rules, time_limit_of(time_limit), one_seat)


def retired_engine(engine: str | None, parallel: str | None) -> str | None:
    """``parallel`` for a call that still passes the retired ``engine`` ("auto", "batch",
    "python"): a :class:`DeprecationWarning`, and "batch" / "python" read as "threads" /
    "processes" (how they spread the chunks)."""
    if engine is None:
        return parallel
    old = {"auto": None, "batch": "threads", "python": "processes"}
    if engine not in old:
        raise ValueError(f"engine is retired (one engine plays every game): use parallel='threads' or "
                         f"'processes' (or leave it out); got engine={engine!r}")
    warnings.warn(f"engine={engine!r} is retired (one engine plays every game): use parallel="
                  f"{old[engine]!r}", DeprecationWarning, stacklevel=3)
    return parallel if parallel is not None else old[engine]
