"""Open-hand solver benchmark: time and nodes per solve on a fixed, seeded set of deals.

    python benchmarks/solver.py [--deals 200] [--seed 2024] [--quick] [--worlds 32] [--node-limit N]
                                [--pimc-only] [--out PATH]

**Deals.** Deal ``i`` is ``skatsim.deal(derive_seed(seed, i))``. The declarer is always
forehand (seat 0), playing hand (the skat stays as dealt and counts for him). The
contract is chosen from forehand's 10 cards by this rule:

- every fifth deal (``i % 5 == 4``) is a **null** deal (a fixed 20% subset): it is the
  first deal ``deal(derive_seed(seed, 1_000_000 + 1000 * i + j))``, ``j = 0, 1, ...``, in
  which forehand holds no ace and no king (a hand with no high null cards);
- otherwise **grand** with 3 or 4 jacks;
- otherwise the **suit** with the most cards (jacks not counted), ties to the higher suit
  (clubs > spades > hearts > diamonds).

**Positions.** From each deal: the start (0 tricks played), and the positions after 3 and 6
tricks of seeded uniformly random legal play (the same cards every run).

**Measured.** For suit and grand games: ``threshold`` (can the declarer reach 61?) and
``exact`` (the declarer's minimax card points). For null: ``threshold`` (can he avoid every
trick?). Each solve starts from an empty transposition table (``Solver.reset()``), on
one core. Times are CPU seconds of this process (``time.process_time``), which stays
meaningful when other jobs share the machine; wall-clock times are recorded too.
Compile time is excluded (each kernel path runs once before timing).

**PIMC decision rows.** One card decision of a PIMC player as issue 9 times it: from the
mover's ``InfoState`` (no hidden card), ``sample_worlds`` draws ``--worlds`` worlds and
``Solver.root_values`` values every legal move in every world in one compiled call, as a
threshold search at the announced goal (``target_for``). Positions: the first lead of
tricks 1, 4 and 7 of the suit/grand deals above (forehand declares the contract as a hand
game; seeded random play in between), ``--pimc-deals`` deals; the table starts empty
each time. ``--node-limit N`` gives every world a budget of N search nodes
(``root_values(node_limit=N)``; the rows also report how many worlds ran over it).
Print the mean as well as the median: a few worlds with very close threshold searches
dominate the mean time per decision.

Prints one table and appends one JSON line (config, versions, CPU model, seed, figures)
to ``./runs/benchmarks/solver.jsonl`` relative to the current folder (or ``--out``).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from _env import add_output_args, cpu_model, git_commit, now_utc, versions, write_record  # noqa: E402
from skatsim import SkatState, deal
from skatsim.infostate import InfoState, sample_worlds
from skatsim.bits import derive_seed, popcount
from skatsim.cards import ACES, JACKS, KINGS, SUIT_NO_JACK
from skatsim.rules import GAME_NAMES, GRAND, NULL, legal_mask, trick_winner_pos
from skatsim.solver import Position, Solver, target_for

TARGETS = {"threshold_61_t0_median_ms": 2.0, "exact_t0_median_ms": 50.0, "pimc_32_worlds_trick_1_median_ms": 150.0}
PUBLISHED = {
    "SkatKlar (C++), threshold 61, full deal": "3.7 ms",
    "SkatKlar (C++), exact card points, full deal": "241 ms",
    "Kupferschmid & Helmert 2006, typical hand": "10 ms",
}


def choose_contract(i: int, hand: int) -> int:
    """The contract rule of the module docstring."""
    if i % 5 == 4:
        return NULL
    if popcount(hand & JACKS) >= 3:
        return GRAND
    return max(range(4), key=lambda s: (popcount(hand & SUIT_NO_JACK[s]), s))


def play_random(pos: Position, n_tricks: int, rng: np.random.Generator) -> Position | None:
    """Play ``n_tricks`` tricks of uniformly random legal cards (None if a null game ends)."""
    hands = list(pos.hands)
    leader, dpts, dtr = pos.leader, pos.declarer_points, pos.declarer_tricks
    from skatsim.cards import card_points

    for _ in range(n_tricks):
        trick = []
        for k in range(3):
            p = (leader + k) % 3
            m = int(legal_mask(hands[p], trick[0] if trick else -1, pos.game))
            opts = [c for c in range(32) if m >> c & 1]
            c = opts[int(rng.integers(len(opts)))]
            hands[p] &= ~(1 << c)
            trick.append(c)
        w = (leader + int(trick_winner_pos(trick[0], trick[1], trick[2], pos.game))) % 3
        if w == pos.declarer:
            dpts += int(card_points((1 << trick[0]) | (1 << trick[1]) | (1 << trick[2])))
            dtr += 1
            if pos.game == NULL:
                return None
        leader = w
    return Position((hands[0], hands[1], hands[2]), pos.skat, pos.game, pos.declarer, (), leader, dpts, dtr)


def null_deal(seed: int, i: int) -> tuple[int, int, int, int]:
    """The null deal of index ``i`` (see the module docstring)."""
    for j in range(1000):
        h0, h1, h2, sk = deal(derive_seed(seed, 1_000_000 + 1000 * i + j)).masks()
        if h0 & (ACES | KINGS) == 0:
            return h0, h1, h2, sk
    raise RuntimeError("no null deal found")  # pragma: no cover - probability ~1e-13


def build_positions(n_deals: int, seed: int) -> list[tuple[int, int, Position]]:
    """(deal index, tricks played, position) for the whole benchmark set."""
    out = []
    for i in range(n_deals):
        if i % 5 == 4:
            h0, h1, h2, sk = null_deal(seed, i)
        else:
            h0, h1, h2, sk = deal(derive_seed(seed, i)).masks()
        g = choose_contract(i, h0)
        start = Position((h0, h1, h2), sk, g, 0)
        out.append((i, 0, start))
        for n in (3, 6):
            p = play_random(start, n, np.random.default_rng([seed, i, n]))
            if p is not None:
                out.append((i, n, p))
    return out


def measure(solver: Solver, pos: Position, mode: str) -> tuple[float, float, int, int]:
    solver.reset()
    w0, c0 = time.perf_counter(), time.process_time()
    r = solver.solve(pos, mode=mode)
    c1, w1 = time.process_time(), time.perf_counter()
    return c1 - c0, w1 - w0, r.nodes, r.declarer_points if r.declarer_points is not None else int(r.declarer_wins)


def pimc_positions(n_deals: int, seed: int) -> list[tuple[int, int, SkatState]]:
    """(deal index, trick, state) for the PIMC rows: hand games of the contract rule above
    (declarer forehand), at the first lead of tricks 1, 4 and 7 after seeded random play."""
    out = []
    for i in range(n_deals):
        if i % 5 == 4:
            continue  # suit and grand only: null decisions are trivial by comparison
        s = SkatState.new_game(seed=derive_seed(seed, i))
        g = choose_contract(i, s.hand_mask(0))
        for a in ("18", "yes", "pass", "pass", "hand", "DHSCG"[g] + "H"):  # forehand declares, hand
            s.apply_action(s.string_to_action(a))
        rng = np.random.default_rng([seed, i])
        for trick in range(1, 8):
            if trick in (1, 4, 7) and s.phase == "play":
                out.append((i, trick, s.clone()))
            for _ in range(3):
                if s.phase == "play":
                    s.apply_action(int(rng.choice(s.legal_actions())))
    return out


def pimc_decision(solver: Solver, s: SkatState, n_worlds: int, seed: int,
                  node_limit: int | None = None) -> tuple[float, float, int]:
    """One PIMC card decision as issue 9 times it: the mover's InfoState, sample_worlds,
    root values of every move in every world (threshold: the announced goal) in one call."""
    solver.reset()
    w0, c0 = time.perf_counter(), time.process_time()
    info = InfoState.from_state(s, s.current_player())
    worlds = sample_worlds(info, n_worlds, rng=seed)
    vals = solver.root_values(worlds, info, mode="threshold", threshold=target_for(s.contract), progress=False,
                              node_limit=node_limit)
    c1, w1 = time.process_time(), time.perf_counter()
    return c1 - c0, w1 - w0, int((vals == -2).any(axis=1).sum())


def summarise(rows: list[dict]) -> dict:
    t = np.array([r["cpu_s"] for r in rows]) * 1e3
    n = np.array([r["nodes"] for r in rows])
    return {"n": len(rows), "median_ms": float(np.median(t)), "p90_ms": float(np.percentile(t, 90)),
            "mean_ms": float(t.mean()), "max_ms": float(t.max()), "median_nodes": int(np.median(n)),
            "p90_nodes": int(np.percentile(n, 90)), "mean_nodes": int(n.mean()),
            "median_wall_ms": float(np.median([r["wall_s"] for r in rows]) * 1e3),
            "mean_wall_ms": float(np.mean([r["wall_s"] for r in rows]) * 1e3),
            **({"worlds_over_budget": int(sum(r["over"] for r in rows))} if rows and "over" in rows[0] else {})}






def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=200, help="number of deals (default 200)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--tt-bits", type=int, default=20, help="log2 of the main transposition table size")
    ap.add_argument("--quick", action="store_true", help="smoke run: 20 deals")
    ap.add_argument("--worlds", type=int, default=32, help="worlds per PIMC decision (default 32)")
    ap.add_argument("--pimc-deals", type=int, default=50, help="deals for the PIMC decision rows (default 50)")
    ap.add_argument("--no-pimc", action="store_true", help="skip the PIMC decision rows")
    ap.add_argument("--pimc-only", action="store_true", help="only the PIMC decision rows")
    ap.add_argument("--node-limit", type=int, default=None,
                    help="search-node budget per world in the PIMC rows (default: none)")
    add_output_args(ap, "solver")
    args = ap.parse_args(argv)
    n_deals = 20 if args.quick else args.deals

    solver = Solver(tt_bits=args.tt_bits)
    positions = build_positions(n_deals, args.seed)
    # compile / warm up every path outside the timed region
    warm = build_positions(5, args.seed + 1)
    for _, _, p in warm:
        for mode in ("threshold", "exact"):
            solver.solve(p, mode=mode)
    solver.solve(warm[0][2], mode="exact", move_values=True)

    rows = []
    t_start = time.perf_counter()
    for i, n, p in ([] if args.pimc_only else positions):
        modes = ("threshold",) if p.game == NULL else ("threshold", "exact")
        for mode in modes:
            cpu, wall, nodes, value = measure(solver, p, mode)
            rows.append({"deal": i, "tricks": n, "game": GAME_NAMES[p.game], "null": p.game == NULL,
                         "mode": mode, "cpu_s": cpu, "wall_s": wall, "nodes": nodes, "value": value})
    total_s = time.perf_counter() - t_start

    groups: dict[str, dict] = {}
    for kind, null in (("suit/grand", False), ("null", True)):
        for mode in ("threshold", "exact"):
            for n in (0, 3, 6):
                sel = [r for r in rows if r["null"] == null and r["mode"] == mode and r["tricks"] == n]
                if sel:
                    label = f"{kind} {'threshold(61)' if mode == 'threshold' and not null else mode}"
                    groups[f"{label} after {n} tricks"] = summarise(sel)
    pimc: dict[str, dict] = {}
    if not args.no_pimc:
        pstates = pimc_positions(args.pimc_deals if not args.quick else 10, args.seed)
        pimc_decision(solver, pstates[0][2], args.worlds, 0, args.node_limit)  # compile
        prow = []
        for i, trick, s in pstates:
            cpu, wall, over = pimc_decision(solver, s, args.worlds, i, args.node_limit)
            prow.append({"cpu_s": cpu, "wall_s": wall, "nodes": solver.nodes, "trick": trick, "over": over})
        for trick in (1, 4, 7):
            sel = [r for r in prow if r["trick"] == trick]
            if sel:
                pimc[f"PIMC decision, {args.worlds} worlds, trick {trick}"] = summarise(sel)
        groups.update(pimc)
    head = f"{'what':<44}{'n':>5}{'median ms':>11}{'p90 ms':>9}{'mean ms':>9}{'max ms':>9}" \
           f"{'median nodes':>14}{'p90 nodes':>12}"
    print(f"skatsim solver benchmark: {n_deals} deals, seed {args.seed}, 1 core, CPU {cpu_model()}")
    print(head)
    print("-" * len(head))
    for k, s in groups.items():
        print(f"{k:<44}{s['n']:>5}{s['median_ms']:>11.2f}{s['p90_ms']:>9.2f}{s['mean_ms']:>9.2f}"
              f"{s['max_ms']:>9.1f}{s['median_nodes']:>14,}{s['p90_nodes']:>12,}")
    print("PIMC decision: sample_worlds + Solver.root_values (threshold at the announced goal, all moves, "
          "one call), empty table each time")
    for k, s in pimc.items():
        extra = f", worlds over the node budget {s['worlds_over_budget']}" if args.node_limit else ""
        print(f"{k}: CPU mean {s['mean_ms']:.1f} ms per decision; wall median {s['median_wall_ms']:.1f} "
              f"mean {s['mean_wall_ms']:.1f} ms{extra}")
    if args.node_limit:
        print(f"node budget: {args.node_limit:,} nodes per world")
    na = float("nan")
    thr = groups.get("suit/grand threshold(61) after 0 tricks", {}).get("median_ms", na)
    ex = groups.get("suit/grand exact after 0 tricks", {}).get("median_ms", na)
    print(f"targets: threshold(61) median {thr:.2f} ms (<= {TARGETS['threshold_61_t0_median_ms']}), "
          f"exact median {ex:.2f} ms (<= {TARGETS['exact_t0_median_ms']}); total {total_s:.1f} s")

    record = {
        "benchmark": "solver",
        "time": now_utc(),
        "git_commit": git_commit(),
        "config": {"deals": n_deals, "quick": args.quick, "tt_bits": args.tt_bits, "worlds": args.worlds,
                   "node_limit": args.node_limit, "pimc_only": args.pimc_only,
                   "small_tt_bits": int(np.log2(solver.small_slots)), "contract_rule":
                   "declarer forehand, hand; i%5==4 null; >=3 jacks grand; else longest suit",
                   "positions": "start and after 3, 6 random tricks", "timer": "process_time"},
        "seed": args.seed,
        "versions": versions(),
        "cpu": cpu_model(),
        "figures": groups,
        "targets": TARGETS,
        "targets_met": {"threshold_61_t0_median_ms": thr <= TARGETS["threshold_61_t0_median_ms"],
                        **({"pimc_32_worlds_trick_1_median_ms":
                            pimc["PIMC decision, 32 worlds, trick 1"]["median_ms"] <= 150.0}
                           if "PIMC decision, 32 worlds, trick 1" in pimc else {}),
                        "exact_t0_median_ms": ex <= TARGETS["exact_t0_median_ms"]},
        "total_seconds": total_s,
    }
    write_record(args, "solver", record)
    return record


if __name__ == "__main__":
    main(sys.argv[1:])
