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
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numba
import numpy as np

from ._random import check_deal_count, check_run_seed
from .bits import derive_seed
from .contracts import DECLARATIONS
from .interrupt import ctrl_c
from .kernels import policies as KP
from .kernels import simulate as KS
from .kernels.threads import kernel, parallel_unsafe
from .options import ISKO, SkatRules
from .rules import RAMSCH
from .runs import RunDir, atomic_path, is_run_dir
from .table import CONTRACT_CATEGORIES, RESULT_COLUMNS

if TYPE_CHECKING:  # pandas is imported on first use: ``import skatsim`` stays light
    import pandas as pd

__all__ = ["simulate", "simulate_to_parquet", "iter_simulate", "iter_chunks", "SimChunk", "SimSummary",
           "summarize", "CONTRACT_CATEGORIES", "RESULT_DTYPE", "POLICIES", "PolicySpec", "policy_specs",
           "derive_seed", "read_parquet", "results_frame", "run_simulation"]

RESULT_DTYPE = KS.RESULT_DTYPE
assert RESULT_DTYPE.names is not None and set(RESULT_DTYPE.names) | {"contract"} == set(RESULT_COLUMNS)

# (game + 1) * 16 + flags  ->  index into CONTRACT_CATEGORIES
_CODE_TO_CAT = np.full(8 * 16, len(CONTRACT_CATEGORIES) - 1, dtype=np.int8)
for _i, _c in enumerate(DECLARATIONS):
    _CODE_TO_CAT[16 + _c] = _i
_CODE_TO_CAT[(RAMSCH + 1) * 16:(RAMSCH + 2) * 16] = len(CONTRACT_CATEGORIES) - 2

#: Built-in jitted policies: name -> (parameter names, default values).
POLICIES: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    name: (names, vals) for name, (_, names, vals) in KP.BUILTIN.items()}

DEFAULT_CHUNK = 1 << 18
_MAX_FRAME_ROWS = 20_000_000
_COLUMNS = RESULT_COLUMNS
_SERIAL_BELOW = 50_000  # custom policies: the serial runner compiles faster for small runs


@dataclass(frozen=True)
class PolicySpec:
    """One seat's policy: a built-in name with parameters, or a user's ``@njit`` function.

    >>> PolicySpec.parse(("rule_based", {})).name
    'rule_based'
    >>> PolicySpec.parse("random").label
    'random'
    """

    name: str
    params: tuple[tuple[str, float], ...] = ()
    custom: Any = field(default=None, compare=False)

    @classmethod
    def parse(cls, spec: Any) -> "PolicySpec":
        """A name, a ``(name, {param: value})`` pair, a ``PolicySpec``, an ``@njit`` policy, or
        an ``(@njit policy, [p0, p1, ...])`` pair (its parameter row: data, so one compiled
        runner serves every setting)."""
        if isinstance(spec, PolicySpec):
            return spec
        if isinstance(spec, numba.core.registry.CPUDispatcher):
            return cls(getattr(spec, "__name__", "custom"), (), spec)
        if (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], numba.core.registry.CPUDispatcher)
                and not isinstance(spec[1], dict)):
            vals = [float(v) for v in spec[1]]
            if len(vals) > KP.PARAMS_SIZE:
                raise ValueError(f"a custom policy takes at most {KP.PARAMS_SIZE} parameters, got {len(vals)}")
            return cls(getattr(spec[0], "__name__", "custom"), tuple((str(i), v) for i, v in enumerate(vals)),
                       spec[0])
        params: dict[str, Any] = {}
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], dict):
            spec, params = spec
        if not isinstance(spec, str):
            raise TypeError(f"policy must be a policy name {sorted(POLICIES)}, a (name, params) pair or a "
                            f"numba @njit function policy(view, seat, params, rng) -> (action, rng), got {spec!r}")
        if spec not in POLICIES:
            raise ValueError(f"unknown policy {spec!r}; built-in policies: {sorted(POLICIES)} "
                             "(or pass an @njit function policy(view, seat, params, rng) -> (action, rng))")
        names, _ = POLICIES[spec]
        bad = sorted(set(params) - set(names))
        if bad:
            raise ValueError(f"unknown parameter(s) {bad} for policy {spec!r}; its parameters: {list(names)}")
        out = []
        for k in names:
            if k in params:
                v = params[k]
                if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                    raise TypeError(f"parameter {k!r} of policy {spec!r} must be a number, got {v!r}")
                out.append((k, float(v)))
        return cls(spec, tuple(out))

    @property
    def label(self) -> str:
        """``name`` or ``name:k=v,...`` (the non-default parameters)."""
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v:g}" for k, v in self.params)

    def param_row(self) -> np.ndarray:
        """The ``float64[PARAMS_SIZE]`` parameter row: defaults, overridden by ``params``."""
        row = np.zeros(KP.PARAMS_SIZE, dtype=np.float64)
        if self.custom is None:
            names, vals = POLICIES[self.name]
            row[:len(vals)] = vals
            given = dict(self.params)
            for i, k in enumerate(names):
                if k in given:
                    row[i] = given[k]
        else:
            for k, v in self.params:
                row[int(k)] = v
        return row

    @property
    def pid(self) -> int:
        return KP.POLICY_CUSTOM if self.custom is not None else KP.BUILTIN[self.name][0]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params)}


def policy_specs(policy: Any) -> tuple[PolicySpec, PolicySpec, PolicySpec]:
    """The three seats' :class:`PolicySpec` of a ``policy`` argument: one spec for all
    seats, or a list/tuple of three (at most one distinct ``@njit`` custom policy).

    >>> [p.label for p in policy_specs(["random", ("rule_based", {}), "random"])]
    ['random', 'rule_based', 'random']
    """
    pair = isinstance(policy, tuple) and len(policy) == 2 and (
        isinstance(policy[1], dict) or isinstance(policy[0], numba.core.registry.CPUDispatcher))
    if isinstance(policy, (list, tuple)) and len(policy) == 3:
        specs = tuple(PolicySpec.parse(p) for p in policy)
    elif isinstance(policy, (list, tuple)) and not pair:
        raise ValueError(f"a per-seat policy list needs 3 entries (forehand, middlehand, rearhand), got {len(policy)}")
    else:
        one = PolicySpec.parse(policy)
        specs = (one, one, one)
    customs = {id(p.custom) for p in specs if p.custom is not None}
    if len(customs) > 1:
        raise ValueError("at most one custom @njit policy per run (seat it several times if needed)")
    return specs[0], specs[1], specs[2]


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
    policies: tuple[dict[str, Any], ...] = ()

    def __len__(self) -> int:
        return len(self.rows)

    def to_frame(self) -> pd.DataFrame:
        """A tidy DataFrame, one row per deal (columns in the module's ``_COLUMNS`` order).

        ``contract`` is categorical (:data:`CONTRACT_CATEGORIES`); ``attrs`` carries
        ``seed``, ``policy``, ``rules``, ``rules_version`` and, if recorded, ``actions``.
        """
        return results_frame(self.rows, self.actions, self.rules, self.seed, self.policy, self.policies)


def _contract_codes(rows: np.ndarray) -> np.ndarray:
    key = (rows["game"].astype(np.int64) + 1) * 16 + rows["flags"].astype(np.int64)
    return _CODE_TO_CAT[key]


def results_frame(rows: np.ndarray, actions: np.ndarray | None = None, rules: SkatRules = ISKO, seed: int = 0,
                  policy: str = "", policies: tuple[dict[str, Any], ...] = ()) -> pd.DataFrame:
    """The table of result rows ``rows`` (``RESULT_DTYPE``): the columns of a :func:`simulate`
    frame, ``attrs`` with the run's ``seed``, ``policy``, ``policies``, ``rules`` (and the
    ``actions`` when given)."""
    import pandas as pd

    cols: dict[str, Any] = {}
    for name in _COLUMNS:
        if name == "contract":
            cols[name] = pd.Categorical.from_codes(_contract_codes(rows), categories=list(CONTRACT_CATEGORIES))
        else:
            cols[name] = rows[name]
    df = pd.DataFrame(cols, copy=True)
    df.attrs.update(seed=seed, policy=policy, policies=[dict(p) for p in policies], rules=rules.to_dict(),
                    rules_version=rules.version)
    if actions is not None:
        df.attrs["actions"] = actions
    return df


# ----------------------------------------------------------------------------- running


def _policy_label(specs: tuple[PolicySpec, ...]) -> str:
    labels = [p.label for p in specs]
    return labels[0] if len(set(labels)) == 1 else ",".join(labels)


def _runner(specs: tuple[PolicySpec, ...], n_deals: int) -> tuple[Callable[..., None], bool]:
    """The compiled runner for these seats, and whether it checks legality (custom policies)."""
    pids = np.array([p.pid for p in specs], dtype=np.int64)
    params = np.stack([p.param_row() for p in specs])
    custom = next((p.custom for p in specs if p.custom is not None), None)
    if custom is None:
        def run(smul, start, options, out, actions, record):
            # the serial twin in a process forked after OpenMP threads ran (threads.kernel)
            kernel(KS.run_chunk)(smul, start, options, pids, params, out, actions, record)
        return run, False
    parallel = n_deals >= _SERIAL_BELOW and not parallel_unsafe()
    generic = KS.run_chunk_generic if parallel else KS.run_chunk_generic_serial

    def run_custom(smul, start, options, out, actions, record):
        generic(custom, smul, start, options, pids, params, out, actions, record)
    return run_custom, True


@contextmanager
def _threads(workers: int | None) -> Iterator[int]:
    top = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
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


def _progress(total: int, progress: bool, desc: str) -> Any:
    """A tqdm bar over ``total`` deals (``None`` when off or too small to matter)."""
    if not progress or total < _PROGRESS_FROM:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=" deals", unit_scale=True, leave=False)


_PROGRESS_FROM = 200_000  # smaller runs finish in well under a second


def iter_chunks(n_deals: int, policy: Any = "random", *, seed: int | np.random.Generator | None = None,
                rules: SkatRules = ISKO, workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
                record_actions: bool = False, start: int = 0, progress: bool = True,
                _into: tuple[np.ndarray, np.ndarray | None] | None = None) -> Iterator[SimChunk]:
    """Play deals ``start ... start + n_deals - 1`` in chunks; yield :class:`SimChunk` objects.

    The lowest-level public entry point (structured arrays, no pandas); see :func:`simulate`
    for the arguments. Memory stays bounded by one chunk. Arguments are checked when it is
    called, not when it is first iterated.
    """
    check_deal_count(n_deals, zero=True)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or not 0 <= start < 2**62:
        raise ValueError(f"start must be an int in 0..2**62, got {start!r}")
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    seed = check_run_seed(seed)
    specs = policy_specs(policy)
    with _threads(workers):  # validate now
        pass
    return _chunks(int(n_deals), specs, seed, rules, workers, int(chunk_size), bool(record_actions),
                   int(start), progress, _into)


def _chunks(n_deals: int, specs: tuple[PolicySpec, ...], seed: int, rules: SkatRules, workers: int | None,
            chunk_size: int, record_actions: bool, start: int, progress: bool,
            _into: tuple[np.ndarray, np.ndarray | None] | None) -> Iterator[SimChunk]:
    name = _policy_label(specs)
    runner, custom = _runner(specs, n_deals)
    smul = KS.seed_mul(seed)
    no_actions = np.zeros((0, KS.MAX_ACTIONS), dtype=np.int16)
    bar = _progress(n_deals, progress, f"simulate {name}")
    done = 0
    try:
        while done < n_deals:
            n = min(chunk_size, n_deals - done)
            if _into is None:
                rows = np.empty(n, dtype=KS.RESULT_DTYPE)
                acts = np.full((n, KS.MAX_ACTIONS), -1, dtype=np.int16) if record_actions else no_actions
            else:  # simulate(): write straight into the final arrays
                rows = _into[0][done:done + n]
                acts = _into[1][done:done + n] if (record_actions and _into[1] is not None) else no_actions
            with _threads(workers):
                runner(smul, start + done, rules.flags, rows, acts, record_actions)
            if custom:
                _check_custom(rows, name)
            yield SimChunk(rows, acts if record_actions else None, rules, seed, name,
                           tuple(p.to_dict() for p in specs))
            done += n
            if bar is not None:
                bar.update(n)
    finally:
        if bar is not None:
            bar.close()


def _check_custom(rows: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(rows["n_actions"] < 0)
    if bad.size:
        r = rows[bad[0]]
        k = -int(r["n_actions"]) - 1
        raise ValueError(f"policy {name!r} returned an illegal action (action #{k + 1} of deal "
                         f"{int(r['deal_index'])}, deal_seed {int(r['deal_seed'])}); a policy must return "
                         "an action from legal_set(view)")


def iter_simulate(n_deals: int, policy: Any = "random", *, seed: int | np.random.Generator | None = None,
                  rules: SkatRules = ISKO, workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
                  record_actions: bool = False, start: int = 0, progress: bool = True) -> Iterator[pd.DataFrame]:
    """Like :func:`simulate`, but yield one DataFrame per chunk (memory flat for 100M deals).

    >>> sizes = [len(df) for df in iter_simulate(2500, seed=3, chunk_size=1000, workers=1)]
    >>> sizes
    [1000, 1000, 500]
    """
    chunks = iter_chunks(n_deals, policy, seed=seed, rules=rules, workers=workers, chunk_size=chunk_size,
                         record_actions=record_actions, start=start, progress=progress)
    return (chunk.to_frame() for chunk in chunks)


def simulate(n_deals: int, policy: Any = "random", *, seed: int | np.random.Generator | None = None,
             rules: SkatRules = ISKO, workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
             record_actions: bool = False, start: int = 0, progress: bool = True,
             out: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Play ``n_deals`` complete deals (deal, bidding, skat, declaration, 10 tricks, settlement).

    Jit-compiled by numba; parallel over ``workers`` threads.

    Args:
        n_deals: number of deals.
        policy: who plays. A built-in policy name (``"random"``: uniformly random legal
            actions in every phase; ``"rule_based"``: the heuristic player), a
            ``(name, {param: value})`` pair, an ``@njit`` function
            ``policy(view, seat, params, rng) -> (action, rng)`` (see
            :mod:`skatsim.kernels.simulate`; compiled on first use, illegal actions raise),
            or a list of three of these, one per seat (forehand, middlehand, rearhand).
        seed: run seed (int); deal ``i`` uses ``derive_seed(seed, start + i)``. A
            ``numpy.random.Generator`` or ``None`` draws one (stored in ``df.attrs["seed"]``).
        rules: :class:`SkatRules` (Ramsch, Kontra/Re options); recorded in ``attrs``.
        workers: threads (default all cores). Results do not depend on it.
        chunk_size: deals per compiled call (bounds memory). Results do not depend on it.
        record_actions: keep each deal's actions (``df.attrs["actions"]``, int16, -1 padded).
        start: index of the first deal (to continue a run).
        progress: show a tqdm progress bar for long runs (200,000 deals or more).
        out: also write the table to this Parquet file (atomically, with the run in its
            metadata; read it back with :func:`read_parquet`). For runs too big for memory
            use :func:`simulate_to_parquet`, which streams.

    Returns one row per deal with the columns of :mod:`skatsim.table` (``RESULT_COLUMNS``);
    ``df.attrs`` holds ``seed``, ``policy`` (a label), ``policies`` (per seat),
    ``rules`` and ``rules_version``.
    """
    if isinstance(n_deals, (int, np.integer)) and n_deals > _MAX_FRAME_ROWS:
        raise ValueError(f"n_deals={n_deals} is too many rows for one DataFrame (limit {_MAX_FRAME_ROWS}); "
                         "use iter_simulate(...) or simulate_to_parquet(path, ...)")
    seed = check_run_seed(seed)
    n = int(n_deals) if isinstance(n_deals, (int, np.integer)) and n_deals > 0 else 0
    rows = np.empty(n, dtype=KS.RESULT_DTYPE)
    acts = np.full((n, KS.MAX_ACTIONS), -1, dtype=np.int16) if record_actions else None
    specs = policy_specs(policy)
    for _ in iter_chunks(n_deals, specs, seed=seed, rules=rules, workers=workers, chunk_size=chunk_size,
                         record_actions=record_actions, start=start, progress=progress, _into=(rows, acts)):
        pass
    df = results_frame(rows, acts, rules, seed, _policy_label(specs), tuple(p.to_dict() for p in specs))
    if out is not None:
        table = _arrow_table(df.copy(deep=False), n)
        with atomic_path(out) as tmp:
            import pyarrow.parquet as pq

            pq.write_table(table, tmp)
    return df


def simulate_to_parquet(path: str | os.PathLike[str], n_deals: int, policy: Any = "random", *,
                        seed: int | np.random.Generator | None = None, rules: SkatRules = ISKO,
                        workers: int | None = None, chunk_size: int = DEFAULT_CHUNK, start: int = 0,
                        progress: bool = True) -> "SimSummary":
    """Stream :func:`simulate` rows to a Parquet file chunk by chunk; return their summary.

    The rows go to a temporary file next to ``path`` that is moved into place only when
    every deal is written, so an interrupted run (Ctrl-C, kill) never leaves a file at
    ``path`` that reads back as a valid but partial result; an existing file at ``path`` is
    replaced only then (and stays untouched otherwise). The file's ``skatsim`` metadata
    holds the run (seed, policies, rules) and ``n_deals``; :func:`read_parquet` checks that
    the row count matches. ``n_deals=0`` writes a valid empty file.
    """
    import pyarrow.parquet as pq

    chunks = iter_chunks(n_deals, policy, seed=seed, rules=rules, workers=workers, chunk_size=chunk_size,
                         record_actions=False, start=start, progress=progress)
    summary = SimSummary()
    with atomic_path(path) as tmp:
        writer = None
        try:
            for chunk in chunks:
                table = _arrow_table(chunk.to_frame(), int(n_deals))
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema)
                writer.write_table(table.replace_schema_metadata(writer.schema.metadata))
                summary.update(chunk.rows)
            if writer is None:  # no deals: an empty table with the full schema
                specs = policy_specs(policy)
                df = results_frame(np.empty(0, dtype=KS.RESULT_DTYPE), None, rules,
                                   check_run_seed(seed) if seed is not None else 0, _policy_label(specs),
                                   tuple(p.to_dict() for p in specs))
                table = _arrow_table(df, 0)
                writer = pq.ParquetWriter(tmp, table.schema)
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
    return summary


def _arrow_table(df: "pd.DataFrame", n_deals: int) -> Any:
    import pyarrow as pa

    df.attrs.pop("actions", None)
    meta = dict(df.attrs, n_deals=n_deals)
    table = pa.Table.from_pandas(df, preserve_index=False)
    return table.replace_schema_metadata({**(table.schema.metadata or {}), b"skatsim": json.dumps(meta).encode()})


def read_parquet(path: str | os.PathLike[str]) -> "pd.DataFrame":
    """Read a :func:`simulate_to_parquet` file, checking that it holds all its deals.

    ``df.attrs`` gets the run's metadata back. Raises ``ValueError`` for a file that is not
    a skatsim result, is not readable Parquet (a truncated copy), or whose row count differs
    from the ``n_deals`` it was written for.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(os.fspath(path))
    except pa.ArrowException as e:  # truncated, damaged, or not Parquet at all
        raise ValueError(f"{os.fspath(path)!r} is not a readable Parquet file (truncated or damaged?): "
                         f"{str(e).splitlines()[0]}") from None
    raw = (table.schema.metadata or {}).get(b"skatsim")
    if raw is None:
        raise ValueError(f"{os.fspath(path)!r} is not a skatsim result file (no 'skatsim' metadata)")
    meta = json.loads(raw)
    if meta.get("n_deals") != table.num_rows:
        raise ValueError(f"{os.fspath(path)!r} holds {table.num_rows} rows but was written for "
                         f"{meta.get('n_deals')} deals: it is incomplete")
    df = table.to_pandas()
    df.attrs.update(meta)
    return df


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
        score = rows["list_score"].to_numpy() if isinstance(rows, pd.DataFrame) else rows["list_score"]
        score = score.astype(np.float64)
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


# ----------------------------------------------------------------------------- batch simulation runs


def _sim_chunk(n: int, policy: Any, seed: int, rules_dict: dict[str, Any], start: int,
               threads: int | None) -> "pd.DataFrame":
    df = simulate(n, policy=policy, seed=seed, rules=SkatRules.from_dict(rules_dict), start=start,
                  workers=threads, progress=False)
    return df


def run_simulation(out: str | os.PathLike[str], n_deals: int, policy: Any = "random", *, seed: int = 0,
                   rules: Any = None, backend: str = "local", workers: int | None = None,
                   address: str | None = None, chunk_size: int = 100_000, progress: bool = True) -> RunDir:
    """Batch simulation (:func:`skatsim.simulate`) into a run directory, chunk by chunk:
    resumable like a tournament (the same call on an existing directory plays only the
    missing chunks; a different configuration is refused), and with ``backend="ray"`` the
    chunks run as Ray tasks and stream back into the directory. Each shard reads back with
    :func:`skatsim.simulate.read_parquet` too (its metadata has the run and ``n_deals``);
    ``RunDir.read_all()`` gives every row, in deal order, the same rows as
    ``simulate(n_deals, policy, seed=seed, rules=rules)``.

    ``policy``: built-in policy names / ``(name, params)`` pairs (one, or one per seat);
    compiled custom policies cannot be written down in a manifest and are refused.
    """
    rules = ISKO if rules is None else rules
    if not isinstance(rules, SkatRules):
        raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    n_deals, seed = check_deal_count(n_deals), check_run_seed(seed)
    specs = policy_specs(policy)
    if any(p.custom is not None for p in specs):
        raise ValueError("a run directory records its policies by name: custom @njit policies cannot be used")
    per_seat = [(p.name, dict(p.params)) for p in specs]
    config = {"n_deals": n_deals, "policy": [list(x) for x in per_seat], "seed": seed, "rules": rules.to_dict(),
              "rules_version": rules.version}
    if is_run_dir(out):
        run = RunDir.open(out)
        if run.kind != "simulation":
            raise ValueError(f"{os.fspath(out)!r} holds a {run.kind} run, not a simulation")
        old = run.config
        diff = [k for k in ("n_deals", "policy", "seed", "rules") if old.get(k) != config[k]]
        if diff:
            raise ValueError(f"{os.fspath(out)!r} holds a different simulation ("
                             + "; ".join(f"{k}: {old.get(k)} there, {config[k]} here" for k in diff)
                             + "): choose a new directory")
    else:
        run = RunDir.create(out, kind="simulation", config=config, n_units=n_deals,
                            chunk_size=max(1, min(int(chunk_size), n_deals)))
    todo = run.todo()
    pol = [tuple(x) for x in per_seat]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_deals, initial=n_deals - sum(b - a for a, b in todo), unit=" deals", unit_scale=True,
                   desc="simulate", leave=False)
    meta = {"kind": "simulation", "seed": seed, "policies": [{"name": n, "params": p} for n, p in per_seat],
            "rules": rules.to_dict(), "rules_version": rules.version}
    t0 = time.perf_counter()
    before = float(run.manifest.get("elapsed_s", 0.0))  # the time of the runs this one resumes
    try:
        with ctrl_c():  # a Ctrl-C that code in a chunk drops is raised again
            if backend == "ray":
                from .parallel import map_chunks

                results = map_chunks(_sim_chunk, [(b - a, pol, seed, rules.to_dict(), a, 1) for a, b in todo], todo,
                                     workers=workers or 1, backend="ray", address=address)
            else:  # numba threads in this process
                results = ((ab, _sim_chunk(ab[1] - ab[0], pol, seed, rules.to_dict(), ab[0], workers)) for ab in todo)
            for (a, b), df in results:
                run.write_shard(a, b, df, {**meta, "n_deals": b - a, "start": a})
                run.update(elapsed_s=before + time.perf_counter() - t0)  # kept if the run is killed
                if bar is not None:
                    bar.update(b - a)
    finally:
        if bar is not None:
            bar.close()
    run.mark_complete(None, elapsed_s=before + time.perf_counter() - t0)
    return run
