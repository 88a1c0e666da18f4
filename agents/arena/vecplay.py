"""Boards through the vectorised environment: one engine for every kind of agent.

:func:`play_boards` plays a list of boards ``(deal_seed, deal_id, (agent per seat))``
through :class:`skatsim.vec.VecEnv` slots and returns one row per board:

- agents with a batch-engine policy (``AgentSpec.engine_policy()``: ``random``,
  ``rule_based`` with any parameters) play **inside the compiled step**, from the seat's
  stream, exactly as ``simulate`` plays them;
- **batch agents** (an ``act_batch(observations, legal_masks) -> actions`` method, see
  :mod:`agents.arena.base`) are asked **once per step** for every game in which one of them is
  to move, with the observation tensors and legal masks of those games; an entry ``-1``
  hands that decision to a per-seat instance of the agent through ``act(obs)``;
- other **Python agents** get one typed observation at a time, exactly as at
  :class:`agents.arena.play.Table`: ``reset(deal_id, seat, seat_stream(deal_seed, seat))`` at
  the deal, ``observe(seat, action)`` for every action at the table before their next
  decision (the declarer's discards as -1 to the others), and the same validation (the
  action checked against the state's legal actions) and error handling
  (``on_error="forfeit"``: the error is recorded, a pass substituted in the bidding and
  Kontra/Re, otherwise the game settled by :func:`agents.arena.play.forfeit_result`).

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

import math
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from skatsim.actions import PASS
from skatsim.bits import seat_stream
from skatsim.kernels import game as K
from skatsim.options import ISKO, SkatRules
from skatsim.simulate import RESULT_DTYPE
from skatsim.state import SkatState
from skatsim.table import RESULT_COLUMNS, auction_text
from skatsim.vec import MAX_ACTIONS, VecEnv

from .base import AgentSpec, as_spec
from .play import (HIDDEN, ON_ERROR, AgentError, _agent_name, agent_clock, check_action, decide, error_traceback,
                   forfeit_result)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["play_boards", "ROW_COLUMNS", "Board"]

#: A board: ``(deal_seed, deal_id, (agent spec per seat))``.
Board = tuple[int, int, Sequence[Any]]

#: Columns of a :func:`play_boards` row.
ROW_COLUMNS: tuple[str, ...] = (("board", "deal_id") + RESULT_COLUMNS
                                + ("auction", "time_0", "time_1", "time_2", "error", "error_seats", "traceback"))

_DISCARD = K.PH_DISCARD
_BID = K.PH_BID


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
            self.name = _agent_name(probe)
        else:
            self.name = spec.name


class _Game:
    """Python-side bookkeeping of the board in one slot."""

    __slots__ = ("board", "deal_seed", "deal_id", "kinds", "agents", "seen", "time", "errors", "forfeit")

    def __init__(self, board: int, deal_seed: int, deal_id: int, kinds: list[_Kind]) -> None:
        self.board = board
        self.deal_seed = deal_seed
        self.deal_id = deal_id
        self.kinds = kinds
        self.agents: list[Any] = [None, None, None]
        self.seen = 0  # actions delivered to the observe hooks
        self.time = [math.nan if k.engine is not None else 0.0 for k in kinds]
        self.errors: list[AgentError] = []
        self.forfeit: Any = None

    def agent(self, seat: int, env: VecEnv, slot: int) -> Any:
        """The seat's Python agent, made and reset on first use (after the actions so far)."""
        a = self.agents[seat]
        if a is None:
            a = self.agents[seat] = self.kinds[seat].spec.make()
            reset = getattr(a, "reset", None)
            if reset is not None:
                reset(self.deal_id, seat, seat_stream(self.deal_seed, seat))
            hook = getattr(a, "observe", None)
            if hook is not None and self.seen:
                for p, act, ph in env.game_history(slot)[:self.seen]:
                    hook(p, HIDDEN if ph == _DISCARD and seat != p else act)
        return a

    def flush(self, env: VecEnv, slot: int) -> None:
        """Deliver the actions since the last flush to the agents' ``observe`` hooks."""
        n = int(env.n_actions[slot])
        if n == self.seen:
            return
        hooks = [getattr(a, "observe", None) if a is not None else None for a in self.agents]
        if any(h is not None for h in hooks):
            for p, act, ph in env.game_history(slot)[self.seen:n]:
                for s, h in enumerate(hooks):
                    if h is not None:
                        h(p, HIDDEN if ph == _DISCARD and s != p else act)
        self.seen = n


def _specs(agents: Sequence[Any]) -> tuple[Any, Any, Any]:
    """Three seats' specs (names, spec texts, :class:`AgentSpec`, agent objects or factories)."""
    if isinstance(agents, (str, AgentSpec)) or len(agents) != 3:
        raise ValueError(f"a board needs 3 agents (one per seat), got {agents!r}")
    return tuple(as_spec(a) for a in agents)  # type: ignore[return-value]


def _mirror(env: VecEnv, slot: int, deal_seed: int) -> SkatState:
    """A SkatState replaying the slot's game (to settle a forfeit by the Table's rules)."""
    s = SkatState.new_game(seed=deal_seed, rules=env.rules)
    for a in env.history[slot, :env.n_actions[slot]]:
        s.apply_action(int(a))
    return s


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
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, got {on_error!r}")
    if isinstance(slots, bool) or not isinstance(slots, (int, np.integer)) or slots < 1:
        raise ValueError(f"slots must be a positive int, got {slots!r}")
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
    m = len(seeds)
    seeds_a = np.array(seeds, dtype=np.int64)
    ids_a = np.array(ids, dtype=np.int64)
    arr_a = np.array(arr, dtype=np.int64)
    arr_kinds = [[kinds[sp] for sp in specs] for specs in arrs]
    arr_policies = [[k.engine for k in ks] for ks in arr_kinds]
    arr_python = [any(k.engine is None for k in ks) for ks in arr_kinds]
    rows = np.zeros(m, dtype=RESULT_DTYPE)
    actions = np.full((m, MAX_ACTIONS), -1, dtype=np.int16)
    auction = [""] * m
    times = np.full((m, 3), np.nan)
    errors = [""] * m
    tracebacks = [""] * m
    error_seats = np.zeros(m, dtype=np.int8)
    n = max(1, min(int(slots), m))
    env = VecEnv(n, rules=rules, auto_reset=False, threads=threads)
    games: list[_Game | None] = [None] * n  # boards with a Python or batch agent
    slot_board = np.full(n, -1, dtype=np.int64)
    nxt = [0]
    left = [m]
    cols = np.arange(MAX_ACTIONS)

    def finish(slots: np.ndarray, forfeit: np.ndarray | None = None) -> None:
        """Rows of the boards in ``slots`` (their games ended; ``forfeit``: the settlement of
        one forfeited game instead of the environment's result)."""
        b = slot_board[slots]
        rows[b] = env.last_results[slots] if forfeit is None else forfeit
        rows["deal_index"][b] = ids_a[b]
        rows["deal_seed"][b] = seeds_a[b]
        k = env.n_actions[slots]
        rows["n_actions"][b] = k
        h = env.history[slots]
        live = cols[None, :] < k[:, None]
        actions[b] = np.where(live, h, -1)
        meta = env.history_meta[slots]
        nb = (live & ((meta >> 2) == _BID)).sum(axis=1)  # the bidding is a prefix of the deal
        for j, slot in enumerate(slots.tolist()):
            bb = int(b[j])
            q = int(nb[j])
            auction[bb] = auction_text(h[j, :q].tolist())
            g = games[slot]
            if g is not None:
                if forfeit is None:
                    g.flush(env, slot)
                times[bb] = g.time
                errors[bb] = "; ".join(str(e) for e in g.errors)
                tracebacks[bb] = error_traceback(g.errors)
                mask = 0
                for e in g.errors:
                    mask |= 1 << e.seat
                error_seats[bb] = mask
                games[slot] = None
            slot_board[slot] = -1
        left[0] -= len(slots)

    def refill(free: np.ndarray) -> None:
        while len(free) and nxt[0] < m:
            take = free[:m - nxt[0]]
            bs = np.arange(nxt[0], nxt[0] + len(take))
            nxt[0] += len(take)
            slot_board[take] = bs
            for slot, bb in zip(take.tolist(), bs.tolist()):
                a = int(arr_a[bb])
                if arr_python[a]:
                    g = games[slot] = _Game(bb, seeds[bb], ids[bb], arr_kinds[a])
                    for seat, k in enumerate(arr_kinds[a]):
                        if k.engine is None and k.batch is None:
                            g.agent(seat, env, slot)  # made and reset at the deal, as at the Table
            env.reset_games(take, seeds_a[bs], ids_a[bs], policies=[arr_policies[a] for a in arr_a[bs].tolist()])
            over = take[env.done[take]]  # compiled seats only: over already
            if len(over):
                finish(over)
            free = over

    def fail(slot: int, e: AgentError, acts: np.ndarray) -> None:
        g = games[slot]
        assert g is not None
        if on_error == "raise":
            raise e
        g.errors.append(e)
        if e.phase in ("bidding", "kontra") and env.legal_mask[slot, PASS]:
            acts[slot] = PASS
            return
        g.flush(env, slot)
        fr = np.zeros(1, dtype=RESULT_DTYPE)
        res = forfeit_result(_mirror(env, slot, g.deal_seed), e.seat).to_row()
        for c in RESULT_DTYPE.names or ():
            if c in res and res[c] is not None:
                fr[c] = res[c]
        acts[slot] = -1
        finish(np.array([slot]), fr)
        env.drop([slot])

    refill(np.arange(n, dtype=np.int64))
    acts = np.full(n, -1, dtype=np.int64)
    while left[0] > 0:
        acts[:] = -1
        movers = np.flatnonzero(env.to_move >= 0)
        batches: dict[int, list[int]] = {}
        for slot in movers.tolist():
            g = games[slot]
            assert g is not None  # only boards with a Python or batch agent stop the compiled step
            seat = int(env.to_move[slot])
            k = g.kinds[seat]
            if k.batch is not None:
                batches.setdefault(id(k), []).append(slot)
                continue
            _python_decision(env, g, slot, seat, time_limit, acts, fail)
        for _, idx in batches.items():
            first = games[idx[0]]
            assert first is not None
            k = first.kinds[int(env.to_move[idx[0]])]
            _batch_decision(env, games, k, idx, time_limit, acts, fail)
        if (env.to_move >= 0).any():
            env.step(acts)
            over = np.flatnonzero(env.done)
            if len(over):
                finish(over)
        refill(np.flatnonzero(slot_board < 0))  # finished and forfeited slots
    env.close()
    return _frame(rows, actions, auction, times, errors, tracebacks, error_seats, rules)


def _python_decision(env: VecEnv, g: _Game, slot: int, seat: int, time_limit: float | None, acts: np.ndarray,
                     fail: Any) -> None:
    g.flush(env, slot)
    agent = g.agent(seat, env, slot)
    phase = K.PHASE_NAMES[int(env.state[slot, K.F_PHASE])]
    legal = np.flatnonzero(env.legal_mask[slot]).tolist()
    try:
        a, dt = decide(agent, env.observation(slot, seat), seat, phase, legal, time_limit)
    except AgentError as e:
        if e.decision_time is not None:
            g.time[seat] += e.decision_time
        fail(slot, e, acts)
        return
    g.time[seat] += dt
    acts[slot] = a


def _batch_decision(env: VecEnv, games: list, k: _Kind, idx: list[int], time_limit: float | None,
                    acts: np.ndarray, fail: Any) -> None:
    sl = np.array(idx, dtype=np.int64)
    t0 = agent_clock()
    try:
        out = k.batch.act_batch(env.obs[sl], env.legal_mask[sl])
        out = np.asarray(out)
        if out.shape != (len(idx),):
            raise ValueError(f"act_batch returned shape {out.shape} for {len(idx)} observations")
    except Exception as e:
        dt = (agent_clock() - t0) / len(idx)
        for slot in idx:
            seat = int(env.to_move[slot])
            phase = K.PHASE_NAMES[int(env.state[slot, K.F_PHASE])]
            err = AgentError(f"agent {k.name!r} (seat {seat}) raised {type(e).__name__} in act_batch in phase "
                             f"{phase}: {e}", agent=k.name, seat=seat, phase=phase)
            fail(slot, err, acts)
        return
    dt = (agent_clock() - t0) / len(idx)
    for j, slot in enumerate(idx):
        g = games[slot]
        seat = int(env.to_move[slot])
        g.time[seat] += dt
        a = out[j]
        if isinstance(a, (np.integer, int)) and int(a) == -1:  # deferred: this seat's own instance decides
            _python_decision(env, g, slot, seat, time_limit, acts, fail)
            continue
        phase = K.PHASE_NAMES[int(env.state[slot, K.F_PHASE])]
        legal = np.flatnonzero(env.legal_mask[slot]).tolist()
        try:
            acts[slot] = check_action(k.name, a.item() if isinstance(a, np.generic) else a, seat, phase, legal, dt)
        except AgentError as e:
            fail(slot, e, acts)


def _frame(rows: np.ndarray, actions: np.ndarray, auction: list[str], times: np.ndarray, errors: list[str],
           tracebacks: list[str], error_seats: np.ndarray, rules: SkatRules) -> "pd.DataFrame":
    from skatsim.simulate import _frame as sim_frame

    df = sim_frame(rows, None, rules, 0, "")
    df.attrs = {}
    df.insert(0, "board", np.arange(len(rows), dtype=np.int64))
    df.insert(1, "deal_id", rows["deal_index"].astype(np.int64))
    df["auction"] = auction
    for s in range(3):
        df[f"time_{s}"] = times[:, s]
    df["error"] = errors
    df["error_seats"] = error_seats
    df["traceback"] = tracebacks
    df.attrs["actions"] = actions
    df.attrs["rules"] = rules.to_dict()
    return df[list(ROW_COLUMNS)]
