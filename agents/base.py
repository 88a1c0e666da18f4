"""The agent protocol, the registry of named agents, and :class:`AgentSpec`.

An agent is any object with a ``name`` and ``act(obs) -> int``; ``obs`` is what
``SkatState.observation(seat)`` returns (an :class:`skatsim.observation.Observation`,
carrying the seat's masked state vector ``obs.view`` and ``obs.legal_actions``). Two
hooks are optional:

- ``reset(deal_id, seat, rng)`` before each deal: ``rng`` is the seat's SplitMix64 stream
  ``skatsim.bits.seat_stream(deal_seed, seat)`` (keyed on deal and seat, never on who sits
  there: common random numbers in duplicate play);
- ``observe(seat, action)`` after every action at the table (the declarer's discards
  are shown to the other seats as ``-1``);
- ``act_batch(observations, legal_masks) -> actions``: decide for many games at once
  (a batch agent, e.g. a torch network). ``observations`` is ``float32 (k, OBS_SIZE)``
  (the observation tensors of the seats to move, :data:`skatsim.observation.OBS_LAYOUT`),
  ``legal_masks`` ``bool (k, NUM_ACTIONS)``; it returns ``k`` action ids. An entry ``-1``
  hands that decision to a per-seat instance of the agent through ``act(obs)`` (with the
  usual ``reset`` / ``observe`` hooks), e.g. for phases it does not batch. The vectorised
  driver (:func:`agents.vecplay.play_boards`) calls it once per step for every game in
  which the agent is to move; the batch instance gets no ``reset`` or ``observe`` calls,
  so what it decides must follow from the tensor alone. ``act_batch`` must choose what
  ``act`` would on the same observation (the table uses ``act``).

No agent ever receives a :class:`~skatsim.SkatState` or a hidden card. Agents must be
deterministic given the ``reset`` stream, and copyable with :func:`copy.deepcopy` (the
shared test :func:`agents.testing.agent_api_test` copies an agent to ask it about
resampled worlds).

Agents are made by name: ``make_agent("rule_based", max_bid=18)``; what a tournament,
the CLI or an experiment config writes down is an :class:`AgentSpec` (name + parameters),
with the text form ``"rule_based:max_bid=18,other=1.5"``.

>>> spec = AgentSpec.parse("random")
>>> spec, spec.to_text(), spec.engine_policy()
(AgentSpec('random'), 'random', 'random')
>>> make_agent("random").name
'random'
>>> AgentSpec.parse("random:foo=1")
Traceback (most recent call last):
...
ValueError: agent 'random' has no parameter 'foo'; it takes no parameters
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, runtime_checkable

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["Agent", "AgentSpec", "AgentInfo", "register", "unregister", "make_agent", "list_agents", "agent_info",
           "SpecLike", "DUPLICATE_LOSS_PENALTY"]

from skatsim.scoring import SF_DEFENDER_3

#: What a lost game costs the declarer's agent per defender, in relative Seeger-Fabian
#: points, in a two-agent duplicate tournament: over the six seat arrangements his two
#: opponents are on average one of his own agent and one of the other, so the defenders'
#: 2 x 40 cost his agent 40 against the other agent, 20 per defender. Bidders that value a
#: game as ``p (V + 50) - (1 - p) (2 V + 50 + 2 x penalty)`` use it.
DUPLICATE_LOSS_PENALTY = SF_DEFENDER_3 / 2


@runtime_checkable
class Agent(Protocol):
    """What the table needs from a player: a ``name`` and ``act``.

    Optional hooks (looked up with ``getattr``): ``reset(deal_id: int, seat: int, rng: int)``,
    ``observe(seat: int, action: int)`` and ``act_batch(observations, legal_masks) -> actions``
    (batched decisions, ``-1`` to defer one to ``act``); see the module docstring.
    """

    name: str

    def act(self, obs: "Observation") -> int:
        """A legal action id (one of ``obs.legal_actions``) for the seat to move."""
        ...


# ----------------------------------------------------------------------------- registry


@dataclass
class AgentInfo:
    """A registry entry: how to make the agent, its parameters and their defaults.

    ``engine`` names the batch engine's built-in policy that plays exactly like the agent
    (``simulate(n, policy=(engine, params))``), or ``None`` when the agent only runs through
    the Python protocol.
    """

    name: str
    factory: Callable[..., Any] | str
    doc: str = ""
    engine: str | None = None
    _defaults: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = field(default=None, repr=False)
    _params_doc: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = field(default=None, repr=False)

    @property
    def params_doc(self) -> dict[str, str]:
        """Parameter name -> one line of documentation (may be empty)."""
        d = self._params_doc
        if callable(d):
            d = self._params_doc = dict(d())
        return dict(d or {})

    def make(self, **params: Any) -> Any:
        f = self.factory
        if isinstance(f, str):  # "module:attr", imported on first use
            mod, _, attr = f.partition(":")
            f = self.factory = getattr(importlib.import_module(mod), attr)
        return f(**params)

    @property
    def defaults(self) -> dict[str, Any]:
        """Parameter name -> default value (in the factory's order)."""
        d = self._defaults
        if callable(d):
            d = self._defaults = dict(d())
        if d is None:
            f = self.factory
            if isinstance(f, str):
                mod, _, attr = f.partition(":")
                f = self.factory = getattr(importlib.import_module(mod), attr)
            d = {}
            for p in inspect.signature(f).parameters.values():
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                    d[p.name] = None if p.default is p.empty else p.default
            self._defaults = d
        return dict(d)

    def check_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Validate parameter names and coerce values to the defaults' types."""
        defaults = self.defaults
        out: dict[str, Any] = {}
        for k, v in params.items():
            if k not in defaults:
                known = ", ".join(defaults) if defaults else None
                raise ValueError(f"agent {self.name!r} has no parameter {k!r}; "
                                 + (f"parameters: {known}" if known else "it takes no parameters"))
            out[k] = _coerce(self.name, k, v, defaults[k])
        return out


_REGISTRY: dict[str, AgentInfo] = {}


def register(name: str, factory: Callable[..., Any] | str,
             params_doc: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = None, *,
             defaults: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
             engine: str | None = None, doc: str = "", replace: bool = False) -> AgentInfo:
    """Register an agent under ``name``.

    Args:
        name: registry name (letters, digits, ``_``; what specs and the CLI write).
        factory: a callable ``factory(**params) -> agent``, or ``"module:attr"`` (imported
            on first use, so registering costs nothing).
        params_doc: one line of documentation per parameter (or a zero-argument callable
            giving them, evaluated on first use).
        defaults: parameter name -> default (a mapping or a zero-argument callable giving
            one); default: the factory's keyword parameters.
        engine: the batch-engine policy name playing exactly like this agent, if any.
        doc: one line describing the agent.
        replace: allow replacing an existing entry.
    """
    if not isinstance(name, str) or not name or not all(c.isalnum() or c == "_" for c in name):
        raise ValueError(f"agent name must be a non-empty identifier-like string, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"agent {name!r} is already registered (pass replace=True to replace it)")
    info = AgentInfo(name, factory, doc, engine, defaults, params_doc)
    _REGISTRY[name] = info
    return info


def unregister(name: str) -> None:
    """Remove ``name`` from the registry (tests that register a temporary agent)."""
    if name not in _REGISTRY:
        raise ValueError(f"agent {name!r} is not registered")
    del _REGISTRY[name]


def agent_info(name: str) -> AgentInfo:
    """The registry entry of ``name`` (``ValueError`` naming the known agents otherwise)."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown agent {name!r}; registered agents: {', '.join(sorted(_REGISTRY))}") from None


def list_agents() -> dict[str, dict[str, Any]]:
    """Registered agents: name -> ``{"doc", "params" (name -> default), "params_doc", "engine"}``.

    >>> list_agents()["random"]["params"]
    {}
    """
    return {n: {"doc": i.doc, "params": i.defaults, "params_doc": i.params_doc, "engine": i.engine}
            for n, i in sorted(_REGISTRY.items())}


def make_agent(spec: "SpecLike", **params: Any) -> Any:
    """A new agent from a registry name (``"rule_based"``), spec text
    (``"rule_based:max_bid=18"``) or :class:`AgentSpec`, with ``params`` on top."""
    s = AgentSpec.coerce(spec)
    if params:
        s = AgentSpec(s.name, {**s.param_dict, **params})
    return agent_info(s.name).make(**s.param_dict)


# ----------------------------------------------------------------------------- spec


def _coerce(agent: str, key: str, value: Any, default: Any) -> Any:
    if isinstance(value, str):
        value = _parse_value(value)
    if default is None or value is None:
        return value
    if isinstance(default, bool):
        if isinstance(value, bool) or value in (0, 1):
            return bool(value)
    elif isinstance(default, int):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer():
            return int(value)
    elif isinstance(default, float):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif isinstance(default, str):
        return str(value)
    else:
        return value
    raise ValueError(f"parameter {key!r} of agent {agent!r} takes a {type(default).__name__} "
                     f"(default {default!r}), got {value!r}")


def _parse_value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    return t


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer() and math.isfinite(v):
        return str(int(v)) if abs(v) < 1e15 else repr(v)
    return str(v)


class AgentSpec:
    """An agent by registry name and parameters: hashable, comparable, serialisable.

    Exactly the parameters given are stored (validated against the registry entry and
    coerced to the defaults' types), sorted by name; defaults are not filled in, so
    ``"rule_based"`` and ``"rule_based:max_bid=18"`` stay distinct as written.

    >>> s = AgentSpec("random")
    >>> AgentSpec.parse(s.to_text()) == s, AgentSpec.from_dict(s.to_dict()) == s
    (True, True)
    """

    __slots__ = ("name", "params")

    def __init__(self, name: str, params: Mapping[str, Any] | None = None) -> None:
        info = agent_info(name)
        checked = info.check_params(dict(params or {}))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "params", tuple(sorted(checked.items())))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("AgentSpec is immutable")

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @classmethod
    def parse(cls, text: str) -> "AgentSpec":
        """``"name"`` or ``"name:key=value,key=value"`` (values: int, float, true/false, text)."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"agent spec must be a non-empty string like 'rule_based:max_bid=18', got {text!r}")
        name, sep, rest = text.strip().partition(":")
        params: dict[str, Any] = {}
        if sep:
            for item in rest.split(","):
                k, eq, v = item.partition("=")
                if not eq or not k.strip():
                    raise ValueError(f"malformed agent parameter {item!r} in {text!r}; write key=value")
                params[k.strip()] = _parse_value(v)
        return cls(name.strip(), params)

    @classmethod
    def coerce(cls, spec: "SpecLike") -> "AgentSpec":
        if isinstance(spec, AgentSpec):
            return spec
        if isinstance(spec, str):
            return cls.parse(spec)
        if isinstance(spec, Mapping):
            return cls.from_dict(spec)
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
            return cls(spec[0], spec[1])
        raise TypeError(f"an agent spec is a name, 'name:key=value' text, an AgentSpec, a dict or a "
                        f"(name, params) pair; got {spec!r}")

    def to_text(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_fmt_value(v)}" for k, v in self.params)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "AgentSpec":
        unknown = set(d) - {"name", "params"}
        if unknown or "name" not in d:
            raise ValueError(f"an agent spec dict has keys 'name' and 'params', got {sorted(d)}")
        return cls(d["name"], d.get("params") or {})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def make(self) -> Any:
        return agent_info(self.name).make(**self.param_dict)

    def engine_policy(self) -> str | tuple[str, dict[str, Any]] | None:
        """The ``simulate(policy=...)`` entry playing like this agent (``None``: Python only)."""
        eng = agent_info(self.name).engine
        if eng is None:
            return None
        return (eng, {k: v for k, v in self.params}) if self.params else eng

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentSpec) and (self.name, self.params) == (other.name, other.params)

    def __hash__(self) -> int:
        return hash((self.name, self.params))

    def __repr__(self) -> str:
        return f"AgentSpec({self.to_text()!r})"

    def __str__(self) -> str:
        return self.to_text()

    def __reduce__(self):  # pickles by value (process pools)
        return (AgentSpec, (self.name, dict(self.params)))


SpecLike = "AgentSpec | str | Mapping[str, Any] | tuple[str, Mapping[str, Any]]"
