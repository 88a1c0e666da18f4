"""Batch simulation: play millions of complete deals in compiled code, get a tidy table.

>>> df = simulate(1000, seed=1, workers=1)
>>> len(df), int(df["deal_seed"].iloc[0]) == derive_seed(1, 0)
(1000, True)
>>> sorted(df.columns[:6])
['bid', 'contract', 'deal_index', 'deal_seed', 'declarer', 'game']
>>> s = summarize(df)        # per contract: count, share, win rate (+ standard error), mean scores
>>> int(s.table().loc["all", "count"])
1000

Every row can be replayed: ``SkatState.new_game(seed=row.deal_seed)`` has the same cards,
and with ``record_actions=True`` the frame's ``attrs["actions"]`` holds each deal's actions.
Rows depend only on ``(seed, deal_index, policy, rules)``, never on ``workers`` or
``chunk_size``. Deals are played by :mod:`skatsim.kernels.simulate` on the state machine
of :mod:`skatsim.kernels.game` that ``SkatState`` wraps (one rules truth).
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numba
import numpy as np

from .bits import derive_seed
from .contracts import DECLARATIONS, Contract
from .deal import SEED_MASK
from .kernels import simulate as KS
from .options import ISKO, SkatRules
from .rules import RAMSCH

if TYPE_CHECKING:  # pandas is imported on first use: ``import skatsim`` stays light
    import pandas as pd

__all__ = ["simulate", "iter_simulate", "iter_chunks", "SimChunk", "SimSummary", "summarize",
           "CONTRACT_CATEGORIES", "RESULT_DTYPE", "register_policy", "POLICIES", "derive_seed"]

RESULT_DTYPE = KS.RESULT_DTYPE

#: Categories of the ``contract`` column: ISS tokens of all declarable contracts
#: (``D``, ``G``, ``N``, ``NO``, ``DH``, ``DHS``, ``DHZ``, ``DO``, ... ``NOH``), then ``R``
#: (Ramsch, the all-pass option) and ``passed`` (passed in, no game).
CONTRACT_CATEGORIES: tuple[str, ...] = tuple(Contract.from_code(c).to_text() for c in DECLARATIONS) + ("R", "passed")

# (game + 1) * 16 + flags  ->  index into CONTRACT_CATEGORIES
_CODE_TO_CAT = np.full(8 * 16, len(CONTRACT_CATEGORIES) - 1, dtype=np.int8)
for _i, _c in enumerate(DECLARATIONS):
    _CODE_TO_CAT[16 + _c] = _i
_CODE_TO_CAT[(RAMSCH + 1) * 16:(RAMSCH + 2) * 16] = len(CONTRACT_CATEGORIES) - 2

#: Built-in policies: name -> cached compiled chunk runner (see :func:`register_policy`).
POLICIES: dict[str, Callable[..., None]] = dict(KS.POLICY_RUNNERS)

DEFAULT_CHUNK = 1 << 18
_MAX_FRAME_ROWS = 20_000_000

_COLUMNS = ("deal_index", "deal_seed", "declarer", "bid", "contract", "game", "flags", "picked_up",
            "kontra", "declarer_points", "declarer_tricks", "matadors", "won", "schneider", "schwarz",
            "multiplier", "game_value", "overbid", "charged_value", "list_score",
            "score_0", "score_1", "score_2", "sf_0", "sf_1", "sf_2",
            "points_0", "points_1", "points_2", "n_actions")


def register_policy(name: str, runner: Callable[..., None]) -> None:
    """Register a built-in policy's cached chunk runner under ``name`` (for agent modules).

    ``runner(smul, start, options, out, actions, record)`` is an ``@njit(cache=True,
    parallel=True)`` function written like ``kernels.simulate._run_chunk_random``.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"policy name must be a non-empty string, got {name!r}")
    POLICIES[name] = runner


@dataclass
class SimChunk:
    """One chunk of simulated deals: ``rows`` (``RESULT_DTYPE``) and optional ``actions``.

    ``actions`` is an ``int16`` array ``(len(rows), MAX_ACTIONS)``: row ``i``'s first
    ``rows["n_actions"][i]`` entries are its actions in order, the rest ``-1``.
    """

    rows: np.ndarray
    actions: np.ndarray | None
    rules: SkatRules
    seed: int
    policy: str

    def __len__(self) -> int:
        return len(self.rows)

    def to_frame(self) -> pd.DataFrame:
        """A tidy DataFrame, one row per deal (columns in the module's ``_COLUMNS`` order).

        ``contract`` is categorical (:data:`CONTRACT_CATEGORIES`); ``attrs`` carries
        ``seed``, ``policy``, ``rules``, ``rules_version`` and, if recorded, ``actions``.
        """
        return _frame(self.rows, self.actions, self.rules, self.seed, self.policy)


def _contract_codes(rows: np.ndarray) -> np.ndarray:
    key = (rows["game"].astype(np.int64) + 1) * 16 + rows["flags"].astype(np.int64)
    return _CODE_TO_CAT[key]


def _frame(rows: np.ndarray, actions: np.ndarray | None, rules: SkatRules, seed: int,
           policy: str) -> pd.DataFrame:
    import pandas as pd

    cols: dict[str, Any] = {}
    for name in _COLUMNS:
        if name == "contract":
            cols[name] = pd.Categorical.from_codes(_contract_codes(rows), categories=list(CONTRACT_CATEGORIES))
        else:
            cols[name] = rows[name]
    df = pd.DataFrame(cols, copy=True)
    df.attrs.update(seed=seed, policy=policy, rules=rules.to_dict(), rules_version=rules.version)
    if actions is not None:
        df.attrs["actions"] = actions
    return df


# ----------------------------------------------------------------------------- running


def _check_seed(seed: int | np.random.Generator | None) -> int:
    if seed is None:
        seed = np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, SEED_MASK, dtype=np.int64))
    if isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, a numpy Generator or None, got {type(seed).__name__}")
    return int(seed)


def _resolve_policy(policy: Any) -> tuple[Callable[..., None], str]:
    if isinstance(policy, str):
        try:
            return POLICIES[policy], policy
        except KeyError:
            raise ValueError(f"unknown policy {policy!r}; built-in policies: {sorted(POLICIES)} "
                             "(or pass an @njit function policy(st, seat, rng) -> (action, rng))") from None
    if isinstance(policy, numba.core.registry.CPUDispatcher):
        def run(smul, start, options, out, actions, record):
            KS.run_chunk_generic(policy, smul, start, options, out, actions, record)
        return run, getattr(policy, "__name__", "custom")
    raise TypeError(f"policy must be a policy name {sorted(POLICIES)} or a numba @njit function "
                    f"policy(st, seat, rng) -> (action, rng), got {policy!r}")


@contextmanager
def _threads(workers: int | None) -> Iterator[int]:
    top = numba.config.NUMBA_NUM_THREADS
    if workers is None:
        workers = top
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or not 1 <= workers <= top:
        raise ValueError(f"workers must be an int in 1..{top} (numba threads on this machine), got {workers!r}")
    old = numba.get_num_threads()
    numba.set_num_threads(int(workers))
    try:
        yield int(workers)
    finally:
        numba.set_num_threads(old)


def iter_chunks(n_deals: int, policy: Any = "random", *, seed: int | np.random.Generator | None = None,
                rules: SkatRules = ISKO, workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
                record_actions: bool = False, start: int = 0,
                _into: tuple[np.ndarray, np.ndarray | None] | None = None) -> Iterator[SimChunk]:
    """Play deals ``start ... start + n_deals - 1`` in chunks; yield :class:`SimChunk` objects.

    The lowest-level public entry point (structured arrays, no pandas); see :func:`simulate`
    for the arguments. Memory stays bounded by one chunk.
    """
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 0:
        raise ValueError(f"n_deals must be a non-negative int, got {n_deals!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    if not isinstance(start, (int, np.integer)) or start < 0:
        raise ValueError(f"start must be a non-negative int, got {start!r}")
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    seed = _check_seed(seed)
    runner, name = _resolve_policy(policy)
    smul = KS.seed_mul(seed)
    custom = not isinstance(policy, str)
    no_actions = np.zeros((0, KS.MAX_ACTIONS), dtype=np.int16)
    done = 0
    while done < n_deals:
        n = min(int(chunk_size), int(n_deals) - done)
        if _into is None:
            rows = np.empty(n, dtype=KS.RESULT_DTYPE)
            acts = np.full((n, KS.MAX_ACTIONS), -1, dtype=np.int16) if record_actions else no_actions
        else:  # simulate(): write straight into the final arrays
            rows = _into[0][done:done + n]
            acts = _into[1][done:done + n] if record_actions else no_actions
        with _threads(workers):
            runner(smul, int(start) + done, rules.flags, rows, acts, bool(record_actions))
        if custom:
            _check_custom(rows, name)
        yield SimChunk(rows, acts if record_actions else None, rules, seed, name)
        done += n


def _check_custom(rows: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(rows["n_actions"] < 0)
    if bad.size:
        r = rows[bad[0]]
        k = -int(r["n_actions"]) - 1
        raise ValueError(f"policy {name!r} returned an illegal action (action #{k + 1} of deal "
                         f"{int(r['deal_index'])}, deal_seed {int(r['deal_seed'])}); a policy must return "
                         "an action from legal_set(st)")


def iter_simulate(n_deals: int, policy: Any = "random", *, seed: int | np.random.Generator | None = None,
                  rules: SkatRules = ISKO, workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
                  record_actions: bool = False, start: int = 0) -> Iterator[pd.DataFrame]:
    """Like :func:`simulate`, but yield one DataFrame per chunk (memory flat for 100M deals).

    >>> sizes = [len(df) for df in iter_simulate(2500, seed=3, chunk_size=1000, workers=1)]
    >>> sizes
    [1000, 1000, 500]
    """
    for chunk in iter_chunks(n_deals, policy, seed=seed, rules=rules, workers=workers,
                             chunk_size=chunk_size, record_actions=record_actions, start=start):
        yield chunk.to_frame()


def simulate(n_deals: int, policy: Any = "random", *, seed: int | np.random.Generator | None = None,
             rules: SkatRules = ISKO, workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
             record_actions: bool = False, start: int = 0, out: str | os.PathLike[str] | None = None
             ) -> pd.DataFrame | "SimSummary":
    """Play ``n_deals`` complete deals (deal, bidding, skat, declaration, 10 tricks, settlement).

    Jit-compiled by numba; parallel over ``workers`` threads.

    Args:
        n_deals: number of deals.
        policy: ``"random"`` (uniformly random legal actions in every phase), another
            registered name, or an ``@njit`` function ``policy(st, seat, rng) -> (action, rng)``
            (see :mod:`skatsim.kernels.simulate`; compiled on first use, illegal actions raise).
        seed: run seed (int); deal ``i`` uses ``derive_seed(seed, start + i)``. A
            ``numpy.random.Generator`` or ``None`` draws one (stored in ``df.attrs["seed"]``).
        rules: :class:`SkatRules` (Ramsch, Kontra/Re options); recorded in ``attrs``.
        workers: threads (default all cores). Results do not depend on it.
        chunk_size: deals per compiled call (bounds memory). Results do not depend on it.
        record_actions: keep each deal's actions (``df.attrs["actions"]``, int16, -1 padded).
        start: index of the first deal (to continue a run).
        out: a ``.parquet`` path: stream the rows there chunk by chunk (without ``actions``)
            and return a :class:`SimSummary` instead of the DataFrame.

    Returns one row per deal; columns ``deal_index deal_seed declarer bid contract game flags
    picked_up kontra declarer_points declarer_tricks matadors won schneider schwarz multiplier
    game_value overbid charged_value list_score score_0..2 sf_0..2 points_0..2 n_actions``.
    ``declarer`` is -1 when passed in (and in Ramsch); ``score_*`` are list scores and
    ``sf_*`` Seeger-Fabian points per seat; ``points_*`` are trick card points per seat.
    """
    if out is not None:
        chunks = iter_chunks(n_deals, policy, seed=seed, rules=rules, workers=workers, chunk_size=chunk_size,
                             record_actions=False, start=start)
        return _write_parquet(chunks, out)
    if isinstance(n_deals, (int, np.integer)) and n_deals > _MAX_FRAME_ROWS:
        raise ValueError(f"n_deals={n_deals} is too many rows for one DataFrame (limit {_MAX_FRAME_ROWS}); "
                         "use iter_simulate(...) or simulate(..., out='deals.parquet')")
    seed = _check_seed(seed)
    n = int(n_deals) if isinstance(n_deals, (int, np.integer)) and n_deals > 0 else 0
    rows = np.empty(n, dtype=KS.RESULT_DTYPE)
    acts = np.full((n, KS.MAX_ACTIONS), -1, dtype=np.int16) if record_actions else None
    for _ in iter_chunks(n_deals, policy, seed=seed, rules=rules, workers=workers, chunk_size=chunk_size,
                         record_actions=record_actions, start=start, _into=(rows, acts)):
        pass
    return _frame(rows, acts, rules, seed, _resolve_policy(policy)[1])


def _write_parquet(chunks: Iterator[SimChunk], path: str | os.PathLike[str]) -> "SimSummary":
    import pyarrow as pa
    import pyarrow.parquet as pq

    summary = SimSummary()
    writer = None
    try:
        for chunk in chunks:
            df = chunk.to_frame()
            df.attrs.pop("actions", None)
            table = pa.Table.from_pandas(df, preserve_index=False)
            if writer is None:
                meta = {b"skatsim": json.dumps(df.attrs).encode()}
                table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
                writer = pq.ParquetWriter(os.fspath(path), table.schema)
            else:
                table = table.replace_schema_metadata(writer.schema.metadata)
            writer.write_table(table)
            summary.update(chunk.rows)
    finally:
        if writer is not None:
            writer.close()
    return summary


# ----------------------------------------------------------------------------- summary


@dataclass
class SimSummary:
    """Streaming totals per contract: counts, wins, list score and Seeger-Fabian moments.

    Feed chunks with :meth:`update` (structured rows or a DataFrame); read :meth:`table`.
    """

    count: np.ndarray = field(default_factory=lambda: np.zeros(len(CONTRACT_CATEGORIES), np.int64))
    wins: np.ndarray = field(default_factory=lambda: np.zeros(len(CONTRACT_CATEGORIES), np.int64))
    score_sum: np.ndarray = field(default_factory=lambda: np.zeros(len(CONTRACT_CATEGORIES), np.float64))
    score_sq: np.ndarray = field(default_factory=lambda: np.zeros(len(CONTRACT_CATEGORIES), np.float64))
    sf_sum: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float64))
    sf_sq: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float64))
    n: int = 0

    def update(self, rows: np.ndarray | pd.DataFrame) -> "SimSummary":
        """Add a chunk of rows (``RESULT_DTYPE`` array or a :func:`simulate` frame)."""
        import pandas as pd

        if isinstance(rows, pd.DataFrame):
            codes = rows["contract"].cat.codes.to_numpy().astype(np.int64)
        else:
            codes = _contract_codes(rows).astype(np.int64)
        k = len(CONTRACT_CATEGORIES)
        won = rows["won"].to_numpy() if isinstance(rows, pd.DataFrame) else rows["won"]
        score = (rows["list_score"].to_numpy() if isinstance(rows, pd.DataFrame) else rows["list_score"]).astype(np.float64)
        self.count += np.bincount(codes, minlength=k)
        self.wins += np.bincount(codes, weights=won.astype(np.float64), minlength=k).astype(np.int64)
        self.score_sum += np.bincount(codes, weights=score, minlength=k)
        self.score_sq += np.bincount(codes, weights=score * score, minlength=k)
        for s in range(3):
            col = rows[f"sf_{s}"]
            v = (col.to_numpy() if isinstance(col, pd.Series) else col).astype(np.float64)
            self.sf_sum[s] += v.sum()
            self.sf_sq[s] += (v * v).sum()
        self.n += len(codes)
        return self

    def table(self) -> pd.DataFrame:
        """Per contract played (and ``all``): count, share, win rate and its standard error,
        mean list score and its standard error. Passed-in and Ramsch rows have no win rate."""
        import pandas as pd

        idx = [i for i in range(len(CONTRACT_CATEGORIES)) if self.count[i] > 0]
        names = [CONTRACT_CATEGORIES[i] for i in idx] + ["all"]
        played = [i for i in idx if CONTRACT_CATEGORIES[i] not in ("R", "passed")]
        cnt = np.array([self.count[i] for i in idx] + [self.n], dtype=np.float64)
        wins = np.array([self.wins[i] for i in idx] + [sum(self.wins[i] for i in played)], dtype=np.float64)
        games = np.array([self.count[i] if i in played else 0 for i in idx]
                         + [sum(self.count[i] for i in played)], dtype=np.float64)
        ssum = np.array([self.score_sum[i] for i in idx] + [self.score_sum.sum()])
        ssq = np.array([self.score_sq[i] for i in idx] + [self.score_sq.sum()])
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(games > 0, wins / games, np.nan)
            p_se = np.sqrt(p * (1 - p) / games)
            mean = ssum / cnt
            var = np.maximum(ssq / cnt - mean * mean, 0.0) * cnt / np.maximum(cnt - 1, 1)
            se = np.sqrt(var / cnt)
        return pd.DataFrame({"count": cnt.astype(np.int64), "share": cnt / max(self.n, 1), "win_rate": p,
                             "win_rate_se": p_se, "mean_list_score": mean, "list_score_se": se},
                            index=pd.Index(names, name="contract"))

    def seeger_fabian(self) -> pd.DataFrame:
        """Mean Seeger-Fabian points per seat with standard errors."""
        import pandas as pd

        n = max(self.n, 1)
        mean = self.sf_sum / n
        var = np.maximum(self.sf_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
        return pd.DataFrame({"mean_sf": mean, "sf_se": np.sqrt(var / n)},
                            index=pd.Index([0, 1, 2], name="seat"))

    def __repr__(self) -> str:
        return f"<SimSummary {self.n} deals, {int(self.count[:-2].sum())} games played>"


def summarize(data: pd.DataFrame | np.ndarray | Iterator[pd.DataFrame]) -> SimSummary:
    """A :class:`SimSummary` of a frame, a structured array, or an iterator of chunk frames
    (e.g. ``summarize(iter_simulate(10**8, seed=1))`` in flat memory)."""
    import pandas as pd

    s = SimSummary()
    if isinstance(data, (pd.DataFrame, np.ndarray)):
        return s.update(data)
    for part in data:
        s.update(part)
    return s
