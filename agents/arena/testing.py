"""The test every agent passes: :func:`agent_api_test`.

>>> from agents import RandomAgent
>>> report = agent_api_test(RandomAgent, n_deals=3, hidden_deals=1)
>>> report["games"], sorted(report["phases"])[:3]
(6, ['bidding', 'declare', 'discard'])

Three checks, over ``n_deals`` deals under ISkO and under ``SkatRules(ramsch=True,
kontra=True)`` (both by default):

1. **Legal actions only**, in every phase it is asked in (bidding, skat, discard,
   declaration, Kontra/Re, cards): :class:`agents.arena.play.Table` refuses anything else with
   :class:`~agents.arena.play.IllegalActionError`. The run must have reached bidding, the skat
   decision, the declaration and the card play (and Kontra/Re when it is on), so the
   test cannot pass vacuously.
2. **Determinism**: the same deals with fresh agents give the same games.
3. **No hidden information**: at every decision of the first ``hidden_deals`` deals, a
   copy of the agent (``copy.deepcopy``: same memory, same random state) is asked about
   ``n_worlds`` worlds redealt with ``SkatState.resample_from_infostate(seat, rng)``
   (every card the seat cannot see moved, consistent with what it saw); its decision
   must equal the one it makes at the real table.
4. **Batches decide alike**: an agent with ``act_batch`` (see :mod:`agents.arena.base`) is also
   asked, at those decisions, through ``act_batch`` on the observation tensor and legal
   mask; it must return the action ``act`` chose, or ``-1`` (left to ``act``).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np

from skatsim.actions import action_to_string
from skatsim.bits import derive_seed
from skatsim.options import ISKO, SkatRules
from skatsim.state import SkatState

from .base import AgentSpec
from .play import Table

__all__ = ["agent_api_test", "RULE_SETS"]

#: The rule sets of the shared test: ISkO, and Ramsch plus Kontra/Re.
RULE_SETS: tuple[SkatRules, ...] = (ISKO, SkatRules(ramsch=True, kontra=True))

_REQUIRED = {"bidding", "skat", "declare", "play"}


def _factory(make: Any) -> Callable[[], Any]:
    if isinstance(make, (str, AgentSpec)):
        spec = AgentSpec.coerce(make)
        return spec.make
    if not callable(make):
        raise TypeError(f"make must be a zero-argument callable returning an agent, a name or a spec, got {make!r}")
    return make


def _play(make: Callable[[], Any], deal_seed: int, deal_id: int, rules: SkatRules, check_hidden: bool,
          n_worlds: int, gen: np.random.Generator, phases: Counter, stats: Counter) -> list[int]:
    state = SkatState.new_game(seed=deal_seed, rules=rules)
    table = Table([make(), make(), make()], state, deal_seed, deal_id)
    while not state.is_terminal():
        seat = state.current_player()
        phases[state.phase] += 1
        if check_hidden:
            agent = table.agents[seat]
            want = copy.deepcopy(agent).act(state.observation(seat))
            for _ in range(n_worlds):
                world = state.resample_from_infostate(seat, gen)
                got = copy.deepcopy(agent).act(world.observation(seat))
                stats["resampled"] += 1
                if got != want:
                    raise AssertionError(
                        f"agent {getattr(agent, 'name', agent)!r} (seat {seat}, deal seed {deal_seed}, phase "
                        f"{state.phase}, move {len(state.history()) + 1}) decided {_txt(want)} at the table but "
                        f"{_txt(got)} in a world with the hidden cards redealt: it uses information its seat "
                        "cannot see (or is not a function of its observation and memory)")
            batch = getattr(agent, "act_batch", None)
            if callable(batch):
                obs = state.observation(seat)
                got = int(np.asarray(copy.deepcopy(agent).act_batch(obs.tensor[None, :], obs.legal_mask[None, :]))[0])
                stats["batched"] += 1
                if got not in (-1, want):
                    raise AssertionError(
                        f"agent {getattr(agent, 'name', agent)!r} (seat {seat}, deal seed {deal_seed}, phase "
                        f"{state.phase}) decided {_txt(want)} through act but {_txt(got)} through act_batch on "
                        "the same observation")
            s, a = table.step()
            if a != want:
                raise AssertionError(
                    f"agent {getattr(agent, 'name', agent)!r} (seat {seat}, deal seed {deal_seed}) decided "
                    f"{_txt(a)} but a deepcopy of it decided {_txt(want)} on the same observation: its "
                    "decision depends on something deepcopy does not copy")
        else:
            table.step()
        stats["decisions"] += 1
    stats["games"] += 1
    return state.history()


def _txt(a: Any) -> str:
    try:
        return f"{a!r} ({action_to_string(a)})"
    except (ValueError, TypeError, IndexError):
        return repr(a)


def agent_api_test(make: Any, n_deals: int = 20, *, seed: int = 0, rules: Sequence[SkatRules] = RULE_SETS,
                   hidden_deals: int = 5, n_worlds: int = 2) -> dict[str, Any]:
    """Run the shared agent checks (module docstring); raise ``AssertionError`` (or
    :class:`~agents.arena.play.AgentError`) on the first failure, return a report otherwise.

    Args:
        make: zero-argument callable returning a new agent (``RandomAgent``, ``lambda:
            make_agent("rule_based", max_bid=18)``), or a registry name / spec.
        n_deals: deals per rule set (deal ``i`` has the seed ``derive_seed(seed, i)``).
        seed: master seed.
        rules: the rule sets to play.
        hidden_deals: deals per rule set whose every decision is also asked in resampled worlds.
        n_worlds: resampled worlds per decision.

    Returns ``{"games", "decisions", "resampled", "batched", "phases": {phase: decisions}}``.
    """
    mk = _factory(make)
    phases: Counter = Counter()
    stats: Counter = Counter()
    gen = np.random.default_rng(seed)
    for r_i, r in enumerate(rules):
        seen: Counter = Counter()
        for i in range(n_deals):
            ds = derive_seed(seed + 7919 * r_i, i)
            first = _play(mk, ds, i, r, i < hidden_deals, n_worlds, gen, seen, stats)
            again = _play(mk, ds, i, r, False, n_worlds, gen, Counter(), Counter())
            if first != again:
                k = next(j for j, (x, y) in enumerate(zip(first, again)) if x != y) if len(first) == len(again) \
                    else min(len(first), len(again))
                raise AssertionError(f"agent is not deterministic: deal seed {ds} ({r.version}) differs at "
                                     f"move {k + 1} between two runs with fresh agents")
        missing = _REQUIRED - set(seen) | ({"kontra"} - set(seen) if r.kontra else set())
        if n_deals >= 10 and missing:
            raise AssertionError(f"{n_deals} deals under {r.version} never reached phase(s) {sorted(missing)}: "
                                 "the legality check did not cover them (play more deals)")
        phases.update(seen)
    return {"games": stats["games"], "decisions": stats["decisions"], "resampled": stats["resampled"],
            "batched": stats["batched"], "phases": dict(phases)}
