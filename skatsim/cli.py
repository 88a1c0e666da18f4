"""Command line: ``skatsim demo``, ``skatsim play``, ``skatsim solve`` (also ``python -m skatsim``).

``skatsim play --seed 7`` plays one game with uniformly random legal actions
through the state API and prints it; ``skatsim demo`` is the main job of the
README (a batch simulation summary, then one printed game); ``skatsim solve
--seed 2 --contract CH`` prints the open-hand solution of a deal.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from .options import SkatRules
from .state import SkatState

__all__ = ["main", "play_random_game"]


def play_random_game(seed: int, rules: SkatRules | None = None, max_moves: int | None = None) -> SkatState:
    """Deal from ``seed`` and play every phase with uniformly random legal actions
    (``random.Random(seed)``), to the end or for at most ``max_moves`` actions.

    >>> s = play_random_game(7)
    >>> s.is_terminal(), len(s.history()) > 30
    (True, True)
    >>> len(play_random_game(7, max_moves=5).history())
    5
    """
    rng = random.Random(seed)
    state = SkatState.new_game(seed=seed, rules=rules or SkatRules())
    n = 0
    while not state.is_terminal() and (max_moves is None or n < max_moves):
        state.apply_action(rng.choice(state.legal_actions()))
        n += 1
    return state


def _rules(args: argparse.Namespace) -> SkatRules:
    return SkatRules(ramsch=args.ramsch, kontra=args.kontra)


def _cmd_play(args: argparse.Namespace) -> int:
    state = play_random_game(args.seed, _rules(args))
    print(f"deal seed {args.seed}")
    print(state)
    if args.json:
        print(state.to_json(indent=None))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    try:
        from .simulate import simulate, summarize  # type: ignore[attr-defined]
    except ImportError:  # the batch engine is not installed in this build
        simulate = None
    if simulate is not None:
        t0 = time.perf_counter()
        simulate(1000, seed=0, rules=_rules(args))  # compile outside the timing
        t1 = time.perf_counter()
        df = simulate(args.deals, seed=args.seed, rules=_rules(args), workers=args.workers)
        dt = time.perf_counter() - t1
        print(f"simulated {args.deals:,} random deals in {dt:.2f} s "
              f"({args.deals / dt:,.0f} deals/s; first call incl. compilation {t1 - t0:.1f} s)")
        summary = summarize(df)
        table = summary.table()
        top = table.drop(index="all").sort_values("count", ascending=False).head(10)
        print("most frequent contracts (ISS tokens; random bidders overbid almost always):")
        print(table.loc[list(top.index) + ["all"]].round(4).to_string())
        print("Seeger-Fabian points per seat (mean, standard error):")
        print(summary.seeger_fabian().round(2).to_string())
        print()
    _cmd_play(args)
    return 0


#: bidding that makes ``seat`` the declarer at 18 (middlehand bids first, rearhand next)
_BIDS_FOR = {0: ("pass", "pass", "18"), 1: ("18", "pass", "pass"), 2: ("pass", "18", "pass")}


def _cmd_solve(args: argparse.Namespace) -> int:
    from .contracts import HAND, Contract
    from .solver import solve

    contract = Contract.parse(args.contract)
    contract = Contract(contract.game, contract.flags | HAND)  # the skat stays untouched
    state = SkatState.new_game(seed=args.seed)
    for a in _BIDS_FOR[args.declarer] + ("hand", contract.to_text()):
        state.apply_action(state.string_to_action(a))
    print(f"deal seed {args.seed}: seat {args.declarer} declares {contract.to_text()} ({contract.describe()})")
    print(state.deal)
    t0 = time.perf_counter()
    sol = solve(state, mode=args.mode, threshold=args.threshold, move_values=True)
    dt = time.perf_counter() - t0
    print(sol)
    verdict = "wins" if sol.declarer_wins else "loses"
    print(f"with best play by everybody the declarer {verdict} the card play ({dt * 1000:.1f} ms incl. compile on first use)")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="skatsim", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--seed", type=int, default=1, help="deal / policy seed (default 1)")
        sp.add_argument("--ramsch", action="store_true", help="play Ramsch when everybody passes")
        sp.add_argument("--kontra", action="store_true", help="allow Kontra/Re")

    sp = sub.add_parser("play", help="play and print one random game")
    common(sp)
    sp.add_argument("--json", action="store_true", help="also print the game record as JSON")
    sp.set_defaults(func=_cmd_play)

    sp = sub.add_parser("demo", help="batch simulation summary plus one printed random game")
    common(sp)
    sp.add_argument("--deals", type=int, default=1_000_000, help="deals to simulate (default 1,000,000)")
    sp.add_argument("--workers", type=int, default=None, help="threads (default: all cores)")
    sp.add_argument("--json", action="store_true", help="also print the game record as JSON")
    sp.set_defaults(func=_cmd_demo)

    sp = sub.add_parser("solve", help="open-hand (double-dummy) solution of a dealt game")
    sp.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    sp.add_argument("--declarer", type=int, choices=(0, 1, 2), default=0, help="declarer seat (default 0)")
    sp.add_argument("--contract", default="G", help="ISS token, played hand: C S H D G N, CO, NO ... (default G)")
    sp.add_argument("--mode", choices=("exact", "threshold"), default="exact")
    sp.add_argument("--threshold", type=lambda v: v if v == "schwarz" else int(v), default=61,
                    help="card points to reach in threshold mode (61, 90, 120) or 'schwarz'")
    sp.set_defaults(func=_cmd_solve)

    args = p.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
