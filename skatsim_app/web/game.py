"""One deal at the browser table: you in one seat, two AIs from the registry in the others.

:class:`PlayGame` drives the real game (a :class:`skatsim.SkatState` at an
:class:`agents.arena.play.Table`, the same loop as everywhere else); the person's moves come from
requests, validated on the server (:meth:`PlayGame.human_act`), the AIs' from their agents
(:meth:`PlayGame.ai_step`, one decision per call, run by the server off its event loop).

What reaches the browser is built by :func:`present` from a *snapshot*: the person's
seat's view of the table (:func:`.table.table_view`, from its
:meth:`~skatsim.SkatState.observation`: own hand, the skat only when he picked it up, his
own discards, an ouvert declarer's cards, the tricks and the trick on the table) and public
facts (who sits where, the calls, the number of cards each holds). The others' discards
appear as "discards a card", never as cards. Once the deal is over, the settlement, the
seed and the whole deal as dealt (every hand, the skat, the discards) are added. Cards are
named by their ids (``"CJ"``, ``"S10"``) everywhere in the JSON, so a test can collect every
card a response names and compare it with what the observation allows.

>>> from agents import AgentSpec
>>> g = PlayGame(PlaySettings((AgentSpec("random"), AgentSpec("random")), mode="thread"), seat=0, seed=3)
>>> v = g.snapshot
>>> v["phase"], v["to_move"], len(v["hands"][0]), v["hands"][1], v["your_turn"]
('bidding', 1, 10, 10, False)
>>> events = g.ai_step()                      # middlehand (a random AI) speaks first
>>> [e["seat"] for e in events]
[1]
>>> g.close()
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agents import AgentSpec, Table
from skatsim._random import to_seed
from skatsim.actions import (BID_BASE, DECLARE_BASE, HAND, HOLD, KONTRA, PASS, PICKUP, RE, action_to_string,
                             string_to_action)
from skatsim.cards import card_name, card_points
from skatsim.contracts import Contract
from skatsim.deal import SEED_MASK
from skatsim.options import ISKO, SkatRules
from skatsim.state import SEAT_NAMES, SkatState

from .names import card_label, check_deck, contract_label, deck_text, game_label
from .offer import Opponent, clip, excerpt
from .settle import explain, forfeit_text
from .table import dealt_view, table_view
from .seats import make_seat_agent

__all__ = ["PlaySettings", "PlayGame", "PlayError", "present", "DEFAULT_OPPONENTS"]

#: The opponents a new table starts with (left, right).
DEFAULT_OPPONENTS = ("rule_based", "pimc")


class PlayError(Exception):
    """A request the game refuses: ``status`` is the HTTP status (400 malformed, 409 not
    now / out of turn, 422 not a legal move), the message says why. Nothing was changed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class PlaySettings:
    """How a table is set up: the two AIs (to your left, to your right; an
    :class:`~skatsim_app.web.offer.Opponent` of the server's offer), the rules, the
    deck style, the AIs' time limit per decision and where they run (``"process"`` or
    ``"thread"``, see :mod:`skatsim_app.web.seats`)."""

    opponents: tuple[Opponent | AgentSpec, Opponent | AgentSpec] = field(
        default_factory=lambda: (AgentSpec(DEFAULT_OPPONENTS[0]), AgentSpec(DEFAULT_OPPONENTS[1])))
    rules: SkatRules = ISKO
    deck: str = "german"
    time_limit: float = 30.0
    mode: str = "process"


class _HumanSeat:
    """The person's seat at the :class:`~agents.arena.play.Table`: plays the move the request
    brought (already validated)."""

    name = "you"

    def __init__(self) -> None:
        self.pending: int | None = None

    def act(self, obs: Any) -> int:
        a, self.pending = self.pending, None
        if a is None:  # pragma: no cover - the game asks the human only after a request
            raise RuntimeError("no move from the browser")
        return a


class PlayGame:
    """One deal: ``seat`` is the person's seat (0 forehand, 1 middlehand, 2 rearhand); the
    AI to the person's left plays seat ``seat + 1``, the one to the right ``seat + 2``
    (mod 3). ``seed``: the deal seed (any int). :attr:`snapshot` is the current view
    (rebuilt after every move; safe to read from any thread)."""

    def __init__(self, settings: PlaySettings, seat: int = 0, seed: int = 0, deal_no: int = 1) -> None:
        if seat not in (0, 1, 2):
            raise PlayError(400, f"seat must be 0 (forehand), 1 (middlehand) or 2 (rearhand), got {seat!r}")
        self.settings = settings
        self.seat = seat
        self.deal_no = deal_no
        self.deal_seed = to_seed(seed) & SEED_MASK
        self.players: list[str] = ["", "", ""]
        self.players[seat] = "you"
        self.human = _HumanSeat()
        agents: list[Any] = [None, None, None]
        agents[seat] = self.human
        self._ai: list[Any] = []
        for k, spec in enumerate(settings.opponents):
            s = (seat + 1 + k) % 3
            agent = make_seat_agent(spec.make(), settings.time_limit, settings.mode)
            self._ai.append(agent)
            agents[s] = agent
            self.players[s] = spec.to_text()
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        state = SkatState.new_game(seed=self.deal_seed, rules=settings.rules)
        try:
            self.table = Table(agents, state, self.deal_seed, deal_no, self._on_action, on_error="forfeit")
        except BaseException:
            self.close()
            raise
        self.snapshot: dict[str, Any] = {}
        self._refresh()

    # ------------------------------------------------------------------ moves
    @property
    def state(self) -> SkatState:
        return self.table.state

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def ai_to_move(self) -> bool:
        """An AI is to move (the server should call :meth:`ai_step`)."""
        return not self.over and self.state.current_player() != self.seat

    def human_act(self, text: Any, expect: Any = None) -> list[dict[str, Any]]:
        """Play the person's move ``text`` (``"18"``, ``"pass"``, ``"yes"``, ``"pickup"``,
        ``"hand"``, a card ``"S10"``, a contract ``"GH"``, ``"kontra"``, ``"re"``); ``expect``:
        the number of moves the browser has seen (a stale page gets 409). Returns the new
        events; raises :class:`PlayError` (and changes nothing) when the move is refused."""
        if not isinstance(text, str) or not text.strip():
            raise PlayError(400, f"'action' must be a non-empty string such as \"18\", \"pass\", \"S10\" or \"GH\", "
                                 f"got {excerpt(text)}")
        if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int)):
            raise PlayError(400, f"'expect' must be the number of moves seen (an int), got {excerpt(expect)}")
        if not self._lock.acquire(blocking=False):
            raise PlayError(409, "not your turn: an AI is thinking")
        try:
            if self.over:
                raise PlayError(409, "the deal is over: start the next deal")
            st = self.state
            if st.current_player() != self.seat:
                who = st.current_player()
                raise PlayError(409, f"not your turn: seat {who} ({SEAT_NAMES[who]}, {self.players[who]}) is to move")
            if expect is not None and expect != len(st.history()):
                raise PlayError(409, f"your page is out of date: it has seen {expect} moves, the game has "
                                     f"{len(st.history())}; reload the table")
            if len(text) > 12:  # the longest action is a contract such as "CHSZO" or a bid "264"
                raise PlayError(400, f"unknown action {excerpt(text)}")
            try:
                action = string_to_action(text)
            except ValueError as e:
                raise PlayError(400, clip(str(e), 300)) from None
            obs = st.observation(self.seat)
            if action not in obs.legal_actions:
                raise PlayError(422, _illegal_reason(action, obs))
            n = len(self.events)
            self.human.pending = action
            self.table.step()
            self._refresh()
            return self.events[n:]
        finally:
            self._lock.release()

    def ai_step(self) -> list[dict[str, Any]]:
        """One AI decision (blocking up to the time limit: call it off the event loop).
        Returns the new events (the move, or the error and what the rules made of it)."""
        with self._lock:
            if self.over:
                raise PlayError(409, "the deal is over")
            if self.state.current_player() == self.seat:
                raise PlayError(409, "it is your turn")
            n, errs = len(self.events), len(self.table.errors)
            self.table.step()
            for e in self.table.errors[errs:]:
                self.events.insert(n, {"n": len(self.state.history()), "seat": e.seat, "phase": e.phase,
                                       "kind": "error", "text": str(e)})
            self._refresh()
            if self.over:
                self.close()
            return self.events[n:]

    def close(self) -> None:
        """Stop the AIs' processes (idempotent)."""
        for a in self._ai:
            a.close()

    def _on_action(self, state: SkatState, seat: int, action: int) -> None:
        phase = state.phase_history()[-1][2]
        ev: dict[str, Any] = {"n": len(state.history()), "seat": seat, "phase": phase}
        if phase == "discard":
            ev["kind"] = "discard"
            if seat == self.seat:
                ev["card"] = card_name(action)
        elif phase == "play":
            ev["kind"], ev["card"] = "card", card_name(action)
            if not state.current_trick() and state.tricks():
                leader, cards, winner = state.tricks()[-1]
                ev["trick_won_by"] = winner
                ev["trick_points"] = int(card_points(sum(1 << c for c in cards)))
        elif BID_BASE <= action < PASS:
            ev["kind"], ev["bid"] = "bid", int(action_to_string(action))
        elif action == PASS:
            ev["kind"] = "pass"
        elif action == HOLD:
            ev["kind"], ev["bid"] = "hold", state.bid
        elif action in (PICKUP, HAND):
            ev["kind"] = action_to_string(action)
        elif DECLARE_BASE <= action < KONTRA:
            ev["kind"], ev["contract"] = "declare", action_to_string(action)
        else:
            ev["kind"] = action_to_string(action)  # kontra / re
        self.events.append(ev)

    # ------------------------------------------------------------------ the view
    def _refresh(self) -> None:
        self.snapshot = self._build()

    def _build(self) -> dict[str, Any]:
        st, me = self.state, self.seat
        over = self.over
        view = table_view(st, me)  # the person's seat's view of the table (the replay's builder too)
        view.update({
            # the seed rebuilds every hand and the skat: sent once the deal is over (as a str:
            # JS numbers hold 53 bits)
            "deal_no": self.deal_no, "deal_seed": str(self.deal_seed) if over else None, "seat": me,
            "players": list(self.players), "rules": {"kontra": st.rules.kontra, "ramsch": st.rules.ramsch},
            "n": len(st.history()), "to_move": None if over else view["to_move"], "over": over,
            "your_turn": (not over) and view["to_move"] == me,
            "legal": [action_to_string(a) for a in st.observation(me).legal_actions] if not over else [],
            "events": list(self.events), "result": None, "deal": None, "names": self.names(),
        })
        if over:  # the deal is over: every hand as dealt, the skat and the discards are shown
            view["result"] = self._result()
            view["deal"] = dealt_view(st)
        return view

    def names(self) -> list[str]:
        """The seats as the table names them: "You", "pimc (left)", "rule_based (right)"."""
        me = self.seat
        return ["You" if s == me else f"{self.players[s]} ({'left' if s == (me + 1) % 3 else 'right'})"
                for s in range(3)]

    def _result(self) -> dict[str, Any]:
        r = self.table.result
        d = r.to_dict()
        out: dict[str, Any] = {k: d[k] for k in ("contract", "bid", "declarer", "won", "declarer_points",
                                                  "declarer_tricks", "matadors", "multiplier", "game_value",
                                                  "overbid", "charged_value", "list_score", "schneider", "schwarz",
                                                  "kontra", "scores", "seeger_fabian", "passed_in", "ramsch",
                                                  "card_points")}
        # the words are made in French; present() gives them the deck's names
        if self.table.forfeit is not None:
            out["explanation"] = forfeit_text(r, "; ".join(str(e) for e in self.table.errors), self.names(),
                                              "french")
            out["forfeit"] = True
        else:
            out["explanation"] = explain(self.state, self.names(), "french")
            out["forfeit"] = False
        out["verdict_available"] = bool(self.state.is_terminal() and not r.passed_in and not r.ramsch)
        return out

    def record(self) -> dict[str, Any]:
        """The finished game's record (for the solver's verdict, computed by the server)."""
        if not self.state.is_terminal():
            raise PlayError(409, "the solver judges a finished, played-out game")
        return self.state.to_record()


def _illegal_reason(action: int, obs: Any) -> str:
    """Why ``action`` is not a legal move for the observing seat now (words for a person)."""
    text = action_to_string(action)
    legal = obs.legal_actions
    if action < 32:
        if obs.phase not in ("play", "discard"):
            return f"{text} cannot be played now: the phase is {obs.phase}"
        if not obs.hand.mask >> action & 1:
            return f"you do not hold {text}"
        if obs.phase == "play" and obs.current_trick:
            ok = " ".join(card_name(a) for a in legal if a < 32)
            return f"{text} does not follow the led {card_name(obs.current_trick[0])}; you can play {ok}"
        return f"{text} cannot be played now"
    if BID_BASE <= action < PASS:
        bids = [a for a in legal if BID_BASE <= a < PASS]
        if bids:
            return f"{text} is not a legal bid now: the lowest bid you can name is {action_to_string(bids[0])}"
    if DECLARE_BASE <= action < KONTRA and obs.phase == "declare":
        c = Contract.parse(text)
        return (f"{text} ({c.describe()}) cannot be declared now (after a pickup no hand game or "
                "announcement; a null game below the bid is not declarable)")
    shown = " ".join(action_to_string(a) for a in legal[:12]) + (" ..." if len(legal) > 12 else "")
    return f"{text!r} is not a legal move now (phase {obs.phase}); legal: {shown}"


# ----------------------------------------------------------------------------- presenting


def _who(view: dict[str, Any], seat: int) -> str:
    return str(view["names"][seat])


def _event_text(view: dict[str, Any], ev: dict[str, Any], deck: str) -> str:
    who = _who(view, ev["seat"])
    you = who == "You"
    k = ev["kind"]
    if k == "bid":
        return f"{who} bid{'' if you else 's'} {ev['bid']}"
    if k == "hold":
        return f"{who} hold{'' if you else 's'} {ev['bid']} (yes)"
    if k == "pass":
        if ev["phase"] == "kontra":
            return f"{who} {'say' if you else 'says'} nothing"
        return f"{who} pass{'' if you else 'es'}"
    if k == "pickup":
        return f"{who} pick{'' if you else 's'} up the skat"
    if k == "hand":
        return f"{who} play{'' if you else 's'} hand"
    if k == "discard":
        if "card" in ev:
            return f"You discard {card_label(ev['card'], deck)}"
        return f"{who} discards a card"
    if k == "declare":
        return f"{who} declare{'' if you else 's'} {contract_label(ev['contract'], deck)}"
    if k == "card":
        text = f"{who} play{'' if you else 's'} {card_label(ev['card'], deck)}"
        if "trick_won_by" in ev:
            text += f"; the trick ({ev['trick_points']} points) goes to {_who(view, ev['trick_won_by'])}"
        return text
    if k in ("kontra", "re"):
        return f"{who} say{'' if you else 's'} {k.capitalize()}"
    if k == "error":
        return deck_text(ev["text"], deck)
    return f"{who}: {k}"  # pragma: no cover


def _choices(view: dict[str, Any], deck: str) -> list[dict[str, Any]]:
    """The person's non-card moves with their labels, grouped for the buttons."""
    out = []
    for t in view["legal"]:
        a = string_to_action(t)
        if a < 32:
            continue
        if BID_BASE <= a < PASS:
            out.append({"action": t, "kind": "bid", "label": t})
        elif a == PASS:
            label = "Say nothing" if view["phase"] == "kontra" else "Pass"
            out.append({"action": t, "kind": "pass", "label": label})
        elif a == HOLD:
            out.append({"action": t, "kind": "hold", "label": f"Hold {view['bid']}"})
        elif a == PICKUP:
            out.append({"action": t, "kind": "pickup", "label": "Pick up the skat"})
        elif a == HAND:
            out.append({"action": t, "kind": "hand", "label": "Play hand"})
        elif DECLARE_BASE <= a < KONTRA:
            c = Contract.parse(t)
            level = ("ouvert" if c.ouvert else "schwarz" if c.schwarz_announced else
                     "schneider" if c.schneider_announced else "hand" if c.hand else "plain")
            out.append({"action": t, "kind": "declare", "label": contract_label(c, deck), "game": c.game,
                        "game_label": game_label(c.game, deck), "level": level})
        elif a in (KONTRA, RE):
            out.append({"action": t, "kind": t, "label": t.capitalize()})
    return out


def present(view: dict[str, Any], deck: str) -> dict[str, Any]:
    """The snapshot as the browser gets it: the same fields, plus the words for ``deck``
    (card and contract names, the events as sentences, the moves as labelled choices)."""
    check_deck(deck)
    out = dict(view)
    out["deck"] = deck
    out["legal_cards"] = [t for t in view["legal"] if string_to_action(t) < 32]
    out["choices"] = _choices(view, deck)
    out["log"] = [_event_text(view, e, deck) for e in view["events"]]
    out["contract_label"] = contract_label(view["contract"], deck) if view["contract"] else None
    out["game_label"] = game_label(view["game_type"], deck) if view["game_type"] is not None else None
    if view["result"] is not None:
        res = dict(view["result"])
        res["explanation"] = deck_text(res["explanation"], deck)
        res["contract_label"] = contract_label(res["contract"] if res["declarer"] is not None or res["passed_in"]
                                               else "R", deck)
        out["result"] = res
    return out
