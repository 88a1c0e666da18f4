"""The commands of long, resumable runs and their results: ``tournament``, ``league``,
``simulate`` and ``show``.

Every run command writes (with ``--out DIR``) a run directory that survives Ctrl-C and
``kill -9``: the same command again, or ``--resume DIR``, plays only what is missing. On
Ctrl-C the command stops within moments and prints the command that resumes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from .options import (DEFAULT_SEED, UsageError, add_backend, add_format, add_out, add_progress, add_rules, add_seed,
                      add_workers, agent_list, agent_spec, check_new_out, check_plot_path, deals_arg, default_workers,
                      refuse_unused, rules_of)

__all__ = ["add_tournament", "add_league", "add_simulate", "add_show", "read_results"]


def _common_run_checks(args: argparse.Namespace) -> None:
    if args.address is not None and args.backend != "ray":
        raise UsageError("--address needs --backend ray")
    if args.address is not None:  # a cluster that does not answer is refused now, in seconds
        from skatsim.parallel import check_ray_address

        check_ray_address(args.address)
    if getattr(args, "format", None) is not None and not (args.out or getattr(args, "resume", None)):
        raise UsageError("--format needs --out DIR (the single file goes into the run directory)")


def _damaged(folder: str) -> list[str]:
    """What is wrong with each damaged shard of run directory ``folder`` (and of the run
    directories in it: a league's pairs), as ``"PATH: why"`` lines."""
    from pathlib import Path

    from skatsim.runs import RunDir, is_run_dir

    runs = [Path(folder)] + sorted(p.parent for p in Path(folder).glob("*/manifest.json"))
    out = []
    for r in runs:
        if is_run_dir(r) and (r / "shards").is_dir():
            out += [f"{r / 'shards'}: {why}" for why in RunDir.open(r).damaged().values()]
    return out


def _note_damaged(cmd: str, folder: str) -> None:
    """Before resuming ``folder``: say which shards are damaged (their chunks are played again)."""
    if os.path.isdir(folder):
        for line in _damaged(folder):
            print(f"skatsim {cmd}: note: {line}; its chunk is played again", file=sys.stderr)


def _write_table(df: Any, folder: str, name: str, fmt: str | None) -> str | None:
    """``DIR/NAME.parquet`` or ``.csv`` (atomically), when ``--format`` asks for it; a Parquet
    file keeps the table's JSON-able ``attrs`` (the configuration), as pandas writes them."""
    if fmt is None:
        return None
    from skatsim.runs import atomic_path

    import json

    path = os.path.join(folder, f"{name}.{fmt}")
    table = df.copy()
    table.attrs = {}
    for k, v in df.attrs.items():  # the configuration goes along (the replay screen reads it)
        try:
            json.dumps(v)
        except TypeError:  # e.g. a simulation's recorded actions (an array)
            continue
        table.attrs[k] = v
    with atomic_path(path) as tmp:
        if fmt == "csv":
            table.to_csv(tmp, index=False)
        else:
            table.to_parquet(tmp, index=False)
    return path


# ----------------------------------------------------------------------------- tournament


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds >= 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds expected, got {text!r}") from None
    if not 0 <= v < float("inf"):
        raise argparse.ArgumentTypeError(f"a number of seconds >= 0 expected (0: no limit), got {text}")
    return v


def _add_time_limit(sp: Any) -> None:
    # the default is agents.arena.seat.DEFAULT_TIME_LIMIT (not imported here: it loads the engine;
    # tests/test_newcomer.py checks the text against it)
    sp.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                    help="per-decision limit on the agent's own CPU time (default 30; 0: no limit; numba's "
                         "compiling on a kernel's first call is not counted); an agent over it (or raising, or "
                         "playing an illegal action) loses the game by rule and the error is counted; one that "
                         "waits instead of computing is stopped after 10 x the limit + 1 s")


def _time_limit(args: argparse.Namespace) -> float | None:
    """``--time-limit``, or the default (:data:`agents.arena.seat.DEFAULT_TIME_LIMIT`)."""
    from agents.arena.seat import DEFAULT_TIME_LIMIT

    return DEFAULT_TIME_LIMIT if args.time_limit is None else args.time_limit


def _parallel(args: argparse.Namespace) -> str | None:
    """``--parallel``, or what the retired ``--engine`` meant (with a note on stderr)."""
    engine = getattr(args, "engine", None)
    if engine is None:
        return args.parallel
    meant = {"auto": None, "batch": "threads", "python": "processes"}[engine]
    print(f"skatsim: --engine is retired (one engine plays every game): use --parallel "
          f"{meant or 'threads|processes'} (or leave it out: it follows the agents)", file=sys.stderr)
    return args.parallel or meant


def _add_parallel(sp: Any) -> None:
    sp.add_argument("--parallel", choices=("threads", "processes"), default=None,
                    help="run the chunks on numba threads of one process or in worker processes (default: threads "
                         "when every agent is compiled, processes otherwise; no game depends on it)")
    sp.add_argument("--engine", choices=("auto", "batch", "python"), default=None, help=argparse.SUPPRESS)


def _cmd_tournament(args: argparse.Namespace) -> int:
    from agents.arena.tournament import resume_tournament, run_tournament

    _common_run_checks(args)
    workers = args.workers or default_workers()
    parallel = _parallel(args)
    if args.resume:
        refuse_unused(args, {"deals": "is the resumed run's (from its manifest)", "seed": "is the resumed run's",
                             "time_limit": "is the resumed run's",
                             "chunk_size": "is the resumed run's", "out": "is not used with --resume DIR",
                             "ramsch": "is the resumed run's", "kontra": "is the resumed run's",
                             "one_seat": "is the resumed run's"})
        if args.agents:
            raise UsageError("--resume DIR takes the agents and every setting from DIR's manifest; give no agents")
        args.resume_hint = f"skatsim tournament --resume {args.resume}"
        _note_damaged("tournament", args.resume)
        r = resume_tournament(args.resume, workers=workers, progress=not args.no_progress, backend=args.backend,
                              address=args.address, parallel=parallel)
        print(r)
        print(f"({len(r.games):,} games; {r.games.attrs.get('elapsed_s', 0):.1f} s of play in all runs; "
              f"results in {args.resume})")
        written = _write_table(r.games, args.resume, "games", args.format)
        if written:
            print(f"games table written to {written}")
        return 0
    if len(args.agents) not in (2, 3):
        raise UsageError(f"a tournament seats 2 or 3 agents, got {len(args.agents)} (for more: skatsim league)")
    if args.one_seat and len(args.agents) != 2:
        raise UsageError(f"--one-seat seats the first of two agents against the second in the two other seats; "
                         f"got {len(args.agents)} agents")
    if args.out:
        from skatsim.runs import is_run_dir

        if not is_run_dir(args.out):
            check_new_out(args.out, "the run directory")
        _note_damaged("tournament", args.out)
        args.resume_hint = f"skatsim tournament --resume {args.out}"
    r = run_tournament(args.agents, args.deals or 1000, DEFAULT_SEED if args.seed is None else args.seed,
                       rules=rules_of(args), workers=workers, progress=not args.no_progress,
                       parallel=parallel, out=args.out, backend=args.backend, address=args.address,
                       time_limit=_time_limit(args), chunk_size=args.chunk_size, one_seat=args.one_seat)
    print(r)
    el = r.games.attrs.get("elapsed_s")
    if el:
        print(f"({len(r.games):,} games in {el:.1f} s)")
    if args.out:
        print(f"results in the run directory {args.out} (skatsim show {args.out})")
        written = _write_table(r.games, args.out, "games", args.format)
        if written:
            print(f"games table written to {written}")
    return 0


def add_tournament(sub: Any) -> None:
    sp = sub.add_parser("tournament", help="duplicate tournament of 2 or 3 agents",
                        description="Every deal is played under every seat arrangement (6 per deal; 3 with "
                                    "--one-seat) with common random numbers; prints per-agent figures with 95% "
                                    "intervals computed on the boards and the head-to-head difference. An agent of "
                                    "your own: module:Class (or module:Class:key=value,...) on the Python path.")
    sp.add_argument("agents", nargs="*", type=agent_spec, metavar="AGENT",
                    help="2 or 3 agent specs: NAME or NAME:key=value,... (see skatsim agents), or module:Class")
    sp.add_argument("--deals", type=deals_arg(), default=None, help="boards (deals), default 1000")
    add_seed(sp, "master seed")
    add_workers(sp)
    _add_parallel(sp)
    add_rules(sp)
    add_progress(sp)
    add_out(sp, "run directory: a Parquet shard per finished chunk plus a manifest; an interrupted run resumes "
                "from it (the same command again, or --resume DIR)")
    add_format(sp, "games")
    sp.add_argument("--resume", metavar="DIR", default=None,
                    help="finish the tournament of run directory DIR (agents and settings from its manifest)")
    add_backend(sp)
    _add_time_limit(sp)
    sp.add_argument("--chunk-size", type=deals_arg(what="a board count"), default=None,
                    help="boards per unit of work / shard (default: 20,000 on threads, at most 25 in processes)")
    sp.add_argument("--one-seat", action="store_true",
                    help="two agents: the first in one seat, the second in the two others (ABB BAB BBA: 3 games a "
                         "board), the shape of a measurement against a field; pair two such runs with skatsim "
                         "compare RUN_A RUN_B --players A B")
    sp.set_defaults(func=_cmd_tournament, parser=sp)


# ----------------------------------------------------------------------------- league


def _cmd_league(args: argparse.Namespace) -> int:
    from agents.arena.tournament import run_league

    _common_run_checks(args)
    if args.plot:
        check_plot_path(args.plot)
    if args.resume:
        from skatsim.runs import read_manifest

        refuse_unused(args, {"deals": "is the resumed league's", "seed": "is the resumed league's",
                             "time_limit": "is the resumed league's", "out": "is not used with --resume DIR"})
        if args.agents:
            raise UsageError("--resume DIR takes the agents from DIR's manifest; give no agents")
        cfg = read_manifest(args.resume)["config"]
        from agents import AgentSpec

        agents = [AgentSpec.from_dict(a) for a in cfg["agents"]]
        from skatsim.options import SkatRules

        out, deals, seed, rules = args.resume, cfg["n_deals"], cfg["seed"], SkatRules.from_dict(cfg["rules"])
        time_limit = cfg.get("time_limit")  # (leagues before the default limit had none)
    else:
        if len(args.agents) < 3:
            raise UsageError(f"a league seats 3 or more agents, got {len(args.agents)} (for 2: skatsim tournament)")
        if args.out:
            from skatsim.runs import MANIFEST

            if not os.path.isfile(os.path.join(args.out, MANIFEST)):
                check_new_out(args.out, "the league")
        agents, out, deals = args.agents, args.out, args.deals or 1000
        seed, rules = DEFAULT_SEED if args.seed is None else args.seed, rules_of(args)
        time_limit = _time_limit(args)
    if out:
        args.resume_hint = f"skatsim league --resume {out}"
        _note_damaged("league", out)
    r = run_league(agents, deals, seed, rules=rules, workers=args.workers or default_workers(),
                   progress=not args.no_progress, out=out, parallel=_parallel(args), backend=args.backend,
                   address=args.address, time_limit=time_limit)
    print(r)
    if out:
        print(f"results in {out} (skatsim show {out})")
    if args.plot:
        r.plot(args.plot)
        print(f"matrix and ratings drawn to {args.plot}")
    return 0


def add_league(sub: Any) -> None:
    sp = sub.add_parser("league", help="every pair of 3+ agents in duplicate: margin matrix and ratings",
                        description="Every pair of the agents plays a duplicate tournament on the same boards; "
                                    "prints the matrix of pairwise margins (SF/game, 95% CI) and a rating per "
                                    "agent: SF/game against the league's average (least squares on the margins) "
                                    "and an Elo scale from Bradley-Terry on boards won, each with a 95% "
                                    "bootstrap interval over the boards.")
    sp.add_argument("agents", nargs="*", type=agent_spec, metavar="AGENT", help="3 or more agent specs")
    sp.add_argument("--deals", type=deals_arg(), default=None,
                    help="boards per pair (the same boards for every pair), default 1000")
    add_seed(sp, "master seed")
    add_workers(sp)
    _add_parallel(sp)
    add_rules(sp)
    add_progress(sp)
    add_out(sp, "league folder: a run directory per pair and the league's manifest (resumable)")
    sp.add_argument("--resume", metavar="DIR", default=None, help="finish the league in DIR")
    add_backend(sp)
    _add_time_limit(sp)
    sp.add_argument("--plot", metavar="FILE.png", default=None,
                    help="draw the margin matrix and the ratings with their intervals (needs matplotlib)")
    sp.set_defaults(func=_cmd_league, parser=sp, format=None)


# ----------------------------------------------------------------------------- simulate


def _cmd_simulate(args: argparse.Namespace) -> int:
    _common_run_checks(args)
    specs = args.policy or agent_list("random")
    policy: Any = [s.engine_policy() for s in specs]
    if any(p is None for p in policy):
        raise UsageError("simulate plays compiled policies only (random, rule_based with parameters); "
                         "use skatsim tournament for Python agents")
    policy = policy[0] if len(set(map(str, policy))) == 1 else policy
    seed = DEFAULT_SEED if args.seed is None else args.seed
    deals = args.deals or 1_000_000
    t0 = time.perf_counter()
    if args.backend == "ray" and not args.out:
        raise UsageError("--backend ray writes a run directory: give --out DIR")
    if args.out:
        from skatsim.runs import is_run_dir
        from skatsim.simulate import run_simulation
        from skatsim.simulate import summarize

        if not is_run_dir(args.out):
            check_new_out(args.out, "the run directory")
        _note_damaged("simulate", args.out)
        args.resume_hint = "the same command again"
        run = run_simulation(args.out, deals, policy, seed=seed, rules=rules_of(args), backend=args.backend,
                             workers=args.workers or default_workers(), address=args.address,
                             progress=not args.no_progress, chunk_size=args.chunk_size or 100_000)
        rows = run.read_all()
        summary = summarize(rows)
        where = f"run directory {args.out} (skatsim show {args.out})"
        written = _write_table(rows, args.out, "deals", args.format)
        if written:
            where += f"; one table in {written}"
    else:
        refuse_unused(args, {"chunk_size": "cuts a run directory into shards: give --out DIR"})
        from skatsim.simulate import iter_simulate, summarize

        summary = summarize(iter_simulate(deals, policy, seed=seed, rules=rules_of(args),
                                          workers=args.workers or default_workers(), progress=not args.no_progress))
        where = None
    dt = max(time.perf_counter() - t0, 1e-9)
    print(f"simulated {deals:,} deals in {dt:.2f} s ({deals / dt:,.0f} deals/s)"
          + (f", written to {where}" if where else ""))
    print(summary.table().round(4).to_string())
    print(summary.seeger_fabian().round(2).to_string())
    return 0


def add_simulate(sub: Any) -> None:
    sp = sub.add_parser("simulate", help="batch simulation of compiled policies, with a summary",
                        description="Simulate deals in batch simulation (compiled policies) and print a summary; "
                                    "with --out DIR the rows go to a resumable run directory (a Parquet shard "
                                    "per chunk), with --format also into one file.")
    sp.add_argument("--deals", type=deals_arg(), default=None, help="deals (default 1,000,000)")
    sp.add_argument("--policy", type=agent_list, default=None, metavar="SPEC[,SPEC,SPEC]",
                    help="one batch policy for every seat or three: random, rule_based, rule_based:max_bid=18 "
                         "(default random)")
    add_seed(sp, "run seed")
    add_rules(sp)
    add_workers(sp, "threads (Ray: CPUs)")
    add_out(sp, "run directory of the rows (resumable)")
    add_format(sp, "deals")
    add_backend(sp)
    sp.add_argument("--chunk-size", type=deals_arg(), default=None,
                    help="with --out: deals per shard (default 100,000)")
    add_progress(sp)
    sp.set_defaults(func=_cmd_simulate, parser=sp)


# ----------------------------------------------------------------------------- show


def read_results(path: str) -> tuple[str, Any]:
    """What ``path`` holds: ``("tournament", TournamentResult)``, ``("league", LeagueResult)``,
    ``("simulation", rows)``, ``("labels", rows)`` or ``("iss_import", summary dict)``; a run
    directory (finished or not) or a games / deals table file (``.parquet``, ``.csv``)."""
    from skatsim.runs import MANIFEST, read_manifest

    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, MANIFEST)):
            raise UsageError(f"{path!r} is not a skatsim run directory (it has no {MANIFEST})")
        kind = read_manifest(path).get("kind")
        if kind == "tournament":
            from agents.arena.tournament import load_tournament

            return kind, load_tournament(path, partial=True)
        if kind == "league":
            from agents.arena.tournament import load_league

            return kind, load_league(path, partial=True)
        if kind in ("simulation", "bidding_labels"):
            from skatsim.runs import RunDir

            run = RunDir.open(path)
            return ("simulation" if kind == "simulation" else "labels"), (run, run.read_all() if run.done() else None)
        if kind == "iss_import":
            import json

            return kind, json.loads(open(os.path.join(path, "summary.json"), encoding="utf-8").read())
        raise UsageError(f"{path!r} holds a {kind} run, which skatsim show does not summarise")
    if not os.path.isfile(path):
        raise UsageError(f"no such file or directory: {path!r}")
    import pandas as pd

    if path.endswith(".csv"):
        df = pd.read_csv(path)
    elif path.endswith(".parquet"):
        df = pd.read_parquet(path)
    else:
        raise UsageError(f"{path!r}: give a run directory, or a results table (.parquet or .csv)")
    if "arrangement" in df.columns and "agent_0" in df.columns:
        from agents.arena.tournament import TournamentResult

        return "tournament", TournamentResult.from_table(df)
    if "deal_seed" in df.columns and "sf_0" in df.columns:
        return "simulation", (None, df)
    raise UsageError(f"{path!r} is not a tournament games table or a simulation table")


def _cmd_show(args: argparse.Namespace) -> int:
    paths = [args.path] + list(args.more)
    if args.plot:
        check_plot_path(args.plot)
    if len(paths) > 1:
        return _show_pooled(paths)
    kind, res = read_results(args.path)
    if os.path.isdir(args.path):
        for line in _damaged(args.path):
            print(f"damaged: {line} (counted as not done; resuming plays it again)")
    if kind != "tournament" and kind != "league" and args.plot:
        raise UsageError(f"--plot draws tournaments and leagues; {args.path} holds a {kind} run")
    if kind == "tournament":
        print(res.progress_line())
        print(res)
        if args.plot:
            from agents.arena.tournament import plot_tournament

            plot_tournament(res, args.plot)
            print(f"charts written to {args.plot}")
    elif kind == "league":
        print(res)
        if args.plot:
            res.plot(args.plot)
            print(f"matrix and ratings drawn to {args.plot}")
    elif kind == "iss_import":
        print("\n".join(f"{k}: {v}" for k, v in res.items()))
    else:
        from skatsim.simulate import summarize

        run, rows = res
        if run is not None:
            done = sum(b - a for a, b in run.done())
            status = "complete" if run.complete else f"unfinished: {done:,} of {run.n_units:,} deals done"
            print(f"{args.path}: {run.kind} run, {status}; created {run.manifest.get('created')}")
        if rows is None:
            print("no chunk finished yet")
        elif kind == "labels":
            print(f"{len(rows):,} labelled hands")
        else:
            summary = summarize(rows)
            print(summary.table().round(4).to_string())
            print(summary.seeger_fabian().round(2).to_string())
    return 0


def _show_pooled(paths: list[str]) -> int:
    from agents.arena.tournament import pooled_head_to_head

    results = []
    for p in paths:
        kind, r = read_results(p)
        if kind != "tournament":
            raise UsageError(f"pooling needs tournaments; {p} holds a {kind} run")
        results.append(r)
    seen: dict[int, str] = {}
    for p, r in zip(paths, results):
        for ds in set(r.games["deal_seed"].tolist()):
            if ds in seen:
                raise UsageError(f"{p} and {seen[ds]} share deals (deal seed {ds}): pooling them would count the "
                                 "same deals twice; pool tournaments of different seeds")
            seen[ds] = p
    for p, r in zip(paths, results):
        print(f"== {p}")
        print(r.progress_line())
        print(r)
    h = pooled_head_to_head([r.games for r in results])
    print(f"== pooled over {len(paths)} tournaments")
    for _, row in h.iterrows():
        print(f"head to head {row['a']} - {row['b']}: {row['sf_diff_per_game']:+.2f} ± "
              f"{row['sf_diff_per_game_ci']:.2f} SF/game ({int(row['boards']):,} boards, 95% CI)")
    return 0


def add_show(sub: Any) -> None:
    sp = sub.add_parser("show", help="summary of a run directory or results table (and --plot charts)",
                        description="Print the summary of what a command wrote: a tournament, league, simulation, "
                                    "label or ISS-import directory (an unfinished run shows what is done), or a "
                                    "games / deals table (.parquet, .csv). Several tournaments of the same agents "
                                    "on different seeds: each, then the head-to-head pooled over their boards.")
    sp.add_argument("path", metavar="PATH", help="a run directory or a results table file")
    sp.add_argument("more", metavar="PATH", nargs="*", help="more tournaments to pool (other seeds)")
    sp.add_argument("--plot", metavar="FILE.png", default=None,
                    help="draw the tournament (SF per agent with 95%% CIs, contracts by type) or the league "
                         "(matrix and ratings); needs matplotlib")
    sp.set_defaults(func=_cmd_show, parser=sp)

