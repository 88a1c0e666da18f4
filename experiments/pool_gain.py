"""Does a player's gain over a baseline hold against every opponent of a pool? From the
cells of :mod:`experiments.dmc_pool` runs of one seed (the same boards in every cell of a
column), per opponent: the player's margin, the baseline's margin, and their difference
paired by board (:func:`agents.arena.tournament.margin_difference`), each with a 95% half-width.

    .venv/bin/python experiments/pool_gain.py runs/dmc_pool__20260__... --players neural_bidder \\
        --baseline rule_based

Against the baseline itself the baseline's margin is 0 and the gain is the player's margin;
a baseline cell played the other way round (the opponent as the row player) is read mirrored.
A cell is read from the chunks its run played (``cells/<key>/deals_*.parquet``); the first
run that holds a (player, opponent) cell is used. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def read_cells(runs: Sequence[str | Path]) -> dict[tuple[str, str], Any]:
    """``{(player, opponent): games}`` of every cell with played chunks in ``runs`` (one seed)."""
    import pandas as pd

    cells: dict[tuple[str, str], Any] = {}
    seeds = set()
    for r in runs:
        for d in sorted((Path(r) / "cells").glob("*")):
            if not (d / "cell.json").is_file():
                continue
            meta = json.loads((d / "cell.json").read_text())
            files = sorted(d.glob("deals_*.parquet"), key=lambda f: int(f.stem.split("_")[1]))
            key = (meta["player"], meta["opponent"])
            if files and key not in cells:
                seeds.add(int(meta["seed"]))
                cells[key] = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    if len(seeds) > 1:
        raise ValueError(f"the runs were played with different seeds {sorted(seeds)}: their boards differ")
    return cells


def gains(cells: dict[tuple[str, str], Any], players: Sequence[str], baseline: str,
          opponents: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per (player, opponent) with a cell of the player (``opponents``: only these,
    in this order): margins and the paired gain."""
    from agents.arena.tournament import board_margins, margin_difference
    from agents.arena.tournament.stats import mean_ci

    rows = []
    for p in players:
        cols = [o for pp, o in cells if pp == p] if opponents is None else [o for o in opponents if (p, o) in cells]
        for o in cols:
            games = cells[(p, o)]
            row: dict[str, Any] = {"player": p, "opponent": o}
            if o == baseline:
                m, h = mean_ci(board_margins(games, "A", "B").to_numpy(float))
                row.update(boards=int(games["deal_id"].nunique()), margin=m, margin_ci=h, base=0.0, base_ci=0.0,
                           gain=m, gain_ci=h)
            elif (baseline, o) in cells or (o, baseline) in cells:
                base, pair = (cells[(baseline, o)], ("A", "B")) if (baseline, o) in cells \
                    else (cells[(o, baseline)], ("B", "A"))
                d = margin_difference(games, base, ("A", "B"), pair)
                row.update(boards=d["boards"], margin=d["margin_a"], margin_ci=d["margin_a_ci"], base=d["margin_b"],
                           base_ci=d["margin_b_ci"], gain=d["diff"], gain_ci=d["diff_ci"])
            else:
                m, h = mean_ci(board_margins(games, "A", "B").to_numpy(float))
                row.update(boards=int(games["deal_id"].nunique()), margin=m, margin_ci=h)
            rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], baseline: str) -> str:
    def pm(r: dict[str, Any], k: str) -> str:
        return f"{r[k]:+.2f} ± {r[k + '_ci']:.2f}" if k in r else "—"

    lines = [f"| player | opponent | boards | player's margin | {baseline}'s margin | gain over {baseline} |",
             "|---|---|---:|---:|---:|---:|"]
    lines += [f"| {r['player']} | {r['opponent']} | {r['boards']} | {pm(r, 'margin')} | {pm(r, 'base')} | "
              f"{pm(r, 'gain')} |" for r in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="pool_gain.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="dmc_pool run directories of one seed")
    ap.add_argument("--players", nargs="+", required=True, help="row agent specs")
    ap.add_argument("--baseline", default="rule_based", help="the agent whose margins are subtracted")
    ap.add_argument("--opponents", nargs="+", default=None, help="only these opponents, in this order")
    a = ap.parse_args(argv)
    print(table(gains(read_cells(a.runs), a.players, a.baseline, a.opponents), a.baseline))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
