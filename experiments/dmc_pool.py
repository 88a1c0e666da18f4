"""Every player against a pool of opponents: duplicate margins with 95% intervals.

    .venv/bin/python experiments/dmc_pool.py --deals 2000 --slow-deals 200 --seed 20260

Players (rows) and opponents (columns) are agent specs; each cell is a duplicate match of
the two (every deal under the 6 seat arrangements of two agents, the same boards for every
cell of a column: ``derive_seed(seed, i)``), played through :func:`agents.arena.vecplay.play_boards`.
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
import json
import shutil
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


def _cell_key(player: str, opponent: str) -> str:
    import hashlib

    return hashlib.sha1(f"{player}|{opponent}".encode()).hexdigest()[:12]


def run_pool(players: Sequence[str], pool: Sequence[str], deals: int, slow_deals: int, seed: int, out: Path,
             progress: bool = True, chunk: int = 25, reuse: Sequence[Path] = (), play: bool = True,
             skip: Sequence[tuple[str, str]] = ()) -> Any:
    """Play every (row, column) cell in chunks of ``chunk`` boards (fast cells: ``10 * chunk``),
    each chunk's games kept as ``cells/<key>/deals_<start>.parquet``: an interrupted run resumes
    within a cell, and a larger ``deals`` / ``slow_deals`` on resume plays only the new boards.
    The slow cells are played in passes (every slow cell gets its next chunk before any gets a
    second), so that all of them have the same boards when the run is stopped. ``reuse``:
    pool runs of the same seed whose ``cells.parquet`` rows (same player, opponent and number
    of deals) are taken as they are, and whose played chunks (``cells/<key>/``) are copied.
    ``skip``: (player, opponent) cells not to play. A fast cell is played to the end when it
    is first visited. ``play=False`` only summarises the chunks played
    (a cell stopped part-way counts the boards it has)."""
    import pandas as pd

    from agents.learn.evaluation import play_deals, summarize

    old: dict[tuple[str, str, int], dict[str, Any]] = {}
    for d in reuse:
        man = json.loads((Path(d) / "manifest.json").read_text())
        if int(man["config"]["seed"]) != seed:
            raise ValueError(f"{d} was played with seed {man['config']['seed']}, not {seed}")
        if (Path(d) / "cells.parquet").is_file():
            for r in pd.read_parquet(Path(d) / "cells.parquet").to_dict("records"):
                t = r.get("target_deals")
                if t is None or t != t or int(t) == int(r["deals"]):  # complete cells only
                    old[(r["player"], r["opponent"], int(r["deals"]))] = r
    todo: list[tuple[str, str, int, int]] = []  # player, opponent, target boards, chunk
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for p in players:
        for o in pool:
            if p == o:
                continue
            n = slow_deals if (_slow(p) or _slow(o)) else deals
            if (p, o, n) in old:  # a finished cell of an earlier run, skipped here or not
                results[(p, o)] = old[(p, o, n)]
                continue
            if n <= 0 or (p, o) in set(skip):
                continue
            todo.append((p, o, n, chunk if (_slow(p) or _slow(o)) else 10 * chunk))

    def parts(p: str, o: str) -> Path:
        d = out / "cells" / _cell_key(p, o)
        if not d.is_dir():
            d.mkdir(parents=True)
            for r in reuse:  # the chunks an earlier run of the same seed played
                src = Path(r) / "cells" / _cell_key(p, o)
                if (src / "cell.json").is_file() and json.loads((src / "cell.json").read_text())["seed"] == seed:
                    for f in src.glob("deals_*.parquet"):
                        shutil.copyfile(f, d / f.name)
        (d / "cell.json").write_text(json.dumps({"player": p, "opponent": o, "seed": seed}))
        return d

    def played(d: Path) -> list[int]:
        return sorted(int(f.stem.split("_")[1]) for f in d.glob("deals_*.parquet"))

    start = {(p, o): time.perf_counter() for p, o, _, _ in todo}
    pending = list(todo) if play else []
    while pending:
        nxt = []
        for p, o, n, c in pending:
            d = parts(p, o)
            done = played(d)
            ks = [k for k in range(0, n, c) if k not in done]
            if not ks:
                continue
            slow = _slow(p) or _slow(o)
            for k in ks[:1] if slow else ks:
                t = time.perf_counter()
                df = play_deals(p, o, range(k, min(n, k + c)), seed, 2048)
                tmp = d / f".deals_{k}.tmp.parquet"
                df.drop(columns=[x for x in df.columns if df[x].dtype == object and x not in (
                    "arrangement", "agent_0", "agent_1", "agent_2", "error")]).to_parquet(tmp)
                tmp.replace(d / f"deals_{k}.parquet")
                if progress:
                    print(f"{p} vs {o}: boards {k}-{min(n, k + c) - 1} of {n} in {time.perf_counter() - t:.0f} s",
                          file=sys.stderr, flush=True)
            if slow:
                nxt.append((p, o, n, c))
        pending = nxt if play else []
    for p, o, n, c in todo:
        d = parts(p, o)
        files = []
        for k in range(0, n, c):  # the chunks played so far, from the first one on
            if not (d / f"deals_{k}.parquet").is_file():
                break
            files.append(d / f"deals_{k}.parquet")
        if not files:
            continue
        df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
        r = summarize(df)
        r.update({"player": p, "opponent": o, "deals": int(df["deal_id"].nunique()), "target_deals": n,
                  "seconds": time.perf_counter() - start[(p, o)]})
        results[(p, o)] = r
        if progress:
            print(f"{p} vs {o}: {r['margin']:+.2f} ± {r['margin_ci']:.2f} SF/game ({n} deals)",
                  file=sys.stderr, flush=True)
    df = pd.DataFrame(list(results.values()))
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
    ap.add_argument("--players", nargs="+", default=None, help="row agent specs")
    ap.add_argument("--pool", nargs="+", default=None, help="opponent agent specs (columns)")
    ap.add_argument("--deals", type=int, default=None, help="boards per cell of fast agents (default 2000)")
    ap.add_argument("--slow-deals", type=int, default=None, help="boards per cell with a PIMC agent (default 200)")
    ap.add_argument("--chunk", type=int, default=25,
                    help="boards per saved chunk of a slow cell (fast cells: 10 times as many)")
    ap.add_argument("--seed", type=int, default=None, help="the master seed (default 20260)")
    ap.add_argument("--out", default="runs", help="folder of the run directory (default runs)")
    ap.add_argument("--resume", default=None, metavar="DIR",
                    help="go on with a pool run (its players, pool and seed; --deals / --slow-deals may grow)")
    ap.add_argument("--reuse", nargs="+", default=[], metavar="DIR",
                    help="finished pool runs of the same seed: their cells (same players, deals) are taken")
    ap.add_argument("--skip", nargs="+", default=[], metavar="PLAYER@OPPONENT",
                    help="cells not to play (shown as —), e.g. dmc:declarer_play=pimc@rule_based:bid_threshold=0.45")
    ap.add_argument("--table-only", action="store_true",
                    help="with --resume: write the table of what is played, play nothing")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    from agents import AgentSpec
    from skatsim.runs import new_run_dir, read_manifest, write_manifest

    try:
        if a.resume and (a.players or a.pool or a.seed is not None):
            raise ValueError("--resume DIR plays the players, pool and seed of DIR's manifest")
        if a.table_only and not a.resume:
            raise ValueError("--table-only needs --resume DIR")
        for s in list(a.players or PLAYERS) + list(a.pool or POOL):
            AgentSpec.coerce(s)
        if (a.deals or 0) < 0 or (a.slow_deals or 0) < 0 or a.chunk < 1:
            raise ValueError("--deals and --slow-deals must not be negative, --chunk must be positive")
        cfg = {"players": list(a.players or PLAYERS), "pool": list(a.pool or POOL),
               "deals": 2000 if a.deals is None else a.deals,
               "slow_deals": 200 if a.slow_deals is None else a.slow_deals,
               "seed": 20260 if a.seed is None else a.seed, "chunk": a.chunk,
               "skip": [x.split("@", 1) for x in a.skip]}
        if any(len(x) != 2 for x in cfg["skip"]):
            raise ValueError("--skip takes PLAYER@OPPONENT")
        if a.resume:
            out = Path(a.resume)
            cfg = {**cfg, **read_manifest(out)["config"]}
            for k in ("deals", "slow_deals"):
                if getattr(a, k) is not None:
                    cfg[k] = getattr(a, k)
            cfg.setdefault("chunk", a.chunk)
            cfg.setdefault("skip", [])
        for d in a.reuse:
            if not (Path(d) / "manifest.json").is_file():
                raise FileNotFoundError(f"{d} is not a pool run (no manifest.json)")
    except (ValueError, TypeError, FileNotFoundError, KeyError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    if not a.resume:
        out = new_run_dir("dmc_pool", cfg["seed"], a.out)
    if not a.table_only:
        write_manifest(out, "study:dmc_pool", cfg, argv=sys.argv, status="running")
    print(f"pool run directory: {out} (resume: python experiments/dmc_pool.py --resume {out})", file=sys.stderr)
    t = time.perf_counter()
    df = run_pool(cfg["players"], cfg["pool"], cfg["deals"], cfg["slow_deals"], cfg["seed"], out,
                  progress=not a.no_progress, chunk=int(cfg["chunk"]), reuse=[Path(d) for d in a.reuse],
                  play=not a.table_only, skip=[tuple(x) for x in cfg["skip"]])
    text = table(df, cfg["players"], cfg["pool"])
    text += (f"\n\nDuplicate margin of the row player over the column opponent, Seeger-Fabian points per game, "
             f"95% half-width over boards (boards in brackets); seed {cfg['seed']}; "
             f"{time.perf_counter() - t:.0f} s.\n")
    (out / "table.md").write_text(text)
    if not a.table_only:
        write_manifest(out, "study:dmc_pool", cfg, argv=sys.argv, status="complete")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
