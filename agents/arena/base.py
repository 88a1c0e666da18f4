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
- ``action_values(obs) -> ActionValues | None``: what the agent thinks each legal action
  is worth, from the seat's own information (:class:`ActionValues`: values, their unit and
  the action it would choose); used for hints, analysis boards and distillation labels.
  It must not change what ``act`` does next (no stream is advanced);
- ``act_batch(observations, legal_masks) -> actions``: decide for many games at once
  (a batch agent, e.g. a torch network). ``observations`` is ``float32 (k, OBS_SIZE)``
  (the observation tensors of the seats to move, :data:`skatsim.observation.OBS_LAYOUT`),
  ``legal_masks`` ``bool (k, NUM_ACTIONS)``; it returns ``k`` action ids. An entry ``-1``
  hands that decision to a per-seat instance of the agent through ``act(obs)`` (with the
  usual ``reset`` / ``observe`` hooks), e.g. for phases it does not batch. The vectorised
  driver (:func:`agents.arena.vecplay.play_boards`) calls it once per step for every game in
  which the agent is to move; the batch instance gets no ``reset`` or ``observe`` calls,
  so what it decides must follow from the tensor alone. ``act_batch`` must choose what
  ``act`` would on the same observation (the table uses ``act``).

No agent ever receives a :class:`~skatsim.SkatState` or a hidden card. Agents must be
deterministic given the ``reset`` stream, and copyable with :func:`copy.deepcopy` (the
shared test :func:`agents.arena.testing.agent_api_test` copies an agent to ask it about
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
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, TypeAlias, runtime_checkable

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["Agent", "ActionValues", "AgentSpec", "AgentInfo", "register", "unregister", "make_agent", "list_agents",
           "agent_info",
           "SpecLike", "DUPLICATE_LOSS_PENALTY", "AgentObject", "as_spec", "in_range", "one_of", "is_import_path",
           "ENTRY_POINT_GROUP", "AgentMakeError"]

from skatsim.valuation import SF_DEFENDER_3

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


@dataclass(frozen=True)
class ActionValues:
    """What an agent thinks each legal action is worth (its optional ``action_values(obs)``).

    ``values`` maps action ids to numbers, higher is better for the seat to move, in
    ``unit`` (``"win probability"``, ``"card points"``, ``"SF points"``, ...); ``chosen`` is
    the action the agent would play (``None``: not decided by these values alone);
    ``detail`` holds extras by name (``{"worlds": 32}``, a second value per action ...).

    >>> v = ActionValues({0: 0.25, 7: 0.75}, "win probability", chosen=7)
    >>> v.best(), v.ranked()
    (7, [7, 0])
    """

    values: Mapping[int, float]
    unit: str
    chosen: int | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def best(self) -> int:
        """The action with the highest value (the lowest id on a tie)."""
        return min(self.values, key=lambda a: (-self.values[a], a))

    def ranked(self) -> list[int]:
        """The actions from best to worst."""
        return sorted(self.values, key=lambda a: (-self.values[a], a))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (action ids as ints, detail as given)."""
        return {"values": {int(a): float(v) for a, v in self.values.items()}, "unit": self.unit,
                "chosen": None if self.chosen is None else int(self.chosen), "detail": dict(self.detail)}


# ----------------------------------------------------------------------------- registry


class AgentMakeError(ValueError):
    """An agent could not be made: its class or factory raised (the message names the agent
    and the error; the original is the ``__cause__``) or returned no agent."""


@dataclass
class AgentInfo:
    """A registry entry: how to make the agent, its parameters and their defaults.

    ``engine`` names batch simulation's built-in policy that plays exactly like the agent
    (``simulate(n, policy=(engine, params))``), or ``None`` when the agent only runs through
    the Python protocol.
    """

    name: str
    factory: Callable[..., Any] | str
    doc: str = ""
    engine: str | None = None
    _defaults: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = field(default=None, repr=False)
    _params_doc: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = field(default=None, repr=False)
    _checks: Mapping[str, Callable[[Any], str | None]] | Callable[[], Mapping[str, Callable[[Any], str | None]]] \
        | None = field(default=None, repr=False)

    @property
    def checks(self) -> dict[str, Callable[[Any], str | None]]:
        """Parameter name -> a check returning ``None`` (fine) or what is wrong (a range ...)."""
        c = self._checks
        if callable(c):
            c = self._checks = dict(c())
        return dict(c or {})

    @property
    def params_doc(self) -> dict[str, str]:
        """Parameter name -> one line of documentation (may be empty)."""
        d = self._params_doc
        if callable(d):
            d = self._params_doc = dict(d())
        return dict(d or {})

    def make(self, **params: Any) -> Any:
        """A new agent; an error of the class or factory is an :class:`AgentMakeError`
        naming the agent, and so is a factory that returns no agent (no ``act``)."""
        f = self.factory
        if isinstance(f, str):  # "module:attr", imported on first use
            mod, _, attr = f.partition(":")
            f = self.factory = getattr(importlib.import_module(mod), attr)
        try:
            agent = f(**params)
        except AgentMakeError:
            raise
        except Exception as e:
            raise AgentMakeError(f"agent {self.name!r} could not be made: {type(e).__name__}: {e}") from e
        if not callable(getattr(agent, "act", None)):
            raise AgentMakeError(f"agent {self.name!r}: {getattr(f, '__qualname__', f)!r} returned {agent!r}, "
                                 "which has no act(observation) method")
        return agent

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
        """Validate parameter names, coerce values to the defaults' types and check their
        ranges (no NaN anywhere; the registered checks, e.g. a probability in [0, 1])."""
        defaults = self.defaults
        checks = self.checks
        out: dict[str, Any] = {}
        for k, v in params.items():
            if k not in defaults:
                known = ", ".join(defaults) if defaults else None
                raise ValueError(f"agent {self.name!r} has no parameter {k!r}; "
                                 + (f"parameters: {known}" if known else "it takes no parameters"))
            x = _coerce(self.name, k, v, defaults[k])
            if isinstance(x, float) and math.isnan(x):
                raise ValueError(f"parameter {k!r} of agent {self.name!r} is NaN; give a number")
            why = checks[k](x) if k in checks else None
            if why:
                raise ValueError(f"parameter {k!r} of agent {self.name!r} must be {why}, got {x!r}")
            out[k] = x
        return out


_REGISTRY: dict[str, AgentInfo] = {}


def register(name: str, factory: Callable[..., Any] | str,
             params_doc: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = None, *,
             defaults: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
             engine: str | None = None, doc: str = "", replace: bool = False,
             checks: Mapping[str, Callable[[Any], str | None]]
             | Callable[[], Mapping[str, Callable[[Any], str | None]]] | None = None) -> AgentInfo:
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
        checks: parameter name -> a function returning ``None`` for a good value or what it
            must be (``"a probability in [0, 1]"``); see :func:`in_range`, :func:`one_of`
            (or a zero-argument callable giving them, evaluated on first use).
    """
    if not _is_name(name):
        raise ValueError(f"agent name must be a non-empty identifier-like string, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"agent {name!r} is already registered (pass replace=True to replace it)")
    info = AgentInfo(name, factory, doc, engine, defaults, params_doc, checks)
    _REGISTRY[name] = info
    return info


def in_range(lo: float, hi: float, what: str = "") -> Callable[[Any], str | None]:
    """A parameter check: ``lo <= value <= hi`` (``what`` names it, e.g. "a probability").

    >>> in_range(0, 1, "a probability")(1.5)
    'a probability in [0, 1]'
    """
    def check(v: Any) -> str | None:
        return None if lo <= v <= hi else f"{what + ' ' if what else ''}in [{lo:g}, {hi:g}]"

    return check


def one_of(*values: Any) -> Callable[[Any], str | None]:
    """A parameter check: the value is one of ``values`` (kept as ``check.choices``, so a
    front end can offer them).

    >>> one_of(0, 1)(2), one_of(0, 1).choices
    ('one of 0, 1', (0, 1))
    """
    def check(v: Any) -> str | None:
        return None if v in values else "one of " + ", ".join(map(str, values))

    check.choices = values  # type: ignore[attr-defined]
    return check


def unregister(name: str) -> None:
    """Remove ``name`` from the registry (tests that register a temporary agent)."""
    if name not in _REGISTRY:
        raise ValueError(f"agent {name!r} is not registered")
    del _REGISTRY[name]


#: The entry-point group through which installed packages add agents to the registry:
#: ``[project.entry-points."skatsim.agents"] greedy = "mypkg.agents:Greedy"``.
ENTRY_POINT_GROUP = "skatsim.agents"
_ENTRY_POINTS_LOADED = False


def _load_entry_points() -> None:
    """Register the agents of installed packages (once; a broken entry is skipped)."""
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return
    _ENTRY_POINTS_LOADED = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in _REGISTRY and _is_name(ep.name):
            register(ep.name, ep.value, doc=f"from the package entry point {ep.value}")


def _is_name(name: Any) -> bool:
    return isinstance(name, str) and bool(name) and all(c.isalnum() or c == "_" for c in name)


def is_import_path(name: str) -> bool:
    """``name`` is ``module:attr`` (an agent class or factory to import), not a registry name.

    >>> is_import_path("mypkg.agents:Greedy"), is_import_path("rule_based")
    (True, False)
    """
    mod, sep, attr = name.partition(":")
    return bool(sep) and bool(mod) and bool(attr) and all(p.isidentifier() for p in mod.split(".")) \
        and all(p.isidentifier() for p in attr.split("."))


def _import_info(path: str) -> AgentInfo:
    """A registry entry made on the fly for an importable ``module:attr`` factory."""
    mod, _, attr = path.partition(":")
    try:
        obj: Any = importlib.import_module(mod)
    except ImportError as e:
        raise ValueError(f"agent {path!r}: cannot import module {mod!r} ({e}); is it on the Python path "
                         "(PYTHONPATH, or pip install -e of its package)?") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent {path!r}: module {mod!r} has no attribute {attr!r}") from None
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"agent {path!r}: {attr!r} is not a class or factory (it is {type(obj).__name__})")
    if inspect.isclass(obj) and not callable(getattr(obj, "act", None)):
        raise ValueError(f"agent {path!r}: class {attr!r} has no act(observation) method (an agent has a name and "
                         "act(obs) returning one of obs.legal_actions)")
    doc = (inspect.getdoc(obj) or "").strip().splitlines()
    info = AgentInfo(path, obj, doc[0] if doc else f"imported from {path}")
    _REGISTRY[path] = info
    return info


def agent_info(name: str) -> AgentInfo:
    """The registry entry of ``name``: a registered name, one an installed package adds
    through the :data:`ENTRY_POINT_GROUP` entry points, or an importable ``module:attr``
    class or factory (``ValueError`` naming the known agents otherwise)."""
    if isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name]
    if isinstance(name, str) and is_import_path(name):
        return _import_info(name)
    _load_entry_points()
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(n for n in _REGISTRY if not is_import_path(n)))
        raise ValueError(f"unknown agent {name!r}; registered agents: {known} (or give module:Class of your "
                         "own agent)") from None


def list_agents() -> dict[str, dict[str, Any]]:
    """Registered agents: name -> ``{"doc", "params" (name -> default), "params_doc", "engine"}``.

    >>> list_agents()["random"]["params"]
    {}
    """
    _load_entry_points()
    return {n: {"doc": i.doc, "params": i.defaults, "params_doc": i.params_doc, "engine": i.engine}
            for n, i in sorted(_REGISTRY.items()) if not is_import_path(n)}


def make_agent(spec: "SpecLike", **params: Any) -> Any:
    """A new agent from a registry name (``"rule_based"``), spec text
    (``"rule_based:max_bid=18"``) or :class:`AgentSpec`, with ``params`` on top."""
    s = AgentSpec.coerce(spec)
    if params:
        s = AgentSpec(s.name, {**s.param_dict, **params})
    return agent_info(s.name).make(**s.param_dict)


# ----------------------------------------------------------------------------- spec


def _coerce(agent: str, key: str, value: Any, default: Any) -> Any:
    text = value.strip() if isinstance(value, str) else None
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
        return text if text is not None else str(value)  # "off" stays "off", not "False"
    else:
        return value
    raise ValueError(f"parameter {key!r} of agent {agent!r} takes a {type(default).__name__} "
                     f"(default {default!r}), got {value!r}")


def _parse_value(text: str, words: bool = True) -> Any:
    """A parameter's text as a value: a bool, None, an int, a float or the text. With
    ``words=False`` yes/no/on/off stay text (spec parsing: a string parameter such as
    ``schneider=off`` keeps them; a bool parameter reads them when it is coerced).

    >>> _parse_value("off"), _parse_value("off", words=False), _parse_value("False", words=False)
    (False, 'off', False)
    """
    t = text.strip()
    low = t.lower()
    if low in (("true", "yes", "on") if words else ("true",)):
        return True
    if low in (("false", "no", "off") if words else ("false",)):
        return False
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    return t


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses (a value may be a nested agent spec,
    ``card_play=pimc(worlds=16,rule=wins)``).

    >>> _split_top("a=1,b=pimc(worlds=2,rule=wins),c=x")
    ['a=1', 'b=pimc(worlds=2,rule=wins)', 'c=x']
    """
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


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
    name: str
    params: tuple[tuple[str, Any], ...]

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
        """``"name"``, ``"name:key=value,key=value"`` (values: int, float, true/false, text), or
        an agent of your own as ``"module:Class"`` / ``"module:Class:key=value,..."`` (a class
        or factory function importable from the Python path).

        >>> AgentSpec.parse("pimc:worlds=4,worlds=8")
        Traceback (most recent call last):
        ...
        ValueError: parameter 'worlds' is given twice in 'pimc:worlds=4,worlds=8'
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"agent spec must be a non-empty string like 'rule_based:max_bid=18', got {text!r}")
        t = text.strip()
        name, sep, rest = t.partition(":")
        head, sep2, tail = rest.partition(":")
        registered = name.strip() in _REGISTRY
        if not registered:
            _load_entry_points()
            registered = name.strip() in _REGISTRY
        if sep and head and "=" not in head and not registered and is_import_path(f"{name}:{head}"):  # module:Class
            name, sep, rest = f"{name}:{head}", sep2, tail
        params: dict[str, Any] = {}
        if sep:
            for item in _split_top(rest):
                k, eq, v = item.partition("=")
                if not eq or not k.strip():
                    raise ValueError(f"malformed agent parameter {item!r} in {text!r}; write key=value "
                                     "(an agent of your own: module:Class or module:Class:key=value)")
                if k.strip() in params:
                    raise ValueError(f"parameter {k.strip()!r} is given twice in {text!r}")
                params[k.strip()] = _parse_value(v, words=False)
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

    @classmethod
    def of_factory(cls, factory: Callable[..., Any]) -> "AgentSpec":
        """The spec of an agent class or factory function importable by its module and name
        (what a worker process or a manifest can make again): ``module:Qualname``."""
        path = f"{getattr(factory, '__module__', '')}:{getattr(factory, '__qualname__', '')}"
        if not is_import_path(path) or "<" in path:
            raise ValueError(f"{factory!r} cannot be named by an import path (a class or function defined at "
                             "module level is needed); register it with agents.register(name, factory)")
        if path.startswith("__main__:"):
            raise ValueError(f"{factory!r} is defined in the script being run (__main__); put it in a module so "
                             "worker processes can import it, or register it with agents.register")
        mod, _, attr = path.partition(":")
        obj: Any = importlib.import_module(mod)
        for part in attr.split("."):
            obj = getattr(obj, part, None)
        if obj is not factory:
            raise ValueError(f"{path} does not import back to {factory!r}")
        return cls(path)

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


class AgentObject:
    """An agent object seated as it is (``run_tournament([MyAgent(), "rule_based"])``): each
    game gets a fresh :func:`copy.deepcopy` of it (the protocol asks agents to be copyable),
    worker processes get a pickled copy. Its label is the agent's ``name``. A run directory
    records it by label and class only, so resuming such a run needs the object again.

    >>> from agents import RandomAgent
    >>> a = AgentObject(RandomAgent())
    >>> a.to_text(), type(a.make()).__name__, a.make() is not a.make()
    ('random', 'RandomAgent', True)
    """

    __slots__ = ("agent",)
    agent: Any

    def __init__(self, agent: Any) -> None:
        if not callable(getattr(agent, "act", None)):
            raise TypeError(f"{agent!r} is not an agent: it has no act(obs) method")
        object.__setattr__(self, "agent", agent)

    @property
    def name(self) -> str:
        return str(getattr(self.agent, "name", type(self.agent).__name__))

    params: tuple[tuple[str, Any], ...] = ()
    param_dict: dict[str, Any] = {}

    def make(self) -> Any:
        import copy

        return copy.deepcopy(self.agent)

    def to_text(self) -> str:
        return self.name

    def to_dict(self) -> dict[str, Any]:
        t = type(self.agent)
        return {"name": self.name, "params": {}, "object": f"{t.__module__}:{t.__qualname__}"}

    def engine_policy(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"AgentObject({self.agent!r})"


def as_spec(agent: Any) -> "AgentSpec | AgentObject":
    """What a tournament seats for ``agent``: a name, spec text, :class:`AgentSpec`, dict or
    ``(name, params)`` pair becomes an :class:`AgentSpec`; a class or factory function
    importable by name becomes the spec ``module:Name``; an agent object an
    :class:`AgentObject`."""
    if isinstance(agent, (AgentSpec, AgentObject)):
        return agent
    if isinstance(agent, (str, Mapping, tuple)):
        return AgentSpec.coerce(agent)
    if callable(getattr(agent, "act", None)) and not isinstance(agent, type):
        return AgentObject(agent)
    if callable(agent):
        return AgentSpec.of_factory(agent)
    raise TypeError(f"an agent is a registry name, a spec, an agent class or factory, or an agent object with "
                    f"act(obs); got {agent!r}")


#: What names an agent wherever one is asked for.
SpecLike: TypeAlias = "AgentSpec | str | Mapping[str, Any] | tuple[str, Mapping[str, Any]]"
