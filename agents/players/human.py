"""A person at the table: :class:`HumanAgent` plays through the terminal (or any text streams).

Every phase is asked: bids, the skat (pick up or hand), the two discards, the declaration
with its announcements, Kontra/Re, every card. At each decision the player sees the
contract and the bidding so far, the tricks and card points so far, the trick on the table,
the hand sorted in the current contract's order (:func:`sort_cards`: trumps first in the
contract's order; null order in null; before the declaration jacks first, as in grand) and
the legal choices, numbered. An answer is a number, or the choice's name (``CJ``, ``S10``,
``18``, ``pass``, ``yes``, ``pickup``, ``hand``, ``GH``, ``kontra`` ...; case does not
matter). Anything else (a typo, a number out of range, a card not held, a card that does
not follow suit) gets a message saying why and a new prompt. ``?`` prints the help;
``quit`` or the end of the input (EOF, Ctrl-D) raises :class:`HumanQuit`.

The agent only sees its observation, as every agent. :func:`explain_result` words the end
of a deal (the value, the matadors, why the declarer won or lost);
:func:`solver_verdict` asks the open-hand solver about the declarer's contract.

>>> import io
>>> from agents import play_game
>>> from skatsim.cards import card_name
>>> screen = io.StringIO()
>>> me = HumanAgent(input=io.StringIO("1\\n" * 40), output=screen)   # always the first choice
>>> s = play_game([me, "rule_based", "rule_based"], seed=11)
>>> s.is_terminal(), "your hand:" in screen.getvalue()
(True, True)
>>> [card_name(c) for c in sort_cards(0xC000_0081, game=0)]   # diamonds: CJ DJ D7, then CA
['CJ', 'DJ', 'D7', 'CA']
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from skatsim.actions import BID_BASE, DECLARE_BASE, HOLD, KONTRA, PASS, PICKUP, RE, HAND, action_to_string, \
    string_to_action
from skatsim.cards import CardSet, card_name, card_points
from skatsim.contracts import Contract
from skatsim.state import SEAT_NAMES

if TYPE_CHECKING:
    from skatsim.observation import Observation
    from skatsim.state import SkatState

__all__ = ["HumanAgent", "HumanQuit", "sort_cards", "hand_text", "explain_result", "solver_verdict"]


class HumanQuit(BaseException):
    """The player quit (``quit``) or the input ended (EOF). A ``BaseException`` like
    ``KeyboardInterrupt``: it leaves the table at once instead of being recorded as an
    agent error."""


def sort_cards(mask: int, game: int | None = None) -> list[int]:
    """The cards of ``mask`` in the order of ``game`` (0..3 suit, 4 grand, 5 null, 6 Ramsch,
    ``None``: not declared yet, shown as in grand): trumps first, highest first
    (:meth:`skatsim.cards.CardSet.sorted`)."""
    return CardSet.from_mask(mask).sorted(game)


def hand_text(mask: int, game: int | None = None) -> str:
    """``CJ SJ CA C10 | SA S7 | H9`` : trumps, then each suit, ``|`` between groups."""
    from skatsim.rules import GRAND, TRUMP_MASKS

    trumps = TRUMP_MASKS[GRAND if game is None else game]
    groups: dict[int, list[str]] = {}
    for c in sort_cards(mask, game):
        groups.setdefault(-1 if trumps >> c & 1 else c >> 3, []).append(card_name(c))
    return " | ".join(" ".join(g) for g in groups.values()) or "-"


def _choice_text(action: int) -> str:
    if DECLARE_BASE <= action < KONTRA:
        c = Contract.parse(action_to_string(action))
        return f"{c.to_text()} ({c.describe()})"
    return {PASS: "pass", HOLD: "yes (hold the bid)", PICKUP: "pickup (take the skat)",
            HAND: "hand (play without the skat)", KONTRA: "kontra", RE: "re"}.get(action, action_to_string(action))


_HELP = ("Answer with the number of a choice or its name: a card (CJ, S10, HA ...), a bid (18, 20 ...), "
         "pass, yes, pickup, hand, a contract (C, GH, NO ...), kontra, re. '?' shows this help and the "
         "choices again, 'quit' leaves the game.")


class HumanAgent:
    """A person playing through text streams (default ``sys.stdin`` / ``sys.stdout``).

    Args:
        input, output: the streams (a test passes ``io.StringIO`` objects).
        labels: names of the three seats' players (shown when the others act).
        verbose: print the other players' actions as they happen.
    """

    name = "human"

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None,
                 labels: list[str] | None = None, verbose: bool = True) -> None:
        self.input = input
        self.output = output
        self.labels = list(labels) if labels else None
        self.verbose = verbose
        self.seat = 0
        self._last_tricks = 0

    # ------------------------------------------------------------------ protocol
    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self.seat = seat
        self._last_tricks = 0

    def observe(self, seat: int, action: int) -> None:
        if not self.verbose or seat == self.seat:
            return
        if action < 0:
            what = "discards a card into the skat"
        elif action < 32:
            what = f"plays {card_name(action)}"
        elif action <= HOLD:
            what = {PASS: "passes", HOLD: "says yes"}.get(action, f"bids {action_to_string(action)}")
        elif DECLARE_BASE <= action < KONTRA:
            what = "declares " + _choice_text(action)
        else:
            what = {PICKUP: "picks up the skat", HAND: "plays hand", KONTRA: "says kontra", RE: "says re"}.get(
                action, action_to_string(action))
        self._say(f"  {self._who(seat)} {what}")

    def act(self, obs: "Observation") -> int:
        legal = list(obs.legal_actions)
        if not legal:
            raise ValueError("asked to act without legal actions")
        self._show(obs)
        choices = self._choices(obs, legal)
        self._list(choices)
        while True:
            text = self._ask(f"your choice (1-{len(choices)}, a name, ? for help): ")
            action, problem = self._parse(text, obs, choices)
            if action is not None:
                return action
            self._say(problem)

    # ------------------------------------------------------------------ display
    def _who(self, seat: int) -> str:
        if seat == self.seat:
            return "you"
        lab = f" ({self.labels[seat]})" if self.labels else ""
        return f"seat {seat} {SEAT_NAMES[seat]}{lab}"

    def _say(self, text: str = "") -> None:
        out = self.output or sys.stdout
        print(text, file=out)
        out.flush()

    def _ask(self, prompt: str) -> str:
        out = self.output or sys.stdout
        out.write(prompt)
        out.flush()
        line = (self.input or sys.stdin).readline()
        if not line:
            self._say()
            raise HumanQuit("end of input")
        text = line.strip()
        if text.lower() in ("quit", "exit", "q"):
            raise HumanQuit("quit")
        return text

    def _show(self, obs: "Observation") -> None:
        game = obs.game_type
        say = self._say
        say()
        head = f"== you are seat {obs.seat} ({SEAT_NAMES[obs.seat]}); {obs.phase}"
        if obs.declarer is not None and obs.contract:
            c = Contract.parse(obs.contract)
            who = "you" if obs.declarer == obs.seat else f"seat {obs.declarer}"
            head += f"; {who} play{'' if who == 'you' else 's'} {c.to_text()} ({c.describe()}) at {obs.bid}"
        elif obs.declarer is not None:
            who = "you" if obs.declarer == obs.seat else f"seat {obs.declarer}"
            head += f"; {who} won the bidding at {obs.bid}"
        elif game == 6:
            head += "; ramsch (everybody passed)"
        say(head)
        if obs.phase == "bidding":
            bids = " ".join(f"{s}:{t}" for s, t in obs.bids) or "(none yet)"
            say(f"bidding so far: {bids}")
        if obs.kontra:
            say("kontra/re: " + " ".join(f"{s}:{t}" for s, t in obs.kontra))
        tricks = obs.tricks
        for i in range(self._last_tricks, len(tricks)):
            leader, cards, winner = tricks[i]
            pts = sum(card_points(1 << c) for c in cards)
            played = " ".join(f"{(leader + k) % 3}:{card_name(c)}" for k, c in enumerate(cards))
            say(f"trick {i + 1}: {played} -> {self._who(winner)} ({pts} points)")
        self._last_tricks = len(tricks)
        if tricks or obs.current_trick:
            so_far = ", ".join(f"{self._who(s)} {obs.points[s]}" for s in range(3))
            say(f"card points so far: {so_far}; tricks: {list(obs.tricks_won)}")
        if obs.current_trick:
            lead = obs.trick_leader
            assert lead is not None  # set while a trick is on the table
            say("on the table: " + " ".join(f"{self._who((lead + k) % 3)} {card_name(c)}"
                                            for k, c in enumerate(obs.current_trick)))
        if obs.skat is not None and obs.phase in ("discard", "declare") and obs.declarer == obs.seat:
            say(f"the skat you found: {hand_text(obs.skat.mask, None)}")
        if obs.discard is not None and obs.declarer == obs.seat and obs.phase != "discard":
            say(f"your discard: {hand_text(obs.discard.mask, game)}")
        if obs.ouvert_hand is not None and obs.declarer != obs.seat:
            say(f"declarer's open hand: {hand_text(obs.ouvert_hand.mask, game)}")
        say(f"your hand: {hand_text(obs.hand.mask, game)}")

    def _choices(self, obs: "Observation", legal: list[int]) -> list[int]:
        if obs.phase == "play" or obs.phase == "discard":
            order = sort_cards(sum(1 << a for a in legal if a < 32), obs.game_type)
            return order + [a for a in legal if a >= 32]
        words = [a for a in legal if a in (PASS, HOLD)]  # pass / yes first, then bids in order
        return words + [a for a in legal if a not in (PASS, HOLD)]

    def _list(self, choices: list[int]) -> None:
        cells = [f"{i + 1:>2}) {_choice_text(a)}" for i, a in enumerate(choices)]
        wide = any(DECLARE_BASE <= a < KONTRA or a in (HOLD, PICKUP, HAND) for a in choices)
        per = 3 if wide else 8
        width = max(len(c) for c in cells) + 2
        for i in range(0, len(cells), per):
            self._say("  " + "".join(c.ljust(width) for c in cells[i:i + per]).rstrip())

    # ------------------------------------------------------------------ input
    def _parse(self, text: str, obs: "Observation", choices: list[int]) -> tuple[int | None, str]:
        if not text:
            return None, "type the number of a choice or its name ('?' for help)"
        if text in ("?", "help", "h"):
            self._say(_HELP)
            self._list(choices)
            return None, f"your hand: {hand_text(obs.hand.mask, obs.game_type)}"
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(choices):
                return choices[k - 1], ""
            return None, f"{k} is not a choice: type a number from 1 to {len(choices)}"
        try:
            action = string_to_action(text)
        except (ValueError, KeyError, TypeError):
            return None, (f"did not understand {text!r}: type a number from 1 to {len(choices)} or a name "
                          "such as CJ, S10, 18, pass, hand, GH ('?' for help)")
        if action in choices:
            return action, ""
        if action < 32:
            name = card_name(action)
            if not obs.hand.mask >> action & 1:
                return None, f"you do not hold {name}; your hand: {hand_text(obs.hand.mask, obs.game_type)}"
            if obs.phase == "play" and obs.current_trick:
                led = card_name(obs.current_trick[0])
                return None, (f"{name} is not allowed: you must follow the led {led} "
                              f"(you can play {' '.join(card_name(a) for a in choices if a < 32)})")
            return None, f"{name} cannot be played now (phase {obs.phase})"
        if BID_BASE <= action < PASS and any(BID_BASE <= a < PASS for a in choices):
            lo = min(a for a in choices if BID_BASE <= a < PASS)
            return None, f"{text} is not a legal bid now: the lowest bid you can name is {action_to_string(lo)}"
        return None, f"{text!r} is not a legal choice now (phase {obs.phase}); type a number from 1 to {len(choices)}"


# ----------------------------------------------------------------------------- after the deal


def explain_result(state: "SkatState", seat: int | None = None) -> str:
    """The end of a finished deal in words: contract, skat, the game value with its
    matadors and multiplier, card points or tricks against the goal, why the declarer won
    or lost, and the list and Seeger-Fabian scores (``seat``: addressed as "you")."""
    from skatsim.solver import target_for

    r = state.result
    def who(s: int) -> str:
        return "you" if s == seat else f"seat {s} ({SEAT_NAMES[s]})"
    if r.passed_in:
        return "Everybody passed: the deal is passed in, nobody scores."
    if r.ramsch:
        pts = list(r.card_points or (0, 0, 0))
        top = max(pts)
        losers = [who(s) for s in range(3) if pts[s] == top]
        return (f"Ramsch: card points {pts} (the skat goes to the last trick's winner); the most points lose: "
                f"{', '.join(losers)} score -{top}.")
    c = Contract.parse(r.contract or "")
    d = r.declarer
    assert d is not None  # a declared game has a declarer
    lines = [f"{who(d).capitalize()} played {c.to_text()} ({c.describe()}) at a bid of {r.bid}"
             + ("" if state.skat_picked_up else ", hand") + "."]
    if c.is_null:
        took = "took none" if r.declarer_tricks == 0 else f"took {r.declarer_tricks}"
        lines.append(f"Null: the declarer must not take a trick; {took}"
                     f" -> {'won' if r.declarer_tricks == 0 else 'lost'}. Game value {r.game_value} (fixed for "
                     f"{c.to_text()}).")
    else:
        m = abs(r.matadors)
        w = "with" if r.matadors > 0 else "without"
        jacks = "the jacks of the declarer's cards and the skat"
        parts = [f"{w} {m}", "game 1"]
        if c.hand:
            parts.append("hand 1")
        if r.schneider or c.schneider_announced:
            parts.append("schneider 1")
        if c.schneider_announced:
            parts.append("schneider announced 1")
        if r.schwarz or c.schwarz_announced:
            parts.append("schwarz 1")
        if c.schwarz_announced:
            parts.append("schwarz announced 1")
        if c.ouvert:
            parts.append("ouvert 1")
        lines.append(f"Matadors: {w} {m} (counted from {jacks}, the top trumps in sequence). "
                     f"Multiplier {r.multiplier} = {' + '.join(parts)}; game value {r.multiplier} x "
                     f"{c.base_value} = {r.game_value}.")
        goal = target_for(c)
        skat_pts = card_points(state.skat_mask())
        got = f"{r.declarer_points} card points ({skat_pts} in the skat) and {r.declarer_tricks} tricks"
        if goal == "schwarz":
            need = "every trick (schwarz announced)"
            ok = r.declarer_tricks == 10
        elif goal == 90:
            need = "90 card points (schneider announced)"
            ok = r.declarer_points >= 90
        else:
            need = "61 card points (60:60 goes to the defenders)"
            ok = r.declarer_points >= 61
        lines.append(f"The declarer took {got}; the goal was {need}: {'reached' if ok else 'missed'}.")
    if r.overbid:
        lines.append(f"But the game value {r.game_value} is below the bid {r.bid}: overbid, the game is lost and "
                     f"charged {r.charged_value} (the bid rounded up to a multiple of {c.base_value}).")
    if r.kontra:
        lines.append(f"{'Kontra' if r.kontra == 1 else 'Kontra and Re'}: the list score is doubled "
                     f"{'once' if r.kontra == 1 else 'twice'}.")
    res = "won" if r.won else "lost"
    lines.append(f"Result: the declarer {res}, list score {r.list_score:+d}"
                 + (f" ({r.charged_value} won)" if r.won else f" (-2 x {r.charged_value}" + (" x 2" * r.kontra) + ")")
                 + ". Seeger-Fabian points: "
                 + ", ".join(f"{who(s)} {r.seeger_fabian[s]:+d}" for s in range(3))
                 + " (declarer: list score +50 won / -50 lost; each defender +40 when the declarer loses).")
    return "\n".join(lines)


def solver_verdict(state: "SkatState") -> str:
    """The open-hand solver's verdict on the declarer's contract: from the start of the card
    play, with every hand open and best play by all, does the declarer reach the goal?"""
    from skatsim.solver import describe_target, solve, target_for
    from skatsim.state import SkatState

    r = state.result
    if r.passed_in or r.ramsch or r.contract is None:
        return "No declarer's contract to judge (passed in or Ramsch)."
    start = SkatState.new_game(deal=state.deal, rules=state.rules)
    for a in state.history():
        if start.phase == "play":
            break
        start.apply_action(a)
    c = Contract.parse(r.contract)
    goal = target_for(c)
    judged = solve(start, mode="threshold", threshold=goal)
    verdict = "wins" if judged.declarer_wins else "loses"
    text = (f"Open-hand solver: with all cards visible and best play by everybody, the declarer {verdict} "
            f"{c.to_text()} (goal: {describe_target(goal)})")
    if not c.is_null:
        best = solve(start, mode="exact", threshold=61)  # the card points, whatever the goal
        text += f"; best play gives the declarer {best.declarer_points} card points"
    played = "won" if r.won else "lost"
    return text + f". At the table the game was {played}."
