"""Study: PIMC strength and speed against the rule-based player as a function of the worlds.

    .venv/bin/python experiments/pimc_worlds_sweep.py --config experiments/configs/pimc_worlds_sweep.json

A long study: about 50 minutes on 2 cores (five 200-board tournaments, one process each
as the config says; 64 worlds take about half of it), nothing needed beforehand.
``--n-deals 4`` is a quick try (about a minute).

For each number of worlds, a duplicate tournament ``pimc:worlds=W`` vs ``rule_based`` (the
same rule-based bidding on both sides, so the figure measures card play) on the same
boards. Writes ``runs/pimc_worlds_sweep__<seed>__<time>/`` with ``results.parquet`` (one
row per worlds setting: Seeger-Fabian difference per game with its 95% CI, PIMC's
declarer win rate, decision seconds per game) and ``summary.md``.

Each setting's tournament is a resumable run directory (``worlds_<W>/`` inside the study's
``tournaments`` directory, default ``runs/pimc_worlds_sweep_tournaments__<seed>`` in the
current folder): run the study again after an interruption and it continues. ``reuse`` maps
a worlds setting to a finished tournament of the same agents and seed with at least
``n_deals`` boards (its first ``n_deals`` boards are the same deals), e.g. the 2,000-board
PIMC(32) run of ``RESULTS.md``: where that folder does not exist the setting is played here
(the study says so); one that exists but does not fit is refused before anything is played.
Relative paths are taken from the current folder.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402

if TYPE_CHECKING:
    from agents.arena.tournament import TournamentResult


@dataclass
class Config:
    study: str = "pimc_worlds_sweep"
    worlds: list[int] = field(default_factory=lambda: [4, 8, 16, 32, 64])
    #: extra PIMC parameters, e.g. {"inference": true}
    pimc: dict = field(default_factory=dict)
    opponent: str = "rule_based"
    n_deals: int = 200
    seed: int = 1
    workers: int = 2
    #: run directory of the per-setting tournaments (default runs/pimc_worlds_sweep_tournaments__<seed>)
    tournaments: str = ""
    #: {"32": "runs/pimc32_vs_rule_based"}: settings taken from finished tournaments where they exist
    reuse: dict = field(default_factory=dict)
    #: the setting every other one is compared with, board by board (default: the largest)
    reference: int = 0


def _reused(cfg: Config) -> dict[int, "TournamentResult"]:
    """The finished tournaments ``cfg.reuse`` names that exist, checked before any play (a
    missing one is played instead; one that does not fit is refused: SystemExit)."""
    from agents import load_tournament
    from agents.arena.base import AgentSpec
    from agents.arena.tournament import TournamentResult

    out: dict[int, TournamentResult] = {}
    for key, src in cfg.reuse.items():
        w = int(key)
        if w not in cfg.worlds:
            continue
        path = Path(src)
        if not path.exists():
            print(f"worlds={w}: {src} is not here (reuse in the config); playing its {cfg.n_deals} boards instead",
                  file=sys.stderr)
            continue
        try:
            full = load_tournament(path)
        except ValueError as e:
            raise SystemExit(f"pimc_worlds_sweep: reuse {src}: {e}") from None
        want = (_spec(cfg, w), AgentSpec.parse(cfg.opponent).to_text())
        if tuple(full.labels[:2]) != want or full.config.seed != cfg.seed or full.config.n_deals < cfg.n_deals:
            raise SystemExit(f"pimc_worlds_sweep: reuse {src}: agents {full.labels}, seed {full.config.seed}, "
                             f"{full.config.n_deals} boards do not fit {want}, seed {cfg.seed}, {cfg.n_deals} boards")
        games = full.games[full.games["deal_id"] < cfg.n_deals].copy()
        games.attrs = dict(full.games.attrs)
        out[w] = TournamentResult(games, full.config)
    return out


def _spec(cfg: Config, worlds: int) -> str:
    from agents.arena.base import AgentSpec

    return AgentSpec("pimc", {"worlds": worlds, **cfg.pimc}).to_text()


def run(cfg: Config, root: str | None = None) -> Path:
    import pandas as pd

    from agents import run_tournament
    from agents.arena.base import AgentSpec

    reused = _reused(cfg)
    run_dir = make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    tdir = Path(cfg.tournaments) if cfg.tournaments else Path("runs") / f"pimc_worlds_sweep_tournaments__{cfg.seed}"
    rows = []
    tables: dict[int, tuple[str, "pd.DataFrame"]] = {}
    for w in cfg.worlds:
        spec = _spec(cfg, w)
        t0 = time.perf_counter()
        if w in reused:
            res = reused[w]
        else:
            res = run_tournament([spec, cfg.opponent], cfg.n_deals, seed=cfg.seed, workers=cfg.workers,
                                 progress=True, out=tdir / f"worlds_{w}")
        dt = time.perf_counter() - t0
        tables[w] = (spec, res.games)
        h = res.head_to_head().iloc[0]
        s = res.summary()
        mine = s.loc[spec]
        times = res.games[[f"time_{i}" for i in range(3)]]
        pimc_seat = res.games[[f"agent_{i}" for i in range(3)]].eq(spec)
        rows.append({"worlds": w, "boards": cfg.n_deals, "games": len(res.games),
                     "sf_diff_per_game": float(h["sf_diff_per_game"]), "sf_diff_ci": float(h["sf_diff_per_game_ci"]),
                     "pimc_sf_per_game": float(mine["sf_per_game"]),
                     "pimc_declarer_win_rate": float(mine["declarer_win_rate"]),
                     "pimc_seconds_per_seat_game": float(times.where(pimc_seat.to_numpy()).stack().mean()),
                     "wall_seconds": dt})
        print(rows[-1])
        pd.DataFrame(rows).to_parquet(run_dir / "results.parquet")  # after every setting: partial results survive
    from agents.arena.tournament import margin_difference

    ref = cfg.reference or max(cfg.worlds)
    opp = AgentSpec.parse(cfg.opponent).to_text()
    for r in rows:  # paired by board: how much better or worse than the reference setting
        d = margin_difference(tables[r["worlds"]][1], tables[ref][1], (tables[r["worlds"]][0], opp),
                              (tables[ref][0], opp))
        r[f"diff_vs_{ref}"], r[f"diff_vs_{ref}_ci"] = d["diff"], d["diff_ci"]
    table = pd.DataFrame(rows)
    text = table.to_string(index=False, float_format=lambda x: f"{x:.3f}")
    write_summary(run_dir, f"PIMC worlds sweep vs {cfg.opponent}", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__, argv, ("n_deals", "seed"))


if __name__ == "__main__":
    sys.exit(main())
