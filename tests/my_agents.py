"""A user's own agents, as a newcomer would write them (used by tests/test_own_agent.py)."""

from __future__ import annotations


class Greedy:
    """Plays the highest legal card, bids as little as it can; deterministic."""

    name = "greedy"

    def __init__(self, top: bool = True) -> None:
        self.top = top

    def act(self, obs) -> int:  # noqa: ANN001
        legal = obs.legal_actions
        if obs.phase == "play":
            return max(legal) if self.top else min(legal)
        return legal[-1] if obs.phase == "bidding" else legal[0]  # pass in the bidding (the last id)


def make_lowest() -> Greedy:
    """A factory function: the lowest-card variant."""
    return Greedy(top=False)


class Broken:
    """Raises in the card play (to see the error and its traceback kept)."""

    name = "broken"

    def act(self, obs) -> int:  # noqa: ANN001
        if obs.phase == "play":
            raise ZeroDivisionError("my bug")
        return obs.legal_actions[-1] if obs.phase == "bidding" else obs.legal_actions[0]
