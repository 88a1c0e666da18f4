"""Running, resuming and loading tournaments; a run directory keeps every finished chunk.

:func:`run_tournament` plays the boards chunk by chunk (:mod:`agents.arena.tournament.engine`)
and, with ``out=``, writes each chunk's rows as a shard of a run directory
(:class:`skatsim.runs.RunDir`) the moment it finishes: a crash, Ctrl-C or ``kill -9``
loses at most the chunks in progress, and :func:`resume_tournament` plays only the rest.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from skatsim._random import SeedLike
from skatsim.interrupt import ctrl_c
from skatsim.options import ISKO, SkatRules
from skatsim.parallel import BACKENDS
from skatsim.runs import versions

from ..base import SpecLike
from .config import DEFAULT_TIME_LIMIT, TournamentConfig, make_config, retired_engine
from .engine import games_frame, iter_chunks, plan, sort_games
from .result import TournamentResult
from .stats import mean_ci, sf_diffs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["run_tournament", "resume_tournament", "load_tournament"]


def run_tournament(agents: Sequence[SpecLike], n_deals: int, seed: SeedLike = 0, *, rules: SkatRules = ISKO,
                   workers: int = 1, progress: bool = True, parallel: str | None = None,
                   chunk_size: int | None = None, out: str | os.PathLike[str] | None = None,
                   backend: str = "local", address: str | None = None,
                   time_limit: float | None = DEFAULT_TIME_LIMIT, engine: str | None = None,
                   one_seat: bool = False) -> "TournamentResult":
    """Play a duplicate tournament of 2 or 3 agents (see the module docstring).

    Args:
        agents: 2 or 3 agent specs: registry names, ``"name:key=value"`` texts,
            :class:`AgentSpec` objects or ``(name, params)`` pairs.
        n_deals: number of boards (deals); each is played 6 times (3 with ``one_seat``).
        seed: master seed (an int; a Generator or None draws one, kept in ``attrs``).
        rules: :class:`~skatsim.SkatRules`.
        workers: threads or processes (CPUs of a local Ray). The table does not depend on it
            (apart from the measured ``time_*``).
        progress: show a tqdm bar with the running head-to-head figure.
        parallel: ``"threads"`` (numba threads of this process) or ``"processes"``
            (``workers`` processes, or Ray tasks); default: threads when every agent is
            compiled, processes otherwise (:func:`agents.arena.tournament.engine.plan`).
        chunk_size: boards per unit of work (default: :func:`~agents.arena.tournament.engine.plan`;
            with ``out`` it is fixed when the directory is created).
        out: a run directory (:mod:`skatsim.runs`): a shard per finished chunk plus a manifest.
            If it holds a run of the same configuration, that run is resumed (only the
            missing chunks are played); a different configuration is refused.
        backend: ``"local"`` or ``"ray"`` (:mod:`skatsim.parallel`).
        address: with ``backend="ray"``: an existing cluster (``"auto"``, ``"ray://host:10001"``);
            default a local Ray.
        time_limit: seconds of its own CPU time per decision of a Python agent (compiled agents
            cannot fail): :data:`~agents.arena.seat.DEFAULT_TIME_LIMIT` (30) unless given, 0 or
            ``None`` for none; one that waits is stopped after 10 x the limit + 1 s, and numba's
            compiling is not counted. An agent that raises, returns an illegal action or runs
            over is recorded in ``error``/``error_seats`` and the game is settled by rule
            (:mod:`agents.arena.seat`).
        engine: retired (one engine plays every game); ``"batch"`` / ``"python"`` still
            mean ``parallel="threads"`` / ``"processes"``, with a DeprecationWarning.
        one_seat: two agents only: the first in one seat and the second (the field) in the two
            others, the three arrangements ``ABB BAB BBA`` a board
            (:func:`~agents.arena.tournament.config.arrangements`): half the games of a full
            tournament and the shape of a measurement against a field; two such runs of
            different players against the same field and seed pair by ``skatsim compare``.
    """
    parallel = retired_engine(engine, parallel)
    _check_run(workers, backend)
    cfg = make_config(agents, n_deals, seed, rules=rules, time_limit=time_limit, one_seat=one_seat)
    parallel, size = plan(cfg, int(workers), parallel, chunk_size)
    run = None
    if out is not None:
        from skatsim.runs import RunDir, is_run_dir

        if is_run_dir(out):
            run = _open_run(out)
            old = TournamentConfig.from_dict(run.config, placeholders=True)
            diff = old.differences(cfg)
            if diff:
                raise ValueError(f"{os.fspath(out)!r} holds a different tournament ("
                                 + "; ".join(d.replace(" vs ", " there, ", 1) + " here" for d in diff)
                                 + f"): resume it with resume_tournament({os.fspath(out)!r}) "
                                 "(skatsim tournament --resume DIR) or choose a new directory")
            if chunk_size is not None and chunk_size != run.chunk_size:
                raise ValueError(f"{os.fspath(out)!r} was cut into chunks of {run.chunk_size} boards; "
                                 f"chunk_size={chunk_size} does not match (leave it out to resume)")
            size = run.chunk_size
        else:
            run = RunDir.create(out, kind="tournament", config=cfg.to_dict(), n_units=cfg.n_deals,
                                chunk_size=size)
    return _run(cfg, run, workers=int(workers), progress=progress, chunk_size=size, backend=backend,
                address=address, parallel=parallel)


def _check_run(workers: Any, backend: str) -> None:
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")


def _open_run(path: str | os.PathLike[str]) -> Any:
    from skatsim.runs import RunDir

    run = RunDir.open(path)
    if run.kind != "tournament":
        raise ValueError(f"{os.fspath(path)!r} holds a {run.kind} run, not a tournament")
    return run


def resume_tournament(path: str | os.PathLike[str], *, workers: int = 1, progress: bool = True,
                      backend: str = "local", address: str | None = None,
                      agents: Sequence[Any] | None = None, parallel: str | None = None) -> "TournamentResult":
    """Finish the tournament of run directory ``path`` (its manifest's configuration): play
    the chunks without a shard and return the whole result, the same table as an
    uninterrupted run (apart from the measured ``time_*`` columns). ``agents``: the agent
    objects the run seated (:class:`agents.arena.base.AgentObject`), which a manifest cannot
    rebuild. ``parallel``: as for :func:`run_tournament`."""
    _check_run(workers, backend)
    run = _open_run(path)
    cfg = TournamentConfig.from_dict(run.config, agents)
    return _run(cfg, run, workers=int(workers), progress=progress, chunk_size=run.chunk_size, backend=backend,
                address=address, parallel=parallel)


def load_tournament(path: str | os.PathLike[str], *, partial: bool = False) -> "TournamentResult":
    """The result stored in run directory ``path``; an unfinished run raises ``ValueError``
    unless ``partial=True`` (then the finished chunks only)."""
    run = _open_run(path)
    cfg = TournamentConfig.from_dict(run.config, placeholders=True)
    todo = run.todo()
    if todo and not partial:
        raise ValueError(f"{os.fspath(path)!r} is unfinished: {len(todo)} of {len(run.bounds())} chunks to play "
                         f"(resume it with resume_tournament or skatsim tournament --resume DIR)")
    games = sort_games(games_frame(run.read_all()), cfg)
    games.attrs.update(cfg.to_dict())
    games.attrs["versions"] = run.manifest.get("versions", {})
    games.attrs["run_dir"] = os.fspath(path)
    if "elapsed_s" in run.manifest:
        games.attrs["elapsed_s"] = run.manifest["elapsed_s"]
    return TournamentResult(games, cfg)


def _run(cfg: TournamentConfig, run: Any, *, workers: int, progress: bool, chunk_size: int | None,
         backend: str, address: str | None, parallel: str | None) -> "TournamentResult":
    import pandas as pd

    parts: list[pd.DataFrame] = []
    done: list[tuple[int, int]] = []
    if run is not None:
        have = run.done()
        done = sorted(have)
        if done:
            parts.append(games_frame(run.read_all(done)))
    bar = None
    n_done = sum(b - a for a, b in done)
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=cfg.n_deals, initial=n_done, unit="board", desc=" vs ".join(cfg.labels), leave=False)
    diffs: list[np.ndarray] = [sf_diffs(p, *cfg.labels[:2]) for p in parts]
    t0 = time.perf_counter()
    before = float(run.manifest.get("elapsed_s", 0.0)) if run is not None else 0.0
    try:
        with ctrl_c():  # a Ctrl-C that code in a chunk drops is raised again
            for (a, b), df in iter_chunks(cfg, workers=workers, chunk_size=chunk_size, done=done, backend=backend,
                                          address=address, parallel=parallel):
                if run is not None:
                    run.write_shard(a, b, df, {"kind": "tournament", "boards": [a, b]})
                    _log_errors(run, df)
                    # kept with every shard: a run ended by SIGTERM or SIGKILL runs no ``finally``
                    run.update(elapsed_s=before + time.perf_counter() - t0)
                parts.append(df)
                if bar is not None:  # chunks hold whole boards: the running figure is exact
                    bar.update(b - a)
                    diffs.append(sf_diffs(df, *cfg.labels[:2]))
                    m, h = mean_ci(np.concatenate(diffs))
                    bar.set_postfix_str(f"{cfg.labels[0]} - {cfg.labels[1]}: {m:+.2f} ± {h:.2f} SF/game")
    finally:
        if bar is not None:
            bar.close()
        if run is not None:
            run.update(elapsed_s=before + time.perf_counter() - t0)
    games = sort_games(pd.concat(parts, ignore_index=True), cfg)
    games.attrs.update(cfg.to_dict())
    games.attrs["versions"] = versions()
    games.attrs["elapsed_s"] = time.perf_counter() - t0
    result = TournamentResult(games, cfg)
    if run is not None:
        games.attrs["run_dir"] = os.fspath(run.path)
        games.attrs["elapsed_s"] = before + time.perf_counter() - t0
        run.mark_complete(result.table(), elapsed_s=games.attrs["elapsed_s"])
    return result


#: The agents' errors of a run directory, with their tracebacks (appended chunk by chunk).
ERROR_LOG = "errors.txt"


def _log_errors(run: Any, df: "pd.DataFrame") -> None:
    """Append the errors of a finished chunk (with the agents' tracebacks) to the run's log."""
    bad = df[df["error"] != ""]
    if not len(bad):
        return
    with open(run.path / ERROR_LOG, "a", encoding="utf-8") as f:
        for _, row in bad.iterrows():
            f.write(f"--- board {row['deal_id']} arrangement {row['arrangement']} (deal seed {row['deal_seed']})\n")
            f.write((row["traceback"] or row["error"]).rstrip("\n") + "\n")
