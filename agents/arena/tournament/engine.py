"""Playing a tournament's boards: every arrangement of a chunk of deals, as game rows.

A chunk's rows depend only on the configuration and the deal ids (:func:`play_chunk`), so
chunks can be played in any order, by any number of workers or on Ray
(:func:`iter_chunks`, through :func:`skatsim.parallel.map_chunks`). :func:`plan` is the one
place that chooses how: ``parallel="threads"`` (numba threads of this process: the default
when every agent is compiled) or ``"processes"`` (``workers`` processes or Ray tasks: the
default when an agent decides in Python), and the chunk size that fits.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, Iterator

import numpy as np

from skatsim.bits import derive_seed
from skatsim.parallel import BACKENDS, map_chunks
from skatsim.table import CONTRACT_CATEGORIES

from .config import GAME_COLUMNS, TournamentConfig, arrangement_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["play_chunk", "iter_chunks", "default_chunk_size", "plan", "PARALLEL", "BACKENDS", "games_frame",
           "sort_games"]

#: How chunks run: on numba threads of this process, or in worker processes (or Ray tasks).
PARALLEL = ("threads", "processes")


def _boards_of(cfg: TournamentConfig, start: int, stop: int) -> list[tuple[int, int, tuple[Any, ...]]]:
    """The games of boards ``start ... stop - 1``: every arrangement of each deal."""
    return [(derive_seed(cfg.seed, i), i, tuple(cfg.agents[k] for k in arr))
            for i in range(start, stop) for arr in cfg.arrangements]


def games_frame(rows: list[dict[str, Any]] | "pd.DataFrame") -> "pd.DataFrame":
    import pandas as pd

    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    if len(df) == 0:
        df = pd.DataFrame({c: [] for c in GAME_COLUMNS})
    df = df[list(GAME_COLUMNS)].copy()
    df["contract"] = pd.Categorical(df["contract"].astype(str), categories=list(CONTRACT_CATEGORIES))
    from skatsim.simulate import RESULT_DTYPE  # batch simulation's column types: one schema

    df["deal_id"] = df["deal_id"].astype(np.int64)
    for c in RESULT_DTYPE.names or ():
        df[c] = df[c].astype(RESULT_DTYPE[c])
    for c in ("arrangement", "agent_0", "agent_1", "agent_2", "auction", "error", "traceback"):
        df[c] = df[c].astype(object)
    for c in ("time_0", "time_1", "time_2"):
        df[c] = df[c].astype(np.float64)
    df["error_seats"] = df["error_seats"].astype(np.int8)
    return df


def sort_games(df: "pd.DataFrame", cfg: TournamentConfig) -> "pd.DataFrame":
    order = {arrangement_text(a): k for k, a in enumerate(cfg.arrangements)}
    key = df["deal_id"].to_numpy() * 8 + df["arrangement"].map(order).to_numpy()
    return df.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)


def play_chunk(cfg: TournamentConfig, start: int, stop: int, threads: int | None = 1) -> "pd.DataFrame":
    """All games of boards ``start ... stop - 1`` (every arrangement), as tournament rows
    sorted by deal and arrangement. The unit of work of :func:`run_tournament` (and of a
    resumable or distributed run: chunks are independent and their rows depend only on
    ``cfg`` and the deal ids).

    Every game goes through the one engine, :func:`agents.arena.vecplay.play_boards` on a
    :class:`skatsim.vec.VecEnv`: compiled agents inside the compiled step (``threads`` numba
    threads), batch agents once per step for all games, Python agents one observation at a
    time with the table's checks and forfeit rules."""
    from ..vecplay import play_boards

    arrs = [arrangement_text(a) for a in cfg.arrangements]
    labels = cfg.labels
    df = play_boards(_boards_of(cfg, start, stop), rules=cfg.rules, slots=4096, threads=threads,
                     time_limit=cfg.time_limit, on_error="forfeit")
    df.attrs = {}
    k = len(arrs)
    df.insert(1, "arrangement", [arrs[b % k] for b in range(len(df))])
    for s in range(3):
        df.insert(2 + s, f"agent_{s}", [labels[cfg.arrangements[b % k][s]] for b in range(len(df))])
    return sort_games(games_frame(df.drop(columns="board")), cfg)


def _chunk_bounds(n: int, size: int) -> list[tuple[int, int]]:
    return [(a, min(a + size, n)) for a in range(0, n, size)]


def plan(cfg: TournamentConfig, workers: int = 1, parallel: str | None = None,
         chunk_size: int | None = None) -> tuple[str, int]:
    """``(parallel, chunk size)`` of a run: ``parallel`` as given, else ``"threads"`` when every
    agent is compiled and ``"processes"`` otherwise; the chunk size as given, else 20,000
    boards on threads (one compiled call steps them all) and a few dozen in processes, fewer
    for a small run so every worker gets several chunks. No game depends on either."""
    if parallel is None:
        parallel = "threads" if cfg.compiled else "processes"
    elif parallel not in PARALLEL:
        raise ValueError(f"parallel must be one of {PARALLEL} (or None: from the agents), got {parallel!r}")
    if chunk_size is None:
        if parallel == "threads":
            chunk_size = max(1, min(cfg.n_deals, 20_000))
        else:
            chunk_size = max(1, min(25, math.ceil(cfg.n_deals / max(1, 4 * workers))))
    return parallel, int(chunk_size)


def default_chunk_size(cfg: TournamentConfig, workers: int = 1, parallel: str | None = None) -> int:
    """Boards per unit of work (:func:`plan`)."""
    return plan(cfg, workers, parallel)[1]


def iter_chunks(cfg: TournamentConfig, *, workers: int = 1, chunk_size: int | None = None,
                done: Iterable[tuple[int, int]] = (), backend: str = "local",
                address: str | None = None,
                parallel: str | None = None) -> Iterator[tuple[tuple[int, int], "pd.DataFrame"]]:
    """Yield ``((start, stop), rows)`` for every chunk of boards not in ``done``, as they finish
    (in any order with several workers or on Ray).

    ``parallel`` and the chunk size: :func:`plan`. ``backend="local"``: threads of this
    process or ``workers`` processes; ``"ray"``: Ray tasks (:mod:`skatsim.parallel`;
    ``address`` of an existing cluster, a local Ray with ``workers`` CPUs otherwise)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    n = cfg.n_deals
    skip = set(done)
    parallel, size = plan(cfg, workers, parallel, chunk_size)
    bounds = [b for b in _chunk_bounds(n, size) if b not in skip]
    if backend == "local" and parallel == "threads":  # numba threads in this process
        threads = min(workers, _max_threads())
        for b in bounds:
            yield b, play_chunk(cfg, *b, threads=threads)
        return
    yield from map_chunks(play_chunk, [(cfg, a, b) for a, b in bounds], bounds, workers=workers, backend=backend,
                          address=address)


def _max_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
