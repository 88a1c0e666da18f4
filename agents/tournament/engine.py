"""Playing a tournament's boards: every arrangement of a chunk of deals, as game rows.

A chunk's rows depend only on the configuration and the deal ids (:func:`play_chunk`), so
chunks can be played in any order, by any number of workers or on Ray
(:func:`iter_chunks`, through :func:`skatsim.parallel.map_chunks`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from skatsim.bits import derive_seed
from skatsim.parallel import BACKENDS, map_chunks
from skatsim.state import SkatState
from skatsim.table import CONTRACT_CATEGORIES, RESULT_COLUMNS, auction_text

from ..play import Table
from .config import GAME_COLUMNS, TournamentConfig, arrangement_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["play_chunk", "iter_chunks", "default_chunk_size", "BACKENDS", "games_frame", "sort_games"]


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
            row: dict[str, Any] = {"deal_id": i, "arrangement": arrangement_text(arr),
                                   "agent_0": labels[arr[0]], "agent_1": labels[arr[1]], "agent_2": labels[arr[2]]}
            res = game.result.to_row()
            row.update({c: res[c] for c in RESULT_COLUMNS if c in res})
            row["deal_index"] = i
            row["deal_seed"] = ds
            row["n_actions"] = len(st.history())
            row["auction"] = auction_text(st.history())
            for s in range(3):
                row[f"time_{s}"] = game.decision_time[s]
            row["error"] = game.error_text
            row["error_seats"] = game.error_seats
            row["traceback"] = game.error_traceback
            rows.append(row)
    return rows


def games_frame(rows: list[dict[str, Any]] | "pd.DataFrame") -> "pd.DataFrame":
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
    for c in ("arrangement", "agent_0", "agent_1", "agent_2", "auction", "error", "traceback"):
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
        df.insert(1, "arrangement", arrangement_text(arr))
        for s in range(3):
            df.insert(2 + s, f"agent_{s}", labels[arr[s]])
        df["auction"] = [auction_text(a.tolist()) for a in acts]
        for s in range(3):
            df[f"time_{s}"] = np.nan
        df["error"] = ""
        df["error_seats"] = 0
        df["traceback"] = ""
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def sort_games(df: "pd.DataFrame", cfg: TournamentConfig) -> "pd.DataFrame":
    order = {arrangement_text(a): k for k, a in enumerate(cfg.arrangements)}
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
    return sort_games(games_frame(df), cfg)


def _chunk_bounds(n: int, size: int) -> list[tuple[int, int]]:
    return [(a, min(a + size, n)) for a in range(0, n, size)]


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
    ``"ray"``: Ray tasks (:mod:`skatsim.parallel`; ``address`` of an existing cluster, a
    local Ray with ``workers`` CPUs otherwise)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    n = cfg.n_deals
    skip = set(done)
    size = chunk_size or default_chunk_size(cfg, workers)
    bounds = [b for b in _chunk_bounds(n, size) if b not in skip]
    if backend == "local" and cfg.engine == "batch":  # numba threads in this process
        threads = min(workers, _max_threads())
        for b in bounds:
            yield b, play_chunk(cfg, *b, threads=threads)
        return
    yield from map_chunks(play_chunk, [(cfg, a, b) for a, b in bounds], bounds, workers=workers, backend=backend,
                          address=address)


def _max_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)
