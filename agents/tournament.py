"""Duplicate tournaments: every deal under every seat arrangement, one tidy row per game.

>>> r = run_tournament(["random", "random"], n_deals=20, seed=1, progress=False)
>>> len(r.games), sorted(set(r.games["arrangement"]))
(120, ['AAB', 'ABA', 'ABB', 'BAA', 'BAB', 'BBA'])
>>> float(r.head_to_head()["sf_diff_per_game"].iloc[0])    # an agent against itself
0.0

Format
------
A *board* is one deal (``deal_id`` ``i``, deal seed ``derive_seed(seed, i)``, the deal of
``simulate(..., seed=seed)``'s row ``i``) played under every seat arrangement:

- three distinct agents A, B, C: the 6 permutations (``ABC ACB BAC BCA CAB CBA``);
- two agents A, B: the 6 arrangements of A,A,B and A,B,B (``AAB ABA BAA ABB BAB BBA``),
  so each agent sits 9 times per board, 3 times in each seat.

Randomness is common: the agent in seat ``s`` of deal ``i`` draws from
``seat_stream(deal_seed, s)`` whoever it is, so two arrangements differ only by who
decides, not by luck.

Engines: when every agent has a batch-engine policy (``random``, ``rule_based`` with any
parameters), each chunk of deals is played by ``simulate(n, policy=(spec per seat),
seed=seed, start=...)`` once per arrangement (``engine="batch"``, numba threads);
otherwise by :func:`agents.play.play` over a process pool (``engine="python"``,
``workers`` processes, chunks of deals). Both give the same games for the same seed (the
agents run the same compiled policies), and the table does not depend on ``workers``
(except the measured ``time_*`` columns).

Rows (:data:`GAME_COLUMNS`)
---------------------------
``deal_id``, ``arrangement`` (``"AAB"`` ...: the agent letter per seat), ``agent_0..2``
(agent label per seat), the result columns of :mod:`skatsim.table` (``RESULT_COLUMNS``:
deal_index, deal_seed, declarer, bid, contract, game, flags, picked_up, kontra,
declarer_points, declarer_tricks, matadors, won, schneider, schwarz, multiplier,
game_value, overbid, charged_value, list_score, score_0..2, sf_0..2, points_0..2,
n_actions), ``auction`` (the bidding as ``seat:call`` words, e.g. ``"1:18 0:yes 1:pass
2:pass"``), ``time_0..2`` (seconds the seat's agent spent deciding; NaN in the batch
engine) and ``error`` (empty: the game ended normally). ``attrs``: the configuration
(agents, labels, seed, n_deals, rules, rules_version, engine) and package versions.

Summary (:meth:`TournamentResult.summary`)
------------------------------------------
Per agent, over its seat-games (an agent in two seats of a game counts twice): ``games``,
``declarer_rate``, ``declarer_win_rate``, ``sf_per_game`` (Seeger-Fabian points),
``sf_per_list`` (x 36, a standard list), ``list_score_per_game``, each with ``*_ci``: the
half-width of a 95% confidence interval computed on the boards. The agent's mean on each
board is the unit (the arrangements of a deal are paired, not independent), so for a
mean ``m = mean_b x_b`` the interval is ``m ± z * sd_b(x_b) / sqrt(B)`` (``z`` = 1.96,
``sd`` with ``ddof=1``, ``B`` boards); the declarer win rate is a ratio ``R = Σ w_b / Σ
d_b`` (wins / declarations per board) with the board-clustered (linearised) standard
error ``sqrt(Σ (w_b - R d_b)^2 / (B (B - 1))) / mean_b d_b``.
:meth:`TournamentResult.head_to_head`: for each pair, the per-board difference
``x_b^A - x_b^B`` of Seeger-Fabian points per game (and per list, and list score per game)
with the same interval.
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations, permutations
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from skatsim._random import SeedLike, to_seed
from skatsim.actions import BID_BASE, HOLD, PASS, action_to_string
from skatsim.bits import derive_seed
from skatsim.options import ISKO, SkatRules
from skatsim.runs import versions
from skatsim.state import SkatState
from skatsim.table import CONTRACT_CATEGORIES, RESULT_COLUMNS

from .base import AgentSpec, SpecLike
from .play import Table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["run_tournament", "resume_tournament", "load_tournament", "make_config", "default_chunk_size",
           "BACKENDS", "TournamentResult", "TournamentConfig", "arrangements", "play_chunk", "iter_chunks", "agent_summary", "head_to_head", "margin_difference", "pooled_head_to_head", "auction_text", "GAME_COLUMNS", "Z95",
           "TOURNAMENT_FORMAT"]

TOURNAMENT_FORMAT = "skatsim-tournament/1"
#: Normal quantile of the 95% intervals.
Z95 = 1.959963984540054
LIST_GAMES = 36

#: Column order of a tournament game row.
GAME_COLUMNS: tuple[str, ...] = (("deal_id", "arrangement", "agent_0", "agent_1", "agent_2") + RESULT_COLUMNS
                                 + ("auction", "time_0", "time_1", "time_2", "error", "error_seats"))

_LETTERS = "ABC"


def arrangements(n_agents: int) -> list[tuple[int, int, int]]:
    """Seat arrangements of a board: agent index per seat.

    >>> ["".join("ABC"[i] for i in a) for a in arrangements(2)]
    ['AAB', 'ABA', 'BAA', 'ABB', 'BAB', 'BBA']
    >>> ["".join("ABC"[i] for i in a) for a in arrangements(3)]
    ['ABC', 'ACB', 'BAC', 'BCA', 'CAB', 'CBA']
    """
    if n_agents == 3:
        return [tuple(p) for p in permutations(range(3))]  # type: ignore[misc]
    if n_agents == 2:
        return [(0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0)]
    raise ValueError(f"a tournament seats 2 or 3 agents, got {n_agents}")


def _arr_text(arr: tuple[int, int, int]) -> str:
    return "".join(_LETTERS[i] for i in arr)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that determines a tournament's games (what a manifest writes down)."""

    agents: tuple[AgentSpec, ...]
    n_deals: int
    seed: int
    rules: SkatRules = ISKO
    engine: str = "batch"
    time_limit: float | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """Agent labels: the spec text, ``#2``, ``#3`` appended to repeats."""
        out: list[str] = []
        texts = [s.to_text() for s in self.agents]
        for i, t in enumerate(texts):
            k = texts[:i].count(t)
            out.append(t if k == 0 else f"{t}#{k + 1}")
        return tuple(out)

    @property
    def arrangements(self) -> list[tuple[int, int, int]]:
        return arrangements(len(self.agents))

    def to_dict(self) -> dict[str, Any]:
        return {"format": TOURNAMENT_FORMAT, "agents": [s.to_dict() for s in self.agents],
                "labels": list(self.labels), "n_deals": self.n_deals, "seed": self.seed,
                "rules": self.rules.to_dict(), "rules_version": self.rules.version, "engine": self.engine,
                "time_limit": self.time_limit}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TournamentConfig":
        tl = d.get("time_limit")
        return cls(tuple(AgentSpec.from_dict(a) for a in d["agents"]), int(d["n_deals"]), int(d["seed"]),
                   SkatRules.from_dict(d["rules"]), d.get("engine", "batch"), None if tl is None else float(tl))

    def differences(self, other: "TournamentConfig") -> list[str]:
        """What differs from ``other``, as ``"key: this vs other"`` lines (empty: the same games)."""
        a, b = self.to_dict(), other.to_dict()
        out = []
        for k in ("agents", "n_deals", "seed", "rules", "engine", "time_limit"):
            if a.get(k) != b.get(k):
                fa = ", ".join(s.to_text() for s in self.agents) if k == "agents" else a.get(k)
                fb = ", ".join(s.to_text() for s in other.agents) if k == "agents" else b.get(k)
                out.append(f"{k}: {fa} vs {fb}")
        return out


# ----------------------------------------------------------------------------- auction text


@lru_cache(maxsize=1 << 16)
def _auction_of(calls: tuple[int, ...]) -> str:
    out = []
    stage, bidder, responder, player, bid_made = 0, 1, 0, 1, False
    for a in calls:
        out.append(f"{player}:{action_to_string(a)}")
        if stage == 2:
            break
        if player == bidder:
            if a == PASS:
                survivor = responder
            else:
                bid_made = True
                player = responder
                continue
        elif a == HOLD:
            player = bidder
            continue
        else:
            survivor = bidder
        if stage == 0:
            stage, bidder, responder, player = 1, 2, survivor, 2
        elif bid_made:
            break
        else:
            stage, player = 2, 0
    return " ".join(out)


def auction_text(actions: Iterable[int]) -> str:
    """The bidding of a deal's action list as ``seat:call`` words (``"1:18 0:yes 1:pass 2:pass"``).

    >>> auction_text([32, 96, 95, 95, 98])   # 18 yes, pass, pass, then the skat choice
    '1:18 0:yes 1:pass 2:pass'
    """
    calls = []
    for a in actions:
        a = int(a)
        if not (BID_BASE <= a <= HOLD):
            break
        calls.append(a)
    return _auction_of(tuple(calls))


# ----------------------------------------------------------------------------- playing


def _row_from_state(state: SkatState) -> dict[str, Any]:
    row = state.result.to_row()
    return {c: row[c] for c in RESULT_COLUMNS if c in row}


def _python_chunk(cfg: TournamentConfig, deal_ids: Sequence[int]) -> list[dict[str, Any]]:
    labels = cfg.labels
    rows: list[dict[str, Any]] = []
    for i in deal_ids:
        ds = derive_seed(cfg.seed, i)
        for arr in cfg.arrangements:
            agents = [cfg.agents[k].make() for k in arr]
            table = Table(agents, SkatState.new_game(seed=ds, rules=cfg.rules), ds, i,
                          time_limit=cfg.time_limit, on_error="forfeit")
            game = table.run()
            st = game.state
            row: dict[str, Any] = {"deal_id": i, "arrangement": _arr_text(arr),
                                   "agent_0": labels[arr[0]], "agent_1": labels[arr[1]], "agent_2": labels[arr[2]]}
            res = game.result.to_row()
            row.update({c: res[c] for c in RESULT_COLUMNS if c in res})
            row["deal_index"] = i
            row["deal_seed"] = ds
            row["n_actions"] = len(st.history())
            row["auction"] = " ".join(f"{p}:{action_to_string(a)}" for p, a in st.bidding_history())
            for s in range(3):
                row[f"time_{s}"] = game.decision_time[s]
            row["error"] = game.error_text
            row["error_seats"] = game.error_seats
            rows.append(row)
    return rows


def _frame(rows: list[dict[str, Any]] | "pd.DataFrame") -> "pd.DataFrame":
    import pandas as pd

    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    if len(df) == 0:
        df = pd.DataFrame({c: [] for c in GAME_COLUMNS})
    df = df[list(GAME_COLUMNS)].copy()
    df["contract"] = pd.Categorical(df["contract"].astype(str), categories=list(CONTRACT_CATEGORIES))
    from skatsim.simulate import RESULT_DTYPE  # the batch engine's column types: one schema

    df["deal_id"] = df["deal_id"].astype(np.int64)
    for c in RESULT_DTYPE.names:
        df[c] = df[c].astype(RESULT_DTYPE[c])
    for c in ("arrangement", "agent_0", "agent_1", "agent_2", "auction", "error"):
        df[c] = df[c].astype(object)
    for c in ("time_0", "time_1", "time_2"):
        df[c] = df[c].astype(np.float64)
    df["error_seats"] = df["error_seats"].astype(np.int8)
    return df


def _batch_chunk(cfg: TournamentConfig, start: int, n: int, threads: int | None) -> "pd.DataFrame":
    import pandas as pd

    from skatsim.simulate import simulate

    labels = cfg.labels
    parts = []
    for arr in cfg.arrangements:
        policy = tuple(cfg.agents[k].engine_policy() for k in arr)
        df = simulate(n, policy=policy, seed=cfg.seed, rules=cfg.rules, start=start, workers=threads,
                      record_actions=True)
        acts = df.attrs.pop("actions")
        df = df.copy()
        df.attrs = {}
        df.insert(0, "deal_id", df["deal_index"].to_numpy())
        df.insert(1, "arrangement", _arr_text(arr))
        for s in range(3):
            df.insert(2 + s, f"agent_{s}", labels[arr[s]])
        df["auction"] = [auction_text(a.tolist()) for a in acts]
        for s in range(3):
            df[f"time_{s}"] = np.nan
        df["error"] = ""
        df["error_seats"] = 0
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def _sorted(df: "pd.DataFrame", cfg: TournamentConfig) -> "pd.DataFrame":
    order = {_arr_text(a): k for k, a in enumerate(cfg.arrangements)}
    key = df["deal_id"].to_numpy() * 8 + df["arrangement"].map(order).to_numpy()
    return df.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)


def play_chunk(cfg: TournamentConfig, start: int, stop: int, threads: int | None = 1) -> "pd.DataFrame":
    """All games of boards ``start ... stop - 1`` (every arrangement), as tournament rows
    sorted by deal and arrangement. The unit of work of :func:`run_tournament` (and of a
    resumable or distributed run: chunks are independent and their rows depend only on
    ``cfg`` and the deal ids)."""
    if cfg.engine == "batch":
        df = _batch_chunk(cfg, start, stop - start, threads)
    else:
        df = _python_chunk(cfg, range(start, stop))
    return _sorted(_frame(df), cfg)


def _chunk_bounds(n: int, size: int) -> list[tuple[int, int]]:
    return [(a, min(a + size, n)) for a in range(0, n, size)]


def _python_chunk_frame(cfg: TournamentConfig, start: int, stop: int) -> "pd.DataFrame":
    return play_chunk(cfg, start, stop)


BACKENDS = ("local", "ray")


def default_chunk_size(cfg: TournamentConfig, workers: int = 1) -> int:
    """Boards per unit of work: 20,000 in the batch engine; in the Python engine a few dozen,
    fewer for a small run so every worker gets several chunks."""
    if cfg.engine == "batch":
        return max(1, min(cfg.n_deals, 20_000))
    return max(1, min(25, math.ceil(cfg.n_deals / max(1, 4 * workers))))


def iter_chunks(cfg: TournamentConfig, *, workers: int = 1, chunk_size: int | None = None,
                done: Iterable[tuple[int, int]] = (), backend: str = "local",
                address: str | None = None) -> Iterator[tuple[tuple[int, int], "pd.DataFrame"]]:
    """Yield ``((start, stop), rows)`` for every chunk of boards not in ``done``, as they finish
    (in any order with several workers or on Ray).

    ``backend="local"``: threads (batch engine) or ``workers`` processes (Python engine);
    ``"ray"``: Ray tasks (:mod:`skatsim.ray_backend`; ``address`` of an existing cluster, a
    local Ray with ``workers`` CPUs otherwise)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    n = cfg.n_deals
    skip = set(done)
    size = chunk_size or default_chunk_size(cfg, workers)
    bounds = [b for b in _chunk_bounds(n, size) if b not in skip]
    if backend == "ray":
        from skatsim.ray_backend import ray_map

        yield from ray_map(play_chunk, [(cfg, a, b) for a, b in bounds], bounds, address=address,
                           workers=workers)
        return
    if cfg.engine == "batch":
        threads = min(workers, _max_threads())
        for b in bounds:
            yield b, play_chunk(cfg, *b, threads=threads)
        return
    if workers <= 1 or len(bounds) <= 1:
        for b in bounds:
            yield b, play_chunk(cfg, *b)
        return
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context())
    ok = False
    try:
        futures = {pool.submit(_python_chunk_frame, cfg, *b): b for b in bounds}
        for f in as_completed(futures):
            yield futures[f], f.result()
        ok = True
    finally:  # on Ctrl-C or an error: drop the queued chunks instead of waiting for them
        pool.shutdown(wait=ok, cancel_futures=not ok)


def _mp_context() -> Any:
    """``fork`` where the OS has it: workers start at once, with the parent's compiled code
    and without re-importing ``__main__`` (a script needs no ``if __name__ == "__main__"``
    guard). The workers run the serial policies only (no numba parallel region), so
    forking a parent that used the threaded batch engine is safe. ``spawn`` elsewhere."""
    import multiprocessing as mp
    import sys

    ray = sys.modules.get("ray")
    if ray is not None and getattr(ray, "is_initialized", lambda: False)():
        return get_context("spawn")  # forking a process that runs Ray's threads stalls the children
    return get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def _max_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def make_config(agents: Sequence[SpecLike], n_deals: int, seed: SeedLike = 0, *, rules: SkatRules = ISKO,
                engine: str = "auto", time_limit: float | None = None) -> TournamentConfig:
    """Validate the arguments of :func:`run_tournament` into a :class:`TournamentConfig`."""
    if isinstance(agents, (str, AgentSpec)) or len(agents) not in (2, 3):
        raise ValueError(f"a tournament seats 2 or 3 agents, got {agents!r}")
    specs = tuple(AgentSpec.coerce(a) for a in agents)
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 1:
        raise ValueError(f"n_deals must be a positive int, got {n_deals!r}")
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    batchable = all(s.engine_policy() is not None for s in specs)
    if engine == "auto":
        engine = "batch" if batchable else "python"
    elif engine == "batch" and not batchable:
        raise ValueError("engine='batch' needs agents with a batch-engine policy; python-only: "
                         + ", ".join(s.to_text() for s in specs if s.engine_policy() is None))
    elif engine not in ("batch", "python"):
        raise ValueError(f"engine must be 'auto', 'batch' or 'python', got {engine!r}")
    return TournamentConfig(specs, int(n_deals), to_seed(seed), rules, engine,
                            None if time_limit is None else float(time_limit))


def run_tournament(agents: Sequence[SpecLike], n_deals: int, seed: SeedLike = 0, *, rules: SkatRules = ISKO,
                   workers: int = 1, progress: bool = True, engine: str = "auto",
                   chunk_size: int | None = None, out: str | os.PathLike[str] | None = None,
                   backend: str = "local", address: str | None = None,
                   time_limit: float | None = None) -> "TournamentResult":
    """Play a duplicate tournament of 2 or 3 agents (see the module docstring).

    Args:
        agents: 2 or 3 agent specs: registry names, ``"name:key=value"`` texts,
            :class:`AgentSpec` objects or ``(name, params)`` pairs.
        n_deals: number of boards (deals); each is played 6 times.
        seed: master seed (an int; a Generator or None draws one, kept in ``attrs``).
        rules: :class:`~skatsim.SkatRules`.
        workers: processes for the Python engine (threads for the batch engine; CPUs of a
            local Ray). The table does not depend on it (apart from the measured ``time_*``).
        progress: show a tqdm bar with the running head-to-head figure.
        engine: ``"auto"`` (batch when every agent has a batch-engine policy), ``"batch"``
            or ``"python"``.
        chunk_size: boards per unit of work (default :func:`default_chunk_size`; with
            ``out`` it is fixed when the directory is created).
        out: a run directory (:mod:`skatsim.runs`): a shard per finished chunk plus a manifest.
            If it holds a run of the same configuration, that run is resumed (only the
            missing chunks are played); a different configuration is refused.
        backend: ``"local"`` or ``"ray"`` (:mod:`skatsim.ray_backend`).
        address: with ``backend="ray"``: an existing cluster (``"auto"``, ``"ray://host:10001"``);
            default a local Ray.
        time_limit: seconds per decision (Python engine; the batch engine's compiled policies
            cannot fail). An agent that raises, returns an illegal action or runs over is
            recorded in ``error``/``error_seats`` and the game is settled by rule
            (:mod:`agents.play`, "Misbehaving agents").
    """
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    cfg = make_config(agents, n_deals, seed, rules=rules, engine=engine, time_limit=time_limit)
    run = None
    if out is not None:
        from skatsim.runs import RunDir, is_run_dir

        if is_run_dir(out):
            run = _open_run(out)
            old = TournamentConfig.from_dict(run.config)
            diff = old.differences(cfg)
            if diff:
                raise ValueError(f"{os.fspath(out)!r} holds a different tournament ("
                                 + "; ".join(d.replace(" vs ", " there, ", 1) + " here" for d in diff)
                                 + f"): resume it with resume_tournament({os.fspath(out)!r}) "
                                 "(skatsim tournament --resume DIR) or choose a new directory")
            if chunk_size is not None and chunk_size != run.chunk_size:
                raise ValueError(f"{os.fspath(out)!r} was cut into chunks of {run.chunk_size} boards; "
                                 f"chunk_size={chunk_size} does not match (leave it out to resume)")
        else:
            size = int(chunk_size or default_chunk_size(cfg, int(workers)))
            run = RunDir.create(out, kind="tournament", config=cfg.to_dict(), n_units=cfg.n_deals,
                                chunk_size=size)
    return _run(cfg, run, workers=int(workers), progress=progress, chunk_size=chunk_size, backend=backend,
                address=address)


def _open_run(path: str | os.PathLike[str]) -> Any:
    from skatsim.runs import RunDir

    run = RunDir.open(path)
    if run.kind != "tournament":
        raise ValueError(f"{os.fspath(path)!r} holds a {run.kind} run, not a tournament")
    return run


def resume_tournament(path: str | os.PathLike[str], *, workers: int = 1, progress: bool = True,
                      backend: str = "local", address: str | None = None) -> "TournamentResult":
    """Finish the tournament of run directory ``path`` (its manifest's configuration): play
    the chunks without a shard and return the whole result, the same table as an
    uninterrupted run (apart from the measured ``time_*`` columns)."""
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    run = _open_run(path)
    cfg = TournamentConfig.from_dict(run.config)
    return _run(cfg, run, workers=int(workers), progress=progress, chunk_size=None, backend=backend,
                address=address)


def load_tournament(path: str | os.PathLike[str], *, partial: bool = False) -> "TournamentResult":
    """The result stored in run directory ``path``; an unfinished run raises ``ValueError``
    unless ``partial=True`` (then the finished chunks only)."""
    run = _open_run(path)
    cfg = TournamentConfig.from_dict(run.config)
    todo = run.todo()
    if todo and not partial:
        raise ValueError(f"{os.fspath(path)!r} is unfinished: {len(todo)} of {len(run.bounds())} chunks to play "
                         f"(resume it with resume_tournament or skatsim tournament --resume DIR)")
    games = _sorted(_frame(run.read_all()), cfg)
    games.attrs.update(cfg.to_dict())
    games.attrs["versions"] = run.manifest.get("versions", {})
    games.attrs["run_dir"] = os.fspath(path)
    if "elapsed_s" in run.manifest:
        games.attrs["elapsed_s"] = run.manifest["elapsed_s"]
    return TournamentResult(games, cfg)


def _run(cfg: TournamentConfig, run: Any, *, workers: int, progress: bool, chunk_size: int | None,
         backend: str, address: str | None) -> "TournamentResult":
    import pandas as pd

    parts: list[pd.DataFrame] = []
    done: list[tuple[int, int]] = []
    if run is not None:
        chunk_size = run.chunk_size
        have = run.done()
        done = sorted(have)
        if done:
            parts.append(_frame(run.read_all(done)))
    bar = None
    n_done = sum(b - a for a, b in done)
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=cfg.n_deals, initial=n_done, unit="board", desc=" vs ".join(cfg.labels), leave=False)
    diffs: list[np.ndarray] = [_sf_diffs(p, *cfg.labels[:2]) for p in parts]
    t0 = time.perf_counter()
    before = float(run.manifest.get("elapsed_s", 0.0)) if run is not None else 0.0
    try:
        for (a, b), df in iter_chunks(cfg, workers=workers, chunk_size=chunk_size, done=done, backend=backend,
                                      address=address):
            if run is not None:
                run.write_shard(a, b, df, {"kind": "tournament", "boards": [a, b]})
            parts.append(df)
            if bar is not None:  # chunks hold whole boards: the running figure is exact
                bar.update(b - a)
                diffs.append(_sf_diffs(df, *cfg.labels[:2]))
                m, h = _mean_ci(np.concatenate(diffs))
                bar.set_postfix_str(f"{cfg.labels[0]} - {cfg.labels[1]}: {m:+.2f} ± {h:.2f} SF/game")
    finally:
        if bar is not None:
            bar.close()
        if run is not None:
            run.update(elapsed_s=before + time.perf_counter() - t0)
    games = _sorted(pd.concat(parts, ignore_index=True), cfg)
    games.attrs.update(cfg.to_dict())
    games.attrs["versions"] = versions()
    games.attrs["elapsed_s"] = time.perf_counter() - t0
    result = TournamentResult(games, cfg)
    if run is not None:
        games.attrs["run_dir"] = os.fspath(run.path)
        games.attrs["elapsed_s"] = before + time.perf_counter() - t0
        run.mark_complete(result.table(), elapsed_s=games.attrs["elapsed_s"])
    return result


# ----------------------------------------------------------------------------- summaries


def seat_games(df: "pd.DataFrame") -> "pd.DataFrame":
    """One row per (game, seat): ``deal_id``, ``arrangement``, ``seat``, ``agent``, ``sf``,
    ``score`` (list score), ``declared``, ``won`` (declared and won), ``time``, ``erred``
    (the seat's agent failed in that game)."""
    import pandas as pd

    parts = []
    errs = (df["error_seats"].to_numpy(np.int64) if "error_seats" in df.columns
            else np.zeros(len(df), np.int64))
    for s in range(3):
        decl = df["declarer"].to_numpy() == s
        parts.append(pd.DataFrame({
            "deal_id": df["deal_id"].to_numpy(), "arrangement": df["arrangement"].to_numpy(), "seat": s,
            "agent": df[f"agent_{s}"].to_numpy(), "sf": df[f"sf_{s}"].to_numpy(np.float64),
            "score": df[f"score_{s}"].to_numpy(np.float64), "declared": decl,
            "won": decl & df["won"].to_numpy(bool), "time": df[f"time_{s}"].to_numpy(np.float64),
            "erred": (errs >> s) & 1}))
    return pd.concat(parts, ignore_index=True)


def _boards(df: "pd.DataFrame") -> "pd.DataFrame":
    """Per (board, agent) sums: n seat-games, sf, score, declared, won."""
    sg = seat_games(df)
    g = sg.groupby(["deal_id", "agent"], sort=True)
    return g.agg(n=("sf", "size"), sf=("sf", "sum"), score=("score", "sum"), declared=("declared", "sum"),
                 won=("won", "sum"), time=("time", "sum"), erred=("erred", "sum")).reset_index()


def _sf_diffs(df: "pd.DataFrame", a: str, b: str) -> np.ndarray:
    """Per-board differences ``a - b`` of Seeger-Fabian points per game."""
    return board_margins(df, a, b).to_numpy(np.float64)


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of per-board values ``x``."""
    b = len(x)
    if b == 0:
        return math.nan, math.nan
    m = float(np.mean(x))
    if b < 2:
        return m, math.nan
    return m, Z95 * float(np.std(x, ddof=1)) / math.sqrt(b)


def _ratio_ci(w: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """Ratio ``Σw / Σd`` and its board-clustered 95% half-width."""
    b = len(w)
    if b == 0 or d.sum() == 0:
        return math.nan, math.nan
    r = float(w.sum() / d.sum())
    if b < 2:
        return r, math.nan
    z = w - r * d
    se = math.sqrt(float((z * z).sum()) / (b * (b - 1))) / float(d.mean())
    return r, Z95 * se


def agent_summary(df: "pd.DataFrame", labels: Sequence[str] | None = None) -> "pd.DataFrame":
    """Per agent: games, declarer rate, declarer win rate, Seeger-Fabian points per game
    and per 36-game list, list score per game, each with its 95% half-width ``*_ci``
    (board-level, see the module docstring); ``time_per_game`` (seconds; NaN in the
    batch engine); ``errors``: the games in which the agent failed (raised, returned an
    illegal action or exceeded the time limit; each settled by rule, see :mod:`agents.play`)."""
    import pandas as pd

    bd = _boards(df)
    timed = bool(df[["time_0", "time_1", "time_2"]].notna().to_numpy().any())
    if labels is None:
        labels = sorted(bd["agent"].unique())
    out = []
    for lab in labels:
        x = bd[bd["agent"] == lab]
        n = x["n"].to_numpy(np.float64)
        rec: dict[str, Any] = {"agent": lab, "boards": len(x), "games": int(n.sum())}
        rec["declarer_rate"], rec["declarer_rate_ci"] = _mean_ci(x["declared"].to_numpy(np.float64) / n)
        rec["declarer_win_rate"], rec["declarer_win_rate_ci"] = _ratio_ci(x["won"].to_numpy(np.float64),
                                                                          x["declared"].to_numpy(np.float64))
        rec["sf_per_game"], rec["sf_per_game_ci"] = _mean_ci(x["sf"].to_numpy(np.float64) / n)
        rec["sf_per_list"], rec["sf_per_list_ci"] = rec["sf_per_game"] * LIST_GAMES, rec["sf_per_game_ci"] * LIST_GAMES
        rec["list_score_per_game"], rec["list_score_per_game_ci"] = _mean_ci(x["score"].to_numpy(np.float64) / n)
        rec["time_per_game"] = float(x["time"].sum() / n.sum()) if n.sum() and timed else math.nan
        rec["errors"] = int(x["erred"].sum())
        out.append(rec)
    return pd.DataFrame(out).set_index("agent")


def head_to_head(df: "pd.DataFrame", labels: Sequence[str] | None = None) -> "pd.DataFrame":
    """For each pair of agents (A, B): the per-board differences A - B of Seeger-Fabian points
    per game (and per list) and of list score per game, with 95% half-widths."""
    import pandas as pd

    bd = _boards(df)
    if labels is None:
        labels = sorted(bd["agent"].unique())
    per = {lab: bd[bd["agent"] == lab].set_index("deal_id") for lab in labels}
    out = []
    for a, b in combinations(labels, 2):
        xa, xb = per[a], per[b]
        common = xa.index.intersection(xb.index)
        xa, xb = xa.loc[common], xb.loc[common]
        d_sf = (xa["sf"] / xa["n"] - xb["sf"] / xb["n"]).to_numpy(np.float64)
        d_sc = (xa["score"] / xa["n"] - xb["score"] / xb["n"]).to_numpy(np.float64)
        m, h = _mean_ci(d_sf)
        ms, hs = _mean_ci(d_sc)
        out.append({"a": a, "b": b, "boards": len(common), "sf_diff_per_game": m, "sf_diff_per_game_ci": h,
                    "sf_diff_per_list": m * LIST_GAMES, "sf_diff_per_list_ci": h * LIST_GAMES,
                    "list_score_diff_per_game": ms, "list_score_diff_per_game_ci": hs})
    return pd.DataFrame(out, columns=["a", "b", "boards", "sf_diff_per_game", "sf_diff_per_game_ci",
                                      "sf_diff_per_list", "sf_diff_per_list_ci", "list_score_diff_per_game",
                                      "list_score_diff_per_game_ci"])


def margin_difference(games_a: "pd.DataFrame", games_b: "pd.DataFrame", pair_a: Sequence[str],
                      pair_b: Sequence[str]) -> dict[str, float]:
    """Two duplicate tournaments on the same boards (the same seed, so board ``i`` is the
    same deal in both): the per-board difference of their margins, ``(A1 - B1)`` in
    ``games_a`` minus ``(A2 - B2)`` in ``games_b`` (Seeger-Fabian points per game), with a
    95% half-width on the common boards. Pairing by board removes the luck of the cards:
    "does PIMC with inference beat the rule-based player by more than PIMC without?".

    >>> a = run_tournament(["random", "rule_based"], n_deals=30, seed=2, progress=False).games
    >>> d = margin_difference(a, a, ("random", "rule_based"), ("random", "rule_based"))
    >>> d["boards"], d["diff"], d["diff_ci"]
    (30, 0.0, 0.0)
    """
    (a1, b1), (a2, b2) = pair_a, pair_b
    da = board_margins(games_a, a1, b1)
    db = board_margins(games_b, a2, b2)
    common = da.index.intersection(db.index)
    sa = games_a.drop_duplicates("deal_id").set_index("deal_id")["deal_seed"].loc[common]
    sb = games_b.drop_duplicates("deal_id").set_index("deal_id")["deal_seed"].loc[common]
    if not (sa.to_numpy() == sb.to_numpy()).all():
        raise ValueError("the two tournaments do not share their boards (different seeds): board i is another deal")
    x = (da.loc[common] - db.loc[common]).to_numpy(np.float64)
    m, h = _mean_ci(x)
    ma, ha = _mean_ci(da.loc[common].to_numpy(np.float64))
    mb, hb = _mean_ci(db.loc[common].to_numpy(np.float64))
    return {"boards": int(len(common)), "margin_a": ma, "margin_a_ci": ha, "margin_b": mb, "margin_b_ci": hb,
            "diff": m, "diff_ci": h}


def pooled_head_to_head(tables: Sequence["pd.DataFrame"]) -> "pd.DataFrame":
    """:func:`head_to_head` over the boards of several tournaments of the same agents (other
    seeds: independent boards), each board counted once: more boards for one figure.

    >>> a = run_tournament(["random", "rule_based"], n_deals=10, seed=1, progress=False).games
    >>> b = run_tournament(["random", "rule_based"], n_deals=15, seed=2, progress=False).games
    >>> int(pooled_head_to_head([a, b])["boards"].iloc[0])
    25
    """
    import pandas as pd

    if not tables:
        raise ValueError("pooled_head_to_head needs at least one games table")
    labels = [tuple(sorted({x for s in range(3) for x in t[f"agent_{s}"].unique()})) for t in tables]
    if len(set(labels)) != 1:
        raise ValueError(f"the tournaments seat different agents: {sorted(set(labels))}")
    parts, offset = [], 0
    for t in tables:
        t = t.copy()
        t["deal_id"] = t["deal_id"] + offset
        offset = int(t["deal_id"].max()) + 1
        parts.append(t)
    return head_to_head(pd.concat(parts, ignore_index=True), list(labels[0]))


def board_margins(df: "pd.DataFrame", a: str, b: str) -> "pd.Series":
    """Per-board ``a - b`` of Seeger-Fabian points per game, indexed by ``deal_id``."""
    bd = _boards(df).set_index(["deal_id", "agent"])
    x = bd["sf"] / bd["n"]
    labels = set(bd.index.get_level_values("agent"))
    for lab in (a, b):
        if lab not in labels:
            raise ValueError(f"no agent {lab!r} in this tournament; its agents: {sorted(labels)}")
    xa, xb = x.xs(a, level="agent"), x.xs(b, level="agent")
    common = xa.index.intersection(xb.index)
    return xa.loc[common] - xb.loc[common]


def _pm(m: float, h: float, fmt: str) -> str:
    if math.isnan(m):
        return "-"
    hfmt = fmt.lstrip("+")
    return f"{m:{fmt}} ± {h:{hfmt}}" if not math.isnan(h) else f"{m:{fmt}}"


@dataclass
class TournamentResult:
    """A finished tournament: ``games`` (one row per game, :data:`GAME_COLUMNS`) and its config."""

    games: "pd.DataFrame"
    config: TournamentConfig
    _summary: Any = field(default=None, repr=False)

    @property
    def labels(self) -> tuple[str, ...]:
        return self.config.labels

    @classmethod
    def from_games(cls, games: "pd.DataFrame") -> "TournamentResult":
        """Rebuild from a games table whose ``attrs`` carry the configuration."""
        return cls(games, TournamentConfig.from_dict(games.attrs))

    def summary(self) -> "pd.DataFrame":
        """Per-agent summary (:func:`agent_summary`)."""
        if self._summary is None:
            self._summary = agent_summary(self.games, self.labels)
        return self._summary

    def head_to_head(self) -> "pd.DataFrame":
        return head_to_head(self.games, self.labels)

    def table(self) -> str:
        """The summary as text (95% intervals as ``±``)."""
        import pandas as pd

        s = self.summary()
        show = pd.DataFrame({
            "games": s["games"],
            "declarer rate": [_pm(m, h, ".3f") for m, h in zip(s["declarer_rate"], s["declarer_rate_ci"])],
            "declarer win rate": [_pm(m, h, ".3f") for m, h in zip(s["declarer_win_rate"],
                                                                   s["declarer_win_rate_ci"])],
            "SF/game": [_pm(m, h, ".2f") for m, h in zip(s["sf_per_game"], s["sf_per_game_ci"])],
            "SF/list (36)": [_pm(m, h, ".0f") for m, h in zip(s["sf_per_list"], s["sf_per_list_ci"])],
            "list score/game": [_pm(m, h, ".2f") for m, h in zip(s["list_score_per_game"],
                                                                 s["list_score_per_game_ci"])],
        }, index=s.index)
        if s["time_per_game"].notna().any():
            show["decide s/game"] = [f"{t:.4f}" for t in s["time_per_game"]]
        show["errors"] = s["errors"]
        c = self.config
        head = (f"duplicate tournament: {c.n_deals:,} boards x 6 arrangements = {len(self.games):,} games, "
                f"seed {c.seed}, rules {c.rules.version}, {c.engine} engine")
        lines = [head, show.to_string()]
        for _, r in self.head_to_head().iterrows():
            lines.append(f"head to head {r['a']} - {r['b']}: {_pm(r['sf_diff_per_game'], r['sf_diff_per_game_ci'], '+.2f')}"
                         f" SF/game, {_pm(r['sf_diff_per_list'], r['sf_diff_per_list_ci'], '+.0f')} SF/list "
                         f"({r['boards']:,} boards, 95% CI)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


# ----------------------------------------------------------------------------- charts

_GAME_LABELS = ("diamonds", "hearts", "spades", "clubs", "grand", "null")


def contract_rates(df: "pd.DataFrame", labels: Sequence[str] | None = None) -> "pd.DataFrame":
    """Per agent and game type (diamonds ... null): ``declared`` (games it declared),
    ``declarer_rate`` (per seat-game of the agent) and ``win_rate`` (won / declared)."""
    import pandas as pd

    sg = seat_games(df)
    games = np.concatenate([df["game"].to_numpy(np.int64)] * 3)
    sg["game"] = games
    if labels is None:
        labels = sorted(sg["agent"].unique())
    rows = []
    for lab in labels:
        x = sg[sg["agent"] == lab]
        n = len(x)
        for g, name in enumerate(_GAME_LABELS):
            d = x[x["declared"] & (x["game"] == g)]
            rows.append({"agent": lab, "game": name, "declared": len(d),
                         "declarer_rate": len(d) / n if n else math.nan,
                         "win_rate": float(d["won"].mean()) if len(d) else math.nan})
    return pd.DataFrame(rows)


def plot_tournament(result: "TournamentResult", path: str | os.PathLike[str]) -> None:
    """Write a PNG: Seeger-Fabian points per game per agent with 95% intervals, and declarer
    rate and declarer win rate per game type per agent (needs matplotlib)."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result.summary()
    rates = contract_rates(result.games, result.labels)
    labels = list(result.labels)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    ax.bar(range(len(labels)), s["sf_per_game"], yerr=s["sf_per_game_ci"], capsize=6,
           color=[f"C{i}" for i in range(len(labels))])
    ax.set_xticks(range(len(labels)), labels, rotation=15)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("Seeger-Fabian points per game")
    ax.set_title(f"SF per game, 95% CI ({result.config.n_deals:,} boards)")
    width = 0.8 / max(1, len(labels))
    xs = np.arange(len(_GAME_LABELS))
    for k, (col, title) in enumerate((("declarer_rate", "declarer rate by game type"),
                                      ("win_rate", "declarer win rate by game type"))):
        ax = axes[k + 1]
        for i, lab in enumerate(labels):
            r = rates[rates["agent"] == lab]
            ax.bar(xs + (i - (len(labels) - 1) / 2) * width, r[col].to_numpy(np.float64), width, label=lab,
                   color=f"C{i}")
        ax.set_xticks(xs, _GAME_LABELS, rotation=15)
        ax.set_title(title)
        ax.set_ylim(0, 1 if col == "win_rate" else None)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.fspath(path), dpi=110)
    plt.close(fig)
