"""Fit a bidder's win probabilities to the card player that plays its games.

The neural bidder's network was trained on rule-based play-outs; PIMC wins more of the same
contracts. This module plays games in which every seat bids with the bidder (at a few
``aggressiveness`` levels in turn, so the marginal contracts a calibrated bidder must judge
are declared too) and plays its cards with the card player, records for every declaration
the network's win probability of the ten cards that play and whether the contract was won,
and fits :func:`agents.players.calibration.fit_calibration` on them: the bidder with that
calibration values contracts by what the card player wins.

Seeds and storage as the label runs: game ``i`` deals ``derive_seed(seed, i)``; a run
directory (kind ``bid_calibration``), a shard per ``shard_size`` games, resumable;
:func:`read_declarations` loads the rows (``game``, ``seat``, ``early``, ``game_type``,
``hand``, ``bid``, ``p``, ``won``, ``sf``).

``skatsim calibrate-bidder --out DIR --games N`` runs it and prints the fitted calibration
and a reliability table (predicted and actual win rate by bins of ``p``).
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from skatsim.bits import derive_seed

__all__ = ["CalibrationConfig", "declaration_rows", "collect", "read_declarations", "reliability", "main", "RUN_KIND"]

RUN_KIND = "bid_calibration"


@dataclass(frozen=True)
class CalibrationConfig:
    """What determines the rows of a calibration run.

    Args:
        n_games: games to play.
        seed: run seed.
        bidder: the neural bidder's spec (without ``calibration``: its raw network).
        card_play: the card player (an agent spec, parameters in parentheses).
        aggressiveness: the bidder's aggressiveness, one value per game in turn.
        shard_size: games per shard.
    """

    n_games: int = 1000
    seed: int = 0
    bidder: str = "neural_bidder"
    card_play: str = "pimc(worlds=32)"
    aggressiveness: tuple[float, ...] = (0.0, 15.0, 30.0)
    shard_size: int = 10

    def __post_init__(self) -> None:
        if isinstance(self.n_games, bool) or not isinstance(self.n_games, int) or not 1 <= self.n_games <= 10**8:
            raise ValueError(f"n_games must be an int in 1..10^8, got {self.n_games!r}")
        if not self.aggressiveness:
            raise ValueError("aggressiveness needs at least one value")
        object.__setattr__(self, "aggressiveness", tuple(float(a) for a in self.aggressiveness))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["aggressiveness"] = list(self.aggressiveness)
        return d


def declaration_rows(i: int, cfg: CalibrationConfig) -> list[dict[str, Any]]:
    """Game ``i``: its declaration (none when every seat passed) as a row."""
    from skatsim import SkatState

    from ..arena.base import AgentSpec
    from ..arena.play import Table
    from ..players.compose import ComposedAgent

    deal_seed = derive_seed(cfg.seed, i)
    aggr = cfg.aggressiveness[i % len(cfg.aggressiveness)]
    spec = AgentSpec.parse(cfg.bidder)
    bidders = [AgentSpec(spec.name, {**spec.param_dict, "aggressiveness": aggr}).make() for _ in range(3)]
    seats = [ComposedAgent(early=b, card_play=cfg.card_play) for b in bidders]
    state = SkatState.new_game(seed=deal_seed)
    table = Table(seats, state, deal_seed, i)
    table.run()
    d = state.declarer
    if d is None or not bidders[d].declarations:
        return []
    rec = bidders[d].declarations[-1]
    r = table.result
    return [{"game": i, "seat": int(d), "aggressiveness": aggr, "game_type": int(rec["game"]),
             "hand": bool(rec["hand"]), "bid": int(rec["bid"]), "p": float(rec["p"]), "score": float(rec["score"]),
             "won": bool(r.won), "sf": float(r.seeger_fabian[d]), "contract": str(r.contract)}]


def _chunk(cfg: CalibrationConfig, a: int, b: int) -> tuple[float, Any]:
    import pandas as pd

    t0 = time.process_time()
    rows = [r for i in range(a, b) for r in declaration_rows(i, cfg)]
    cols = ["game", "seat", "aggressiveness", "game_type", "hand", "bid", "p", "score", "won", "sf", "contract"]
    return time.process_time() - t0, pd.DataFrame(rows, columns=cols)


def collect(out_dir: str | os.PathLike[str], cfg: CalibrationConfig, *, workers: int = 1, backend: str = "local",
            address: str | None = None, progress: bool = True) -> Path:
    """Play ``cfg.n_games`` games into the run directory ``out_dir`` (resumable)."""
    from skatsim.runs import RunDir

    run = RunDir.resume_or_create(out_dir, kind=RUN_KIND, config=cfg.to_dict(), n_units=cfg.n_games,
                                  chunk_size=cfg.shard_size)
    if workers > 1 and backend == "local" and run.todo():
        declaration_rows(0, cfg)  # compile once: forked workers inherit the code
    run.fill(_chunk, lambda a, b: (cfg, a, b), workers=workers, backend=backend, address=address, progress=progress,
             desc="calibration games", unit="game")
    run.mark_complete(None)
    return Path(out_dir)


def read_declarations(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> Any:
    """The declaration rows of one or more calibration runs (finished shards)."""
    from skatsim.runs import read_runs

    return read_runs(paths, RUN_KIND, "bidder calibration games")


def reliability(p: np.ndarray, won: np.ndarray, bins: Sequence[float] = (0, .5, .6, .7, .8, .9, .95, 1.0001)) -> Any:
    """Predicted against actual win rate per bin of ``p``: ``bin``, ``n``, ``p``, ``won``."""
    import pandas as pd

    p, won = np.asarray(p, np.float64), np.asarray(won, np.float64)
    rows = []
    for lo, hi in zip(bins[:-1], bins[1:]):
        m = (p >= lo) & (p < hi)
        if m.any():
            rows.append({"bin": f"[{lo:.2f}, {min(hi, 1):.2f})", "n": int(m.sum()), "p": float(p[m].mean()),
                         "won": float(won[m].mean())})
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """``skatsim calibrate-bidder --out DIR --games N [--card-play SPEC] [--workers K]``."""
    import argparse

    from ..players.calibration import fit_calibration, format_calibration

    ap = argparse.ArgumentParser(prog="skatsim calibrate-bidder", description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--out", required=True, help="run directory (resumed when it holds the same config)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bidder", default=CalibrationConfig.bidder)
    ap.add_argument("--card-play", default=CalibrationConfig.card_play)
    ap.add_argument("--aggressiveness", type=float, nargs="+", default=list(CalibrationConfig.aggressiveness))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--backend", choices=("local", "ray"), default="local")
    ap.add_argument("--address", default=None)
    a = ap.parse_args(argv)
    try:
        cfg = CalibrationConfig(n_games=a.games, seed=a.seed, bidder=a.bidder, card_play=a.card_play,
                                aggressiveness=tuple(a.aggressiveness))
        collect(a.out, cfg, workers=a.workers, backend=a.backend, address=a.address)
        df = read_declarations(a.out)
    except (ValueError, FileExistsError) as e:
        ap.error(str(e))
    cal = fit_calibration(df["p"].to_numpy(), df["game_type"].to_numpy(), df["won"].to_numpy())
    print(f"{len(df):,} declarations in {cfg.n_games:,} games; win rate {df['won'].mean():.3f}, the network's mean "
          f"p {df['p'].mean():.3f}")
    print(reliability(df["p"].to_numpy(), df["won"].to_numpy()).to_string(index=False))
    print(f"calibration={format_calibration(cal)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
