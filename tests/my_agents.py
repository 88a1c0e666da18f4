"""A user's own agents, as a newcomer would write them (used by tests/test_own_agent.py).

``Greedy`` (from its imports to the end of the class) is the README's "Write your own agent"
example, character for character (tests/test_readme_examples.py checks it)."""

from __future__ import annotations

from skatsim import action_to_string
from skatsim.cards import ACES, CARD_POINTS, JACKS, SUIT_LETTERS, SUIT_NO_JACK
from skatsim.rules import beats, trump_mask


class Greedy:
    """Bids 18 on two jacks and seven trumps or aces (trumps: the jacks and its longest suit),
    picks up the skat, puts its richest side cards there and plays that suit; else passes.
    In the card play it takes a trick with its cheapest winning card, else throws its
    cheapest card, and leads its strongest card (``top=False``: its weakest). Deterministic."""

    name = "greedy"

    def __init__(self, top: bool = True) -> None:
        self.top = top

    def act(self, obs) -> int:
        legal = obs.legal_actions                        # action ids: cards 0..31, bids 32..94, pass, yes, ...
        say = {action_to_string(a): a for a in legal}    # {"18": 32, "20": 33, ..., "pass": 95} or {"pass", "yes"}
        hand = obs.hand.mask                             # bit c set: card c is in the hand
        suit = max(range(4), key=lambda s: (hand & SUIT_NO_JACK[s]).bit_count())   # its longest suit
        mine = JACKS | SUIT_NO_JACK[suit]                # the trumps of that suit game
        if obs.phase == "bidding":                       # say 18 (bidder) or yes (answering 18) on a strong hand
            strong = (hand & JACKS).bit_count() >= 2 and (hand & (mine | ACES)).bit_count() >= 7
            want = say.get("18") or (say.get("yes") if obs.bid <= 18 else None)
            return want if strong and want is not None else say["pass"]
        if obs.phase == "skat":
            return say["pickup"]
        if obs.phase == "discard":                       # the skat's card points count for the declarer
            side = [c for c in legal if not mine >> c & 1 and CARD_POINTS[c] < 11] or list(legal)
            return max(side, key=lambda c: (CARD_POINTS[c], c))
        if obs.phase == "declare":
            return say[SUIT_LETTERS[suit]]               # "D" "H" "S" "C": that suit game
        if obs.phase != "play":
            return say.get("pass", legal[0])             # Kontra/Re (a rules option): never said
        game, trick = obs.game_type, obs.current_trick

        def power(c: int) -> tuple[int, int, int]:       # trumps first, then the rank (jack highest), the suit
            return trump_mask(game) >> c & 1, c & 7, c

        if not trick:                                    # leading
            return max(legal, key=power) if self.top else min(legal, key=power)
        best = trick[0]
        for c in trick[1:]:
            best = c if beats(c, best, game) else best
        winners = [c for c in legal if beats(c, best, game)]
        return min(winners or legal, key=power)


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


class NoAct:
    """A class that forgot act(): refused when it is named."""

    name = "noact"


class CannotInit:
    """An agent whose constructor fails: the error names it."""

    name = "cannot_init"

    def __init__(self) -> None:
        raise RuntimeError("cannot init")

    def act(self, obs) -> int:  # noqa: ANN001
        return obs.legal_actions[0]


class Sleeper:
    """An agent that never answers (it waits instead of computing)."""

    name = "sleeper"

    def act(self, obs) -> int:  # noqa: ANN001
        import time

        time.sleep(3600)
        return obs.legal_actions[0]


class _PressesCtrlC:
    """Presses Ctrl-C (SIGINT to its own process) when it is finalized."""

    def __del__(self) -> None:
        import os
        import signal

        os.kill(os.getpid(), signal.SIGINT)


class CtrlCInFinalizer(Sleeper):
    """Ctrl-C lands in a finalizer (Python drops it there: "Exception ignored"), then the agent
    waits forever: the command must stop all the same."""

    name = "ctrl_c_in_finalizer"

    def act(self, obs) -> int:  # noqa: ANN001
        _PressesCtrlC()  # finalized at once
        return super().act(obs)


class SwallowsCtrlC(Sleeper):
    """Catches the Ctrl-C with an ``except BaseException`` of its own, then waits forever."""

    name = "swallows_ctrl_c"

    def act(self, obs) -> int:  # noqa: ANN001
        import os
        import signal

        try:
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException:  # noqa: BLE001 - what a careless agent does
            pass
        return super().act(obs)
