"""The game loop: agents at a table play one deal through the state API.

:func:`play_game` deals, calls each agent's ``reset(deal_id, seat, rng)`` with the seat's
stream ``skatsim.bits.seat_stream(deal_seed, seat)``, then loops: the observation of the
seat to move -> ``agent.act`` -> validation -> ``apply_action`` -> every agent's
``observe(seat, action)`` (the declarer's discards shown to the other seats as ``-1``).
Agents only ever see ``SkatState.observation(seat)``. :class:`Table` is the same loop one
decision at a time (the shared agent test and the tournament runner use it); :func:`play`
also returns the decision time per seat.

Misbehaving agents
------------------
By default an agent that raises or returns an illegal action stops the game with
:class:`AgentError` / :class:`IllegalActionError`. With ``on_error="forfeit"`` (what
tournaments use) the error is recorded (:attr:`PlayedGame.errors`) and the game gets a
rules-based outcome instead, as for a rule violation under ISkO 4.1.4/4.1.5 (the guilty
side loses, at the simple level). ``time_limit=`` seconds per decision makes a decision
that takes longer an error of the same kind (:class:`TimeLimitError`; on POSIX the agent
is interrupted when it runs in the main thread, otherwise its late answer is discarded).
The limit counts the agent's own CPU time (:func:`agent_clock`: neither the machine's load
nor the table's work, garbage collection included, counts; resolution about 1 µs; an
interrupt arrives within a kernel tick, 4-10 ms, of the limit, see :class:`_deadline`), and
so do the decision times the table reports. The
outcome (:func:`forfeit_result`):

- **bidding** and **Kontra/Re**: the offender is treated as having passed (said nothing)
  and the game goes on; if it errs again later, the rules below apply then;
- **declarer**, after the declaration (Kontra/Re excepted, card play): the game is lost at
  its declared value at the simple level, settled as if he had taken 60 card points and
  one trick (the announced levels count, schneider/schwarz against him do not; null:
  lost), Kontra/Re doubling as said;
- **declarer**, before declaring (the skat decision, the discard, the declaration): the
  game is lost at the bid: recorded as the cheapest suit or grand game (hand when he did
  not pick up) whose value with his matadors reaches the bid (the lowest base value on a
  tie), or, when none does, the most valuable one, charged as overbid (ISkO 3.4.2 / 4.1.4);
- **defender** (card play): the declarer wins at the simple level of his contract, settled
  as if he had just reached his goal (61 card points; 90 with schneider announced; every
  trick with schwarz announced or ouvert; null: no trick). An overbid declarer still loses:
  the value of his game is below his bid whatever the defenders did;
- **Ramsch** card play: the offender alone loses, charged as if it had taken every card
  (-120, Seeger-Fabian -120), the others score 0.

The trick points and tricks of the row are those taken until the error (the declarer's
points with the skat); ``won``, the levels, the value and the scores follow the rules above.

>>> from agents import RandomAgent
>>> g = play([RandomAgent(), RandomAgent(), RandomAgent()], seed=5)
>>> g.state.is_terminal(), sum(g.decisions) == len(g.state.history())
(True, True)
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from skatsim._random import SeedLike, to_seed
from skatsim.actions import PASS, action_to_string
from skatsim.bits import mix64, seat_stream
from skatsim.deal import SEED_MASK, Deal
from skatsim.options import ISKO, SkatRules
from skatsim.scoring import GameResult
from skatsim.state import SkatState

from .base import AgentSpec, make_agent

__all__ = ["play_game", "play", "PlayedGame", "Table", "AgentError", "IllegalActionError", "TimeLimitError",
           "HIDDEN", "deal_seed_of_deal", "forfeit_result", "ON_ERROR", "agent_clock", "error_traceback", "decide",
           "check_action"]

#: What :class:`Table` does when an agent fails: raise, or record it and settle the game.
ON_ERROR = ("raise", "forfeit")

#: What the other seats observe of a declarer's discard.
HIDDEN = -1

_DISCARD_PHASE = "discard"


class AgentError(RuntimeError):
    """An agent failed at the table: it raised, or returned an illegal action.

    Attributes name the agent, the seat, the phase and (for an illegal action) the action,
    so a tournament can record the error against the agent.
    """

    def __init__(self, message: str, *, agent: str, seat: int, phase: str, action: Any = None,
                 decision_time: float | None = None) -> None:
        super().__init__(message)
        self.agent = agent
        self.seat = seat
        self.phase = phase
        self.action = action
        self.decision_time = decision_time  # the time the failed decision counts (None: not counted)


class IllegalActionError(AgentError, ValueError):
    """The agent returned an action that is not legal for its seat now."""


class TimeLimitError(AgentError, TimeoutError):
    """The agent took longer than the table's per-decision ``time_limit``."""


class _Alarm(BaseException):
    """Raised by the timer signal handler inside a slow agent (a BaseException, so an agent's
    ``except Exception`` cannot swallow it)."""


def agent_clock() -> float:
    """The clock of per-decision time limits and decision times: this process's CPU time
    (:func:`time.process_time`, user + system, every thread; resolution about 1 µs here), so
    neither the machine's load nor time spent waiting counts, only the agent's own work."""
    return time.process_time()


class _deadline:
    """Interrupt the ``with`` body once it has used ``seconds`` of CPU time (POSIX, main
    thread only; elsewhere a no-op and the table only checks the time afterwards).

    The CPU timer (``ITIMER_PROF``) is sampled at the kernel's tick, so an interrupt comes
    within about one tick (4-10 ms) of the limit; it repeats every millisecond until the
    body stops, in case the first one lands where Python cannot raise it (a ``__del__``).
    A wall-clock backstop (``ITIMER_REAL``, 10 x the limit + 1 s) stops an agent that
    waits instead of computing. Interrupts never escape the ``with`` block: after it they
    are ignored, and inside it the ones Python reports as unraisable are silenced.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.armed = False
        self.active = False

    def __enter__(self) -> "_deadline":
        import signal
        import sys
        import threading

        if (self.seconds is not None and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()):
            def on_timer(signum: int, frame: Any) -> None:
                if self.active:
                    raise _Alarm()

            def hook(unraisable: Any) -> None:
                if not isinstance(unraisable.exc_value, _Alarm):
                    self._old_hook(unraisable)

            self._old = (signal.signal(signal.SIGPROF, on_timer), signal.signal(signal.SIGALRM, on_timer))
            self._old_hook = sys.unraisablehook
            sys.unraisablehook = hook
            self.active = self.armed = True
            signal.setitimer(signal.ITIMER_PROF, self.seconds, 0.001)
            signal.setitimer(signal.ITIMER_REAL, 10 * self.seconds + 1.0, 0.001)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.active = False
        if self.armed:
            import signal
            import sys

            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGPROF, self._old[0])
            signal.signal(signal.SIGALRM, self._old[1])
            sys.unraisablehook = self._old_hook
            self.armed = False


def deal_seed_of_deal(deal: Deal) -> int:
    """A deal seed derived from the cards of an explicit deal (agents' streams for
    ``play_game(..., deal=...)`` without ``rng``): deterministic for the same cards."""
    h0, h1, h2, sk = deal.masks()
    z = mix64(h0 | h1 << 32)
    z = mix64(z ^ (h2 | sk << 32))
    return z >> 1


def _agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", type(agent).__name__))


def _resolve_agents(agents: Sequence[Any]) -> list[Any]:
    if isinstance(agents, (str, AgentSpec)) or len(agents) != 3:
        raise ValueError(f"a table needs 3 agents (one per seat), got {agents!r}")
    out = [make_agent(a) if isinstance(a, (str, AgentSpec)) else a for a in agents]
    ids = [id(a) for a in out]
    if len(set(ids)) < 3:
        raise ValueError("pass a distinct agent object for each seat (an agent keeps per-seat state "
                         "between reset() and the end of the deal); names or specs make new agents")
    for s, a in enumerate(out):
        if not callable(getattr(a, "act", None)):
            raise TypeError(f"agent for seat {s} ({a!r}) has no act(obs) method")
    return out


def _illegal_text(name: str, seat: int, phase: str, action: Any, legal: Sequence[int]) -> str:
    """What an agent returned that the table cannot use, and what it should have returned."""
    shown = " ".join(action_to_string(a) for a in legal)
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return (f"agent {name!r} (seat {seat}) returned {action!r} ({type(action).__name__}) in phase {phase}: "
                f"act() must return an action id (an int, one of obs.legal_actions); legal: {shown}")
    try:
        text = repr(action_to_string(int(action)))
    except (ValueError, TypeError, IndexError):
        text = "not an action id"
    return (f"agent {name!r} (seat {seat}) returned the illegal action {int(action)} ({text}) in phase {phase}; "
            f"legal: {shown}")


def decide(agent: Any, obs: Any, seat: int, phase: str, legal: Sequence[int],
           time_limit: float | None = None) -> tuple[int, float]:
    """One decision of ``agent`` for ``seat`` on ``obs``: ``(action, seconds of CPU time)``.

    The action is checked against ``legal`` (the state's legal actions, never the agent's
    copy of the list). Raises :class:`AgentError` when the agent raises,
    :class:`TimeLimitError` past ``time_limit`` seconds (:func:`agent_clock`) and
    :class:`IllegalActionError` for an action not in ``legal``; the error's
    ``decision_time`` is the time the decision counts (``None`` when the agent raised).
    :class:`Table` and the vectorised driver (:mod:`agents.arena.vecplay`) both decide through it.
    """
    name = _agent_name(agent)
    collect = gc.isenabled()
    gc.disable()  # the interpreter's garbage collection is the table's time, not the agent's
    t0 = agent_clock()
    try:
        with _deadline(time_limit):
            action = agent.act(obs)
    except _Alarm:
        dt = agent_clock() - t0
        raise TimeLimitError(f"agent {name!r} (seat {seat}) exceeded the time limit of {time_limit:g} s in phase "
                             f"{phase} (interrupted after {dt:.3f} s of CPU time)", agent=name, seat=seat,
                             phase=phase, decision_time=dt) from None
    except Exception as e:
        raise AgentError(f"agent {name!r} (seat {seat}) raised {type(e).__name__} in phase "
                         f"{phase}: {e}", agent=name, seat=seat, phase=phase) from e
    finally:
        if collect:
            gc.enable()
    dt = agent_clock() - t0
    if time_limit is not None and dt > time_limit:
        raise TimeLimitError(f"agent {name!r} (seat {seat}) exceeded the time limit of {time_limit:g} s in phase "
                             f"{phase} ({dt:.3f} s of CPU time)", agent=name, seat=seat, phase=phase,
                             decision_time=dt)
    return check_action(name, action, seat, phase, legal, dt), dt


def check_action(name: str, action: Any, seat: int, phase: str, legal: Sequence[int], dt: float | None = None) -> int:
    """``action`` as an int if it is in ``legal``, else :class:`IllegalActionError` (naming
    agent ``name``, the seat, the phase and the legal actions; ``dt``: the decision's time)."""
    ok = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
    if ok:
        action = int(action)
        ok = action in legal
    if not ok:
        raise IllegalActionError(_illegal_text(name, seat, phase, action, legal), agent=name, seat=seat, phase=phase,
                                 action=action, decision_time=dt)
    return action


class Table:
    """Three agents and one game, stepped one decision at a time.

    ``Table(agents, state, deal_seed, deal_id)`` resets the agents; :meth:`step` asks the
    seat to move, validates and applies its action; :meth:`run` plays to the end.
    ``decision_time`` and ``decisions`` accumulate per seat.

    ``time_limit``: seconds per decision (``None``: no limit). ``on_error``: ``"raise"``
    (an :class:`AgentError` leaves the table) or ``"forfeit"`` (recorded in ``errors``, and
    the game is settled by the rules of the module docstring; ``result`` is then the
    settlement, ``over`` tells whether the game has ended).
    """

    def __init__(self, agents: Sequence[Any], state: SkatState, deal_seed: int, deal_id: int = 0,
                 on_action: Callable[[SkatState, int, int], None] | None = None, *,
                 time_limit: float | None = None, on_error: str = "raise") -> None:
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, got {on_error!r}")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
        self.time_limit = None if time_limit is None else float(time_limit)
        self.on_error = on_error
        self.errors: list[AgentError] = []
        self.forfeit: GameResult | None = None
        self.agents = _resolve_agents(agents)
        self.state = state
        self.deal_seed = int(deal_seed)
        self.deal_id = int(deal_id)
        self.on_action = on_action
        self.decision_time = [0.0, 0.0, 0.0]
        self.decisions = [0, 0, 0]
        self._observers = [getattr(a, "observe", None) for a in self.agents]
        for seat, a in enumerate(self.agents):
            reset = getattr(a, "reset", None)
            if reset is not None:
                reset(self.deal_id, seat, seat_stream(self.deal_seed, seat))

    @property
    def over(self) -> bool:
        """The game has ended: played out, or settled after an agent's error."""
        return self.forfeit is not None or self.state.is_terminal()

    @property
    def result(self) -> GameResult:
        """The game's settlement (the forfeit outcome after an agent's error)."""
        return self.forfeit if self.forfeit is not None else self.state.result

    def step(self) -> tuple[int, int]:
        """One decision: ``(seat, action)``. Raises :class:`AgentError` when the agent fails
        (``on_error="raise"``); with ``"forfeit"`` the error is recorded and the outcome
        applied: ``action`` is then the substituted pass, or -1 when the game ended."""
        if self.forfeit is not None:
            raise ValueError("the game is over (settled after an agent's error)")
        try:
            return self._step()
        except AgentError as e:
            if self.on_error == "raise":
                raise
            return self._after_error(e)

    def _after_error(self, e: AgentError) -> tuple[int, int]:
        self.errors.append(e)
        state = self.state
        if e.phase in ("bidding", "kontra") and PASS in state.legal_actions():
            self._apply(e.seat, PASS, e.phase)
            return e.seat, PASS
        self.forfeit = forfeit_result(state, e.seat)
        return e.seat, -1

    def _step(self) -> tuple[int, int]:
        state = self.state
        seat = state.current_player()
        if seat < 0:
            raise ValueError("the game is over")
        phase = state.phase
        try:
            action, dt = decide(self.agents[seat], state.observation(seat), seat, phase, state.legal_actions(),
                                self.time_limit)
        except AgentError as e:
            if e.decision_time is not None:
                self.decision_time[seat] += e.decision_time
                self.decisions[seat] += 1
            raise
        self.decision_time[seat] += dt
        self.decisions[seat] += 1
        self._apply(seat, action, phase)
        return seat, action

    def _apply(self, seat: int, action: int, phase: str) -> None:
        state = self.state
        state.apply_action(action)
        for s, obs_fn in enumerate(self._observers):
            if obs_fn is not None:
                obs_fn(seat, HIDDEN if phase == _DISCARD_PHASE and s != seat else action)
        if self.on_action is not None:
            self.on_action(state, seat, action)

    def run(self) -> "PlayedGame":
        while not self.over:
            self.step()
        t0, t1, t2 = self.decision_time
        n0, n1, n2 = self.decisions
        return PlayedGame(self.state, (t0, t1, t2), (n0, n1, n2), self.deal_seed,
                          self.deal_id, tuple(self.errors), self.forfeit)


@dataclass(frozen=True)
class PlayedGame:
    """A finished game with the time each seat spent deciding (seconds) and its decisions.

    ``errors``: the agents' errors (``on_error="forfeit"``); ``forfeit``: the settlement
    after an error that ended the game (``None``: played out; :attr:`result` is the
    game's settlement either way).
    """

    state: SkatState
    decision_time: tuple[float, float, float]
    decisions: tuple[int, int, int]
    deal_seed: int
    deal_id: int
    errors: tuple[AgentError, ...] = ()
    forfeit: GameResult | None = None

    @property
    def result(self) -> GameResult:
        return self.forfeit if self.forfeit is not None else self.state.result

    @property
    def error_seats(self) -> int:
        """Bit ``s`` set when seat ``s``'s agent erred."""
        m = 0
        for e in self.errors:
            m |= 1 << e.seat
        return m

    @property
    def error_text(self) -> str:
        """The errors, ``"; "``-separated (empty: none)."""
        return "; ".join(str(e) for e in self.errors)

    @property
    def error_traceback(self) -> str:
        """The agents' own tracebacks of the errors (:func:`error_traceback`; empty: none)."""
        return error_traceback(self.errors)


def error_traceback(errors: Sequence[AgentError]) -> str:
    """The errors with the agents' own tracebacks (what the agent raised, where): the log of
    a run (empty: none)."""
    import traceback

    parts = []
    for e in errors:
        cause = e.__cause__
        if cause is not None:
            parts.append(f"{e}\n" + "".join(traceback.format_exception(type(cause), cause, cause.__traceback__)))
        else:
            parts.append(str(e))
    return "\n".join(parts)


def forfeit_result(state: SkatState, offender: int) -> GameResult:
    """The settlement of a game that ends because ``offender``'s agent failed (raised,
    returned an illegal action or ran out of time), by the rules of the module docstring.

    >>> from skatsim import SkatState
    >>> s = SkatState.new_game(seed=3)
    >>> for a in ("18", "yes", "pass", "pass", "hand", "GH"):   # seat 0 plays grand hand
    ...     s.apply_action(s.string_to_action(a))
    >>> lost = forfeit_result(s, 0)     # the declarer fails: lost at the simple level
    >>> lost.won, lost.multiplier * 24 == lost.game_value, lost.list_score == -2 * lost.game_value
    (False, True, True)
    >>> won = forfeit_result(s, 1)      # a defender fails: the declarer wins at the simple level
    >>> won.won, won.game_value == lost.game_value, won.seeger_fabian[0] == won.game_value + 50
    (True, True, True)
    """
    from skatsim.cards import card_points
    from skatsim.layout import N_RESULT, R_DECLARER, R_GAME, R_PTS0, R_SCORE0, R_SF0
    from skatsim.rules import GRAND, NULL, RAMSCH
    from skatsim.scoring import matadors_of, settle_into
    from skatsim.solver import target_for
    from skatsim.valuation import HAND, game_value

    r = np.zeros(N_RESULT, dtype=np.int64)
    pts = state.points()
    tricks = state.tricks_won()
    for s in range(3):
        r[R_PTS0 + s] = pts[s]
    g = state.game_type
    d = state.declarer
    if g == RAMSCH:  # the offender alone loses, as if it had taken every card
        r[R_DECLARER], r[R_GAME] = -1, RAMSCH
        r[R_SCORE0 + offender] = -120
        r[R_SF0 + offender] = -120
        return GameResult.from_result_fields(r, state.rules)
    if d is None:  # nobody declared (a bidding error with no pass to substitute): no game
        r[R_DECLARER], r[R_GAME] = -1, -1
        return GameResult.from_result_fields(r, state.rules, card_points=False)
    bid = state.bid
    picked = state.skat_picked_up
    kontra = state.kontra_level
    cards = state.deal.hands[d].mask | state.deal.skat.mask
    if g is None:  # before the declaration: lost at the bid, the cheapest game reaching it
        flags = HAND if state.phase == "declare" and not picked else 0
        options = []
        for game in range(GRAND + 1):
            mat = int(matadors_of(cards, game))
            options.append((int(game_value(game, flags, mat)), game, mat))
        reach = [o for o in options if o[0] >= bid]
        _, g, mat = min(reach) if reach else max(options, key=lambda o: (o[0], -o[1]))
        lp, lt = 60, 1
    else:
        contract = state.contract
        assert contract is not None  # declared: past the declaration
        flags = contract.flags
        mat = int(matadors_of(cards, g))
        if offender == d:
            lp, lt = 60, 1
        else:
            goal = target_for(contract)
            lp, lt = {61: (61, 5), 90: (90, 5), "schwarz": (120, 10), "null": (0, 0)}[goal]
        if g == NULL:
            lt = 1 if offender == d else 0
    settle_into(r, d, g, flags, bid, int(picked), kontra, mat, pts[d] + card_points(state.skat_mask()), tricks[d],
                lp, lt, False)
    return GameResult.from_result_fields(r, state.rules)


def _setup(seed: SeedLike, deal: Deal | None, rules: SkatRules, rng: SeedLike) -> tuple[SkatState, int]:
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    if deal is not None:
        if seed is not None:
            raise ValueError("pass either a deal or a seed, not both")
        state = SkatState.new_game(deal=deal, rules=rules)
        ds = deal_seed_of_deal(deal) if rng is None else to_seed(rng, name="rng") & SEED_MASK
        return state, ds
    if seed is None:
        seed = to_seed(rng, name="rng")  # None: fresh entropy
    elif rng is not None:
        raise ValueError("pass either a seed or an rng for the deal, not both")
    ds = to_seed(seed) & SEED_MASK
    return SkatState.new_game(seed=ds, rules=rules), ds


def play(agents: Sequence[Any], seed: SeedLike = None, *, deal: Deal | None = None, rules: SkatRules = ISKO,
         rng: SeedLike = None, deal_id: int = 0,
         on_action: Callable[[SkatState, int, int], None] | None = None,
         time_limit: float | None = None, on_error: str = "raise") -> PlayedGame:
    """Like :func:`play_game`, returning a :class:`PlayedGame` (state, timings, errors and
    the settlement); ``time_limit`` and ``on_error`` as for :class:`Table`."""
    state, ds = _setup(seed, deal, rules, rng)
    return Table(agents, state, ds, deal_id, on_action, time_limit=time_limit, on_error=on_error).run()


def play_game(agents: Sequence[Any], seed: SeedLike = None, *, deal: Deal | None = None, rules: SkatRules = ISKO,
              rng: SeedLike = None, deal_id: int = 0,
              on_action: Callable[[SkatState, int, int], None] | None = None) -> SkatState:
    """Play one deal to the end with three agents (seat 0 forehand, 1 middle, 2 rear).

    Args:
        agents: three agents (objects with ``act(obs)``; one object per seat), or registry
            names / spec texts / :class:`AgentSpec` (a new agent is made for each).
        seed: the deal seed (any int; the same cards as ``skatsim.deal(seed)`` and a
            simulation row's ``deal_seed``); or a Generator / None (drawn, as ``rng``).
        deal: an explicit :class:`~skatsim.Deal` instead of ``seed``.
        rules: :class:`~skatsim.SkatRules`.
        rng: with ``deal``: the seed of the agents' streams (default: derived from the
            cards, :func:`deal_seed_of_deal`); without: draws the deal seed.
        deal_id: passed to each agent's ``reset``.
        on_action: ``on_action(state, seat, action)`` after each action.

    Each seat's agent gets the stream ``seat_stream(deal_seed, seat)`` in ``reset``: a
    game of random agents equals the batch engine's random game of ``deal_seed``. An
    agent that raises or returns an illegal action stops the game with
    :class:`AgentError` / :class:`IllegalActionError` (naming agent, seat, phase, action).
    """
    return play(agents, seed, deal=deal, rules=rules, rng=rng, deal_id=deal_id, on_action=on_action).state
