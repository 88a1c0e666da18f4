"""Charts of a tournament (matplotlib): Seeger-Fabian points with intervals, contracts by type."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Sequence

import numpy as np

from skatsim.rules import GAME_NAMES, NULL

from .stats import seat_games

if TYPE_CHECKING:
    import pandas as pd

    from .result import TournamentResult

__all__ = ["contract_rates", "plot_tournament"]


_GAME_LABELS = GAME_NAMES[:NULL + 1]  # the games a declarer plays (not Ramsch)


def contract_rates(df: "pd.DataFrame", labels: Sequence[str] | None = None) -> "pd.DataFrame":
    """Per agent and game type (diamonds ... null): ``declared`` (games it declared),
    ``declarer_rate`` (per seat-game of the agent) and ``win_rate`` (won / declared)."""
    import pandas as pd

    sg = seat_games(df)
    games = np.concatenate([df["game"].to_numpy(np.int64)] * 3)
    sg["game"] = games
    if labels is None:
        labels = sorted(sg["agent"].unique())
    rows = []
    for lab in labels:
        x = sg[sg["agent"] == lab]
        n = len(x)
        for g, name in enumerate(_GAME_LABELS):
            d = x[x["declared"] & (x["game"] == g)]
            rows.append({"agent": lab, "game": name, "declared": len(d),
                         "declarer_rate": len(d) / n if n else math.nan,
                         "win_rate": float(d["won"].mean()) if len(d) else math.nan})
    return pd.DataFrame(rows)


def plot_tournament(result: "TournamentResult", path: str | os.PathLike[str]) -> None:
    """Write a PNG: Seeger-Fabian points per game per agent with 95% intervals, and declarer
    rate and declarer win rate per game type per agent (needs matplotlib)."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result.summary()
    rates = contract_rates(result.games, result.labels)
    labels = list(result.labels)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    ax.bar(range(len(labels)), s["sf_per_game"], yerr=s["sf_per_game_ci"], capsize=6,
           color=[f"C{i}" for i in range(len(labels))])
    ax.set_xticks(range(len(labels)), labels, rotation=15)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("Seeger-Fabian points per game")
    ax.set_title(f"SF per game, 95% CI ({result.config.n_deals:,} boards)")
    width = 0.8 / max(1, len(labels))
    xs = np.arange(len(_GAME_LABELS))
    for k, (col, title) in enumerate((("declarer_rate", "declarer rate by game type"),
                                      ("win_rate", "declarer win rate by game type"))):
        ax = axes[k + 1]
        for i, lab in enumerate(labels):
            r = rates[rates["agent"] == lab]
            ax.bar(xs + (i - (len(labels) - 1) / 2) * width, r[col].to_numpy(np.float64), width, label=lab,
                   color=f"C{i}")
        ax.set_xticks(xs, _GAME_LABELS, rotation=15)
        ax.set_title(title)
        ax.set_ylim(0, 1 if col == "win_rate" else None)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.fspath(path), dpi=110)
    plt.close(fig)
