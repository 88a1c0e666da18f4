"""Duplicate-tournament statistics with 95% confidence intervals computed on the boards.

The unit is the board: an agent's mean on each board (its arrangements are paired, not
independent), so for a mean ``m = mean_b x_b`` the interval is ``m ± z sd_b(x_b) / sqrt(B)``
(``z`` = 1.96, ``sd`` with ``ddof=1``, ``B`` boards); the declarer win rate is a ratio
``R = Σ w_b / Σ d_b`` with the board-clustered (linearised) standard error. See the
package docstring for the columns.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["seat_games", "agent_summary", "head_to_head", "margin_difference", "pooled_head_to_head",
           "board_margins", "mean_ci", "sf_diffs", "Z95", "LIST_GAMES"]

#: Normal quantile of the 95% intervals.
Z95 = 1.959963984540054
#: Games of a standard list (Seeger-Fabian points per list = per game x 36).
LIST_GAMES = 36


def seat_games(df: "pd.DataFrame") -> "pd.DataFrame":
    """One row per (game, seat): ``deal_id``, ``arrangement``, ``seat``, ``agent``, ``sf``,
    ``score`` (list score), ``declared``, ``won`` (declared and won), ``time``, ``erred``
    (the seat's agent failed in that game)."""
    import pandas as pd

    parts = []
    errs = (df["error_seats"].to_numpy(np.int64) if "error_seats" in df.columns
            else np.zeros(len(df), np.int64))
    for s in range(3):
        decl = df["declarer"].to_numpy() == s
        parts.append(pd.DataFrame({
            "deal_id": df["deal_id"].to_numpy(), "arrangement": df["arrangement"].to_numpy(), "seat": s,
            "agent": df[f"agent_{s}"].to_numpy(), "sf": df[f"sf_{s}"].to_numpy(np.float64),
            "score": df[f"score_{s}"].to_numpy(np.float64), "declared": decl,
            "won": decl & df["won"].to_numpy(bool), "time": df[f"time_{s}"].to_numpy(np.float64),
            "erred": (errs >> s) & 1}))
    return pd.concat(parts, ignore_index=True)


def _boards(df: "pd.DataFrame") -> "pd.DataFrame":
    """Per (board, agent) sums: n seat-games, sf, score, declared, won."""
    sg = seat_games(df)
    g = sg.groupby(["deal_id", "agent"], sort=True)
    return g.agg(n=("sf", "size"), sf=("sf", "sum"), score=("score", "sum"), declared=("declared", "sum"),
                 won=("won", "sum"), time=("time", "sum"), erred=("erred", "sum")).reset_index()


def sf_diffs(df: "pd.DataFrame", a: str, b: str) -> np.ndarray:
    """Per-board differences ``a - b`` of Seeger-Fabian points per game."""
    return board_margins(df, a, b).to_numpy(np.float64)


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of per-board values ``x`` (NaN half-width for one board).

    >>> m, h = mean_ci(np.array([1.0, 3.0])); m, round(h, 3)
    (2.0, 1.96)
    """
    b = len(x)
    if b == 0:
        return math.nan, math.nan
    m = float(np.mean(x))
    if b < 2:
        return m, math.nan
    return m, Z95 * float(np.std(x, ddof=1)) / math.sqrt(b)


def _ratio_ci(w: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """Ratio ``Σw / Σd`` and its board-clustered 95% half-width."""
    b = len(w)
    if b == 0 or d.sum() == 0:
        return math.nan, math.nan
    r = float(w.sum() / d.sum())
    if b < 2:
        return r, math.nan
    z = w - r * d
    se = math.sqrt(float((z * z).sum()) / (b * (b - 1))) / float(d.mean())
    return r, Z95 * se


def agent_summary(df: "pd.DataFrame", labels: Sequence[str] | None = None) -> "pd.DataFrame":
    """Per agent: games, declarer rate, declarer win rate, Seeger-Fabian points per game
    and per 36-game list, list score per game, each with its 95% half-width ``*_ci``
    (board-level, see the module docstring); ``time_per_game`` (seconds; NaN in the
    compiled seats of batch simulation); ``errors``: the games in which the agent failed (raised, returned an
    illegal action or exceeded the time limit; each settled by rule, see :mod:`agents.arena.play`)."""
    import pandas as pd

    bd = _boards(df)
    timed = bool(df[["time_0", "time_1", "time_2"]].notna().to_numpy().any())
    if labels is None:
        labels = sorted(bd["agent"].unique())
    out = []
    for lab in labels:
        x = bd[bd["agent"] == lab]
        n = x["n"].to_numpy(np.float64)
        rec: dict[str, Any] = {"agent": lab, "boards": len(x), "games": int(n.sum())}
        rec["declarer_rate"], rec["declarer_rate_ci"] = mean_ci(x["declared"].to_numpy(np.float64) / n)
        rec["declarer_win_rate"], rec["declarer_win_rate_ci"] = _ratio_ci(x["won"].to_numpy(np.float64),
                                                                          x["declared"].to_numpy(np.float64))
        rec["sf_per_game"], rec["sf_per_game_ci"] = mean_ci(x["sf"].to_numpy(np.float64) / n)
        rec["sf_per_list"], rec["sf_per_list_ci"] = rec["sf_per_game"] * LIST_GAMES, rec["sf_per_game_ci"] * LIST_GAMES
        rec["list_score_per_game"], rec["list_score_per_game_ci"] = mean_ci(x["score"].to_numpy(np.float64) / n)
        rec["time_per_game"] = float(x["time"].sum() / n.sum()) if n.sum() and timed else math.nan
        rec["errors"] = int(x["erred"].sum())
        out.append(rec)
    return pd.DataFrame(out).set_index("agent")


def head_to_head(df: "pd.DataFrame", labels: Sequence[str] | None = None) -> "pd.DataFrame":
    """For each pair of agents (A, B): the per-board differences A - B of Seeger-Fabian points
    per game (and per list) and of list score per game, with 95% half-widths."""
    import pandas as pd

    bd = _boards(df)
    if labels is None:
        labels = sorted(bd["agent"].unique())
    per = {lab: bd[bd["agent"] == lab].set_index("deal_id") for lab in labels}
    out = []
    for a, b in combinations(labels, 2):
        xa, xb = per[a], per[b]
        common = xa.index.intersection(xb.index)
        xa, xb = xa.loc[common], xb.loc[common]
        d_sf = (xa["sf"] / xa["n"] - xb["sf"] / xb["n"]).to_numpy(np.float64)
        d_sc = (xa["score"] / xa["n"] - xb["score"] / xb["n"]).to_numpy(np.float64)
        m, h = mean_ci(d_sf)
        ms, hs = mean_ci(d_sc)
        out.append({"a": a, "b": b, "boards": len(common), "sf_diff_per_game": m, "sf_diff_per_game_ci": h,
                    "sf_diff_per_list": m * LIST_GAMES, "sf_diff_per_list_ci": h * LIST_GAMES,
                    "list_score_diff_per_game": ms, "list_score_diff_per_game_ci": hs})
    return pd.DataFrame(out, columns=["a", "b", "boards", "sf_diff_per_game", "sf_diff_per_game_ci",
                                      "sf_diff_per_list", "sf_diff_per_list_ci", "list_score_diff_per_game",
                                      "list_score_diff_per_game_ci"])


def margin_difference(games_a: "pd.DataFrame", games_b: "pd.DataFrame", pair_a: Sequence[str],
                      pair_b: Sequence[str]) -> dict[str, float]:
    """Two duplicate tournaments on the same boards (the same seed, so board ``i`` is the
    same deal in both): the per-board difference of their margins, ``(A1 - B1)`` in
    ``games_a`` minus ``(A2 - B2)`` in ``games_b`` (Seeger-Fabian points per game), with a
    95% half-width on the common boards. Pairing by board removes the luck of the cards:
    "does PIMC with inference beat the rule-based player by more than PIMC without?".

    >>> from agents.arena.tournament import run_tournament
    >>> a = run_tournament(["random", "rule_based"], n_deals=30, seed=2, progress=False).games
    >>> d = margin_difference(a, a, ("random", "rule_based"), ("random", "rule_based"))
    >>> d["boards"], d["diff"], d["diff_ci"]
    (30, 0.0, 0.0)
    """
    (a1, b1), (a2, b2) = pair_a, pair_b
    da = board_margins(games_a, a1, b1)
    db = board_margins(games_b, a2, b2)
    common = da.index.intersection(db.index)
    sa = games_a.drop_duplicates("deal_id").set_index("deal_id")["deal_seed"].loc[common]
    sb = games_b.drop_duplicates("deal_id").set_index("deal_id")["deal_seed"].loc[common]
    if not (sa.to_numpy() == sb.to_numpy()).all():
        raise ValueError("the two tournaments do not share their boards (different seeds): board i is another deal")
    x = (da.loc[common] - db.loc[common]).to_numpy(np.float64)
    m, h = mean_ci(x)
    ma, ha = mean_ci(da.loc[common].to_numpy(np.float64))
    mb, hb = mean_ci(db.loc[common].to_numpy(np.float64))
    return {"boards": int(len(common)), "margin_a": ma, "margin_a_ci": ha, "margin_b": mb, "margin_b_ci": hb,
            "diff": m, "diff_ci": h}


def pooled_head_to_head(tables: Sequence["pd.DataFrame"]) -> "pd.DataFrame":
    """:func:`head_to_head` over the boards of several tournaments of the same agents (other
    seeds: independent boards), each board counted once: more boards for one figure.

    >>> from agents.arena.tournament import run_tournament
    >>> a = run_tournament(["random", "rule_based"], n_deals=10, seed=1, progress=False).games
    >>> b = run_tournament(["random", "rule_based"], n_deals=15, seed=2, progress=False).games
    >>> int(pooled_head_to_head([a, b])["boards"].iloc[0])
    25
    """
    import pandas as pd

    if not tables:
        raise ValueError("pooled_head_to_head needs at least one games table")
    labels = [tuple(sorted({x for s in range(3) for x in t[f"agent_{s}"].unique()})) for t in tables]
    if len(set(labels)) != 1:
        raise ValueError(f"the tournaments seat different agents: {sorted(set(labels))}")
    parts, offset = [], 0
    for t in tables:
        t = t.copy()
        t["deal_id"] = t["deal_id"] + offset
        offset = int(t["deal_id"].max()) + 1
        parts.append(t)
    return head_to_head(pd.concat(parts, ignore_index=True), list(labels[0]))


def board_margins(df: "pd.DataFrame", a: str, b: str) -> "pd.Series":
    """Per-board ``a - b`` of Seeger-Fabian points per game, indexed by ``deal_id``."""
    bd = _boards(df).set_index(["deal_id", "agent"])
    x = bd["sf"] / bd["n"]
    labels = set(bd.index.get_level_values("agent"))
    for lab in (a, b):
        if lab not in labels:
            raise ValueError(f"no agent {lab!r} in this tournament; its agents: {sorted(labels)}")
    xa, xb = x.xs(a, level="agent"), x.xs(b, level="agent")
    common = xa.index.intersection(xb.index)
    return xa.loc[common] - xb.loc[common]

