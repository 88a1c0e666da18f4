"""A finished tournament: its games table, configuration, summary and printed table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .config import TournamentConfig
from .stats import agent_summary, head_to_head

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TournamentResult"]


def _pm(m: float, h: float, fmt: str) -> str:
    if math.isnan(m):
        return "-"
    hfmt = fmt.lstrip("+")
    return f"{m:{fmt}} ± {h:{hfmt}}" if not math.isnan(h) else f"{m:{fmt}}"


@dataclass
class TournamentResult:
    """A finished tournament: ``games`` (one row per game, :data:`GAME_COLUMNS`) and its config."""

    games: "pd.DataFrame"
    config: TournamentConfig
    _summary: Any = field(default=None, repr=False)

    @property
    def labels(self) -> tuple[str, ...]:
        return self.config.labels

    @classmethod
    def from_games(cls, games: "pd.DataFrame") -> "TournamentResult":
        """Rebuild from a games table whose ``attrs`` carry the configuration."""
        return cls(games, TournamentConfig.from_dict(games.attrs, placeholders=True))

    @classmethod
    def from_table(cls, games: "pd.DataFrame") -> "TournamentResult":
        """Rebuild from a games table read back from a file (parquet keeps the configuration
        in ``attrs``; a CSV does not: the agents then come from the ``arrangement`` and
        ``agent_*`` columns, and seed and rules are unknown)."""
        if games.attrs.get("agents"):
            return cls.from_games(games)
        from skatsim.options import ISKO

        from .config import RecordedAgent

        letters: dict[str, str] = {}
        for arr, *names in games[["arrangement", "agent_0", "agent_1", "agent_2"]].drop_duplicates().itertuples(
                index=False):
            for letter, name in zip(str(arr), names):
                letters.setdefault(letter, str(name))
        labels = [letters[k] for k in sorted(letters)]
        cfg = TournamentConfig(tuple(RecordedAgent({"name": n, "params": {}, "object": "?"}) for n in labels),
                               int(games["deal_id"].nunique()), -1, ISKO, None)
        return cls(games, cfg)

    @property
    def boards_done(self) -> int:
        """Boards with games in the table (fewer than ``config.n_deals`` in an unfinished run)."""
        return int(self.games["deal_id"].nunique())

    def progress_line(self) -> str:
        """``"300 boards, complete"`` or ``"unfinished: 25 of 300 boards done"``."""
        done, total = self.boards_done, self.config.n_deals
        return f"{total:,} boards, complete" if done >= total else f"unfinished: {done:,} of {total:,} boards done"

    def summary(self) -> "pd.DataFrame":
        """Per-agent summary (:func:`agent_summary`)."""
        if self._summary is None:
            self._summary = agent_summary(self.games, self.labels)
        return self._summary

    def head_to_head(self) -> "pd.DataFrame":
        return head_to_head(self.games, self.labels)

    def table(self) -> str:
        """The summary as text (95% intervals as ``±``)."""
        import pandas as pd

        s = self.summary()
        show = pd.DataFrame({
            "games": s["games"],
            "declarer rate": [_pm(m, h, ".3f") for m, h in zip(s["declarer_rate"], s["declarer_rate_ci"])],
            "declarer win rate": [_pm(m, h, ".3f") for m, h in zip(s["declarer_win_rate"],
                                                                   s["declarer_win_rate_ci"])],
            "SF/game": [_pm(m, h, ".2f") for m, h in zip(s["sf_per_game"], s["sf_per_game_ci"])],
            "SF/list (36)": [_pm(m, h, ".0f") for m, h in zip(s["sf_per_list"], s["sf_per_list_ci"])],
            "list score/game": [_pm(m, h, ".2f") for m, h in zip(s["list_score_per_game"],
                                                                 s["list_score_per_game_ci"])],
        }, index=s.index)
        if s["time_per_game"].notna().any():
            show["decide s/game"] = [f"{t:.4f}" for t in s["time_per_game"]]
        show["errors"] = s["errors"]
        c = self.config
        done = self.boards_done
        boards = f"{c.n_deals:,} boards" if done >= c.n_deals else f"{done:,} of {c.n_deals:,} boards (unfinished)"
        seed = f"seed {c.seed}" if c.seed >= 0 else "seed unknown"
        shape = (f" ({c.labels[0]} in one seat, {c.labels[1]} in the two others)" if c.one_seat else "")
        head = (f"duplicate tournament: {boards} x {len(c.arrangements)} arrangements{shape} = "
                f"{len(self.games):,} games, {seed}, rules {c.rules.version}")
        lines = [head, show.to_string()]
        for _, r in self.head_to_head().iterrows():
            per_game = _pm(r['sf_diff_per_game'], r['sf_diff_per_game_ci'], '+.2f')
            lines.append(f"head to head {r['a']} - {r['b']}: {per_game}"
                         f" SF/game, {_pm(r['sf_diff_per_list'], r['sf_diff_per_list_ci'], '+.0f')} SF/list "
                         f"({r['boards']:,} boards, 95% CI)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()
