"""The AI seats of a browser game: agents that think outside the server's event loop.

The numba kernels the agents run (PIMC's open-hand solver, the rule-based policy) hold
Python's GIL while they compute, so an agent run in a thread would still stall every
other request. :class:`ProcessAgent` therefore keeps its agent in a child process of
its own (forked, so it starts at once with the server's compiled code) and talks to it
through a pipe: ``reset`` and the ``observe`` calls are queued and sent with the next
``act``, which waits for the answer at most ``time_limit`` seconds. An agent that takes
longer is stopped (its process killed) and :class:`AgentTimeout` is raised; the table
then settles the game by rule, as a tournament does (``agents.arena.play``, "Misbehaving
agents"). Where ``fork`` is missing, :class:`ThreadAgent` calls the agent in the calling
thread instead (the same protocol, no hard time limit).

>>> from agents import make_agent
>>> a = ProcessAgent(make_agent("random"), time_limit=10)
>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=1)
>>> a.reset(0, 1, 12345)
>>> a.act(s.observation(1)) in s.legal_actions()
True
>>> a.close()
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from typing import Any

__all__ = ["ProcessAgent", "ThreadAgent", "AgentTimeout", "make_seat_agent", "detach_from_server", "HAS_FORK"]

#: Can agents run in forked processes here?
HAS_FORK = "fork" in mp.get_all_start_methods()


class AgentTimeout(TimeoutError):
    """The agent did not answer within its time limit (its process was stopped)."""


def detach_from_server(parent: int | None = None, keep: tuple[int, ...] = ()) -> None:  # pragma: no cover - children
    """What a process forked from the server does first: default signal handling (the
    server's handlers came along with the fork: SIGTERM must end the child, Ctrl-C is the
    server's to handle); close every socket it inherited but those in ``keep`` (the
    listening socket, so a stopped server frees its port at once, and the browsers'
    connections: a copy held open here would keep a connection the server closed looking
    alive to the browser, which then sends its next request into the void); and, given
    the server's pid, exit when the server is gone."""
    import signal
    import socket

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        fds = [int(f) for f in os.listdir("/proc/self/fd")]
    except OSError:
        fds = []
    for fd in fds:
        if fd in keep or fd < 3:
            continue
        try:
            s = socket.socket(fileno=fd)
        except OSError:  # not a socket (pipes, files) or already closed
            continue
        s.close()
    if parent is not None:
        def watch() -> None:
            import time

            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(0)

        threading.Thread(target=watch, daemon=True, name="skatsim-watch-server").start()


def _worker(conn: Any, agent: Any, parent: int) -> None:  # pragma: no cover - runs in the child
    """The child's loop: apply the queued calls, answer each ``act``."""
    detach_from_server(keep=(conn.fileno(),))
    while True:
        try:
            if not conn.poll(1.0):
                if os.getppid() != parent:  # the server is gone
                    return
                continue
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "quit":
            return
        _, queued, packed = msg
        try:
            obs = _unpack(packed)
            for call in queued:
                if call[0] == "reset":
                    reset = getattr(agent, "reset", None)
                    if reset is not None:
                        reset(*call[1:])
                else:
                    observe = getattr(agent, "observe", None)
                    if observe is not None:
                        observe(*call[1:])
            action = agent.act(obs)
            conn.send(("ok", action if isinstance(action, int) else _plain(action)))
        except BaseException as e:  # the agent's error goes back to the table
            try:
                conn.send(("error", f"{type(e).__name__}: {e}"))
            except (OSError, ValueError):
                return


def _pack(obs: Any) -> tuple[Any, dict[str, Any]]:
    """An observation as picklable parts: its read-only mapping of named tensor slices is
    left out (rebuilt in the child by :func:`_unpack`)."""
    import dataclasses

    return type(obs), {f.name: getattr(obs, f.name) for f in dataclasses.fields(obs) if f.name != "views"}


def _unpack(packed: tuple[Any, dict[str, Any]]) -> Any:  # pragma: no cover - runs in the child
    """The observation again, read-only as the table hands it out: the arrays (unpickled
    writable) locked, ``views`` the named slices of the tensor."""
    from types import MappingProxyType

    from skatsim.observation import OBS_OFFSETS

    cls, fields = packed
    for name in ("view", "tensor"):
        fields[name].setflags(write=False)
    t = fields["tensor"]
    return cls(**fields, views=MappingProxyType({name: t[sl] for name, sl in OBS_OFFSETS.items()}))


def _plain(action: Any) -> Any:
    try:
        return int(action)
    except (TypeError, ValueError):
        return repr(action)


class ProcessAgent:
    """An agent living in its own child process (see the module docstring).

    ``agent``: the agent object (made in the server, so a bad spec fails there); the
    child gets a copy at fork time. ``time_limit``: seconds per decision.
    """

    def __init__(self, agent: Any, time_limit: float = 30.0) -> None:
        self.name = str(getattr(agent, "name", type(agent).__name__))
        self.time_limit = float(time_limit)
        self._queued: list[tuple[Any, ...]] = []
        self._lock = threading.Lock()
        ctx = mp.get_context("fork")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_worker, args=(child, agent, os.getpid()), daemon=True,
                                 name=f"skatsim-agent-{self.name}")
        self._proc.start()
        child.close()
        self.dead: str | None = None

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self._queued.append(("reset", deal_id, seat, rng))

    def observe(self, seat: int, action: int) -> None:
        self._queued.append(("observe", seat, action))

    def act(self, obs: Any) -> int:
        with self._lock:
            if self.dead:
                raise RuntimeError(self.dead)
            queued, self._queued = self._queued, []
            try:
                self._conn.send(("act", queued, _pack(obs)))
                answered = self._conn.poll(self.time_limit)
                if answered:
                    status, value = self._conn.recv()
            except (EOFError, OSError) as e:
                self._kill(f"the agent's process ended ({type(e).__name__})")
                raise RuntimeError(self.dead) from None
            if not answered:
                self._kill(f"the agent was stopped after exceeding its time limit of {self.time_limit:g} s")
                raise AgentTimeout(f"no answer within the time limit of {self.time_limit:g} s (the agent was stopped)")
        if status == "error":
            raise RuntimeError(value)
        return value

    def _kill(self, why: str) -> None:
        self.dead = why
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join(timeout=5)
        self._conn.close()

    @property
    def alive(self) -> bool:
        return self._proc.is_alive()

    def close(self) -> None:
        """End the child process (idempotent)."""
        if self.dead is None:
            try:
                self._conn.send(("quit",))
            except (OSError, ValueError):
                pass
            self.dead = "closed"
        self._proc.join(timeout=2)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(timeout=2)
        try:
            self._conn.close()
        except OSError:
            pass


class ThreadAgent:
    """The same protocol in the calling thread (no process; used where ``fork`` is missing)."""

    def __init__(self, agent: Any, time_limit: float = 30.0) -> None:
        self.agent = agent
        self.name = str(getattr(agent, "name", type(agent).__name__))
        self.time_limit = float(time_limit)

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset(deal_id, seat, rng)

    def observe(self, seat: int, action: int) -> None:
        observe = getattr(self.agent, "observe", None)
        if observe is not None:
            observe(seat, action)

    def act(self, obs: Any) -> int:
        return self.agent.act(obs)

    def close(self) -> None:
        pass


def make_seat_agent(agent: Any, time_limit: float, mode: str = "process") -> "ProcessAgent | ThreadAgent":
    """``agent`` wrapped for a browser seat: ``mode`` ``"process"`` (where fork exists) or ``"thread"``."""
    if mode not in ("process", "thread"):
        raise ValueError(f"mode must be 'process' or 'thread', got {mode!r}")
    if mode == "process" and HAS_FORK:
        return ProcessAgent(agent, time_limit)
    return ThreadAgent(agent, time_limit)
