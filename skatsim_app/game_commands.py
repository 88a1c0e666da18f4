"""The commands that deal and play one game or a few: ``play``, ``demo`` and ``solve``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, TextIO

from skatsim._random import to_seed
from skatsim.actions import PASS, action_to_string
from skatsim.cards import CardSet, card_name
from skatsim.deal import SEED_MASK
from skatsim.state import SEAT_NAMES, SkatState

from .options import (DEFAULT_SEED, UsageError, add_progress, add_rules, add_seed, add_workers, agent_list,
                      deals_arg, default_workers, int_arg, opponents, refuse_unused, rules_of)

__all__ = ["game_text", "add_play", "add_demo", "add_solve"]


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


def _yes(answer: str) -> bool:
    return answer.strip().lower() in ("y", "yes", "j", "ja")


def _cmd_play_human(args: argparse.Namespace) -> int:
    from agents import Table
    from agents.players.human import HumanAgent, HumanQuit, explain_result, solver_verdict

    seat = args.seat
    opp = iter(args.opponents)
    specs: list[Any] = [None if s == seat else next(opp) for s in range(3)]
    labels = ["you" if sp is None else sp.to_text() for sp in specs]
    out = sys.stdout
    me = HumanAgent(input=sys.stdin, output=out, labels=labels)
    rules = rules_of(args)
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

    args.seed = DEFAULT_SEED if args.seed is None else args.seed
    if getattr(args, "seat", None) is not None:
        refuse_unused(args, {"agents": "plays the three AIs of an AI game; with --seat give --opponents",
                             "json": "writes an AI game's record; it has no effect with --seat"})
        args.opponents = args.opponents or opponents("rule_based")
        args.deals = 1 if args.deals is None else args.deals
        args.verdict = args.verdict or "ask"
        return _cmd_play_human(args)
    refuse_unused(args, {"opponents": "needs --seat (you play that seat against the opponents)",
                         "deals": "needs --seat (the deals you play); an AI game is one deal",
                         "verdict": "needs --seat"})
    specs = args.agents or agent_list("random")
    state = play_game([s.make() for s in specs], seed=args.seed, rules=rules_of(args))
    text_out = sys.stderr if args.json else (out or sys.stdout)
    print(game_text(state, args.seed, [s.to_text() for s in specs]), file=text_out)
    if args.json:
        print(state.to_json(indent=None), file=sys.stdout)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    args.seed = DEFAULT_SEED if args.seed is None else args.seed
    if not args.batch:
        refuse_unused(args, {"agents": "chooses the agents of --batch's printed game; the tournaments seat "
                                       "rule_based, random and pimc", "json": "needs --batch (the printed game)"})
        return _cmd_demo_tournament(args)
    refuse_unused(args, {"pimc_deals": "sets the PIMC tournament, which --batch does not play",
                         "worlds": "sets the PIMC tournament, which --batch does not play"})
    if args.deals is None:
        args.deals = 1_000_000
    args.agents = args.agents or agent_list("random")
    return _cmd_demo_batch(args)


def _cmd_demo_tournament(args: argparse.Namespace) -> int:
    from agents.arena.tournament import run_tournament

    workers = args.workers or default_workers()
    deals = 300 if args.deals is None else args.deals
    args.pimc_deals = 200 if args.pimc_deals is None else args.pimc_deals
    args.worlds = 4 if args.worlds is None else args.worlds
    t_all = time.perf_counter()
    print(f"1) rule_based vs random: {deals} duplicate deals (x 6 seatings), compiled agents, {workers} thread(s)")
    t0 = time.perf_counter()
    r = run_tournament(["rule_based", "random"], deals, args.seed, rules=rules_of(args), workers=workers,
                       progress=not args.no_progress)
    print(r)
    print(f"({len(r.games):,} games in {time.perf_counter() - t0:.1f} s)\n")
    pimc = f"pimc:worlds={args.worlds}"
    print(f"2) {pimc} vs rule_based: {args.pimc_deals} duplicate deals (x 6 seatings), a Python agent, "
          f"{workers} process(es)")
    t0 = time.perf_counter()
    r = run_tournament([pimc, "rule_based"], args.pimc_deals, args.seed, rules=rules_of(args), workers=workers,
                       progress=not args.no_progress)
    print(r)
    print(f"({len(r.games):,} games in {time.perf_counter() - t0:.1f} s)")
    print(f"\ndemo finished in {time.perf_counter() - t_all:.1f} s")
    return 0


def _cmd_demo_batch(args: argparse.Namespace) -> int:
    from skatsim.simulate import simulate, summarize

    out = sys.stderr if args.json else sys.stdout
    t0 = time.perf_counter()
    simulate(1000, seed=0, rules=rules_of(args), workers=1)  # compile (or load the cache) outside the timing
    t1 = time.perf_counter()
    df = simulate(args.deals, seed=args.seed, rules=rules_of(args), workers=args.workers,
                  progress=not args.no_progress)
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
    args.seat = args.opponents = args.verdict = None
    args.deals = None
    return _cmd_play(args, out)


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

    args.seed = DEFAULT_SEED if args.seed is None else args.seed
    if args.threshold is not None and args.mode != "threshold":
        raise UsageError("--threshold needs --mode threshold (exact mode judges the declarer against the "
                         "contract's goal)")
    contract = Contract(args.contract.game, args.contract.flags | HAND)  # the skat stays untouched
    state = _declare(args.seed, args.declarer, contract.to_text())
    goal = target_for(contract)
    if (goal == "null") != (args.threshold in (None, "null")) and args.threshold is not None:
        raise UsageError(f"--threshold {args.threshold} does not fit {contract.to_text()}: a null game's only goal "
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
    pts = sol.declarer_points
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


# ----------------------------------------------------------------------------- parsers


def _contract(text: str) -> Any:
    from skatsim.contracts import Contract

    try:
        return Contract.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _threshold(text: str) -> int | str:
    if text in ("schwarz", "null"):
        return text
    return int_arg(0, 120, "card points")(text)


def _agents_opt(sp: argparse.ArgumentParser, what: str) -> None:
    sp.add_argument("--agents", type=agent_list, default=None, metavar="SPEC[,SPEC,SPEC]",
                    help=f"{what}: one agent for every seat or three (forehand, middlehand, rearhand), e.g. "
                         "rule_based,random,random (default random); see skatsim agents")


def add_play(sub: Any) -> None:
    sp = sub.add_parser("play", help="play one game with agents, or play yourself (--seat)",
                        description="Play one game with agents and print it; with --seat, you play that seat "
                                    "in the terminal against two AIs (every phase: bids, skat, declaration, "
                                    "cards), e.g. skatsim play --seat 0 --opponents rule_based,pimc:worlds=16")
    add_seed(sp)
    add_rules(sp)
    _agents_opt(sp, "the three AIs of the game")
    sp.add_argument("--json", action="store_true",
                    help="write the game record as JSON to stdout (the printout goes to stderr)")
    sp.add_argument("--seat", type=int, choices=(0, 1, 2), default=None,
                    help="play this seat yourself (0 forehand, 1 middlehand, 2 rearhand)")
    sp.add_argument("--opponents", type=opponents, default=None, metavar="SPEC[,SPEC]",
                    help="with --seat: the two AIs, in seat order (one spec: both), e.g. rule_based,pimc:worlds=16 "
                         "(default rule_based)")
    sp.add_argument("--deals", type=deals_arg(), default=None,
                    help="with --seat: deals to play (seeds SEED, SEED+1, ...; default 1)")
    sp.add_argument("--verdict", choices=("ask", "always", "never"), default=None,
                    help="with --seat: the open-hand solver's verdict on the declarer's contract after each "
                         "deal (default: ask)")
    sp.set_defaults(func=_cmd_play, parser=sp)


def add_demo(sub: Any) -> None:
    sp = sub.add_parser("demo", help="small duplicate tournaments on every core (--batch: the simulation demo)",
                        description="Two duplicate tournaments on every core: rule_based vs random (compiled "
                                    "policies) and PIMC vs rule_based (Python agents), each printing its "
                                    "summary. With --batch: simulate random deals in batch simulation, "
                                    "summarise them, print one game.")
    add_seed(sp, "master seed / deal seed")
    add_rules(sp)
    _agents_opt(sp, "with --batch: the agents of the printed game")
    sp.add_argument("--batch", action="store_true", help="the batch-simulation demo instead")
    sp.add_argument("--deals", type=deals_arg(0), default=None,
                    help="boards of the rule_based vs random tournament (default 300); with --batch: deals to "
                         "simulate (default 1,000,000)")
    sp.add_argument("--pimc-deals", type=deals_arg(), default=None,
                    help="boards of the PIMC vs rule_based tournament (default 200)")
    sp.add_argument("--worlds", type=int_arg(1, 10_000, "a world count"), default=None,
                    help="PIMC worlds per card decision in the demo (default 4)")
    add_progress(sp)
    add_workers(sp, "threads / processes")
    sp.add_argument("--json", action="store_true",
                    help="with --batch: write the printed game's record as JSON to stdout (the text goes to stderr)")
    sp.set_defaults(func=_cmd_demo, parser=sp)


def add_solve(sub: Any) -> None:
    sp = sub.add_parser("solve", help="open-hand (double-dummy) solution of a dealt game",
                        description="Solve a dealt deal open-handed: the declarer plays the contract hand "
                                    "(the skat untouched) and is judged against its announced goal "
                                    "(61 card points; 90 with schneider announced; every trick with schwarz "
                                    "announced or ouvert; no trick in null).")
    add_seed(sp)
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
