"""Leagues: every pair of agents in a duplicate tournament on the same boards, a matrix of the
pairwise margins and a rating per agent, each with a 95% interval.

:func:`run_league` plays, for each pair of the ``k`` agents, the two-agent duplicate
tournament of :func:`agents.arena.tournament.run_tournament` on the same ``n_deals`` boards (the
same seed: board ``i`` is the same deal in every pair). With ``out=DIR`` each pair is a
resumable run directory ``DIR/pair-i-j`` and ``DIR/manifest.json`` records the league, so an
interrupted league resumes with the same call (or ``skatsim league --resume DIR``).

The result (:class:`LeagueResult`):

- :meth:`~LeagueResult.matrix`: for each ordered pair (row A, column B) the margin
  ``A - B`` in Seeger-Fabian points per game over the boards, with the board-level 95%
  half-width (as in a tournament's head-to-head);
- :meth:`~LeagueResult.ratings`: per agent two ratings, each with a 95% interval from a
  Bayesian bootstrap over the boards (Rubin 1981: each replicate weighs the boards with
  Dirichlet(1, ..., 1) weights, the same weight for a board in every pair, so the pairs'
  correlation through the common deals is kept):

  * ``rating``: Seeger-Fabian points per game against the league's average agent, the
    least-squares fit of ``margin(A, B) = r_A - r_B`` over every pair with ``sum r = 0``
    (for a full round robin: the mean of an agent's margins times ``(k - 1) / k``);
  * ``elo``: a Bradley-Terry rating on the Elo scale (``400 log10`` of the strength,
    mean 0) fitted by the minorisation-maximisation algorithm (Hunter 2004) to the boards
    won, lost and tied (a tie counts half to each), a board being won by the agent with
    the higher Seeger-Fabian points per game on it, plus one virtual tied board per pair
    (the prior, as BayesElo's virtual draws): a pair whose boards all went one way (common
    when a weak agent is in the league) has no finite Elo gap without it. The bootstrap
    weighs each pair's virtual board like a real one, so such a pair's interval is wide
    (the boards bound the gap from below only) instead of collapsing to a point.

>>> r = run_league(["random", "rule_based", "rule_based:random_cards=1"], n_deals=20, seed=3, progress=False)
>>> list(r.ratings().index)[0], r.matrix().shape
('rule_based', (3, 3))
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from skatsim._random import SeedLike, check_deal_count, check_run_seed
from skatsim.options import ISKO, SkatRules

from ..base import SpecLike, as_spec
from .config import DEFAULT_TIME_LIMIT, retired_engine, time_limit_of
from .runner import load_tournament, run_tournament
from .stats import board_margins, mean_ci

if TYPE_CHECKING:
    import pandas as pd

    from .result import TournamentResult

__all__ = ["run_league", "load_league", "LeagueResult", "fit_ratings", "bradley_terry_elo", "LEAGUE_KIND"]

#: ``kind`` of a league's manifest.
LEAGUE_KIND = "league"
_BOOTSTRAP = 1000
#: Virtual tied boards per pair in the Elo fit (the prior).
_PRIOR_BOARDS = 1.0


def _labels(specs: Sequence[Any]) -> list[str]:
    texts = [s.to_text() for s in specs]
    return [t if texts[:i].count(t) == 0 else f"{t}#{texts[:i].count(t) + 1}" for i, t in enumerate(texts)]


def _ls_solver(pairs: Sequence[tuple[int, int]], k: int) -> np.ndarray:
    """The matrix that turns per-pair margins ``m`` (in the order of ``pairs``) into the
    least-squares ratings ``r`` (sum 0) of ``m(i, j) ~ r_i - r_j``: ``r = S @ m``."""
    x = np.zeros((len(pairs) + 1, k))
    for q, (i, j) in enumerate(pairs):
        x[q, i], x[q, j] = 1.0, -1.0
    x[-1] = 1.0  # sum to zero
    return np.linalg.pinv(x)[:, :-1]


def fit_ratings(margins: dict[tuple[int, int], np.ndarray], k: int) -> np.ndarray:
    """Least-squares ratings ``r`` (sum 0) with ``margin(i, j) ~ r_i - r_j`` from per-pair mean
    margins (``margins[(i, j)]``: one value, or per-board values whose mean is used).

    >>> fit_ratings({(0, 1): np.array([2.0]), (0, 2): np.array([4.0]), (1, 2): np.array([2.0])}, 3).round(6).tolist()
    [2.0, 0.0, -2.0]
    """
    return _ls_solver(list(margins), k) @ np.array([float(np.mean(m)) for m in margins.values()])


def bradley_terry_elo(wins: np.ndarray, iterations: int = 100_000) -> np.ndarray:
    """Bradley-Terry strengths fitted to ``wins[i, j]`` (boards i won against j, ties counted
    half) by minorisation-maximisation (Hunter 2004), on the Elo scale: ``400 log10``,
    centred on 0. An agent that never wins is kept finite by a tiny prior win. ``wins`` may
    hold many tables, ``(..., k, k)``: each is fitted (the bootstrap's replicates at once).

    >>> bradley_terry_elo(np.array([[0, 3.0], [1.0, 0]])).round(1).tolist()   # 3:1, so 10**(d/400) = 3
    [95.4, -95.4]
    """
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[-1]
    w = w + 1e-3 * (1 - np.eye(k))  # a tiny prior keeps every strength positive
    n = w + np.swapaxes(w, -1, -2)
    won = w.sum(axis=-1)
    logp = np.zeros(w.shape[:-1])
    for _ in range(iterations):
        p = np.exp(logp)
        denom = (n / (p[..., :, None] + p[..., None, :])).sum(axis=-1)  # the diagonal of n is 0
        new = np.log(won / denom)
        new -= new.mean(axis=-1, keepdims=True)
        done = np.max(np.abs(new - logp)) < 1e-10
        logp = new
        if done:
            break
    return 400.0 * logp / np.log(10.0)


@dataclass
class LeagueResult:
    """Every pair's tournament of a league (see the module docstring)."""

    labels: tuple[str, ...]
    pairs: dict[tuple[int, int], "TournamentResult"]
    config: dict[str, Any]
    _boards: Any = field(default=None, repr=False)

    def board_table(self) -> "pd.DataFrame":
        """Per board (rows, ``deal_id``) and pair (columns ``(i, j)``): the margin ``i - j``
        in Seeger-Fabian points per game, on the boards every pair has played."""
        import pandas as pd

        if self._boards is None:
            cols = {}
            for (i, j), res in self.pairs.items():
                cols[(i, j)] = board_margins(res.games, res.labels[0], res.labels[1])
            df = pd.DataFrame(cols).dropna()
            self._boards = df.sort_index()
        return self._boards

    @property
    def n_boards(self) -> int:
        return int(len(self.board_table()))

    def matrix(self, ci: bool = False) -> "pd.DataFrame":
        """Margins ``row - column`` (SF/game); ``ci=True``: their 95% half-widths instead."""
        import pandas as pd

        k = len(self.labels)
        m = np.full((k, k), np.nan)
        h = np.full((k, k), np.nan)
        bt = self.board_table()
        for (i, j) in self.pairs:
            mean, half = mean_ci(bt[(i, j)].to_numpy(np.float64))
            m[i, j], m[j, i] = mean, -mean
            h[i, j] = h[j, i] = half
        return pd.DataFrame(h if ci else m, index=list(self.labels), columns=list(self.labels))

    def _ratings_of(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two ratings for each row of ``weights`` ``(B, n_boards + pairs)``: the boards
        weighted by its first ``n_boards`` columns, pair ``q``'s virtual tied board by column
        ``n_boards + q``. Returns ``(B, k)`` SF ratings and ``(B, k)`` Elo ratings."""
        bt = self.board_table()
        k, nb, pairs = len(self.labels), self.n_boards, list(self.pairs)
        w = weights[:, :nb]
        x = np.stack([bt[p].to_numpy(np.float64) for p in pairs], axis=1)  # (boards, pairs)
        r = (w @ x / w.sum(axis=1, keepdims=True)) @ _ls_solver(pairs, k).T
        won, lost, tied = w @ (x > 0), w @ (x < 0), 0.5 * (w @ (x == 0) + weights[:, nb:])
        wins = np.zeros((len(weights), k, k))
        for q, (i, j) in enumerate(pairs):
            wins[:, i, j] = won[:, q] + tied[:, q]
            wins[:, j, i] = lost[:, q] + tied[:, q]
        return r, bradley_terry_elo(wins)

    def ratings(self, n_bootstrap: int = _BOOTSTRAP, seed: int = 0) -> "pd.DataFrame":
        """Per agent, best first: ``rating`` (SF/game vs the league average) and ``elo``
        (Bradley-Terry on boards won, with one virtual tied board per pair), each with its
        95% Bayesian-bootstrap interval ``*_lo`` / ``*_hi`` (``n_bootstrap`` replicates,
        seeded; see the module docstring)."""
        import pandas as pd

        n = self.n_boards + len(self.pairs)  # the boards, then one virtual board per pair
        prior = np.r_[np.ones(self.n_boards), np.full(len(self.pairs), _PRIOR_BOARDS)]
        r0, e0 = (a[0] for a in self._ratings_of(prior[None, :]))
        g = np.random.default_rng(seed).gamma(prior, size=(n_bootstrap, n))  # Dirichlet(prior) weights
        rs, es = self._ratings_of(g * (n / g.sum(axis=1, keepdims=True)))
        rq = np.percentile(rs, [2.5, 97.5], axis=0)
        eq = np.percentile(es, [2.5, 97.5], axis=0)
        df = pd.DataFrame({"rating": r0, "rating_lo": rq[0], "rating_hi": rq[1], "elo": e0, "elo_lo": eq[0],
                           "elo_hi": eq[1]}, index=list(self.labels))
        df.index.name = "agent"
        return df.sort_values("rating", ascending=False)

    def elo_misfit(self) -> tuple[tuple[int, int], float, float] | None:
        """The pair whose share of boards won is furthest from what the Elo gap predicts,
        ``((i, j), observed, predicted)``, when that is off by more than 0.05 plus three
        standard errors (Bradley-Terry cannot fit such a league: its Elo gaps do not add up);
        else None."""
        bt = self.board_table()
        elo = self._ratings_of(np.r_[np.ones(self.n_boards), np.full(len(self.pairs), _PRIOR_BOARDS)][None, :])[1][0]
        worst = None
        for (i, j) in self.pairs:
            x = bt[(i, j)].to_numpy(np.float64)
            seen = float(((x > 0).sum() + 0.5 * (x == 0).sum()) / len(x))
            pred = float(1.0 / (1.0 + 10.0 ** ((elo[j] - elo[i]) / 400.0)))
            off = abs(seen - pred) - 0.05 - 3.0 * np.sqrt(pred * (1.0 - pred) / len(x))
            if off > 0 and (worst is None or abs(seen - pred) > abs(worst[1] - worst[2])):
                worst = ((i, j), seen, pred)
        return worst

    def table(self) -> str:
        """The matrix (margins ± half-widths) and the ratings as text (with a note when the
        Elo fit does not describe the boards: :meth:`elo_misfit`)."""
        import pandas as pd

        m, h = self.matrix(), self.matrix(ci=True)
        shown = pd.DataFrame([[("-" if i == j else f"{m.iat[i, j]:+.2f} ± {h.iat[i, j]:.2f}")
                               for j in range(len(self.labels))] for i in range(len(self.labels))],
                             index=m.index, columns=m.columns)
        rt = self.ratings()
        rshow = pd.DataFrame({
            "rating (SF/game)": [f"{a:+.2f} [{lo:+.2f}, {hi:+.2f}]" for a, lo, hi in
                                 zip(rt["rating"], rt["rating_lo"], rt["rating_hi"])],
            "Elo (Bradley-Terry)": [f"{a:+.0f} [{lo:+.0f}, {hi:+.0f}]" for a, lo, hi in
                                    zip(rt["elo"], rt["elo_lo"], rt["elo_hi"])]}, index=rt.index)
        c = self.config
        head = (f"league: {len(self.labels)} agents, {len(self.pairs)} pairs x {self.n_boards:,} boards "
                f"(duplicate, seed {c.get('seed')}, rules {c.get('rules_version')})")
        lines = [head, "margin row - column, SF/game, 95% CI:", shown.to_string(),
                 "ratings, 95% bootstrap intervals over the boards:", rshow.to_string()]
        bad = self.elo_misfit()
        if bad is not None:
            (i, j), seen, pred = bad
            lines.append(f"note: {self.labels[i]} won {seen:.2f} of the boards against {self.labels[j]}, where the "
                         f"Elo gap predicts {pred:.2f}: Bradley-Terry does not fit these boards (the gaps do not add "
                         "up), so read the Elo column with the matrix")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def plot(self, path: str | os.PathLike[str]) -> None:
        """A PNG: the margin matrix as a heat map (each cell ± its half-width) and the ratings
        with their intervals (needs matplotlib)."""
        try:
            import matplotlib
        except ImportError:
            raise ImportError("a league plot needs matplotlib: pip install matplotlib") from None
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        m, h = self.matrix(), self.matrix(ci=True)
        k = len(self.labels)
        fig, axes = plt.subplots(1, 2, figsize=(6 + 1.6 * k, 3 + 0.9 * k),
                                 gridspec_kw={"width_ratios": [1.3, 1]})
        ax = axes[0]
        lim = float(np.nanmax(np.abs(m.to_numpy()))) or 1.0
        im = ax.imshow(m.to_numpy(), cmap="RdBu", vmin=-lim, vmax=lim)
        for i in range(k):
            for j in range(k):
                if i != j:
                    dark = abs(m.iat[i, j]) > 0.6 * lim
                    ax.text(j, i, f"{m.iat[i, j]:+.1f}\n±{h.iat[i, j]:.1f}", ha="center", va="center", fontsize=8,
                            color="white" if dark else "black")
        ax.set_xticks(range(k), self.labels, rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(k), self.labels, fontsize=8)
        ax.set_title(f"margin row - column, SF/game ({self.n_boards:,} boards, 95% CI)", fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.8)
        rt = self.ratings()
        ax = axes[1]
        y = np.arange(len(rt))[::-1]
        ax.errorbar(rt["rating"], y, xerr=[rt["rating"] - rt["rating_lo"], rt["rating_hi"] - rt["rating"]],
                    fmt="o", capsize=4)
        ax.set_yticks(y, rt.index, fontsize=8)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("rating: SF/game vs the league average (95% bootstrap CI)")
        fig.tight_layout()
        fig.savefig(os.fspath(path), dpi=110)
        plt.close(fig)


def run_league(agents: Sequence[SpecLike], n_deals: int, seed: SeedLike = 0, *, rules: SkatRules = ISKO,
               workers: int = 1, progress: bool = True, out: str | os.PathLike[str] | None = None,
               parallel: str | None = None, backend: str = "local", address: str | None = None,
               time_limit: float | None = DEFAULT_TIME_LIMIT, engine: str | None = None) -> LeagueResult:
    """Play a league of 3 or more agents (see the module docstring): every pair's duplicate
    tournament on the same ``n_deals`` boards of ``seed``. ``out``: a folder holding a run
    directory per pair and the league's manifest; the same call on it resumes (a different
    configuration is refused; a league manifest's retired ``engine`` is ignored). The other
    arguments are those of :func:`run_tournament`."""
    from skatsim.runs import read_manifest, write_manifest

    parallel = retired_engine(engine, parallel)
    specs: list[Any] = [as_spec(a) for a in agents]
    if len(specs) < 3:
        raise ValueError(f"a league needs 3 or more agents (for 2, run a tournament), got {len(specs)}")
    labels = _labels(specs)
    seed = check_run_seed(seed)
    config = {"agents": [s.to_dict() for s in specs], "labels": labels, "n_deals": check_deal_count(n_deals),
              "seed": seed,
              "rules": rules.to_dict(), "rules_version": rules.version, "time_limit": time_limit_of(time_limit)}
    folder = None if out is None else Path(out)
    if folder is not None:
        if (folder / "manifest.json").is_file():
            old = read_manifest(folder)
            if old.get("kind") != LEAGUE_KIND:
                raise ValueError(f"{os.fspath(folder)!r} holds a {old.get('kind')} run, not a league")
            recorded = {k: v for k, v in old["config"].items() if k != "engine"}  # (retired)
            recorded.setdefault("time_limit", None)  # (leagues before the default limit had none)
            if recorded != config:
                diff = [k for k in config if recorded.get(k) != config[k]]
                raise ValueError(f"{os.fspath(folder)!r} holds another league (differs in {', '.join(diff)}); "
                                 "choose a new folder, or the same agents and settings to resume")
        else:
            if folder.exists() and any(folder.iterdir()):
                raise FileExistsError(f"{os.fspath(folder)!r} exists and is not empty; choose a new folder")
            folder.mkdir(parents=True, exist_ok=True)
            write_manifest(folder, LEAGUE_KIND, config, status="running")
    pairs: dict[tuple[int, int], TournamentResult] = {}
    for i, j in combinations(range(len(specs)), 2):
        if progress:
            print(f"league pair {labels[i]} vs {labels[j]}", flush=True)
        pair_out = None if folder is None else folder / f"pair-{i}-{j}"
        res = run_tournament([specs[i], specs[j]], n_deals, seed, rules=rules, workers=workers, progress=progress,
                             parallel=parallel, out=pair_out, backend=backend, address=address,
                             time_limit=time_limit)
        pairs[(i, j)] = _relabel(res, labels[i], labels[j])
    result = LeagueResult(tuple(labels), pairs, config)
    if folder is not None:
        write_manifest(folder, LEAGUE_KIND, config, status="complete")
        (folder / "summary.txt").write_text(result.table() + "\n")
    return result


def _relabel(res: "TournamentResult", a: str, b: str) -> Any:
    """The pair's games under the league's labels (a pair of equal specs is labelled ``#2``
    there too): what a league reads of a pair is its games and its two labels."""
    mapping = dict(zip(res.labels, (a, b)))
    if all(k == v for k, v in mapping.items()):
        return res
    games = res.games.copy()
    for s in range(3):
        games[f"agent_{s}"] = games[f"agent_{s}"].map(mapping)
    return _Relabelled(games, res.config, (a, b))


class _Relabelled:
    """A pair's result under the league's labels (the games and labels are what a league reads)."""

    def __init__(self, games: "pd.DataFrame", config: Any, labels: tuple[str, str]) -> None:
        self.games, self.config, self.labels = games, config, labels


def load_league(path: str | os.PathLike[str], *, partial: bool = False) -> LeagueResult:
    """The league stored in ``path`` (``partial=True``: the boards and pairs finished so far)."""
    from skatsim.runs import read_manifest

    folder = Path(path)
    m = read_manifest(folder)
    if m.get("kind") != LEAGUE_KIND:
        raise ValueError(f"{os.fspath(folder)!r} holds a {m.get('kind')} run, not a league")
    cfg = m["config"]
    labels = cfg["labels"]
    pairs: dict[tuple[int, int], Any] = {}
    for i, j in combinations(range(len(labels)), 2):
        d = folder / f"pair-{i}-{j}"
        if not (d / "manifest.json").is_file():
            if partial:
                continue
            raise ValueError(f"{os.fspath(folder)!r} is unfinished: pair {labels[i]} vs {labels[j]} has not started "
                             f"(resume with skatsim league --resume {os.fspath(folder)})")
        try:
            res = load_tournament(d, partial=partial)
        except ValueError:
            if partial:
                continue
            raise
        pairs[(i, j)] = _relabel(res, labels[i], labels[j])
    if not pairs:
        raise ValueError(f"{os.fspath(folder)!r} holds no finished chunk of any pair yet")
    return LeagueResult(tuple(labels), pairs, cfg)

