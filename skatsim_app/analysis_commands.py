"""Commands of the strength work: ``compare`` (where the points go between two players),
``card-labels`` (search labels for distillation) and ``train-distil`` (the distilled card
player).

``skatsim compare RUN [RUN2] --players A B``: one run directory of a duplicate tournament of
``A`` against ``B``, or two runs (``A`` against a field, ``B`` against the same field on the
same deals); prints :func:`agents.arena.compare.format_breakdown` (and with ``--outcomes``
:func:`agents.arena.compare.format_outcomes`).
"""

from __future__ import annotations

import argparse
from typing import Any

from .options import UsageError

__all__ = ["add_compare", "run_card_labels", "run_train_distil", "run_calibrate_bidder"]


def add_compare(sub: "argparse._SubParsersAction[Any]") -> None:
    sp = sub.add_parser("compare", help="where the points go between two players, decision by decision",
                        description="A paired comparison of two players by decision: declares where the other "
                                    "passes, passes where the other declares, other contract, same contract, "
                                    "defence, passed in; one duplicate tournament of A against B (or of three "
                                    "players: A and B trade seats, the third keeps its own), or two runs "
                                    "(A against a field, B against the same field on the same deals).")
    sp.add_argument("runs", nargs="+", metavar="RUN", help="one or two run directories (or games tables)")
    sp.add_argument("--players", nargs=2, metavar=("A", "B"), default=None,
                    help="the two agents, as the tournament's command or its labels name them (default: the two "
                         "agents of the tournament, or the agent of each run that is not in the other)")
    sp.add_argument("--outcomes", action="store_true",
                    help="also count per category the pairs whose score differs and those the swapped seat's "
                         "side won with one player only")
    sp.set_defaults(func=_run_compare, parser=sp)


def _games(path: str) -> Any:
    from agents.arena.tournament import load_tournament

    return load_tournament(path, partial=True)


def _label(text: str, labels: set[str]) -> str:
    """A ``--players`` name as the run labels it: as written when a label is, else the agent
    spec's canonical text (options sorted, values normalised: ``expert:worlds=2,calibration=none``
    is the run's ``expert:calibration=None,worlds=2``)."""
    from agents.arena.base import AgentSpec

    if text in labels:
        return text
    try:
        return AgentSpec.coerce(text).to_text()
    except ValueError:
        return text


def _run_compare(args: argparse.Namespace) -> int:
    from agents.arena.compare import decision_breakdown, format_breakdown, format_outcomes, outcome_changes

    if len(args.runs) > 2:
        raise UsageError("give one tournament of A against B, or two runs (A and B against the same field)")
    res = [_games(p) for p in args.runs]
    if args.players:
        known = {lab for r in res for lab in r.labels}
        args.players = [_label(p, known) for p in args.players]
    if len(res) == 1:
        labels = list(res[0].labels)
        a, b = args.players or (labels + ["?", "?"])[:2]
        if a not in labels or b not in labels:
            raise UsageError(f"--players must name two of the tournament's agents: {', '.join(labels)}")
        games: tuple[Any, ...] = (res[0].games,)
    else:
        la, lb = set(res[0].labels), set(res[1].labels)
        if args.players:
            a, b = args.players
        else:
            only_a, only_b = sorted(la - lb), sorted(lb - la)
            if len(only_a) != 1 or len(only_b) != 1:
                raise UsageError("cannot tell the two players apart: give --players A B")
            a, b = only_a[0], only_b[0]
        if a not in la or b not in lb:
            raise UsageError(f"{a!r} must be an agent of the first run and {b!r} of the second")
        field = sorted(la - {a})
        if field != sorted(lb - {b}):
            raise UsageError(f"the runs' fields differ ({', '.join(field)} against {', '.join(sorted(lb - {b}))})")
        games = (res[0].games, res[1].games)
    t = decision_breakdown(games[0], a, b, *games[1:])
    if int(t.loc["total", "pairs"]) == 0:
        raise UsageError("no pairs: the runs share no deal with the players in the same seats")
    print(format_breakdown(t, a, b))
    if args.outcomes:
        print()
        print(format_outcomes(outcome_changes(games[0], a, b, *games[1:]), a, b))
    return 0


def run_card_labels(argv: list[str]) -> int:
    from agents.learn.card_labels import main

    return int(main(argv) or 0)


def run_train_distil(argv: list[str]) -> int:
    from agents.learn.distil import main

    return int(main(argv) or 0)


def run_calibrate_bidder(argv: list[str]) -> int:
    from agents.learn.calibrate import main

    return int(main(argv) or 0)
