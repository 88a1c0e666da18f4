"""Boards through the vectorised environment: one engine for every kind of agent.

:func:`play_boards` (a :class:`BoardRunner`) plays a list of boards ``(deal_seed, deal_id, (agent per seat))``
through :class:`skatsim.vec.VecEnv` slots and returns one row per board:

- agents with a batch-engine policy (``AgentSpec.engine_policy()``: ``random``,
  ``rule_based`` with any parameters) play **inside the compiled step**, from the seat's
  stream, exactly as ``simulate`` plays them;
- **batch agents** (an ``act_batch(observations, legal_masks) -> actions`` method, see
  :mod:`agents.arena.base`) are asked **once per step** for every game in which one of them is
  to move, with the observation tensors and legal masks of those games; an entry ``-1``
  hands that decision to a per-seat instance of the agent through ``act(obs)``;
- other **Python agents** get one typed observation at a time, seated as at
  :class:`agents.arena.play.Table` by the one seating contract (:mod:`agents.arena.seat`):
  ``reset(deal_id, seat, seat_stream(deal_seed, seat))`` at the deal, ``observe(seat,
  action)`` for every action at the table before their next decision (the declarer's
  discards as -1 to the others), the same validation and the same failure rule
  (``on_error="forfeit"``: the error is recorded, a pass substituted in the bidding and
  Kontra/Re, otherwise the game ended by the core's forfeit rule, :meth:`VecEnv.forfeit`).

So a board played here is, action for action, ``agents.arena.play.play(agents, seed=deal_seed)``
(and ``simulate`` for compiled agents only).

>>> df = play_boards([(7, 0, ("random", "rule_based", "random")), (8, 1, ("rule_based",) * 3)])
>>> df[["board", "deal_id", "deal_seed"]].values.tolist()
[[0, 0, 7], [1, 1, 8]]
>>> from agents.arena.play import play
>>> g = play(["random", "rule_based", "random"], seed=7)
>>> df.attrs["actions"][0, :int(df["n_actions"].iloc[0])].tolist() == g.state.history()
True

Rows: :data:`ROW_COLUMNS`: ``board`` (index into ``boards``), ``deal_id``, the result
columns of :mod:`skatsim.table` (``deal_index`` is the ``deal_id``), ``auction``
(``"1:18 0:yes 1:pass 2:pass"``), ``time_0..2`` (CPU seconds the seat's agent spent
deciding, :func:`agents.arena.play.agent_clock`; NaN for a compiled seat; a batch call's time
shared among its games), ``error`` and
``error_seats`` (bit ``s``: seat ``s``'s agent failed); ``attrs["actions"]`` holds every
board's actions (int16, -1 padded).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from skatsim.kernels import game as K
from skatsim.options import ISKO, SkatRules
from skatsim.simulate import RESULT_DTYPE, results_frame
from skatsim.table import RESULT_COLUMNS, auction_text
from skatsim.vec import MAX_ACTIONS, VecEnv

from .base import AgentSpec, as_spec
from .seat import FORFEIT, ON_ERROR, AgentError, SlotSeats, agent_clock, agent_name, check_action, error_traceback

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["play_boards", "BoardRunner", "ROW_COLUMNS", "Board"]

#: A board: ``(deal_seed, deal_id, (agent spec per seat))``.
Board = tuple[int, int, Sequence[Any]]

#: Columns of a :func:`play_boards` row.
ROW_COLUMNS: tuple[str, ...] = (("board", "deal_id") + RESULT_COLUMNS
                                + ("auction", "time_0", "time_1", "time_2", "error", "error_seats", "traceback"))


class _Kind:
    """How one agent spec is played: compiled, batch, or Python."""

    def __init__(self, spec: AgentSpec) -> None:
        self.spec = spec
        self.engine = spec.engine_policy()
        self.batch: Any = None
        if self.engine is None:
            probe = spec.make()
            if callable(getattr(probe, "act_batch", None)):
                self.batch = probe
            self.name = agent_name(probe)
        else:
            self.name = spec.name


def _specs(agents: Sequence[Any]) -> tuple[Any, Any, Any]:
    """Three seats' specs (names, spec texts, :class:`AgentSpec`, agent objects or factories)."""
    if isinstance(agents, (str, AgentSpec)) or len(agents) != 3:
        raise ValueError(f"a board needs 3 agents (one per seat), got {agents!r}")
    return tuple(as_spec(a) for a in agents)  # type: ignore[return-value]


class BoardRunner:
    """Plays ``boards`` through the slots of one :class:`~skatsim.vec.VecEnv` (the arguments of
    :func:`play_boards`): :meth:`run` refills free slots with the next boards, lets the Python
    and batch agents decide for the games stopped at their seats, steps every game at once,
    and writes a row per finished (or forfeited) board."""

    def __init__(self, boards: Sequence[Board], *, rules: SkatRules = ISKO, slots: int = 4096,
                 threads: int | None = None, time_limit: float | None = None, on_error: str = "forfeit") -> None:
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, got {on_error!r}")
        if isinstance(slots, bool) or not isinstance(slots, (int, np.integer)) or slots < 1:
            raise ValueError(f"slots must be a positive int, got {slots!r}")
        self.rules = rules
        self.time_limit = time_limit
        self.on_error = on_error
        kinds: dict[AgentSpec, _Kind] = {}
        seeds, ids, arr = [], [], []
        arrs: dict[tuple[AgentSpec, ...], int] = {}
        for b, item in enumerate(boards):
            if not isinstance(item, (tuple, list)) or len(item) != 3:
                raise ValueError(f"board {b}: expected (deal_seed, deal_id, (agent per seat)), got {item!r}")
            ds, did, agents = item
            specs = _specs(agents)
            for sp in specs:
                if sp not in kinds:
                    kinds[sp] = _Kind(sp)
            seeds.append(int(ds))
            ids.append(int(did))
            arr.append(arrs.setdefault(specs, len(arrs)))
        self.m = m = len(seeds)
        self.seeds = np.array(seeds, dtype=np.int64)
        self.ids = np.array(ids, dtype=np.int64)
        self.arrangement = np.array(arr, dtype=np.int64)
        self.kinds = [[kinds[sp] for sp in specs] for specs in arrs]  # per arrangement and seat
        self.rows = np.zeros(m, dtype=RESULT_DTYPE)
        self.actions = np.full((m, MAX_ACTIONS), -1, dtype=np.int16)
        self.auction = [""] * m
        self.times = np.full((m, 3), np.nan)
        self.errors = [""] * m
        self.tracebacks = [""] * m
        self.error_seats = np.zeros(m, dtype=np.int8)
        n = max(1, min(int(slots), m))
        self.env = VecEnv(n, rules=rules, auto_reset=False, threads=threads)
        self.seats: list[SlotSeats | None] = [None] * n  # boards with a Python or batch agent
        self.slot_board = np.full(n, -1, dtype=np.int64)
        self.next = 0  # the next board to deal
        self.left = m  # boards not finished
        self.acts = np.full(n, -1, dtype=np.int64)

    def run(self) -> "pd.DataFrame":
        """Play every board; one row per board, in board order."""
        env = self.env
        try:
            self.refill(np.arange(env.n, dtype=np.int64))
            while self.left > 0:
                self.decide()
                if (env.to_move >= 0).any():
                    env.step(self.acts)
                    over = np.flatnonzero(env.done)
                    if len(over):
                        self.finish(over)
                self.refill(np.flatnonzero(self.slot_board < 0))  # finished and forfeited slots
        finally:
            env.close()
        return self.frame()

    def refill(self, free: np.ndarray) -> None:
        """Deal the next boards into the ``free`` slots (a board whose agents are all
        compiled may end at once: its slot is free again)."""
        env = self.env
        while len(free) and self.next < self.m:
            take = free[:self.m - self.next]
            bs = np.arange(self.next, self.next + len(take))
            self.next += len(take)
            self.slot_board[take] = bs
            arr = self.arrangement[bs].tolist()
            env.reset_games(take, self.seeds[bs], self.ids[bs],
                            policies=[[k.engine for k in self.kinds[a]] for a in arr])
            for slot, a in zip(take.tolist(), arr):
                kinds = self.kinds[a]
                if all(k.engine is not None for k in kinds):
                    continue
                seats = self.seats[slot] = SlotSeats(env, slot, [k.engine is None for k in kinds])
                for s, k in enumerate(kinds):
                    if k.engine is None and k.batch is None:
                        seats.sit(s, k.spec.make())  # made and reset at the deal, as at the Table
            over = take[env.done[take]]  # compiled seats only: over already
            if len(over):
                self.finish(over)
            free = over

    def decide(self) -> None:
        """The actions of the Python and batch agents to move, into ``acts`` (-1 elsewhere)."""
        env, acts = self.env, self.acts
        acts[:] = -1
        batches: dict[int, list[int]] = {}
        for slot in np.flatnonzero(env.to_move >= 0).tolist():
            seats = self.seats[slot]
            assert seats is not None  # only boards with a Python or batch agent stop the compiled step
            seat = int(env.to_move[slot])
            k = self._kind(slot, seat)
            if k.batch is not None:
                batches.setdefault(id(k), []).append(slot)
            else:
                self._python(slot, seat)
        for idx in batches.values():
            self._batch(self._kind(idx[0], int(env.to_move[idx[0]])), idx)

    def _kind(self, slot: int, seat: int) -> _Kind:
        return self.kinds[int(self.arrangement[self.slot_board[slot]])][seat]

    def _python(self, slot: int, seat: int) -> None:
        seats = self.seats[slot]
        assert seats is not None
        if seats.seat(seat).agent is None:  # a batch agent's own instance, made on its first deferral
            seats.sit(seat, self._kind(slot, seat).spec.make())
        try:
            self.acts[slot] = seats.act(seat, self.time_limit)
        except AgentError as e:
            self.fail(slot, e)

    def _batch(self, k: _Kind, idx: list[int]) -> None:
        env = self.env
        sl = np.array(idx, dtype=np.int64)
        t0 = agent_clock()
        try:
            out = np.asarray(k.batch.act_batch(env.obs[sl], env.legal_mask[sl]))
            if out.shape != (len(idx),):
                raise ValueError(f"act_batch returned shape {out.shape} for {len(idx)} observations")
        except Exception as e:
            for slot in idx:
                seat = int(env.to_move[slot])
                phase = K.PHASE_NAMES[int(env.state[slot, K.F_PHASE])]
                self.fail(slot, AgentError(f"agent {k.name!r} (seat {seat}) raised {type(e).__name__} in act_batch "
                                           f"in phase {phase}: {e}", agent=k.name, seat=seat, phase=phase))
            return
        dt = (agent_clock() - t0) / len(idx)  # the call's time, shared among its games
        for j, slot in enumerate(idx):
            seats = self.seats[slot]
            assert seats is not None
            seat = int(env.to_move[slot])
            seats.seat(seat).time += dt
            a = out[j]
            if isinstance(a, (np.integer, int)) and int(a) == -1:  # deferred: this seat's own instance decides
                self._python(slot, seat)
                continue
            try:
                self.acts[slot] = check_action(k.name, a.item() if isinstance(a, np.generic) else a, seat,
                                               seats.phase(), seats.legal(), dt)
            except AgentError as e:
                self.fail(slot, e)

    def fail(self, slot: int, e: AgentError) -> None:
        """An agent failed in ``slot``: raise (``on_error="raise"``), or the failure rule: a
        pass to play, or the game ended by the forfeit rule and its row written."""
        if self.on_error == "raise":
            raise e
        seats = self.seats[slot]
        assert seats is not None
        action = seats.fail(e)
        self.acts[slot] = -1 if action == FORFEIT else action
        if action == FORFEIT:
            self.env.forfeit(slot, e.seat)
            self.finish(np.array([slot]))

    def finish(self, slots: np.ndarray) -> None:
        """The rows of the boards in ``slots``, whose games ended (played out or forfeited)."""
        env = self.env
        b = self.slot_board[slots]
        rows = self.rows
        rows[b] = env.last_results[slots]
        rows["deal_index"][b] = self.ids[b]
        rows["deal_seed"][b] = self.seeds[b]
        k = env.n_actions[slots]
        rows["n_actions"][b] = k
        h = env.history[slots]
        live = np.arange(MAX_ACTIONS)[None, :] < k[:, None]
        self.actions[b] = np.where(live, h, -1)
        nb = (live & ((env.history_meta[slots] >> 2) == K.PH_BID)).sum(axis=1)  # the bidding is a prefix
        for j, slot in enumerate(slots.tolist()):
            bb = int(b[j])
            self.auction[bb] = auction_text(h[j, :int(nb[j])].tolist())
            seats = self.seats[slot]
            if seats is not None:
                seats.flush()
                self.times[bb] = [np.nan if s is None else s.time for s in seats.seats]
                self.errors[bb] = "; ".join(str(e) for e in seats.errors)
                self.tracebacks[bb] = error_traceback(seats.errors)
                self.error_seats[bb] = seats.error_seats
                self.seats[slot] = None
            self.slot_board[slot] = -1
        self.left -= len(slots)

    def frame(self) -> "pd.DataFrame":
        """The rows (see the module docstring for the columns)."""
        df = results_frame(self.rows, None, self.rules)
        df.attrs = {}
        df.insert(0, "board", np.arange(self.m, dtype=np.int64))
        df.insert(1, "deal_id", self.rows["deal_index"].astype(np.int64))
        df["auction"] = self.auction
        for s in range(3):
            df[f"time_{s}"] = self.times[:, s]
        df["error"] = self.errors
        df["error_seats"] = self.error_seats
        df["traceback"] = self.tracebacks
        df.attrs["actions"] = self.actions
        df.attrs["rules"] = self.rules.to_dict()
        return df[list(ROW_COLUMNS)]


def play_boards(boards: Sequence[Board], *, rules: SkatRules = ISKO, slots: int = 4096, threads: int | None = None,
                time_limit: float | None = None, on_error: str = "forfeit") -> "pd.DataFrame":
    """Play ``boards`` (``(deal_seed, deal_id, (agent spec per seat))``) through a
    :class:`~skatsim.vec.VecEnv` of up to ``slots`` games at a time; one row per board, in
    board order (see the module docstring for the columns).

    Args:
        boards: the boards; agents are registry names, spec texts or :class:`AgentSpec` s
            (a fresh agent is made per board and seat, as :class:`agents.arena.play.Table` does).
        rules: the rules of every board.
        slots: games stepped together.
        threads: numba threads of the environment (default: numba's setting).
        time_limit: seconds per decision of a Python agent (as at the Table).
        on_error: ``"forfeit"`` (default: record the error and settle, as tournaments do) or
            ``"raise"`` (the :class:`agents.arena.play.AgentError` propagates).
    """
    return BoardRunner(boards, rules=rules, slots=slots, threads=threads, time_limit=time_limit,
                       on_error=on_error).run()
