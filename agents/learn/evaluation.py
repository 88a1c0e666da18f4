"""Duplicate evaluation of a learned agent against an opponent, used by the trainers and the studies.

:func:`duplicate` plays both agents in every seat arrangement of the same deals (through
:func:`agents.arena.vecplay.play_boards`) and returns the margin with its 95% half-width,
the agent's SF per game as declarer and as defender, and :func:`role_margins` (where the
points go); :func:`play_deals` and :func:`summarize` are its two halves, for a study that
pools the games of several runs before it summarises them.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np


def play_deals(agent: Any, opponent: Any, deals: Sequence[int], seed: int, slots: int) -> Any:
    """The games of deals ``deals`` (deal ``i``: ``derive_seed(seed, i)``) in the six seat
    arrangements of ``agent`` (A) and ``opponent`` (B): one row per game, with its
    ``arrangement`` ("AAB", ...) and who sat where (``agent_0`` .. ``agent_2``)."""
    from agents.arena.tournament import arrangements
    from agents.arena.vecplay import play_boards
    from skatsim.bits import derive_seed

    specs = (agent, opponent)
    boards, meta = [], []
    for i in deals:
        ds = derive_seed(seed, i)
        for arr in arrangements(2):
            boards.append((ds, i, tuple(specs[x] for x in arr)))
            meta.append(("".join("AB"[x] for x in arr), arr))
    df = play_boards(boards, slots=slots)
    df["arrangement"] = [m[0] for m in meta]
    for s in range(3):
        df[f"agent_{s}"] = ["AB"[m[1][s]] for m in meta]
    df.attrs = {}  # the actions array: not needed here, and pandas cannot compare it when concatenating
    return df


def duplicate(agent: Any, opponent: Any, n_deals: int, seed: int, *, slots: int = 2048,
              workers: int = 1) -> dict[str, float]:
    """Duplicate margin of ``agent`` over ``opponent`` (Seeger-Fabian points per game, 95%
    half-width over boards), both in every seat arrangement of ``n_deals`` deals (deal ``i``:
    ``derive_seed(seed, i)``, as in a tournament), through :func:`agents.arena.vecplay.play_boards`
    (``workers`` processes, each a share of the deals); plus the agent's SF per game as
    declarer and as defender and its declarer rate."""
    import pandas as pd

    if workers > 1 and n_deals > 1:
        from concurrent.futures import ProcessPoolExecutor

        parts = [list(range(w, n_deals, workers)) for w in range(workers)]
        with ProcessPoolExecutor(workers) as ex:
            df = pd.concat(list(ex.map(play_deals, [agent] * workers, [opponent] * workers, parts,
                                       [seed] * workers, [slots] * workers)), ignore_index=True)
    else:
        df = play_deals(agent, opponent, range(n_deals), seed, slots)
    return summarize(df)


def summarize(df: Any) -> dict[str, float]:
    """The figures of :func:`duplicate` from its games (:func:`play_deals` tables, concatenated)."""
    from agents.arena.tournament import head_to_head

    h = head_to_head(df, ["A", "B"]).iloc[0]
    out = {"margin": float(h["sf_diff_per_game"]), "margin_ci": float(h["sf_diff_per_game_ci"]),
           "boards": int(h["boards"])}
    sf, dec = [], []
    for s in range(3):
        mine = df[f"agent_{s}"] == "A"
        sf.append(df.loc[mine, f"sf_{s}"].to_numpy(np.float64))
        dec.append((df.loc[mine, "declarer"] == s).to_numpy())
    sf_a, dec_a = np.concatenate(sf), np.concatenate(dec)
    out["declarer_sf"] = float(sf_a[dec_a].mean()) if dec_a.any() else math.nan
    out["defender_sf"] = float(sf_a[~dec_a].mean()) if (~dec_a).any() else math.nan
    out["declarer_rate"] = float(dec_a.mean())
    out["errors"] = int((df["error"] != "").sum())
    out.update(role_margins(df))
    return out


def role_margins(df: Any) -> dict[str, float]:
    """Where the points go: per deal and seat, the seat's mean SF when A sits there minus
    when B sits there, averaged over the seats that declared (``declarer_margin``) and
    over the defending seats (``defender_margin``), with 95% half-widths over deals; only
    deals whose declarer is the same seat in all six arrangements (all of them when A and B
    bid alike), counted in ``same_contract_share``."""
    from agents.arena.tournament.stats import mean_ci

    rows = []
    for s in range(3):
        rows.append(pd_frame(df["deal_id"].to_numpy(), s, df[f"agent_{s}"].to_numpy(),
                             df[f"sf_{s}"].to_numpy(np.float64), df["declarer"].to_numpy()))
    import pandas as pd

    sg = pd.concat(rows, ignore_index=True)
    g = sg.groupby("deal_id")["declarer"].agg(["min", "max"])
    same = g.index[(g["min"] == g["max"]) & (g["min"] >= 0)]
    sg = sg[sg["deal_id"].isin(same)]
    m = sg.groupby(["deal_id", "seat", "agent"])["sf"].mean().unstack("agent")
    decl = sg.groupby(["deal_id", "seat"])["declarer"].first()
    if not len(m) or "A" not in m or "B" not in m:
        return {"declarer_margin": math.nan, "declarer_margin_ci": math.nan, "defender_margin": math.nan,
                "defender_margin_ci": math.nan, "same_contract_share": 0.0}
    diff = (m["A"] - m["B"]).to_numpy(np.float64)
    is_decl = (decl.loc[m.index].to_numpy() == m.index.get_level_values("seat").to_numpy())
    dm, dh = mean_ci(diff[is_decl])
    # defence: the two defenders' differences of a deal summed (the defending side)
    dd = pd.Series(diff[~is_decl], index=m.index.get_level_values("deal_id")[~is_decl]).groupby(level=0).mean()
    fm, fh = mean_ci(dd.to_numpy(np.float64))
    return {"declarer_margin": dm, "declarer_margin_ci": dh, "defender_margin": fm, "defender_margin_ci": fh,
            "same_contract_share": float(len(same) / max(1, df["deal_id"].nunique()))}


def pd_frame(deal: np.ndarray, seat: int, agent: np.ndarray, sf: np.ndarray, declarer: np.ndarray) -> Any:
    import pandas as pd

    return pd.DataFrame({"deal_id": deal, "seat": seat, "agent": agent, "sf": sf, "declarer": declarer})
