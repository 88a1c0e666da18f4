"""The seating contract: one agent in one seat of one deal, as every game loop keeps it.

:class:`agents.arena.play.Table` (one game on a :class:`~skatsim.SkatState`), the board
runner of tournaments (:mod:`agents.arena.vecplay`, many games on a
:class:`~skatsim.vec.VecEnv`) and the Gymnasium wrapper (:mod:`agents.learn.envs.gymnasium`)
seat Python agents through :class:`Seat`, so they keep one contract:

- **reset**: ``agent.reset(deal_id, seat, seat_stream(deal_seed, seat))`` when it sits down
  (at the deal, or later with the actions so far shown to it);
- **observe**: every action at the table goes to ``agent.observe(seat, action)``, the
  declarer's discards as :data:`HIDDEN` to the other seats;
- **act**: ``agent.act(observation)`` is timed on :func:`agent_clock` (the time numba
  spends compiling or loading a kernel on its first call in the process not counted), limited
  to ``time_limit`` seconds and checked against the state's legal actions (:func:`decide`);
- **the failure rule**: an agent that raises, returns an illegal action or runs out of time
  has passed when it failed in the bidding or at Kontra/Re (:func:`failure_action`);
  anywhere else the game ends, settled by the core's forfeit rule
  (:func:`skatsim.kernels.game.settle_forfeit`).

:class:`SlotSeats` is the same for the game in one slot of a :class:`~skatsim.vec.VecEnv`:
its seats see the environment's observations and history.

>>> from agents import RandomAgent
>>> s = Seat(0, deal_id=0, deal_seed=7)
>>> agent = s.sit(RandomAgent())
>>> s.observe(1, 40, PH_DISCARD), s.decisions      # another seat's discard reaches it as HIDDEN
(None, 0)
>>> failure_action(AgentError("x", agent="a", seat=0, phase="play"), pass_legal=False)
-1
"""

from __future__ import annotations

import gc
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np
from numba.core import event as _event

from skatsim.actions import PASS, action_to_string
from skatsim.bits import seat_stream
from skatsim.layout import F_PHASE, PH_DISCARD, PHASE_NAMES

if TYPE_CHECKING:
    from skatsim.vec import VecEnv

__all__ = ["Seat", "SlotSeats", "HIDDEN", "FORFEIT", "ON_ERROR", "AgentError", "IllegalActionError",
           "TimeLimitError", "DEFAULT_TIME_LIMIT", "time_limit_of", "agent_clock", "backstop", "agent_name", "decide",
           "check_action", "failure_action", "error_traceback", "error_seats"]

#: What a loop does when an agent fails: raise, or record it and settle the game by rule.
ON_ERROR = ("raise", "forfeit")

#: What the other seats observe of a declarer's discard.
HIDDEN = -1

#: :func:`failure_action`'s answer when the game ends by the forfeit rule.
FORFEIT = -1

#: Seconds of its own CPU time an agent may take per decision in a tournament or league
#: unless the run says otherwise (``time_limit=0`` or ``None``, ``--time-limit 0``: no
#: limit). An agent over it is interrupted and loses the game by the failure rule; one that
#: waits instead of computing is stopped after :func:`backstop` seconds; the time numba spends
#: compiling (or loading) a kernel on its first call in a process is not counted (:func:`decide`).
DEFAULT_TIME_LIMIT = 30.0


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
    ``except Exception`` cannot swallow it); ``args[0]`` is True for the wall-clock backstop."""


def agent_clock() -> float:
    """The clock of per-decision time limits and decision times: this process's CPU time
    (:func:`time.process_time`, user + system, every thread; resolution about 1 µs here), so
    neither the machine's load nor time spent waiting counts, only the agent's own work."""
    return time.process_time()


def time_limit_of(time_limit: object) -> float | None:
    """A per-decision limit: seconds > 0 as a float, ``None`` for no limit (given as 0 or
    ``None``), else ``ValueError``.

    >>> time_limit_of(DEFAULT_TIME_LIMIT), time_limit_of(0), time_limit_of(None)
    (30.0, None, None)
    """
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not 0 <= time_limit < float("inf")):
        raise ValueError(f"time_limit must be a number of seconds >= 0 (0 or None: no limit), got {time_limit!r}")
    return float(time_limit) if time_limit else None


def backstop(seconds: float) -> float:
    """The wall-clock seconds an agent may wait (not compute) in one decision under a CPU-time
    limit of ``seconds``: 10 x the limit + 1 s.

    >>> backstop(30.0)
    301.0
    """
    return 10 * seconds + 1.0


class _CompilerPause(_event.Listener):
    """Numba's compiler lock, seen from a decision: while the deciding thread holds it (a
    kernel compiled, or loaded from the on-disk cache, on its first call in this process),
    the decision's timers are paused and the time is not counted."""

    def __init__(self, clock: "_deadline") -> None:
        self.clock = clock
        self.thread = threading.get_ident()
        self.depth = 0
        self.t0 = 0.0

    def on_start(self, event: Any) -> None:
        if threading.get_ident() != self.thread:
            return
        self.depth += 1
        if self.depth == 1:
            self.t0 = agent_clock()
            self.clock.pause()

    def on_end(self, event: Any) -> None:
        if threading.get_ident() != self.thread or self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0:
            self.clock.excluded += agent_clock() - self.t0
            self.clock.resume()


class _deadline:
    """A decision's clock: the CPU time of the ``with`` body (:meth:`used`) less the time it
    spent in numba's compiler, and, with ``seconds``, an interrupt once that is over ``seconds``
    (POSIX, main thread only; elsewhere the table only checks the time afterwards).

    The CPU timer (``ITIMER_PROF``) is sampled at the kernel's tick; when it fires the handler
    reads the clock and raises only past the limit, and it repeats every millisecond until the
    body stops (in case an interrupt lands where Python cannot raise it, a ``__del__``). A
    wall-clock backstop (``ITIMER_REAL``, :func:`backstop`) stops an agent that waits instead
    of computing. Both are paused while numba compiles (a cold cache: 30-300 CPU-s for the
    search agents' kernels on their first decision in a process), so a default limit never
    forfeits a game for a compile. Interrupts never escape the ``with`` block: after it they
    are ignored, and inside it the ones Python reports as unraisable are silenced.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.armed = False
        self.active = False
        self.excluded = 0.0  # CPU seconds in numba's compiler
        self.t0 = 0.0
        self.t1: float | None = None  # the clock at the end of the body
        self._paused: tuple[float, float] | None = None
        self._listener: _CompilerPause | None = None

    def used(self) -> float:
        """CPU seconds counted (so far, or in all once the body is over), compiling excluded."""
        return (agent_clock() if self.t1 is None else self.t1) - self.t0 - self.excluded

    def __enter__(self) -> "_deadline":
        self._listener = _CompilerPause(self)
        _event.register("numba:compiler_lock", self._listener)
        if (self.seconds is not None and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()):
            def on_timer(signum: int, frame: Any) -> None:
                if not self.active:
                    return
                if signum == signal.SIGALRM:
                    raise _Alarm(True)
                if self.used() >= self.seconds:  # type: ignore[operator]
                    raise _Alarm(False)

            def hook(unraisable: Any) -> None:
                if not isinstance(unraisable.exc_value, _Alarm):
                    self._old_hook(unraisable)

            self._old = (signal.signal(signal.SIGPROF, on_timer), signal.signal(signal.SIGALRM, on_timer))
            self._old_hook = sys.unraisablehook
            sys.unraisablehook = hook
            self.active = self.armed = True
            self.t0 = agent_clock()
            signal.setitimer(signal.ITIMER_PROF, self.seconds, 0.001)
            signal.setitimer(signal.ITIMER_REAL, backstop(self.seconds), 0.001)
        else:
            self.t0 = agent_clock()
        return self

    def pause(self) -> None:
        """Stop the timers (numba compiles)."""
        if self.armed and self.active:
            self.active = False
            prof = signal.setitimer(signal.ITIMER_PROF, 0)[0]
            real = signal.setitimer(signal.ITIMER_REAL, 0)[0]
            self._paused = (prof or 0.001, real or 0.001)

    def resume(self) -> None:
        """Restart the timers where :meth:`pause` stopped them."""
        if self.armed and self._paused is not None:
            prof, real = self._paused
            self._paused = None
            self.active = True
            signal.setitimer(signal.ITIMER_PROF, prof, 0.001)
            signal.setitimer(signal.ITIMER_REAL, real, 0.001)

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Stop the clock: no interrupt after it, the timers off and the handlers restored.
        Idempotent, and safe against the timers themselves: an interrupt that lands in it
        (the repeating tick, before ``active`` is off) is dropped and the work done again, so
        no interrupt can escape to whatever runs after the decision."""
        while True:
            try:
                self._close()
                return
            except _Alarm:
                continue

    def _close(self) -> None:
        self.active = False
        if self.t1 is None:
            self.t1 = agent_clock()
        if self._listener is not None:
            _event.unregister("numba:compiler_lock", self._listener)
            self._listener = None
        if self.armed:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGPROF, self._old[0])
            signal.signal(signal.SIGALRM, self._old[1])
            sys.unraisablehook = self._old_hook
            self.armed = False


def agent_name(agent: Any) -> str:
    """The name an agent goes by in messages and rows (its ``name``, else its class name)."""
    return str(getattr(agent, "name", type(agent).__name__))


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
    :class:`TimeLimitError` past ``time_limit`` seconds of CPU time (:func:`agent_clock`, less
    the time numba spent compiling: a kernel's first call in a process never forfeits a game)
    or of :func:`backstop` seconds of waiting, and
    :class:`IllegalActionError` for an action not in ``legal``; the error's
    ``decision_time`` is the time the decision counts (``None`` when the agent raised).
    :class:`Seat` decides through it.
    """
    name = agent_name(agent)
    collect = gc.isenabled()
    gc.disable()  # the interpreter's garbage collection is the table's time, not the agent's
    clock = _deadline(time_limit)
    try:
        try:
            with clock:
                action = agent.act(obs)
        finally:  # the clock is stopped whatever happened: an interrupt in __exit__ must not leave it running
            clock.close()
    except _Alarm as alarm:
        dt = clock.used()
        assert time_limit is not None
        why = (f"did not answer within {backstop(time_limit):g} s of waiting (10 x the time limit of {time_limit:g} s "
               f"+ 1 s; it used {dt:.3f} s of CPU time)" if alarm.args and alarm.args[0] else
               f"exceeded the time limit of {time_limit:g} s (interrupted after {dt:.3f} s of CPU time)")
        raise TimeLimitError(f"agent {name!r} (seat {seat}) {why} in phase {phase}", agent=name, seat=seat,
                             phase=phase, decision_time=dt) from None
    except Exception as e:
        raise AgentError(f"agent {name!r} (seat {seat}) raised {type(e).__name__} in phase "
                         f"{phase}: {e}", agent=name, seat=seat, phase=phase) from e
    finally:
        if collect:
            gc.enable()
    dt = clock.used()
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


def error_seats(errors: Sequence[AgentError]) -> int:
    """The seats that failed, as a mask: bit ``s`` set when seat ``s``'s agent erred."""
    m = 0
    for e in errors:
        m |= 1 << e.seat
    return m


def failure_action(error: AgentError, pass_legal: bool) -> int:
    """The failure rule: what stands for the action of the agent that failed with ``error``.

    In the bidding and at Kontra/Re a pass (the offender has said nothing), when a pass is
    legal (``pass_legal``); anywhere else :data:`FORFEIT`: the game ends and is settled by
    the forfeit rule (:func:`skatsim.kernels.game.settle_forfeit`). If the agent fails again
    later, the rule applies then.
    """
    return PASS if error.phase in ("bidding", "kontra") and pass_legal else FORFEIT


class Seat:
    """One seat of one deal: the agent sitting there, its reset, hooks, decisions and time.

    ``time`` (CPU seconds of the agent's decisions, :func:`agent_clock`) and ``decisions``
    accumulate; a failed decision counts when it has a ``decision_time`` (an illegal answer,
    the time limit), not when the agent raised.
    """

    __slots__ = ("seat", "deal_id", "deal_seed", "agent", "time", "decisions", "_hook")

    def __init__(self, seat: int, deal_id: int, deal_seed: int) -> None:
        self.seat = int(seat)
        self.deal_id = int(deal_id)
        self.deal_seed = int(deal_seed)
        self.agent: Any = None
        self.time = 0.0
        self.decisions = 0
        self._hook: Any = None

    def sit(self, agent: Any, history: Iterable[tuple[int, int, int]] = ()) -> Any:
        """Seat ``agent``: ``reset`` with the seat's stream, then ``observe`` the actions taken
        before it sat down (``history``: ``(seat, action, phase code)``). Returns the agent."""
        self.agent = agent
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(self.deal_id, self.seat, seat_stream(self.deal_seed, self.seat))
        self._hook = getattr(agent, "observe", None)
        for p, a, ph in history:
            self.observe(p, a, ph)
        return agent

    @property
    def observes(self) -> bool:
        """The agent has an ``observe`` hook."""
        return self._hook is not None

    def observe(self, player: int, action: int, phase: int) -> None:
        """Show the agent the ``action`` seat ``player`` took in ``phase`` (a ``PH_*`` code of
        :mod:`skatsim.layout`): a declarer's discard is :data:`HIDDEN` to the other seats."""
        if self._hook is not None:
            self._hook(player, HIDDEN if phase == PH_DISCARD and player != self.seat else action)

    def act(self, obs: Any, phase: str, legal: Sequence[int], time_limit: float | None = None) -> int:
        """The agent's checked action on ``obs`` (:func:`decide`), its time counted."""
        try:
            action, dt = decide(self.agent, obs, self.seat, phase, legal, time_limit)
        except AgentError as e:
            if e.decision_time is not None:
                self.time += e.decision_time
                self.decisions += 1
            raise
        self.time += dt
        self.decisions += 1
        return action


class SlotSeats:
    """The seats of the game in slot ``slot`` of a :class:`~skatsim.vec.VecEnv` whose agents
    decide outside the compiled step: they see the environment's observations, and its
    history reaches their hooks (:meth:`flush`) before each of their decisions.

    ``seats[s]`` is ``None`` for a seat the environment plays itself (a compiled policy);
    ``errors`` collects the agents' failures in order.
    """

    __slots__ = ("env", "slot", "seats", "seen", "errors")

    def __init__(self, env: "VecEnv", slot: int, seats: Sequence[bool] = (True, True, True)) -> None:
        self.env = env
        self.slot = int(slot)
        ds, did = int(env.deal_seed[slot]), int(env.deal_index[slot])
        self.seats: list[Seat | None] = [Seat(s, did, ds) if on else None for s, on in enumerate(seats)]
        self.seen = 0  # actions delivered to the hooks
        self.errors: list[AgentError] = []

    def seat(self, s: int) -> Seat:
        seat = self.seats[s]
        assert seat is not None, f"seat {s} is played by the environment"
        return seat

    def sit(self, s: int, agent: Any) -> Any:
        """Seat ``agent`` in seat ``s``, shown the actions delivered so far."""
        return self.seat(s).sit(agent, self.env.game_history(self.slot)[:self.seen])

    def flush(self) -> None:
        """Deliver the environment's actions since the last flush to the seated agents' hooks."""
        n = int(self.env.n_actions[self.slot])
        if n == self.seen:
            return
        watching = [s for s in self.seats if s is not None and s.observes]
        if watching:
            for p, a, ph in self.env.game_history(self.slot)[self.seen:n]:
                for s in watching:
                    s.observe(p, a, ph)
        self.seen = n

    def phase(self) -> str:
        """The name of the phase the game is in."""
        return PHASE_NAMES[int(self.env.state[self.slot, F_PHASE])]

    def legal(self) -> list[int]:
        return np.flatnonzero(self.env.legal_mask[self.slot]).tolist()

    def act(self, s: int, time_limit: float | None = None) -> int:
        """Seat ``s``'s checked action now (its hooks brought up to date first)."""
        self.flush()
        return self.seat(s).act(self.env.observation(self.slot, s), self.phase(), self.legal(), time_limit)

    def fail(self, error: AgentError) -> int:
        """Record ``error`` and apply the failure rule: ``PASS`` to play instead, or
        :data:`FORFEIT` (the caller ends the game with ``env.forfeit``)."""
        self.errors.append(error)
        return failure_action(error, bool(self.env.legal_mask[self.slot, PASS]))

    @property
    def error_seats(self) -> int:
        """Bit ``s`` set when seat ``s``'s agent failed."""
        return error_seats(self.errors)
