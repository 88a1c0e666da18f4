"""``ComposedAgent``: a player made of parts, one per kind of decision, written as data.

A Skat player takes seven kinds of decision; each part names the agent that takes it:

=================  ==========================================================
part               decisions
=================  ==========================================================
``bidding``        bids, holds and passes in the auction
``skat``           pick up the skat or play hand
``discard``        the two cards put away after a pickup
``declare``        the contract (with announcements)
``kontra``         Kontra / Re
``declarer_play``  card play as declarer
``defender_play``  card play as defender
``ramsch_play``    card play in Ramsch (when every seat passed and Ramsch is on)
=================  ==========================================================

Two shorthands set several parts at once: ``early`` (bidding, skat, discard, declare,
kontra) and ``card_play`` (declarer, defender and Ramsch play); a part named on its own
wins over its shorthand, and a part nobody names is the rule-based player's. Parts that
name the same agent share one instance (a bidder that valued the hand in the auction
reuses that evaluation at the skat and the declaration).

A part is an agent spec (a registry name, ``"name:key=value"``) or, in text specs, a
registry name with its parameters in parentheses, since commas separate the composed
player's own parameters::

    compose:early=neural_bidder,card_play=pimc(worlds=16,inference=true)

Every part sees the same observation a player of its seat sees, and gets ``reset`` and
``observe`` like a seated agent; ``action_values`` is the deciding part's.

>>> from agents import make_agent, play_game
>>> a = make_agent("compose:early=rule_based,card_play=random")
>>> a.parts["declarer_play"], a.parts["bidding"]
('random', 'rule_based')
>>> play_game([a, "rule_based", "rule_based"], seed=3).is_terminal()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from skatsim.rules import RAMSCH

if TYPE_CHECKING:
    from skatsim.observation import Observation

    from ..arena.base import ActionValues

__all__ = ["ComposedAgent", "expert", "learned", "PARTS", "GROUPS", "part_of", "nested_spec", "compose_docs",
           "compose_checks"]

#: The parts, in the order of a deal.
PARTS: tuple[str, ...] = ("bidding", "skat", "discard", "declare", "kontra", "declarer_play", "defender_play",
                          "ramsch_play")
#: Shorthands for several parts.
GROUPS: dict[str, tuple[str, ...]] = {"early": PARTS[:5], "card_play": PARTS[5:]}
_DEFAULT = "rule_based"
_PHASE_PART = {"bidding": "bidding", "skat": "skat", "discard": "discard", "declare": "declare",
               "kontra": "kontra"}


def part_of(obs: "Observation") -> str:
    """The part that takes the decision of ``obs`` (its phase, and in card play the seat's role).

    >>> from skatsim import SkatState
    >>> part_of(SkatState.new_game(seed=1).observation(1))
    'bidding'
    """
    if obs.phase in _PHASE_PART:
        return _PHASE_PART[obs.phase]
    if obs.game_type == RAMSCH or obs.declarer is None:
        return "ramsch_play"
    return "declarer_play" if obs.seat == obs.declarer else "defender_play"


def nested_spec(text: str) -> Any:
    """The :class:`agents.base.AgentSpec` of a part written as ``name``, ``name:key=value,...``
    or ``name(key=value,...)``.

    >>> nested_spec("pimc(worlds=16,rule=wins)").to_text()
    'pimc:rule=wins,worlds=16'
    """
    from ..arena.base import AgentSpec

    t = text.strip()
    if t.endswith(")") and "(" in t:
        name, _, inner = t[:-1].partition("(")
        return AgentSpec.parse(f"{name.strip()}:{inner}" if inner.strip() else name.strip())
    return AgentSpec.parse(t)


def _resolve(given: Mapping[str, Any]) -> dict[str, Any]:
    """Part -> what decides it (spec text or an agent object), from the parts and shorthands given."""
    unknown = sorted(set(given) - set(PARTS) - set(GROUPS))
    if unknown:
        raise ValueError(f"compose has no part {unknown[0]!r}; parts: {', '.join(PARTS)}; shorthands: "
                         f"{', '.join(GROUPS)}")
    out: dict[str, Any] = {}
    for part in PARTS:
        v = given.get(part)
        if v in (None, ""):
            for g, members in GROUPS.items():
                if part in members and given.get(g) not in (None, ""):
                    v = given[g]
        out[part] = _DEFAULT if v in (None, "") else v
    return out


class ComposedAgent:
    """A player whose decisions are taken by parts (see the module docstring).

    Args:
        early, card_play: shorthands (see :data:`GROUPS`).
        bidding, skat, discard, declare, kontra, declarer_play, defender_play, ramsch_play:
            the agent of each part: a spec (``"pimc:worlds=16"``, ``"pimc(worlds=16)"``) or an
            agent object.
    """

    name = "compose"

    def __init__(self, early: Any = None, card_play: Any = None, bidding: Any = None, skat: Any = None,
                 discard: Any = None, declare: Any = None, kontra: Any = None, declarer_play: Any = None,
                 defender_play: Any = None, ramsch_play: Any = None) -> None:
        given = {k: v for k, v in locals().items() if k in PARTS or k in GROUPS}
        chosen = _resolve(given)
        self._instances: dict[str, Any] = {}
        self.parts: dict[str, str] = {}
        self._by_part: dict[str, Any] = {}
        for part, v in chosen.items():
            if isinstance(v, str):
                spec = nested_spec(v)
                key = spec.to_text()
                if key not in self._instances:
                    self._instances[key] = spec.make()
            else:  # an agent object: shared by every part it is given for
                if not callable(getattr(v, "act", None)):
                    raise TypeError(f"part {part!r} of compose must be an agent spec or an agent with act(obs), "
                                    f"got {v!r}")
                key = f"{getattr(v, 'name', type(v).__name__)}@{id(v):x}"
                self._instances.setdefault(key, v)
            self.parts[part] = key
            self._by_part[part] = self._instances[key]

    def agent_for(self, part: str) -> Any:
        """The agent that takes ``part``'s decisions."""
        return self._by_part[part]

    # ------------------------------------------------------------------ protocol
    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        for a in self._instances.values():
            f = getattr(a, "reset", None)
            if f is not None:
                f(deal_id, seat, rng)

    def observe(self, seat: int, action: int) -> None:
        for a in self._instances.values():
            f = getattr(a, "observe", None)
            if f is not None:
                f(seat, action)

    def act(self, obs: "Observation") -> int:
        return int(self._by_part[part_of(obs)].act(obs))

    def action_values(self, obs: "Observation") -> "ActionValues | None":
        """The deciding part's :meth:`action_values` (``None`` when it has none)."""
        f = getattr(self._by_part[part_of(obs)], "action_values", None)
        return None if f is None else f(obs)

    def part_agent(self, part: str) -> Any:
        """The agent deciding ``part`` (one of :data:`PARTS`)."""
        return self._by_part[part]

    def card_play_key(self) -> tuple[str, str, str] | None:
        """The card-play parts' keys (declarer play, defender play, Ramsch play): two players
        with equal keys play the same cards from the same position. ``None`` when a part has
        no key (its play cannot be told equal to another's)."""
        out = []
        for i, part in enumerate(PARTS[5:]):
            f = getattr(self._by_part[part], "card_play_key", None)
            k = None if f is None else f()
            if k is None:
                return None
            out.append(k[i])
        return (out[0], out[1], out[2])

    def __repr__(self) -> str:
        groups: dict[str, list[str]] = {}
        for part, key in self.parts.items():
            groups.setdefault(key, []).append(part)
        return "ComposedAgent(" + ", ".join(f"{'+'.join(p)}={k}" for k, p in groups.items()) + ")"


#: PIMC's card-network inference in ``expert`` (measured on 1,000 boards, docs/strength.md):
#: the first card network, with which every ``expert`` figure was measured
EXPERT_CARD_INFERENCE = "card_model=distilled_v1,card_alpha=0.5,oversample=8"


#: PIMC's schneider tie-break in ``expert`` (+0.63 ± 0.44 SF/game on 1,000 boards, adopted by a
#: rule fixed before the run, docs/strength.md); ``expert:schneider=off`` is the ``expert`` of
#: every figure measured before 2026-12-06's fourteenth session
EXPERT_SCHNEIDER = "declarer"


#: the neural bidder's win probabilities mapped to what ``expert``'s card play wins (fitted by
#: ``skatsim calibrate-bidder`` on 600 games of that card play; +1.64 ± 1.11 SF/game on 1,000 fresh
#: boards, adopted by a rule fixed before the run, docs/strength.md); ``expert:calibration=none`` is
#: the ``expert`` of every figure measured before 2026-12-07's eighteenth session
EXPERT_CALIBRATION = "(0.336,1.378;-0.6285,1.45;0,1)"


def expert(worlds: int = 32, inference: bool = False, card_inference: bool = True,
           schneider: str = EXPERT_SCHNEIDER, calibration: str | None = EXPERT_CALIBRATION) -> ComposedAgent:
    """The registry's ``expert``: the strongest composition measured so far, the neural
    bidder's early decisions (bidding, skat, discard, declaration, Kontra/Re) with PIMC card
    play over ``worlds`` worlds whose worlds are weighed by the distilled card network's model
    of the others' cards (``card_inference``, :data:`EXPERT_CARD_INFERENCE`; ``False``: uniform
    worlds, the ``expert`` measured before 2026-12-06's tenth session) and, with ``inference``,
    by the auction; ``schneider`` is PIMC's tie-break for schneider (:data:`EXPERT_SCHNEIDER`, the
    declarer's decisions; ``"off"``: the ``expert`` before the fourteenth session; ``"both"``;
    :func:`agents.players.pimc.schneider_goal`); ``calibration`` maps the bidder's win
    probabilities to what this card play wins (:data:`EXPERT_CALIBRATION`; ``"none"``: the
    ``expert`` before the eighteenth session). The same player as
    ``compose:early=neural_bidder(calibration=(0.336,1.378;-0.6285,1.45;0,1)),card_play=pimc(worlds=32,card_model=distilled_v1,card_alpha=0.5,oversample=8,schneider=declarer)``;
    what each part is worth is in docs/strength.md.

    >>> e = expert(worlds=8)
    >>> e.name, e.parts["bidding"]
    ('expert', 'neural_bidder:calibration=(0.336,1.378;-0.6285,1.45;0,1)')
    >>> e.parts["defender_play"]
    'pimc:card_alpha=0.5,card_model=distilled_v1,oversample=8,schneider=declarer,worlds=8'
    >>> expert(worlds=8, card_inference=False, schneider="off").parts["declarer_play"]
    'pimc:worlds=8'
    >>> expert(worlds=8, calibration="none").parts["bidding"]
    'neural_bidder'
    """
    opts = [f"worlds={int(worlds)}"] + (["inference=true"] if inference else []) \
        + ([EXPERT_CARD_INFERENCE] if card_inference else []) \
        + ([f"schneider={schneider}"] if schneider != "off" else [])
    from .calibration import checked_calibration

    cal = checked_calibration(calibration)  # "none" (the registry passes None) or three pairs, as written
    early = "neural_bidder" if cal == "none" else f"neural_bidder(calibration={cal})"
    agent = ComposedAgent(early=early, card_play=f"pimc({','.join(opts)})")
    agent.name = "expert"
    return agent


def learned(model: str = "", tie: float | None = None, endgame: int = 0, endgame_worlds: int = 8,
            endgame_nodes: int = 0) -> ComposedAgent:
    """The registry's ``learned``: every decision by a network, the neural bidder's early
    decisions with the distilled card play (:mod:`agents.players.distilled`, ``model``,
    ``tie`` and the endgame search passed on). About a millisecond of decisions a game, no
    search unless ``endgame`` asks for the last tricks by PIMC.

    >>> p = learned()
    >>> p.name, p.parts["bidding"], p.parts["declarer_play"]
    ('learned', 'neural_bidder', 'distilled:tie=0.1')
    """
    from .distilled import DEFAULT_TIE

    tie = DEFAULT_TIE if tie is None else tie
    end = (f",endgame={int(endgame)},endgame_worlds={int(endgame_worlds)}"
           + (f",endgame_nodes={int(endgame_nodes)}" if endgame_nodes else "")) if endgame else ""
    inner = f"distilled(tie={float(tie):g}{end}" + (f",model={model})" if model else ")")
    agent = ComposedAgent(early="neural_bidder", card_play=inner)
    agent.name = "learned"
    return agent


def compose_docs() -> dict[str, str]:
    """One line per parameter of the registered ``compose`` agent."""
    docs = {"early": "agent of bidding, skat, discard, declare and kontra (default rule_based)",
            "card_play": "agent of declarer, defender and Ramsch card play (default rule_based)"}
    for part in PARTS:
        docs[part] = f"agent of the {part.replace('_', ' ')} decisions (overrides its shorthand)"
    return docs


def compose_checks() -> dict[str, Any]:
    """Each part must be an agent spec that parses (``name``, ``name:k=v`` or ``name(k=v,...)``)."""
    def check(v: Any) -> str | None:
        if v in (None, ""):
            return None
        try:
            nested_spec(str(v))
        except (ValueError, TypeError) as e:
            return f"an agent spec ({e})"
        return None

    return {k: check for k in (*GROUPS, *PARTS)}
