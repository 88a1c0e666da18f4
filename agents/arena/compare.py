"""Where the points go: a paired comparison of two players, decision by decision.

Two games are a *pair* when they share the deal and the agents of two seats, and the third
seat (the *swapped* seat) holds player ``a`` in one and player ``b`` in the other. The
difference of the swapped seat's own Seeger-Fabian score says what the swap was worth on
that deal; what the two players did in that seat says why. Each pair falls in one category:

===========================  ==========================================================
category                     the swapped seat ...
===========================  ==========================================================
``declares, other passes``   declares with ``a``, not with ``b``
``passes, other declares``   declares with ``b``, not with ``a``
``other contract``           declares with both, different contracts
``same contract``            declares the same contract with both (the discard and the
                             card play make the difference)
``defence``                  declares with neither; another seat declares in either game
``passed in``                nobody declares in either game
===========================  ==========================================================

Pairs come from one duplicate tournament of ``a`` against ``b`` (each arrangement with one
seat swapped: ``ABA`` and ``BBA`` differ in seat 0 only), from one tournament of three players
(``a`` and ``b`` trade seats and the third keeps its seat: ``ABC`` and ``BAC``, seat 0 for
``a`` against ``b``, seat 1 for the reverse; the swapped seat's opponents then differ by the
other of the two), or from two runs on the same deals
and arrangements, ``a`` against a field and ``b`` against the same field (then the
arrangements where the player holds exactly one seat: the player in one seat, the field
in the two others, minus the other player in the same seat on the same deal).

Per category: the pairs, their share, the mean difference in a pair, and the category's
contribution to the mean difference per pair with a 95% interval over boards (the
contributions add up to the total). :func:`decision_breakdown` computes it; the CLI is
``skatsim compare RUN [RUN2] --players A B``. :func:`outcome_changes` (``--outcomes``) counts
per category the pairs whose score differs at all and those the swapped seat's side won with
one player only: how often a decision changed the result, which a mean does not show (a
card player's gain is often a few flipped games among many played alike).

>>> import pandas as pd
>>> rows = [dict(deal_id=0, arrangement=arr, agent_0=arr[0], agent_1=arr[1], agent_2=arr[2], declarer=d,
...              contract=c, sf_0=s[0], sf_1=s[1], sf_2=s[2])
...         for arr, d, c, s in [("ABB", 0, "G", (120, 0, 0)), ("BBB", 1, "C", (40, -60, 40))]]
>>> t = decision_breakdown(pd.DataFrame(rows), "A", "B")
>>> int(t.loc["declares, other passes", "pairs"]), float(t.loc["total", "mean"])
(1, 80.0)
>>> rows[0]["won"], rows[1]["won"] = True, False  # seat 0 wins both: as declarer, then as a defender
>>> outcome_changes(pd.DataFrame(rows), "A", "B").loc["declares, other passes"].to_dict()
{'pairs': 1, 'score differs': 1, 'won with a only': 0, 'won with b only': 0}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .tournament.stats import Z95

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CATEGORIES", "pairs_of", "decision_breakdown", "format_breakdown", "outcome_changes",
           "format_outcomes"]

CATEGORIES: tuple[str, ...] = ("declares, other passes", "passes, other declares", "other contract",
                               "same contract", "defence", "passed in")
_NONE = {"passed", "R", "nan", "None", ""}


def _declarer(row: Any) -> int | None:
    """The seat that declared a contract, or ``None`` (passed in, Ramsch)."""
    d = row["declarer"]
    if d is None or (isinstance(d, float) and np.isnan(d)) or int(d) < 0 or str(row["contract"]) in _NONE:
        return None
    return int(d)


def _declared(row: Any, seat: int) -> bool:
    return _declarer(row) == seat


def _category(ra: Any, rb: Any, seat: int) -> str:
    da, db = _declared(ra, seat), _declared(rb, seat)
    if da and not db:
        return CATEGORIES[0]
    if db and not da:
        return CATEGORIES[1]
    if da and db:
        return CATEGORIES[3] if str(ra["contract"]) == str(rb["contract"]) else CATEGORIES[2]
    played = _declarer(ra) is not None or _declarer(rb) is not None
    return CATEGORIES[4] if played else CATEGORIES[5]


def _side_won(row: Any, seat: int) -> float:
    """1.0 if ``seat``'s side won the game, 0.0 if it lost, NaN when nobody declared (or the
    games table has no ``won`` column)."""
    d = _declarer(row)
    if d is None or "won" not in row.index:
        return float("nan")
    return float(bool(row["won"]) == (d == seat))


def pairs_of(games_a: "pd.DataFrame", a: str, b: str, games_b: "pd.DataFrame | None" = None) -> "pd.DataFrame":
    """The pairs (module docstring) as rows: ``deal_id``, ``seat``, ``category``, ``sf_a``,
    ``sf_b``, ``diff``, ``contract_a``, ``contract_b``, ``won_a``, ``won_b`` (whether the
    swapped seat's side won: 1.0, 0.0, or NaN when nobody declared).

    One frame: a duplicate tournament of ``a`` against ``b`` (agent labels ``a`` and ``b``).
    Two frames: ``games_a`` with ``a`` and ``games_b`` with ``b`` against the same field on
    the same deals and arrangements (``a`` in ``games_a`` sits where ``b`` sits in ``games_b``)."""
    import pandas as pd

    out: list[dict[str, Any]] = []
    if games_b is None:
        by = {(int(r["deal_id"]), tuple(r[f"agent_{s}"] for s in range(3))): r for _, r in games_a.iterrows()}
        three = len({x for _, agents in by for x in agents}) >= 3
        for (deal, agents), ra in by.items():
            for s in range(3):
                if agents[s] != a:
                    continue
                other = list(agents)
                other[s] = b
                if three and b in agents:  # three players: a and b trade seats, the third stays
                    other[agents.index(b)] = a
                rb = by.get((deal, tuple(other)))
                if rb is not None:
                    out.append(_pair(deal, s, ra, rb))
    else:
        if "deal_seed" in games_a.columns and "deal_seed" in games_b.columns:
            sa = games_a.drop_duplicates("deal_id").set_index("deal_id")["deal_seed"]
            sb = games_b.drop_duplicates("deal_id").set_index("deal_id")["deal_seed"]
            common = sa.index.intersection(sb.index)
            if (sa.loc[common] != sb.loc[common]).any():
                raise ValueError("the two runs do not share their boards (different seeds): board i is another deal")
        by_b = {(int(r["deal_id"]), r["arrangement"]): r for _, r in games_b.iterrows()}
        for _, ra in games_a.iterrows():
            seats = [s for s in range(3) if ra[f"agent_{s}"] == a]
            if len(seats) != 1:
                continue
            rb = by_b.get((int(ra["deal_id"]), ra["arrangement"]))
            s = seats[0]
            if rb is None or rb[f"agent_{s}"] != b:
                continue
            if any(rb[f"agent_{q}"] != ra[f"agent_{q}"] for q in range(3) if q != s):
                continue
            out.append(_pair(int(ra["deal_id"]), s, ra, rb))
    cols = ["deal_id", "seat", "category", "sf_a", "sf_b", "diff", "contract_a", "contract_b", "won_a", "won_b"]
    return pd.DataFrame(out, columns=cols)


def _pair(deal: int, s: int, ra: Any, rb: Any) -> dict[str, Any]:
    sa, sb = float(ra[f"sf_{s}"]), float(rb[f"sf_{s}"])
    return {"deal_id": deal, "seat": s, "category": _category(ra, rb, s), "sf_a": sa, "sf_b": sb, "diff": sa - sb,
            "contract_a": str(ra["contract"]), "contract_b": str(rb["contract"]),
            "won_a": _side_won(ra, s), "won_b": _side_won(rb, s)}


def decision_breakdown(games_a: "pd.DataFrame", a: str, b: str,
                       games_b: "pd.DataFrame | None" = None) -> "pd.DataFrame":
    """Per category (and ``total``): ``pairs``, ``share``, ``mean`` (difference within the
    category's pairs), ``per_pair`` (its contribution to the mean difference per pair) and
    ``ci`` (95% half-width of ``per_pair``, pairs clustered by board). See :func:`pairs_of`."""
    import pandas as pd

    p = pairs_of(games_a, a, b, games_b)
    n = len(p)
    rows = []
    boards = np.unique(p["deal_id"].to_numpy()) if n else np.zeros(0)
    per_board_n = p.groupby("deal_id").size().reindex(boards).to_numpy(np.float64) if n else np.zeros(0)
    for cat in (*CATEGORIES, "total"):
        sel = p if cat == "total" else p[p["category"] == cat]
        k = len(sel)
        per_board = sel.groupby("deal_id")["diff"].sum().reindex(boards, fill_value=0.0).to_numpy(np.float64) \
            if n else np.zeros(0)
        contrib = per_board.sum() / n if n else float("nan")
        ci = float("nan")
        if len(boards) > 1:
            # ratio estimator: sum of contributions / sum of pairs, linearised over boards
            resid = per_board - contrib * per_board_n
            ci = Z95 * float(np.sqrt(len(boards) / (len(boards) - 1) * (resid ** 2).sum())) / n
        rows.append({"category": cat, "pairs": k, "share": k / n if n else float("nan"),
                     "mean": float(sel["diff"].mean()) if k else float("nan"), "per_pair": float(contrib), "ci": ci})
    return pd.DataFrame(rows).set_index("category")


def format_breakdown(t: "pd.DataFrame", a: str, b: str) -> str:
    """The table as text: one line per category."""
    lines = [f"where the points go: {a} - {b}, Seeger-Fabian points of the swapped seat "
             f"({int(t.loc['total', 'pairs']):,} pairs)",
             f"{'category':<26} {'pairs':>7} {'share':>6} {'mean in pair':>13} {'per pair':>18}"]
    for cat, r in t.iterrows():
        if cat == "total":
            lines.append("-" * 74)
        share = f"{r['share']:.1%}" if r["pairs"] else "-"
        mean = f"{r['mean']:+.2f}" if r["pairs"] else "-"
        lines.append(f"{cat:<26} {int(r['pairs']):>7,} {share:>6} {mean:>13} {r['per_pair']:>+9.2f} ± {r['ci']:.2f}")
    return "\n".join(lines)


def outcome_changes(games_a: "pd.DataFrame", a: str, b: str,
                    games_b: "pd.DataFrame | None" = None) -> "pd.DataFrame":
    """Per category (and ``total``): ``pairs``, ``score differs`` (the swapped seat's score is
    not the same in the two games), ``won with a only`` and ``won with b only`` (its side won
    the game with that player and lost it with the other). Pairs as in :func:`pairs_of`."""
    import pandas as pd

    p = pairs_of(games_a, a, b, games_b)
    rows = []
    for cat in (*CATEGORIES, "total"):
        sel = p if cat == "total" else p[p["category"] == cat]
        wa, wb = sel["won_a"].to_numpy(np.float64), sel["won_b"].to_numpy(np.float64)
        rows.append({"pairs": len(sel), "score differs": int((sel["diff"] != 0).sum()),
                     "won with a only": int(((wa == 1) & (wb == 0)).sum()),
                     "won with b only": int(((wa == 0) & (wb == 1)).sum())})
    return pd.DataFrame(rows, index=pd.Index([*CATEGORIES, "total"], name="category"))


def format_outcomes(t: "pd.DataFrame", a: str, b: str) -> str:
    """:func:`outcome_changes` as text: one line per category."""
    lines = [f"outcomes: a = {a}, b = {b}; the swapped seat's side won with one of them only",
             f"{'category':<26} {'pairs':>7} {'score differs':>15} {'won with a only':>16} {'won with b only':>16}"]
    for cat, r in t.iterrows():
        if cat == "total":
            lines.append("-" * len(lines[1]))
        n = int(r["pairs"])
        differs = f"{int(r['score differs']):,} ({r['score differs'] / n:.1%})" if n else "-"
        lines.append(f"{cat:<26} {n:>7,} {differs:>15} {int(r['won with a only']):>16,} "
                     f"{int(r['won with b only']):>16,}")
    return "\n".join(lines)
