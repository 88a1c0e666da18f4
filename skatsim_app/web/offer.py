"""The agents a browser may seat: the registry's, and the server operator's, by name only.

A request names an opponent; it never carries code. :class:`AgentOffer` is the list the
server makes at start-up and the only way from a request to an agent:

- every agent of the registry (:func:`agents.list_agents`: the built-in ones and those
  installed packages register), by its name;
- the agents the operator adds on the command line (``skatsim serve --agent
  NAME=SPEC``, SPEC any agent spec, ``module:Class:key=value`` included) and the
  ``--opponents`` a new table starts with: resolved (imported) once, at start-up.

A request may add parameters to a registry agent, ``"pimc:worlds=64"`` (or
``{"name": "pimc", "params": {"worlds": 64}}``), but only those :func:`browser_params`
allows: a bool, a number the agent range-checks, or a text the agent restricts to a list
of choices. Never a free text, so never a path (the checkpoint ``model`` of ``dmc`` and
``neural_bidder`` is the operator's to choose), and not :data:`OPERATOR_ONLY`'s memory
knobs. An operator's agent takes no parameters from a request. Nothing a request sends is
imported, called or opened: a name is looked up in a dict, a value compared with ranges
and choices.

>>> offer = AgentOffer({"strong": "pimc:worlds=64"})
>>> offer.resolve("strong").spec, offer.resolve("pimc:worlds=8").label
(AgentSpec('pimc:worlds=64'), 'pimc:worlds=8')
>>> offer.resolve("os:system:command=touch /tmp/x")
Traceback (most recent call last):
...
ValueError: unknown agent 'os': the agents offered are compose, distilled, dmc, ..., strong
>>> offer.resolve("dmc:model=/etc/passwd")
Traceback (most recent call last):
...
ValueError: agent 'dmc' takes no parameter 'model' from the browser (GET /api/config lists those it takes)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from agents import AgentSpec, agent_info, list_agents

__all__ = ["AgentOffer", "Opponent", "OPERATOR_ONLY", "browser_params", "excerpt", "clip"]

#: Parameters a request may never set even where they are range-checked: they size the
#: server's memory (the solver's table, a record per decision), so they stay the operator's.
OPERATOR_ONLY = frozenset({"tt_bits", "log"})

_NAME = re.compile(r"[A-Za-z0-9_]{1,64}\Z")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")


def clip(text: str, n: int) -> str:
    """``text`` cut to at most ``n`` characters (an ellipsis marks the cut).

    >>> clip("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= n else text[:n - 1] + "…"


def excerpt(value: Any, n: int = 40) -> str:
    """``repr(value)`` cut to about ``n`` characters (what an error message may echo).

    >>> excerpt("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (100 characters)"
    """
    text = repr(value)
    if len(text) <= n:
        return text
    return clip(text, n) + (f" ({len(value)} characters)" if isinstance(value, (str, bytes)) else "")


@dataclass(frozen=True)
class Opponent:
    """An agent a table seats: ``label`` (what the page shows and sends back) and the
    :class:`~agents.AgentSpec` the server makes it from."""

    label: str
    spec: AgentSpec

    def make(self) -> Any:
        return self.spec.make()

    def to_text(self) -> str:
        return self.label


def browser_params(name: str) -> dict[str, dict[str, Any]]:
    """The parameters of registry agent ``name`` a request may set, each with its
    ``default``, ``doc`` and ``kind`` (``"bool"``, ``"number"`` or ``"choice"`` with its
    ``choices``)."""
    info = agent_info(name)
    checks, docs = info.checks, info.params_doc
    out: dict[str, dict[str, Any]] = {}
    for k, default in info.defaults.items():
        if k in OPERATOR_ONLY:
            continue
        check = checks.get(k)
        choices = getattr(check, "choices", None)
        entry: dict[str, Any] = {"default": default, "doc": docs.get(k, "")}
        if choices is not None:
            entry.update(kind="choice", choices=list(choices))
        elif isinstance(default, bool):
            entry["kind"] = "bool"
        elif check is not None and (default is None or isinstance(default, (int, float))):
            entry["kind"] = "number"
        else:  # free text (a path) or an unchecked value: the operator's only
            continue
        out[k] = entry
    return out


def _value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    if _NUMBER.match(t):
        return float(t) if any(ch in t for ch in ".eE") else int(t)
    return t


class AgentOffer:
    """The agents offered to the browser (see the module docstring). ``extra``: the
    operator's ``NAME -> SPEC`` (``--agent``); ``defaults``: the operator's default
    opponents (offered under their spec text where that is not a plain registry name)."""

    def __init__(self, extra: Mapping[str, Any] | None = None, defaults: Sequence[Any] = ()) -> None:
        self.registry = {n: i["doc"] for n, i in list_agents().items()}
        self.operator: dict[str, Opponent] = {}
        for name, spec in (extra or {}).items():
            if not isinstance(name, str) or not _NAME.match(name):
                raise ValueError(f"--agent NAME=SPEC: the name must be letters, digits and _, got {name!r}")
            if name in self.registry:
                raise ValueError(f"--agent {name}=...: {name!r} is a registry agent already; choose another name")
            self.operator[name] = Opponent(name, AgentSpec.coerce(spec))
        self.defaults = [self._default(d) for d in defaults]

    def _default(self, spec: Any) -> Opponent:
        if isinstance(spec, Opponent):
            return spec
        if isinstance(spec, str) and spec in self.operator:
            return self.operator[spec]
        s = AgentSpec.coerce(spec)
        text = s.to_text()
        if text in self.operator:
            return self.operator[text]
        if s.name in self.registry:
            return self.resolve(text)  # a registry agent, its parameters checked as a request's
        self.operator.setdefault(text, Opponent(text, s))
        return self.operator[text]

    def names(self) -> list[str]:
        return sorted(self.registry) + sorted(n for n in self.operator if n not in self.registry)

    def info(self) -> dict[str, dict[str, Any]]:
        """What the page lists: name -> ``doc``, ``operator`` and the settable ``params``."""
        out: dict[str, dict[str, Any]] = {}
        for n in sorted(self.registry):
            out[n] = {"doc": self.registry[n], "operator": False, "params": browser_params(n)}
        for n, o in sorted(self.operator.items()):
            doc = agent_info(o.spec.name).doc if not o.spec.params else ""
            out[n] = {"doc": f"added by the server's operator ({o.spec.name})" + (f": {doc}" if doc else ""),
                      "operator": True, "params": {}}
        return out

    def resolve(self, value: Any) -> Opponent:
        """The opponent a request names: ``"name"``, ``"name:key=value,..."`` or ``{"name":
        ..., "params": {...}}``. ``ValueError`` (a short message) for anything else."""
        if isinstance(value, Mapping):
            if set(value) - {"name", "params"} or not isinstance(value.get("name"), str) \
                    or not isinstance(value.get("params", {}), Mapping):
                raise ValueError("an opponent object is {\"name\": ..., \"params\": {...}}")
            name, params = value["name"], dict(value.get("params") or {})
        elif isinstance(value, str):
            if len(value) > 400:
                raise ValueError(f"opponent {excerpt(value)} is too long")
            if value in self.operator:
                return self.operator[value]
            name, _, rest = value.strip().partition(":")
            params = {}
            for item in filter(None, (x.strip() for x in rest.split(","))) if rest else ():
                k, eq, v = item.partition("=")
                if not eq or not k.strip():
                    raise ValueError(f"malformed agent parameter {excerpt(item)}: write key=value")
                if k.strip() in params:
                    raise ValueError(f"parameter {excerpt(k.strip())} is given twice")
                params[k.strip()] = _value(v)
        else:
            raise ValueError(f"an opponent is a name such as \"rule_based\", got {excerpt(value)}")
        if name in self.operator:
            if params:
                raise ValueError(f"agent {name!r} was set up by the server's operator and takes no parameters")
            return self.operator[name]
        if name not in self.registry:
            raise ValueError(f"unknown agent {excerpt(name)}: the agents offered are {', '.join(self.names())}")
        allowed = browser_params(name)
        for k, v in params.items():
            if k not in allowed:
                raise ValueError(f"agent {name!r} takes no parameter {excerpt(k)} from the browser ("
                                 + ("GET /api/config lists those it takes)" if allowed else "it takes none)"))
            kind = allowed[k]["kind"]
            if kind == "bool" and not isinstance(v, bool):
                raise ValueError(f"parameter {k!r} of {name!r} is true or false, got {excerpt(v)}")
            if kind == "number" and (isinstance(v, bool) or not (v is None or isinstance(v, (int, float)))
                                     or (isinstance(v, float) and not math.isfinite(v))):
                raise ValueError(f"parameter {k!r} of {name!r} is a finite number, got {excerpt(v)}")
            if kind == "choice" and (isinstance(v, bool) or v not in allowed[k]["choices"]):
                raise ValueError(f"parameter {k!r} of {name!r} is one of "
                                 f"{', '.join(map(str, allowed[k]['choices']))}, got {excerpt(v)}")
        try:
            spec = AgentSpec(name, params)  # the registry's own coercion and range checks
        except (ValueError, TypeError) as e:
            raise ValueError(clip(str(e), 200)) from None
        return Opponent(spec.to_text(), spec)
