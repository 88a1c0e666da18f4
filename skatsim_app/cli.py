"""Command line of skatsim (the `skatsim` command; also `python -m skatsim_app`).

Commands:
  play        play one game with agents and print it, or (--seat) play yourself against two AIs
  demo        small duplicate tournaments (rule-based vs random, PIMC vs rule-based);
              --batch: batch simulation summary of random deals, then one printed game
  tournament  duplicate tournament of 2 or 3 agents with a summary and 95% intervals,
              optionally into a resumable run directory (--out DIR, --resume DIR)
  show        the summary (and --plot charts) of a run directory
  simulate    batch simulation to a Parquet file (or a run directory) with progress
  solve       open-hand solution of a dealt hand game, judged against the announced goal
  bench       run one of the benchmarks/ scripts
  agents      the registered agents and their parameters

Run 'skatsim COMMAND --help' for a command's options.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Callable, TextIO

from skatsim._random import to_seed
from skatsim.actions import PASS, action_to_string

from skatsim.cards import CardSet, card_name
from skatsim.deal import SEED_MASK
from skatsim.options import SkatRules
from skatsim.state import SEAT_NAMES, SkatState

__all__ = ["main", "build_parser", "game_text"]


# ----------------------------------------------------------------------------- printing


def game_text(state: SkatState, seed: int | None = None, labels: list[str] | None = None) -> str:
    """A finished (or running) game as text: the dealt hands and the dealt skat, the bidding,
    the declarer's skat choice and discard, Kontra/Re, every trick and the result."""
    lines = []
    head = f"deal seed {seed}" if seed is not None else "deal"
    if labels:
        head += "; agents: " + ", ".join(f"{s} {lab}" for s, lab in enumerate(labels))
    lines.append(head)
    lines.append("dealt hands:")
    for s in range(3):
        tag = " (declarer)" if state.declarer == s else ""
        lines.append(f"  {s} {SEAT_NAMES[s]:<10} {state.deal.hands[s]}{tag}")
    lines.append(f"  dealt skat   {state.deal.skat}")
    bids = [f"{p}:{action_to_string(a)}" for p, a in state.bidding_history()]
    if bids:
        lines.append(f"bidding: {' '.join(bids)}")
    d = state.declarer
    if d is not None and state.phase not in ("bidding",):
        c = state.contract
        what = f"{c.to_text()} ({c.describe()})" if c else "-"
        lines.append(f"declarer: seat {d}, bid {state.bid}, contract {what}")
        if state.skat_picked_up:
            if state.phase == "discard":
                lines.append("skat: picked up (discarding)")
            else:
                lines.append(f"skat: picked up, discarded {CardSet.from_mask(state.skat_mask())}")
        elif state.phase != "skat":
            lines.append("skat: played hand (skat not picked up)")
        said = [f"{p}:{action_to_string(a)}" for p, a, ph in state.phase_history() if ph == "kontra" and a != PASS]
        if said:
            lines.append("kontra/re: " + " ".join(said))
    elif state.game_type == 6:
        lines.append("ramsch (everybody passed)")
    for i, (leader, cards, winner) in enumerate(state.tricks()):
        shown = " ".join(f"{card_name(c):>3}" for c in cards)
        lines.append(f"  trick {i + 1:>2}: lead {leader}  {shown}  -> seat {winner}")
    if state.game_type is not None:
        lines.append(f"card points (tricks): {state.points()}, tricks: {state.tricks_won()}")
    if state.is_terminal():
        lines.append("result: " + state.result.summary())
    return "\n".join(lines)


# ----------------------------------------------------------------------------- argument types


def _int(lo: int | None = None, hi: int | None = None, what: str = "an int") -> Callable[[str], int]:
    def conv(text: str) -> int:
        try:
            v = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} expected, got {text!r}") from None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
            raise argparse.ArgumentTypeError(f"{what} {rng} expected, got {v}")
        return v

    conv.__name__ = what  # argparse names the type in its messages
    return conv


def _max_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def _threads(text: str) -> int:
    return _int(1, _max_threads(), "a thread count")(text)


def _contract(text: str) -> Any:
    from skatsim.contracts import Contract

    try:
        return Contract.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _threshold(text: str) -> int | str:
    if text in ("schwarz", "null"):
        return text
    return _int(0, 120, "card points")(text)


def _agent_spec(text: str) -> Any:
    from agents import AgentSpec

    try:
        return AgentSpec.parse(text)
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _split_specs(text: str) -> list[str]:
    """Comma-separated agent specs, where a spec's own ``key=value`` parameters may follow
    it: ``rule_based:max_bid=18,x=1,random`` -> ``["rule_based:max_bid=18,x=1", "random"]``."""
    from agents import list_agents

    names = set(list_agents())
    pieces: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if pieces and "=" in part and ":" not in part and part.split("=")[0] not in names:
            pieces[-1] += "," + part
        else:
            pieces.append(part)
    return pieces


def _agent_list(text: str) -> list[Any]:
    """``random`` or ``rule_based,random,random``; a spec's own parameters may follow it,
    comma-separated: ``rule_based:max_bid=18,x=1,random,random``."""
    pieces = _split_specs(text)
    if len(pieces) not in (1, 3):
        raise argparse.ArgumentTypeError(f"give one agent (for every seat) or three (forehand, middlehand, "
                                         f"rearhand), got {len(pieces)}: {text!r}")
    specs = [_agent_spec(p) for p in pieces]
    return specs * 3 if len(specs) == 1 else specs


# ----------------------------------------------------------------------------- commands


def _rules(args: argparse.Namespace) -> SkatRules:
    return SkatRules(ramsch=args.ramsch, kontra=args.kontra)


def _opponents(text: str) -> list[Any]:
    """One agent spec (both opponents) or two, comma-separated: ``rule_based,pimc:worlds=16``."""
    pieces = _split_specs(text)
    if len(pieces) not in (1, 2):
        raise argparse.ArgumentTypeError(f"give one opponent (for both seats) or two, got {len(pieces)}: {text!r}")
    specs = [_agent_spec(p) for p in pieces]
    return specs * 2 if len(specs) == 1 else specs


def _yes(answer: str) -> bool:
    return answer.strip().lower() in ("y", "yes", "j", "ja")


def _cmd_play_human(args: argparse.Namespace) -> int:
    from agents import Table
    from agents.human import HumanAgent, HumanQuit, explain_result, solver_verdict

    seat = args.seat
    opp = iter(args.opponents)
    specs: list[Any] = [None if s == seat else next(opp) for s in range(3)]
    labels = ["you" if sp is None else sp.to_text() for sp in specs]
    out = sys.stdout
    me = HumanAgent(input=sys.stdin, output=out, labels=labels)
    rules = _rules(args)
    print(f"You sit in seat {seat} ({SEAT_NAMES[seat]}); " + ", ".join(
        f"seat {s} {SEAT_NAMES[s]}: {labels[s]}" for s in range(3) if s != seat)
        + ". Type a choice's number or name; '?' for help, 'quit' to stop.", file=out)
    total = 0
    try:
        for k in range(args.deals):
            seed = args.seed + k
            ds = to_seed(seed) & SEED_MASK
            print(f"\n===== deal {k + 1} of {args.deals} (deal seed {seed}) =====", file=out)
            agents = [me if sp is None else sp.make() for sp in specs]
            table = Table(agents, SkatState.new_game(seed=ds, rules=rules), ds, k)
            state = table.run().state
            print("\n----- the deal is over -----", file=out)
            print(game_text(state, seed, labels), file=out)
            print(explain_result(state, seat), file=out)
            total += state.result.seeger_fabian[seat]
            r = state.result
            if not (r.passed_in or r.ramsch) and args.verdict != "never":
                if args.verdict == "always":
                    want = True
                else:
                    out.write("Show the open-hand solver's verdict on the declarer's contract? [y/N] ")
                    out.flush()
                    line = sys.stdin.readline()
                    if not line:
                        raise HumanQuit("end of input")
                    want = _yes(line)
                if want:
                    print(solver_verdict(state), file=out)
        print(f"\nYour Seeger-Fabian total over {args.deals} deal(s): {total:+d}", file=out)
    except (HumanQuit, KeyboardInterrupt) as e:
        why = "input ended" if isinstance(e, HumanQuit) and str(e) == "end of input" else "stopped"
        print(f"\n{why}: leaving the table (Seeger-Fabian so far {total:+d}). Bye.", file=out)
        return 0
    return 0


def _cmd_play(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from agents import play_game

    if getattr(args, "seat", None) is not None:
        return _cmd_play_human(args)
    specs = args.agents
    state = play_game([s.make() for s in specs], seed=args.seed, rules=_rules(args))
    text_out = sys.stderr if args.json else (out or sys.stdout)
    print(game_text(state, args.seed, [s.to_text() for s in specs]), file=text_out)
    if args.json:
        print(state.to_json(indent=None), file=sys.stdout)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    if not args.batch:
        return _cmd_demo_tournament(args)
    if args.deals is None:
        args.deals = 1_000_000
    return _cmd_demo_batch(args)


def _cmd_demo_tournament(args: argparse.Namespace) -> int:
    import os

    from agents.tournament import run_tournament

    workers = args.workers or os.cpu_count() or 1
    deals = 300 if args.deals is None else args.deals
    t_all = time.perf_counter()
    print(f"1) rule_based vs random: {deals} duplicate deals (x 6 seatings), batch engine, {workers} thread(s)")
    t0 = time.perf_counter()
    r = run_tournament(["rule_based", "random"], deals, args.seed, rules=_rules(args), workers=min(workers, _max_threads()),
                       progress=not args.no_progress)
    print(r)
    print(f"({len(r.games):,} games in {time.perf_counter() - t0:.1f} s)\n")
    pimc = f"pimc:worlds={args.worlds}"
    print(f"2) {pimc} vs rule_based: {args.pimc_deals} duplicate deals (x 6 seatings), Python engine, "
          f"{workers} process(es)")
    t0 = time.perf_counter()
    r = run_tournament([pimc, "rule_based"], args.pimc_deals, args.seed, rules=_rules(args), workers=workers,
                       progress=not args.no_progress)
    print(r)
    print(f"({len(r.games):,} games in {time.perf_counter() - t0:.1f} s)")
    print(f"\ndemo finished in {time.perf_counter() - t_all:.1f} s")
    return 0


def _cmd_demo_batch(args: argparse.Namespace) -> int:
    from skatsim.simulate import simulate, summarize

    out = sys.stderr if args.json else sys.stdout
    t0 = time.perf_counter()
    simulate(1000, seed=0, rules=_rules(args), workers=1)  # compile (or load the cache) outside the timing
    t1 = time.perf_counter()
    df = simulate(args.deals, seed=args.seed, rules=_rules(args), workers=args.workers)
    dt = max(time.perf_counter() - t1, 1e-9)
    print(f"simulated {args.deals:,} random deals in {dt:.2f} s "
          f"({args.deals / dt:,.0f} deals/s; first call incl. compilation {t1 - t0:.1f} s)", file=out)
    if args.deals:
        summary = summarize(df)
        table = summary.table()
        top = table.drop(index="all").sort_values("count", ascending=False).head(10)
        print("most frequent contracts (ISS tokens; random bidders overbid almost always):", file=out)
        print(table.loc[list(top.index) + ["all"]].round(4).to_string(), file=out)
        print("Seeger-Fabian points per seat (mean, standard error):", file=out)
        print(summary.seeger_fabian().round(2).to_string(), file=out)
    print(file=out)
    return _cmd_play(args, out)


def _solution_points(sol: Any) -> int | None:
    if hasattr(sol, "declarer_points"):
        return sol.declarer_points
    return None if sol.target is not None else sol.value


def _declare(seed: int, declarer: int, contract_text: str) -> SkatState:
    """A new deal with ``declarer`` winning the bidding at 18 and declaring ``contract_text``."""
    bids = {0: ("pass", "pass", "18"), 1: ("18", "pass", "pass"), 2: ("pass", "18", "pass")}[declarer]
    state = SkatState.new_game(seed=seed)
    for a in bids + ("hand", contract_text):
        state.apply_action(state.string_to_action(a))
    return state


def _cmd_solve(args: argparse.Namespace) -> int:
    from skatsim.contracts import HAND, Contract
    from skatsim.solver import describe_target, solve, target_for

    contract = Contract(args.contract.game, args.contract.flags | HAND)  # the skat stays untouched
    state = _declare(args.seed, args.declarer, contract.to_text())
    goal = target_for(contract)
    if (goal == "null") != (args.threshold in (None, "null")) and args.threshold is not None:
        raise ValueError(f"--threshold {args.threshold} does not fit {contract.to_text()}: a null game's only goal "
                         "is 'null' (no trick), a suit or grand game's is card points or 'schwarz'")
    print(f"deal seed {args.seed}: seat {args.declarer} declares {contract.to_text()} ({contract.describe()})")
    print(state.deal)
    t0 = time.perf_counter()
    if args.mode == "exact":  # judged against the announced goal (the solution's target)
        sol = solve(state, mode="exact", move_values=True)
        wins, target = sol.declarer_wins, sol.target
    else:
        target = goal if args.threshold is None else args.threshold
        sol = solve(state, mode="threshold", threshold=target, move_values=True)
        wins = sol.declarer_wins
    dt = time.perf_counter() - t0
    print(sol)
    pts = _solution_points(sol)
    got = f" ({pts} card points)" if pts is not None else ""
    verdict = "wins" if wins else "loses"
    if target == goal:
        print(f"goal of {contract.to_text()}: {describe_target(goal)}. With best play by everybody the declarer "
              f"{verdict} the card play{got} ({dt * 1000:.1f} ms incl. compile on first use)")
    else:
        reach = "reaches" if wins else "does not reach"
        print(f"with best play by everybody the declarer {reach} {describe_target(target)} (the goal of "
              f"{contract.to_text()} is {describe_target(goal)}) ({dt * 1000:.1f} ms incl. compile on first use)")
    return 0


def _cmd_tournament(args: argparse.Namespace) -> int:
    from agents.tournament import resume_tournament, run_tournament

    if args.resume:
        if args.agents:
            raise ValueError("--resume DIR takes the agents and every setting from DIR's manifest; "
                             "give no agents")
        r = resume_tournament(args.resume, workers=args.workers, progress=not args.no_progress,
                              backend=args.backend, address=args.address)
        print(r)
        print(f"({len(r.games):,} games; {r.games.attrs.get('elapsed_s', 0):.1f} s of play in all runs; "
              f"results in {args.resume})")
        return 0
    if len(args.agents) not in (2, 3):
        raise ValueError(f"a tournament seats 2 or 3 agents, got {len(args.agents)}")
    path = str(args.out) if args.out else None
    file_out = path is not None and path.endswith((".parquet", ".csv"))
    r = run_tournament(args.agents, args.deals, args.seed, rules=_rules(args), workers=args.workers,
                       progress=not args.no_progress, engine=args.engine,
                       out=None if file_out else path, backend=args.backend, address=args.address,
                       time_limit=args.time_limit, chunk_size=args.chunk_size)
    print(r)
    el = r.games.attrs.get("elapsed_s")
    if el:
        print(f"({len(r.games):,} games in {el:.1f} s)")
    if path and not file_out:
        print(f"results in the run directory {path} (skatsim show {path})")
    if file_out:
        games = r.games.copy()
        if path.endswith(".csv"):
            games.to_csv(path, index=False)
        else:
            games.attrs = {k: v for k, v in games.attrs.items()}
            games.to_parquet(path, index=False)
        print(f"games written to {path}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    if args.more:
        return _show_pooled([args.dir] + list(args.more))
    from skatsim.runs import RunDir

    run = RunDir.open(args.dir)
    m = run.manifest
    done, total = len(run.done()), len(run.bounds())
    status = "complete" if run.complete else f"unfinished: {done} of {total} chunks done"
    print(f"{args.dir}: {run.kind} run, {status}; created {m.get('created')}, skatsim "
          f"{m.get('versions', {}).get('skatsim')}, chunks of {run.chunk_size}")
    if run.kind == "simulation":
        from skatsim.simulate import summarize

        c = run.config
        print(f"{c['n_deals']:,} deals, seed {c['seed']}, policies "
              + ", ".join(n + (":" + ",".join(f"{k}={v:g}" for k, v in p.items()) if p else "") for n, p in c["policy"]))
        if done:
            summary = summarize(run.read_all())
            print(summary.table().round(4).to_string())
            print(summary.seeger_fabian().round(2).to_string())
        if args.plot:
            raise ValueError("--plot draws tournament runs only")
        return 0
    from agents.tournament import load_tournament

    if not done:
        print("no chunk finished yet")
        return 0
    r = load_tournament(args.dir, partial=True)
    if not run.complete:
        print(f"(the {len(r.games) // 6:,} boards played so far; resume with skatsim tournament --resume {args.dir})")
    print(r)
    if args.plot:
        from agents.tournament import plot_tournament

        plot_tournament(r, args.plot)
        print(f"charts written to {args.plot}")
    return 0


def _show_pooled(dirs: list[str]) -> int:
    from agents.tournament import load_tournament, pooled_head_to_head

    results = [load_tournament(d, partial=True) for d in dirs]
    for d, r in zip(dirs, results):
        print(f"== {d}")
        print(r)
    h = pooled_head_to_head([r.games for r in results])
    print(f"== pooled over {len(dirs)} tournaments")
    for _, row in h.iterrows():
        print(f"head to head {row['a']} - {row['b']}: {row['sf_diff_per_game']:+.2f} ± "
              f"{row['sf_diff_per_game_ci']:.2f} SF/game ({int(row['boards']):,} boards, 95% CI)")
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    specs = args.policy
    policy: Any = [s.engine_policy() for s in specs]
    if any(p is None for p in policy):
        raise ValueError("the batch engine plays built-in policies only (random, rule_based with parameters); "
                         "use skatsim tournament for Python agents")
    policy = policy[0] if len(set(map(str, policy))) == 1 else policy
    t0 = time.perf_counter()
    if args.backend == "ray" or (args.out and not str(args.out).endswith(".parquet")):
        from skatsim.runs import run_simulation

        if not args.out:
            raise ValueError("--backend ray writes a run directory: give --out DIR")
        run = run_simulation(args.out, args.deals, policy, seed=args.seed, rules=_rules(args), backend=args.backend,
                             workers=args.workers, address=args.address, progress=not args.no_progress,
                             chunk_size=args.chunk_size)
        from skatsim.simulate import summarize

        summary = summarize(run.read_all())
        where = f"run directory {args.out} (skatsim show {args.out})"
    elif args.out:
        from skatsim.simulate import simulate_to_parquet

        summary = simulate_to_parquet(args.out, args.deals, policy, seed=args.seed, rules=_rules(args),
                                      workers=args.workers, progress=not args.no_progress)
        where = str(args.out)
    else:
        from skatsim.simulate import iter_simulate, summarize

        summary = summarize(iter_simulate(args.deals, policy, seed=args.seed, rules=_rules(args),
                                          workers=args.workers, progress=not args.no_progress))
        where = None
    dt = max(time.perf_counter() - t0, 1e-9)
    print(f"simulated {args.deals:,} deals in {dt:.2f} s ({args.deals / dt:,.0f} deals/s)"
          + (f", written to {where}" if where else ""))
    print(summary.table().round(4).to_string())
    print(summary.seeger_fabian().round(2).to_string())
    return 0


def _benchmarks_dir() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "benchmarks"


def _cmd_bench(args: argparse.Namespace) -> int:
    import subprocess

    folder = _benchmarks_dir()
    names = sorted(p.stem for p in folder.glob("*.py") if not p.name.startswith("_")) if folder.is_dir() else []
    if not names:
        raise ValueError(f"no benchmarks found (looked in {folder}; they ship with the source tree, not the wheel)")
    if args.name is None or args.name == "list":
        print("benchmarks: " + ", ".join(names) + f"  (in {folder}; skatsim bench NAME --help for options)")
        return 0
    if args.name not in names:
        raise ValueError(f"unknown benchmark {args.name!r}; benchmarks: {', '.join(names)}")
    cmd = [sys.executable, str(folder / f"{args.name}.py"), *args.rest]
    return subprocess.call(cmd, cwd=str(folder.parent))


def _cmd_train_bidding(args: argparse.Namespace) -> int:
    return _train_bidding(list(args.rest))


def _train_bidding(rest: list[str]) -> int:
    import subprocess

    script = _benchmarks_dir().parent / "experiments" / "train_bidding.py"
    if not script.is_file():
        raise ValueError(f"experiments/train_bidding.py not found (looked at {script}; it ships with the "
                         "source tree, not the wheel)")
    return subprocess.call([sys.executable, str(script), *rest], cwd=str(script.parent.parent))


def _cmd_agents(args: argparse.Namespace) -> int:
    from agents import list_agents

    reg = list_agents()
    if args.json:
        print(json.dumps(reg, indent=2))
        return 0
    for name, info in reg.items():
        engine = f"  [batch engine: {info['engine']}]" if info["engine"] else "  [Python only]"
        print(f"{name}: {info['doc']}{engine}")
        if not info["params"]:
            print("    (no parameters)")
        for k, v in info["params"].items():
            doc = info["params_doc"].get(k, "")
            print(f"    {k} = {v!r}" + (f"  {doc}" if doc else ""))
    print("spec syntax: NAME or NAME:key=value,key=value (e.g. in skatsim tournament and --agents)")
    return 0


# ----------------------------------------------------------------------------- parser


def _version() -> str:
    from skatsim import __version__
    from skatsim.options import RULES_VERSION

    return f"skatsim {__version__} (rules {RULES_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="skatsim", description="Skat (ISkO) simulator and AI research toolkit.",
        epilog="Run 'skatsim COMMAND --help' for a command's options.")
    p.add_argument("--version", action="version", version=_version(), help="print the version and exit")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", title="commands")

    def common(sp: argparse.ArgumentParser, seed_help: str = "deal seed, any int (default 1)") -> None:
        sp.add_argument("--seed", type=_int(what="an int seed"), default=1, help=seed_help)
        sp.add_argument("--ramsch", action="store_true", help="play Ramsch when everybody passes")
        sp.add_argument("--kontra", action="store_true", help="allow Kontra/Re")

    def agents_opt(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--agents", type=_agent_list, default="random", metavar="SPEC[,SPEC,SPEC]",
                        help="one agent for every seat or three (forehand, middlehand, rearhand), e.g. "
                             "rule_based,random,random (default random); see skatsim agents")

    sp = sub.add_parser("play", help="play one game with agents, or play yourself (--seat)",
                        description="Play one game with agents and print it; with --seat, you play that seat "
                                    "in the terminal against two AIs (every phase: bids, skat, declaration, "
                                    "cards), e.g. skatsim play --seat 0 --opponents rule_based,pimc:worlds=16")
    common(sp)
    agents_opt(sp)
    sp.add_argument("--json", action="store_true",
                    help="write the game record as JSON to stdout (the printout goes to stderr)")
    sp.add_argument("--seat", type=int, choices=(0, 1, 2), default=None,
                    help="play this seat yourself (0 forehand, 1 middlehand, 2 rearhand)")
    sp.add_argument("--opponents", type=_opponents, default="rule_based", metavar="SPEC[,SPEC]",
                    help="with --seat: the two AIs, in seat order (one spec: both), e.g. rule_based,pimc:worlds=16 "
                         "(default rule_based)")
    sp.add_argument("--deals", type=_int(1, None, "a deal count"), default=1,
                    help="with --seat: deals to play (seeds SEED, SEED+1, ...; default 1)")
    sp.add_argument("--verdict", choices=("ask", "always", "never"), default="ask",
                    help="with --seat: the open-hand solver's verdict on the declarer's contract after each "
                         "deal (default: ask)")
    sp.set_defaults(func=_cmd_play, parser=sp)

    sp = sub.add_parser("demo", help="small duplicate tournaments on all cores (--batch: the simulation demo)",
                        description="Two duplicate tournaments on all cores: rule_based vs random (batch engine) "
                                    "and PIMC vs rule_based (Python engine), each printing its summary. With "
                                    "--batch: simulate random deals in the batch engine, summarise them, print "
                                    "one game.")
    common(sp, "master seed / deal seed, any int (default 1)")
    agents_opt(sp)
    sp.add_argument("--batch", action="store_true", help="the batch-simulation demo instead")
    sp.add_argument("--deals", type=_int(0, None, "a deal count"), default=None,
                    help="boards of the rule_based vs random tournament (default 300); with --batch: deals to "
                         "simulate (default 1,000,000)")
    sp.add_argument("--pimc-deals", type=_int(1, None, "a deal count"), default=200,
                    help="boards of the PIMC vs rule_based tournament (default 200)")
    sp.add_argument("--worlds", type=_int(1, 10_000, "a world count"), default=4,
                    help="PIMC worlds per card decision in the demo (default 4)")
    sp.add_argument("--no-progress", action="store_true", help="no progress bars")
    sp.add_argument("--workers", type=_threads, default=None, help="threads / processes (default: all cores)")
    sp.add_argument("--json", action="store_true",
                    help="write the printed game's record as JSON to stdout (the text goes to stderr)")
    sp.set_defaults(func=_cmd_demo, parser=sp)

    sp = sub.add_parser("solve", help="open-hand (double-dummy) solution of a dealt game",
                        description="Solve a dealt deal open-handed: the declarer plays the contract hand "
                                    "(the skat untouched) and is judged against its announced goal "
                                    "(61 card points; 90 with schneider announced; every trick with schwarz "
                                    "announced or ouvert; no trick in null).")
    sp.add_argument("--seed", type=_int(what="an int seed"), default=1, help="deal seed, any int (default 1)")
    sp.add_argument("--declarer", type=int, choices=(0, 1, 2), default=0, help="declarer seat (default 0)")
    sp.add_argument("--contract", type=_contract, default="G",
                    help="ISS token, played hand: C S H D G N, CS (schneider announced), CZ (schwarz), "
                         "CO, GO, NO ... (default G)")
    sp.add_argument("--mode", choices=("exact", "threshold"), default="exact",
                    help="exact: the declarer's card points under best play, judged against the goal; "
                         "threshold: only whether the declarer reaches --threshold (default exact)")
    sp.add_argument("--threshold", type=_threshold, default=None,
                    help="with --mode threshold: card points to reach (0..120), 'schwarz' or 'null' "
                         "(default: the contract's goal)")
    sp.set_defaults(func=_cmd_solve, parser=sp)

    sp = sub.add_parser("tournament", help="duplicate tournament of 2 or 3 agents",
                        description="Every deal is played under every seat arrangement (6 per deal) with "
                                    "common random numbers; prints per-agent figures with 95% intervals "
                                    "computed on the boards and the head-to-head difference.")
    sp.add_argument("agents", nargs="*", type=_agent_spec, metavar="AGENT",
                    help="2 or 3 agent specs: NAME or NAME:key=value,... (see skatsim agents)")
    sp.add_argument("--deals", type=_int(1, None, "a deal count"), default=1000, help="boards (deals), default 1000")
    sp.add_argument("--seed", type=_int(what="an int seed"), default=0, help="master seed, any int (default 0)")
    sp.add_argument("--workers", type=_int(1, None, "a worker count"), default=1,
                    help="processes for Python agents, threads for the batch engine (default 1)")
    sp.add_argument("--engine", choices=("auto", "batch", "python"), default="auto",
                    help="auto: the batch engine when every agent has a batch policy (default auto)")
    sp.add_argument("--ramsch", action="store_true", help="play Ramsch when everybody passes")
    sp.add_argument("--kontra", action="store_true", help="allow Kontra/Re")
    sp.add_argument("--no-progress", action="store_true", help="no progress bar")
    sp.add_argument("--out", metavar="DIR", default=None,
                    help="run directory: a Parquet shard per finished chunk plus a manifest; an interrupted run "
                         "resumes from it (the same command again, or --resume DIR). A path ending in .parquet "
                         "or .csv writes the games table to that file instead (not resumable)")
    sp.add_argument("--resume", metavar="DIR", default=None,
                    help="finish the tournament of run directory DIR (agents and settings from its manifest)")
    sp.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local (processes/threads, default) or ray (pip install 'skatsim[ray]')")
    sp.add_argument("--address", default=None,
                    help="with --backend ray: an existing cluster ('auto', 'ray://head:10001'); default a local Ray")
    sp.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                    help="per-decision time limit; an agent over it (or raising, or playing an illegal action) "
                         "loses the game by rule and the error is counted")
    sp.add_argument("--chunk-size", type=_int(1, None, "a board count"), default=None,
                    help="boards per unit of work / shard (default: 25 Python, 20,000 batch)")
    sp.set_defaults(func=_cmd_tournament, parser=sp)

    sp = sub.add_parser("show", help="summary of a run directory (and --plot charts)",
                        description="Print the summary of a run directory written by skatsim tournament --out DIR "
                                    "or skatsim simulate --out DIR (an unfinished run shows its finished chunks).")
    sp.add_argument("dir", metavar="DIR", help="the run directory")
    sp.add_argument("more", metavar="DIR", nargs="*",
                    help="more tournament run directories of the same agents (other seeds): each is shown, "
                         "then the head-to-head pooled over all their boards")
    sp.add_argument("--plot", metavar="FILE.png", default=None,
                    help="also draw Seeger-Fabian per game per agent with 95%% CIs and declarer rate / win rate "
                         "by contract (needs matplotlib)")
    sp.set_defaults(func=_cmd_show, parser=sp)

    sp = sub.add_parser("simulate", help="batch simulation to Parquet with progress",
                        description="Simulate deals in the batch engine and write one row per deal to a Parquet "
                                    "file (written atomically: an interrupted run leaves no file), or with "
                                    "--out DIR / --backend ray to a resumable run directory; prints a summary.")
    sp.add_argument("--deals", type=_int(1, None, "a deal count"), default=1_000_000,
                    help="deals (default 1,000,000)")
    sp.add_argument("--policy", type=_agent_list, default="random", metavar="SPEC[,SPEC,SPEC]",
                    help="one batch policy for every seat or three: random, rule_based, rule_based:max_bid=18 "
                         "(default random)")
    sp.add_argument("--seed", type=_int(what="an int seed"), default=0, help="run seed, any int (default 0)")
    sp.add_argument("--ramsch", action="store_true", help="play Ramsch when everybody passes")
    sp.add_argument("--kontra", action="store_true", help="allow Kontra/Re")
    sp.add_argument("--workers", type=_threads, default=None, help="threads (default: all cores); Ray: CPUs")
    sp.add_argument("--out", metavar="FILE.parquet|DIR", default=None,
                    help="FILE.parquet: one file via skatsim.simulate.simulate_to_parquet; DIR: a run directory")
    sp.add_argument("--backend", choices=("local", "ray"), default="local", help="local (default) or ray")
    sp.add_argument("--address", default=None, help="with --backend ray: an existing cluster")
    sp.add_argument("--chunk-size", type=_int(1, None, "a deal count"), default=100_000,
                    help="deals per shard of a run directory (default 100,000)")
    sp.add_argument("--no-progress", action="store_true", help="no progress bar")
    sp.set_defaults(func=_cmd_simulate, parser=sp)

    sp = sub.add_parser("bench", help="run a benchmark script (benchmarks/NAME.py)",
                        description="Run one of the benchmarks/ scripts of the source tree with this Python; "
                                    "the arguments after NAME go to the script (skatsim bench agents --help).")
    sp.add_argument("name", nargs="?", default=None, metavar="NAME",
                    help="benchmark name (agents, deals_per_second, solver ...); 'list' or nothing lists them")
    sp.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for the script")
    sp.set_defaults(func=_cmd_bench, parser=sp)

    sp = sub.add_parser("train-bidding", help="label hands, train the bidding network, or run its tournament",
                        description="Run experiments/train_bidding.py of the source tree with this Python; the "
                                    "arguments go to the script (--config FILE, --set key=value, --tournament N, "
                                    "--card-play, --agent k=v, --seed, --workers; skatsim train-bidding --help).",
                        add_help=False)
    sp.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for experiments/train_bidding.py")
    sp.set_defaults(func=_cmd_train_bidding, parser=sp)

    sp = sub.add_parser("import-iss", help="import ISS game records into parquet tables",
                        description="Read International Skat Server records (plain or .bz2, streamed), replay "
                                    "each through the rules, compare with the server's result line and write "
                                    "games.parquet, decisions.parquet, errors.jsonl and summary.json to --out.")
    from skatsim.iss_import import add_import_arguments

    add_import_arguments(sp)
    sp.set_defaults(func=_cmd_import_iss, parser=sp)

    sp = sub.add_parser("serve", help="the browser table: play against two AIs, replay recorded games",
                        description="A local web app: play one deal after another against two AIs with German- "
                                    "or French-suited cards, and replay the games of --replay PATH with the "
                                    "solver's verdict on every card (docs/web.md). Prints the URL.")
    from skatsim_app.web import add_serve_arguments, run_serve

    add_serve_arguments(sp)
    sp.set_defaults(func=run_serve, parser=sp)

    sp = sub.add_parser("agents", help="list the registered agents and their parameters",
                        description="List the registered agents with their parameters and defaults.")
    sp.add_argument("--json", action="store_true", help="as JSON")
    sp.set_defaults(func=_cmd_agents, parser=sp)
    return p


def _cmd_import_iss(args: argparse.Namespace) -> int:
    from skatsim.iss_import import run_import

    return run_import(args)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train-bidding"]:  # every argument, --help included, belongs to the script
        try:
            return _train_bidding(argv[1:])
        except ValueError as e:
            print(f"skatsim train-bidding: error: {e}", file=sys.stderr)
            return 2
    p = build_parser()
    args = p.parse_args(argv)
    if args.cmd is None:
        p.print_help()
        return 0
    if args.cmd == "solve" and args.threshold is not None and args.mode != "threshold":
        args.parser.error("--threshold needs --mode threshold (exact mode judges the declarer against "
                          "the contract's goal)")
    try:
        return int(args.func(args))
    except (ValueError, TypeError) as e:
        args.parser.error(str(e))
    return 2  # pragma: no cover  (parser.error exits)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
