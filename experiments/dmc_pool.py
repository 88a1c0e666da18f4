"""Every player against a pool of opponents: duplicate margins with 95% intervals.

    .venv/bin/python experiments/dmc_pool.py --deals 2000 --slow-deals 200 --seed 20260

Players (rows) and opponents (columns) are agent specs; each cell is a duplicate match of
the two (every deal under the 6 seat arrangements of two agents, the same boards for every
cell of a column: ``derive_seed(seed, i)``), played through :func:`agents.vecplay.play_boards`.
A cell is the row player's margin over the column opponent in Seeger-Fabian points per game
with its 95% half-width (over boards). Cells with a slow agent (PIMC, in the player or the
opponent) get ``--slow-deals`` boards (the first ones of the same stream), the others
``--deals``. Also per cell: the row player's SF per game as declarer and as defender.

Writes ``<out>/dmc_pool__<seed>__<time>/``: ``manifest.json``, ``cells.parquet`` and
``table.md`` (what it prints), one parquet per finished cell (``cell_<i>_<j>.parquet``, so a
re-run with ``--resume DIR`` plays only the missing cells).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PLAYERS = ("dmc", "dmc:declarer_play=pimc", "dmc:early=neural_bidder", "pimc:worlds=32", "neural_bidder",
           "rule_based")
POOL = ("rule_based", "rule_based:bid_threshold=0.45", "rule_based:bid_threshold=0.75", "pimc:worlds=32",
        "neural_bidder")


def _slow(spec: str) -> bool:
    return "pimc" in spec


def run_pool(players: Sequence[str], pool: Sequence[str], deals: int, slow_deals: int, seed: int, out: Path,
             progress: bool = True, workers: int = 1) -> Any:
    import pandas as pd

    from experiments.train_dmc import duplicate

    cells = []
    for i, p in enumerate(players):
        for j, o in enumerate(pool):
            f = out / f"cell_{i}_{j}.parquet"
            if p == o:
                continue
            if f.is_file():
                cells.append(pd.read_parquet(f).iloc[0].to_dict())
                continue
            n = slow_deals if (_slow(p) or _slow(o)) else deals
            if n <= 0:
                continue
            t = time.perf_counter()
            r = duplicate(p, o, n, seed, workers=workers)
            r.update({"player": p, "opponent": o, "deals": n, "seconds": time.perf_counter() - t})
            pd.DataFrame([r]).to_parquet(f)
            cells.append(r)
            if progress:
                print(f"{p} vs {o}: {r['margin']:+.2f} ± {r['margin_ci']:.2f} SF/game ({n} deals, "
                      f"{r['seconds']:.0f} s)", file=sys.stderr, flush=True)
    df = pd.DataFrame(cells)
    df.to_parquet(out / "cells.parquet")
    return df


def table(df: Any, players: Sequence[str], pool: Sequence[str]) -> str:
    """The margin matrix as markdown (``margin ± ci (deals)``), plus a column saying whether
    the row's margin is positive with its interval clear of zero against every opponent."""
    lines = ["| player \\ opponent | " + " | ".join(pool) + " | > 0 against all |",
             "|---|" + "---:|" * len(pool) + ":---:|"]
    for p in players:
        cells, allpos = [], True
        for o in pool:
            r = df[(df["player"] == p) & (df["opponent"] == o)] if len(df) else df
            if p == o or not len(r):
                cells.append("—")
                if p != o:
                    allpos = False
                continue
            x = r.iloc[0]
            cells.append(f"{x['margin']:+.2f} ± {x['margin_ci']:.2f} ({int(x['deals'])})")
            allpos &= bool(x["margin"] - x["margin_ci"] > 0)
        lines.append(f"| {p} | " + " | ".join(cells) + f" | {'yes' if allpos else 'no'} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, prog: str = "dmc_pool.py") -> int:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", nargs="+", default=list(PLAYERS), help="row agent specs")
    ap.add_argument("--pool", nargs="+", default=list(POOL), help="opponent agent specs (columns)")
    ap.add_argument("--deals", type=int, default=2000, help="boards per cell of fast agents")
    ap.add_argument("--slow-deals", type=int, default=200, help="boards per cell with a PIMC agent")
    ap.add_argument("--seed", type=int, default=20260)
    ap.add_argument("--out", default="runs", help="folder of the run directory (default runs)")
    ap.add_argument("--resume", default=None, metavar="DIR", help="play the missing cells of a pool run")
    ap.add_argument("--workers", type=int, default=1, help="processes per cell (each plays a share of the deals)")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    from agents import AgentSpec
    from skatsim.runs import read_manifest, write_manifest

    try:
        for s in list(a.players) + list(a.pool):
            AgentSpec.coerce(s)
        if a.deals < 0 or a.slow_deals < 0:
            raise ValueError("--deals and --slow-deals must not be negative")
    except (ValueError, TypeError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    cfg = {"players": list(a.players), "pool": list(a.pool), "deals": a.deals, "slow_deals": a.slow_deals,
           "seed": a.seed}
    if a.resume:
        out = Path(a.resume)
        cfg = read_manifest(out)["config"]
    else:
        out = Path(a.out) / f"dmc_pool__{a.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        out.mkdir(parents=True, exist_ok=True)
        write_manifest(out, "study:dmc_pool", cfg, argv=sys.argv, status="running")
    print(f"pool run directory: {out}", file=sys.stderr)
    t = time.perf_counter()
    df = run_pool(cfg["players"], cfg["pool"], cfg["deals"], cfg["slow_deals"], cfg["seed"], out,
                  progress=not a.no_progress, workers=max(1, a.workers))
    text = table(df, cfg["players"], cfg["pool"])
    text += (f"\n\nDuplicate margin of the row player over the column opponent, Seeger-Fabian points per game, "
             f"95% half-width over boards (boards in brackets); seed {cfg['seed']}; "
             f"{time.perf_counter() - t:.0f} s.\n")
    (out / "table.md").write_text(text)
    write_manifest(out, "study:dmc_pool", cfg, argv=sys.argv, status="complete")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
