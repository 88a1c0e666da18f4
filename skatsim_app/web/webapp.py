"""The server's state behind the routes: the tables (one :class:`Session` per browser), the
AIs' thread pool, the worker pool of the solver and replay jobs with its cache, the replay
sources, the agents offered and the hosts answered.

Sessions: only ``POST /api/play/new`` makes one (:meth:`WebApp.add_session`); a session idle
for ``session_idle`` seconds is closed; at most ``max_sessions`` are kept, and a new one
beyond that is refused (503), never made by dropping one in use.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from starlette.requests import Request

from skatsim.options import ISKO, SkatRules

from . import advice, jobs
from .api import ApiError
from .game import DEFAULT_OPPONENTS, PlayGame, PlaySettings, present
from .guard import HostPolicy
from .names import DECKS, contract_label
from .offer import AgentOffer
from .replay import DEFAULT_LIMIT, GameMoves, Source, open_source
from .seats import detach_from_server
from .settle import verdict_text

__all__ = ["WebApp", "Session", "COOKIE", "ANALYSIS"]

#: The session cookie (HTTP-only, SameSite=Strict).
COOKIE = "skatsim_session"

#: The name under which the page asks the server's analysis agent for a hint.
ANALYSIS = "analysis"


@dataclass
class Session:
    """One browser: its game, its table settings and its running list."""

    settings: PlaySettings
    game: PlayGame | None = None
    seat: int = 0
    rotate: bool = True
    deal_no: int = 0
    scores: list[dict[str, Any]] = field(default_factory=list)
    pending: Any = None
    verdict: dict[str, Any] | None = None  # the solver's verdict (settle.verdict), asked for after the deal
    asked_verdict: bool = False
    recorded: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    used: float = field(default_factory=time.monotonic)

    def close(self) -> None:
        if self.game is not None:
            self.game.close()


class _LRU(OrderedDict):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class WebApp:
    """The server's state behind the routes.

    Options (those of :func:`skatsim_app.web.create_app`): ``replay`` the paths the replay
    may open; ``rules``, ``opponents`` (two specs, left and right), ``deck`` and
    ``time_limit`` (seconds per AI decision) a new table starts with; ``agents`` the
    operator's ``NAME -> SPEC`` offered besides the registry (:mod:`.offer`);
    ``agent_mode`` ``"process"`` or ``"thread"`` (:mod:`.seats`); ``max_sessions`` and
    ``session_idle`` (seconds) bound the tables; ``replay_limit`` games listed per source;
    ``workers`` of the job pool; ``wait`` seconds before ``/api/play/advance`` answers 202;
    ``host``, ``port`` and ``allow_hosts`` the Host names answered (:mod:`.guard`);
    ``analysis_agent`` the agent (an offered name or any spec: the operator's) that judges a
    replay's decisions before the card play where the game's own agents give no values, and
    gives the hint named :data:`ANALYSIS` (default :data:`.advice.DEFAULT_ANALYSIS`;
    ``"none"``: no analysis agent; :mod:`.advice`).
    """

    def __init__(self, *, replay: Sequence[str | Path] = (), rules: SkatRules = ISKO,
                 opponents: Sequence[str] = DEFAULT_OPPONENTS, agents: Mapping[str, str] | None = None,
                 deck: str = "german", time_limit: float = 30.0,
                 agent_mode: str = "process", max_sessions: int = 32, session_idle: float = 4 * 3600.0,
                 replay_limit: int = DEFAULT_LIMIT,
                 workers: int = 1, wait: float = 5.0, host: str = "127.0.0.1", port: int | None = None,
                 allow_hosts: Sequence[str] = (), analysis_agent: str | None = None) -> None:
        if deck not in DECKS:
            raise ValueError(f"unknown deck style {deck!r}; deck styles: {', '.join(DECKS)}")
        if len(opponents) != 2:
            raise ValueError(f"give two opponents (left, right), got {list(opponents)!r}")
        self.offer = AgentOffer(agents, opponents)
        self.hosts = HostPolicy(host, port, allow_hosts)
        self.analysis_agent = self._analysis(analysis_agent)
        # the agents that give values per action (the hint in play), the analysis agent first
        self.hint_agents = ([ANALYSIS] if self.analysis_agent else []) + [
            n for n in self.offer.names() if advice.gives_values(self.offer.resolve(n))]
        self._own: dict[str, str | None] = {}
        self.default = PlaySettings((self.offer.defaults[0], self.offer.defaults[1]), rules, deck,
                                    float(time_limit), agent_mode)
        self.sources: list[Source] = [open_source(p, replay_limit) for p in replay]
        self.max_sessions = int(max_sessions)
        self.session_idle = float(session_idle)
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.workers = int(workers)
        self.wait = float(wait)
        self.threads = ThreadPoolExecutor(max_workers=16, thread_name_prefix="skatsim-ai")
        self._pool: ProcessPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._cache = _LRU(512)
        self._inflight: dict[Any, asyncio.Future] = {}

    def _analysis(self, text: str | None) -> str | None:
        """The analysis agent's spec text: ``text`` (an offered name or any agent spec: it is
        the operator's, never a request's), :data:`.advice.DEFAULT_ANALYSIS` when ``None``
        and every part of it is registered, no agent for ``"none"``."""
        from agents import AgentSpec, list_agents

        if ANALYSIS in self.offer.names():
            raise ValueError(f"{ANALYSIS!r} names the server's analysis agent (--analysis-agent); give the "
                             "--agent another name")
        if text is None:
            needed = {"compose", "neural_bidder", "skat_search", "pimc"}
            return advice.DEFAULT_ANALYSIS if needed <= set(list_agents()) else None
        if text.strip().lower() == "none":
            return None
        try:
            spec = self.offer.resolve(text).spec if text in self.offer.operator else AgentSpec.parse(text)
        except (ValueError, TypeError) as e:
            raise ValueError(f"analysis agent: {e}") from None
        if not advice.gives_values(spec):
            raise ValueError(f"analysis agent {text!r} gives no values per action (it has no action_values): "
                             "name one that does, e.g. pimc, skat_search, neural_bidder, or 'none'")
        return spec.to_text()

    # ------------------------------------------------------------------ plumbing
    def pool(self) -> ProcessPoolExecutor:
        """The worker pool of the solver and replay jobs (made on first use)."""
        with self._pool_lock:
            if self._pool is None:
                methods = mp.get_all_start_methods()
                ctx = mp.get_context("fork" if "fork" in methods else "spawn")
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                                 initializer=detach_from_server, initargs=(os.getpid(),))
            return self._pool

    def cached(self, key: Any) -> Any:
        """A job's cached result, or ``None``."""
        return self._cache.get(key)

    async def run_job(self, key: Any, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the worker pool, cached under ``key`` (concurrent asks share one run)."""
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        if key in self._inflight:
            return await asyncio.shield(self._inflight[key])
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._inflight[key] = fut
        try:
            try:
                value = await loop.run_in_executor(self.pool(), fn, *args)
            except BrokenProcessPool:  # a worker died: start a new pool once
                with self._pool_lock:
                    self._pool = None
                value = await loop.run_in_executor(self.pool(), fn, *args)
            self._cache.put(key, value)
            fut.set_result(value)
            return value
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # retrieved: no "never retrieved" warning
            raise
        finally:
            self._inflight.pop(key, None)

    def close(self) -> None:
        for s in self.sessions.values():
            s.close()
        self.sessions.clear()
        if self._pool is not None:
            procs = list(getattr(self._pool, "_processes", {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:  # a job still running (a long solve) is not waited for
                p.terminate()
        self.threads.shutdown(wait=False, cancel_futures=True)

    def expire(self) -> None:
        """Drop the sessions idle for longer than ``session_idle`` seconds (their AIs stop)."""
        now = time.monotonic()
        while self.sessions:
            sid, s = next(iter(self.sessions.items()))  # the least recently used first
            if now - s.used <= self.session_idle:
                break
            del self.sessions[sid]
            s.close()

    def session(self, request: Request) -> Session | None:
        """This browser's session (by its cookie), or ``None``: a request never makes one,
        only :meth:`add_session` does (``POST /api/play/new``)."""
        self.expire()
        sid = request.cookies.get(COOKIE)
        sess = self.sessions.get(sid) if sid else None
        if sess is not None:
            sess.used = time.monotonic()
            self.sessions.move_to_end(sid)  # type: ignore[arg-type]
        return sess

    def check_room(self) -> None:
        """A new session fits, or 503: a table in use is never dropped to make room."""
        self.expire()
        if len(self.sessions) >= self.max_sessions:
            raise ApiError(503, f"this server already holds {self.max_sessions} tables, its limit; a table idle for "
                                f"{self.session_idle / 60:g} minutes is closed: try again later")

    def add_session(self, sess: Session) -> str:
        self.check_room()
        sid = secrets.token_urlsafe(24)
        sess.used = time.monotonic()
        self.sessions[sid] = sess
        return sid

    # ------------------------------------------------------------------ play
    def view(self, sess: Session, deck: str | None = None) -> dict[str, Any] | None:
        """The browser's view of the session's deal (:func:`.game.present`) with the running
        list, the verdict and the table's settings."""
        if sess.game is None:
            return None
        deck = deck or sess.settings.deck
        v = present(sess.game.snapshot, deck)
        v["thinking"] = sess.pending is not None and not sess.pending.done()
        v["list"] = [dict(e, contract_label=contract_label(e["contract"], deck)) for e in sess.scores]
        v["totals"] = [sum(e["sf"][k] for e in sess.scores) for k in range(3)]
        v["verdict"] = verdict_text(sess.verdict, deck) if sess.asked_verdict else None
        v["settings"] = {"opponents": [o.to_text() for o in sess.settings.opponents], "deck": deck,
                         "rotate": sess.rotate, "kontra": sess.settings.rules.kontra,
                         "ramsch": sess.settings.rules.ramsch, "time_limit": sess.settings.time_limit}
        return v

    def record_if_over(self, sess: Session) -> None:
        """Add a finished deal to the session's running list (once)."""
        g = sess.game
        if g is None or not g.over or sess.recorded:
            return
        sess.recorded = True
        r = g.table.result
        me = g.seat
        order = [me, (me + 1) % 3, (me + 2) % 3]  # you, left, right
        d = r.declarer
        contract = "passed" if r.passed_in else "R" if r.ramsch else r.contract
        sess.scores.append({"deal_no": g.deal_no, "seed": str(g.deal_seed), "seat": me,
                            "declarer": None if d is None else order.index(d), "contract": contract,
                            "won": bool(r.won) if d is not None else None, "list_score": int(r.list_score),
                            "bid": int(r.bid), "sf": [int(r.seeger_fabian[s]) for s in order],
                            "forfeit": g.table.forfeit is not None})


    # ------------------------------------------------------------------ replay
    def own_evaluator(self, src: Source, i: int, seat: int) -> str | None:
        """The spec of the agent that played ``seat`` in game ``i`` of ``src`` if it gives
        values per action (agents of a tournament or simulation run), else ``None``."""
        if src.kind not in ("tournament", "simulation"):
            return None
        text = src.players(i)[seat]
        if text not in self._own:
            from agents import AgentSpec

            try:
                spec = AgentSpec.parse(text)  # the run's own agents (the operator's files), not a request's
                self._own[text] = spec.to_text() if advice.gives_values(spec) else None
            except (ValueError, TypeError):
                self._own[text] = None
        return self._own[text]

    async def moves(self, k: int, i: int) -> tuple[GameMoves, list[str], dict[str, Any]]:
        """Game ``i`` of source ``k``: its moves, the columns where the re-played game differs
        from the stored row, and the re-play's result (re-played in the pool, cached)."""
        src = self.sources[k]
        if i in src.moves:
            return src.moves[i], [], {}
        assert src.job is not None
        fn, args = src.job(i)
        moves, replayed = await self.run_job(("moves", k, i), jobs.call, fn, args)
        return moves, src.check(i, replayed), replayed
