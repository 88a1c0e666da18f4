"""``VecEnv``: n games of Skat stepped together in compiled code, for learning agents.

The n games live in one ``(n, N_FIELDS)`` int64 state array (the state vectors of
:mod:`skatsim.kernels.game`, the same machine ``SkatState`` wraps). :meth:`VecEnv.step`
applies one action per game for the seat to move, in one call parallel over games
(numba threads; the same games for any thread count), plays the seats given to built-in
compiled policies, settles finished games and deals the next ones, then writes for every
game the seat to move, its legal mask and its observation tensor (from that seat's masked
view only: :func:`skatsim.kernels.game.mask_view`).

>>> env = VecEnv(4, seed=1)
>>> out = env.reset()
>>> out.obs.shape, out.legal_mask.shape, out.to_move.tolist()   # middlehand bids first
((4, 574), (4, 130), [1, 1, 1, 1])
>>> games = 0
>>> while games < 10:
...     out = env.step(env.random_actions())
...     games += int(out.done.sum())           # finished games restart with the next deal
>>> int(env.deals_dealt) >= 14, out.rewards.shape
(True, (4, 3))

Every phase goes through :meth:`~VecEnv.step`: bidding, the skat decision, the two
discards, the declaration (with announcements), Kontra/Re and Ramsch when the rules have
them, and the card play. Game ``k`` of ``VecEnv(seed=s)`` is the deal of row ``k`` of
``simulate(seed=s)`` (and board ``k`` of a tournament of seed ``s``); with the seats' own
streams (:meth:`~VecEnv.random_actions`) or built-in policies in every seat it is the
same game, action for action.

Outputs (arrays owned by the environment, overwritten by the next call; copy what you
keep): ``obs (n, 574) float32``, ``legal_mask (n, 130) bool``, ``to_move (n,)`` (-1: no
game in the slot), ``done (n,)`` (the game in the slot ended in the last call),
``rewards (n, 3) float64`` (per seat, on the step that ends a game; the ``reward`` kind of
:meth:`skatsim.SkatState.returns`) and ``last_results`` (one ``simulate`` row per slot, the
game that ended there last). :meth:`~VecEnv.observe` gives any seat's observation of every
game. Bad input raises a named error and changes no game: :class:`IllegalActionError`
(naming the game, seat, phase and the legal actions), :class:`ActionArrayError` (wrong
shape or dtype), :class:`EnvClosedError`.

Learners collect decisions with a :class:`TrajectoryBuffer` (:meth:`~VecEnv.record`):
filled inside the compiled step, with each row's reward-to-go written when its game ends.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, NamedTuple, Sequence

import numba
import numpy as np

from ._random import check_run_seed
from .actions import NUM_ACTIONS, action_ids, action_to_string
from .deal import SEED_MASK
from .kernels import game as K
from .kernels import policies as KP
from .kernels import simulate as KS
from .kernels import vec as KV
from .kernels.observe import OBS_SIZE
from .kernels.threads import kernel, parallel_unsafe
from .options import ISKO, SkatRules

__all__ = ["VecEnv", "StepOutput", "TrajectoryBuffer", "Transitions", "VecEnvError", "IllegalActionError",
           "ActionArrayError", "EnvClosedError", "BufferFullError", "REWARD_KINDS", "EXTERNAL",
           "sample_masks", "OBS_SIZE", "NUM_ACTIONS", "MAX_ACTIONS"]

#: Reward kinds (those of :meth:`skatsim.SkatState.returns`).
REWARD_KINDS = ("sf", "zero_sum", "list")
_REWARD_CODE = {"sf": KV.REWARD_SF, "zero_sum": KV.REWARD_ZERO_SUM, "list": KV.REWARD_LIST}
#: A seat played by the caller (``policies=`` entry ``None``).
EXTERNAL = None
MAX_ACTIONS = KS.MAX_ACTIONS
#: Below this many games the kernels run on one numba thread (waking the thread pool costs
#: more than the work); the games are the same for any thread count.
_PARALLEL_FROM = 64
#: The most numba threads a step may use (numba's thread-pool size).
_MAX_THREADS: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]


class VecEnvError(ValueError):
    """Bad input to a :class:`VecEnv` (no game was changed)."""


class IllegalActionError(VecEnvError):
    """An action that is not legal for the seat to move in its game.

    Attributes: ``game`` (index), ``seat``, ``phase`` (name), ``action`` and ``legal``
    (the legal action ids).
    """

    def __init__(self, message: str, *, game: int, seat: int, phase: str, action: int, legal: list[int]) -> None:
        super().__init__(message)
        self.game = game
        self.seat = seat
        self.phase = phase
        self.action = action
        self.legal = legal


class ActionArrayError(VecEnvError, TypeError):
    """``actions`` is not an integer array of shape ``(n,)``."""


class EnvClosedError(VecEnvError, RuntimeError):
    """The environment was closed, or used before :meth:`VecEnv.reset`."""


class BufferFullError(VecEnvError, RuntimeError):
    """A game's column of the :class:`TrajectoryBuffer` is full: call :meth:`~TrajectoryBuffer.take`."""


class StepOutput(NamedTuple):
    """What :meth:`VecEnv.reset` and :meth:`VecEnv.step` return (the environment's arrays)."""

    obs: np.ndarray
    legal_mask: np.ndarray
    to_move: np.ndarray
    rewards: np.ndarray
    done: np.ndarray


class _Kernels:
    """The environment's kernels: parallel, or their serial twins in a worker process forked
    after numba's OpenMP threads started (:mod:`skatsim.kernels.threads`)."""

    def __getattr__(self, name: str) -> Any:
        return kernel(getattr(KV, name))


_KERNELS = _Kernels()


def _kv() -> Any:
    return _KERNELS


@contextmanager
def _threads(k: int | None) -> Iterator[None]:
    if k is None or parallel_unsafe():  # (the serial twins use no threads)
        yield
        return
    old = numba.get_num_threads()
    numba.set_num_threads(k)
    try:
        yield
    finally:
        numba.set_num_threads(old)


class TrajectoryBuffer:
    """Preallocated ``(T, n)`` storage of the decisions taken through :meth:`VecEnv.step`.

    Each recorded decision (of the seats in ``seats``) keeps the mover's masked view packed
    in 52 ``int32`` (the observation and the legal mask are decoded from it by :meth:`take`:
    208 bytes a row instead of the 2,426 of a float32 observation and a bool mask), the
    seat, the action and the game; when the game ends every one of its rows gets the
    reward-to-go of its seat (the game's final return: Skat pays only at the end). Column
    ``i`` holds the games played in slot ``i`` one after the other; ``T`` must exceed the
    decisions of one game (at most 166, about 40 with every seat recorded) plus those
    taken between two calls of :meth:`take`.

    >>> env = VecEnv(8, seed=3)
    >>> buf = env.record(TrajectoryBuffer(256, 8))
    >>> _ = env.reset()
    >>> for _ in range(200):
    ...     _ = env.step(env.random_actions())
    >>> tr = buf.take()                   # rows of every finished game; running ones stay
    >>> tr.obs.shape[1], tr.legal_mask.shape[1], bool(tr.legal_mask[np.arange(len(tr)), tr.action].all())
    (574, 130, True)
    """

    def __init__(self, T: int, n: int, seats: Sequence[int] = (0, 1, 2)) -> None:
        for name, v in (("T", T), ("n", n)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        rs = np.zeros(3, dtype=np.bool_)
        for s in seats:
            if isinstance(s, bool) or s not in (0, 1, 2):
                raise ValueError(f"seats must be seats 0, 1, 2, got {list(seats)!r}")
            rs[int(s)] = True
        self.T, self.n = int(T), int(n)
        self.seats = rs
        self.view = np.zeros((self.T, self.n, K.N_FIELDS), dtype=np.int32)
        self.seat = np.zeros((self.T, self.n), dtype=np.int8)
        self.action = np.zeros((self.T, self.n), dtype=np.int16)
        self.game = np.zeros((self.T, self.n), dtype=np.int64)
        self.rtg = np.zeros((self.T, self.n), dtype=np.float32)
        self.fill = np.zeros(self.n, dtype=np.int64)   # rows in use per column
        self.start = np.zeros(self.n, dtype=np.int64)  # first row of the game running in the column

    @property
    def nbytes(self) -> int:
        """Bytes of the preallocated arrays."""
        return sum(a.nbytes for a in (self.view, self.seat, self.action, self.game, self.rtg, self.fill, self.start))

    def ready(self) -> int:
        """Rows of finished games, ready for :meth:`take`."""
        return int(self.start.sum())

    def arrays(self) -> KV.Buffer:
        """The buffer's arrays as the kernels take them."""
        return KV.Buffer(self.seats, self.view, self.seat, self.action, self.game, self.rtg, self.fill, self.start)

    def clear(self) -> None:
        """Drop every row (finished or not)."""
        self.fill[:] = 0
        self.start[:] = 0

    def take(self) -> "Transitions":
        """Hand out the rows of every finished game (slot order, then time order) and keep
        the rows of the games still running for the next call."""
        counts = self.start.copy()
        offsets = np.zeros(self.n, dtype=np.int64)
        np.cumsum(counts[:-1], out=offsets[1:])
        m = int(counts.sum())
        obs = np.empty((m, OBS_SIZE), dtype=np.float32)
        mask = np.empty((m, NUM_ACTIONS), dtype=np.bool_)
        action = np.empty(m, dtype=np.int64)
        seat = np.empty(m, dtype=np.int8)
        rtg = np.empty(m, dtype=np.float32)
        game = np.empty(m, dtype=np.int64)
        last = np.empty(m, dtype=np.bool_)
        _kv().take_rows(self.view, self.seat, self.action, self.game, self.rtg, self.fill, self.start, offsets,
                        obs, mask, action, seat, rtg, game, last)
        return Transitions(obs, mask, action, seat, rtg, game, last)


class Transitions(NamedTuple):
    """Rows of finished games from :meth:`TrajectoryBuffer.take` (one per decision).

    ``obs`` the mover's observation, ``legal_mask``, ``action``, ``seat``,
    ``reward_to_go`` (the seat's final return in that game), ``game`` (the environment's
    serial number of the game) and ``last`` (the seat's last decision in that game).
    """

    obs: np.ndarray
    legal_mask: np.ndarray
    action: np.ndarray
    seat: np.ndarray
    reward_to_go: np.ndarray
    game: np.ndarray
    last: np.ndarray

    def __len__(self) -> int:  # type: ignore[override]
        return int(self.action.shape[0])


def _is_entry(e: Any) -> bool:
    """One seat's ``policies`` entry (not a row of three)."""
    from .simulate import PolicySpec

    return (e is None or isinstance(e, (str, PolicySpec))
            or (isinstance(e, tuple) and len(e) == 2 and isinstance(e[0], str) and isinstance(e[1], dict)))


def seat_cutoffs_of(params: np.ndarray) -> np.ndarray:
    """``(k, 3)`` float64: the rule-based bid cutoffs (:func:`skatsim.kernels.heuristic.seat_cutoffs`)
    of each of the ``k`` parameter rows ``params``."""
    from .kernels.heuristic import seat_cutoffs

    out = np.zeros((len(params), 3), dtype=np.float64)
    for k, row in enumerate(params):
        out[k] = seat_cutoffs(np.repeat(row[None, :], 3, axis=0))[0]
    return out


def _policy_row(entry: Any) -> tuple[int, tuple[float, ...]] | None:
    """``None`` for a caller's seat, else ``(pid, param row)`` of a built-in policy."""
    if entry is None or entry == "external":
        return None
    from .simulate import PolicySpec

    spec = PolicySpec.parse(entry)
    if spec.custom is not None:
        raise ValueError("VecEnv seats take built-in policies (random, rule_based) or None (played by the "
                         f"caller); got the custom policy {spec.name!r}")
    return spec.pid, tuple(float(x) for x in spec.param_row())


class VecEnv:
    """``n`` games of Skat in one state array, stepped in one compiled call.

    Args:
        n: number of games (slots).
        rules: :class:`~skatsim.SkatRules` (Kontra/Re, Ramsch).
        seed: run seed of the deal stream: slot ``k`` of the first :meth:`reset` gets deal
            ``k`` (``derive_seed(seed, k)``, the deal of ``simulate(seed=seed)`` row ``k``),
            and every game started later takes the next deal of the stream.
        reward: ``"sf"`` (Seeger-Fabian), ``"zero_sum"`` or ``"list"``: the kinds of
            :meth:`skatsim.SkatState.returns`.
        policies: who plays each seat: ``None`` (default) the caller everywhere, or three
            entries (forehand, middlehand, rearhand), each ``None`` (the caller) or a
            built-in policy (``"random"``, ``"rule_based"``, ``("rule_based", {...})``) played
            inside the step with the seat's stream, exactly as ``simulate`` plays it; or an
            ``(n, 3)`` nested list of such entries, one row per game.
        auto_reset: deal the next game into a slot as soon as its game ends (default); with
            ``False`` the slot stays empty (``to_move`` -1) until :meth:`reset_games`.
        threads: numba threads for this environment's calls (default: numba's setting).
    """

    def __init__(self, n: int, rules: SkatRules = ISKO, seed: Any = 0, reward: str = "sf", *,
                 policies: Any = None, auto_reset: bool = True, threads: int | None = None) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive int (the number of games), got {n!r}")
        if not isinstance(rules, SkatRules):
            raise TypeError(f"rules must be a SkatRules, got {type(rules).__name__}")
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward must be one of {REWARD_KINDS}, got {reward!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))
                                    or not 1 <= threads <= _MAX_THREADS):
            raise ValueError(f"threads must be an int in 1..{_MAX_THREADS}, got {threads!r}")
        self.n = n = int(n)
        self.rules = rules
        self.reward = reward
        self.auto_reset = bool(auto_reset)
        self.threads = None if threads is None else int(threads)
        self._kind = _REWARD_CODE[reward]
        self._seed = check_run_seed(seed)
        self._smul = KS.seed_mul(self._seed)
        F = K.N_FIELDS
        self.state = np.zeros((n, F), dtype=np.int64)
        self.state[:, K.F_PHASE] = K.PH_DONE
        self.state[:, K.F_PLAYER] = -1
        self._view = np.zeros((n, F), dtype=np.int64)
        self.deal_seed = np.zeros(n, dtype=np.int64)
        self.deal_index = np.full(n, -1, dtype=np.int64)
        self.serial = np.full(n, -1, dtype=np.int64)
        self._counters = np.zeros(2, dtype=np.int64)  # next deal index, next game serial
        self.seat_rng = np.zeros((n, 3), dtype=np.int64)
        self.history = np.full((n, MAX_ACTIONS), -1, dtype=np.int16)
        self._hmeta = np.zeros((n, MAX_ACTIONS), dtype=np.int8)
        self.n_actions = np.zeros(n, dtype=np.int64)
        self.last_history = np.full((n, MAX_ACTIONS), -1, dtype=np.int16)
        self.last_n_actions = np.zeros(n, dtype=np.int64)
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.legal_mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self.to_move = np.full(n, -1, dtype=np.int64)
        self.done = np.zeros(n, dtype=np.bool_)
        self.rewards = np.zeros((n, 3), dtype=np.float64)
        self.last_results = np.zeros(n, dtype=KS.RESULT_DTYPE)
        self._rbuf = np.zeros((n, K.N_RESULT), dtype=np.int64)
        self._ok = np.zeros(n, dtype=np.bool_)
        self._actions = np.zeros(n, dtype=np.int64)
        # who plays each seat: a row of the policy table (EXTERNAL: the caller), and per game
        # what the kernels read: the policy ids (CALLER), parameter rows and bid cutoffs
        self._ptable: list[tuple[int, tuple[float, ...]]] = []
        self._pol_pid = np.zeros(1, dtype=np.int64)
        self._pol_params = np.zeros((1, KP.PARAMS_SIZE), dtype=np.float64)
        self._pol_cuts = np.zeros((1, 3), dtype=np.float64)
        self._ctrl = np.full((n, 3), KV.EXTERNAL, dtype=np.int64)
        self._games_arrays = KV.Games(
            self.state, self._view, self.deal_seed, self.deal_index, self.serial, self.seat_rng,
            np.full((n, 3), KS.CALLER, dtype=np.int64), np.zeros((n, 3, KP.PARAMS_SIZE), dtype=np.float64),
            np.zeros((n, 3, 3), dtype=np.float64), np.full((n, 3), -1, dtype=np.int64), self.history, self._hmeta,
            self.n_actions, self.obs, self.legal_mask, self.to_move, self.done, self.rewards, self.last_results,
            self._rbuf, self.last_history, self.last_n_actions)
        self.set_policies(policies)
        self.buffer: TrajectoryBuffer | None = None
        self._nobuf = TrajectoryBuffer(1, 1).arrays()
        self._buf_arrays = self._nobuf
        self._started = False
        self._closed = False
        self._run_threads = 1 if n < _PARALLEL_FROM else self.threads

    # ------------------------------------------------------------------ configuration
    def _policy_index(self, entry: Any) -> int:
        row = _policy_row(entry)
        if row is None:
            return KV.EXTERNAL
        if row not in self._ptable:
            self._ptable.append(row)
            self._pol_pid = np.array([p for p, _ in self._ptable], dtype=np.int64)
            self._pol_params = np.array([list(r) for _, r in self._ptable], dtype=np.float64)
            self._pol_cuts = seat_cutoffs_of(self._pol_params)
        return self._ptable.index(row)

    def _seat_players(self, idx: np.ndarray, ctrl: np.ndarray) -> None:
        """Seat the policy-table rows ``ctrl`` (k, 3) in the games ``idx``."""
        self._ctrl[idx] = ctrl
        g = self._games_arrays
        caller = ctrl < 0
        c = np.where(caller, 0, ctrl)
        g.pids[idx] = np.where(caller, KS.CALLER, self._pol_pid[c])
        g.params[idx] = self._pol_params[c]
        g.cuts[idx] = self._pol_cuts[c]
        g.limits[idx] = -1  # (a limit depends on the parameters: found again on the next bid)

    def _ctrl_rows(self, policies: Any, k: int) -> np.ndarray:
        if policies is None:
            return np.full((k, 3), KV.EXTERNAL, dtype=np.int64)
        rows = list(policies)
        if len(rows) == 3 and all(_is_entry(e) for e in rows):
            rows = [rows] * k
        if len(rows) != k or any(len(r) != 3 for r in rows):
            raise ValueError(f"policies must be 3 entries (one per seat) or {k} rows of 3, got {policies!r}")
        cache: dict[Any, int] = {}
        out = np.empty((k, 3), dtype=np.int64)
        for i, r in enumerate(rows):
            for s in range(3):
                e = r[s]
                key = repr(e)
                if key not in cache:
                    cache[key] = self._policy_index(e)
                out[i, s] = cache[key]
        if self.auto_reset and (out >= 0).all(axis=1).any():
            raise ValueError("with auto_reset every game needs at least one seat played by the caller (None); "
                             "for games of compiled policies only use simulate() or auto_reset=False")
        return out

    def set_policies(self, policies: Any, games: Any = None) -> None:
        """Change who plays each seat (see the class arguments) for every game, or for the
        slots ``games``; takes effect from the next decision."""
        idx = self._games(games)
        self._seat_players(idx, self._ctrl_rows(policies, len(idx)))

    def record(self, buffer: TrajectoryBuffer | None) -> TrajectoryBuffer | None:
        """Fill ``buffer`` with the decisions taken from now on (``None``: stop recording)."""
        if buffer is not None:
            if not isinstance(buffer, TrajectoryBuffer) or buffer.n != self.n:
                raise ValueError(f"buffer must be a TrajectoryBuffer with n={self.n}, got {buffer!r}")
            buffer.fill[:] = 0
            buffer.start[:] = 0
        self.buffer = buffer
        self._buf_arrays = self._nobuf if buffer is None else buffer.arrays()
        return buffer

    # ------------------------------------------------------------------ state
    @property
    def seed(self) -> int:
        """The run seed of the deal stream."""
        return self._seed

    @property
    def deals_dealt(self) -> int:
        """Deals taken from the seed stream so far (the index of the next one)."""
        return int(self._counters[0])

    @property
    def history_meta(self) -> np.ndarray:
        """``(n, MAX_ACTIONS) int8``: per action of ``history``, ``seat | phase << 2`` (the seat
        that took it and the ``PH_*`` code of the phase it was taken in); read-only view."""
        v = self._hmeta.view()
        v.setflags(write=False)
        return v

    def game_history(self, game: int) -> list[tuple[int, int, int]]:
        """``(seat, action, phase code)`` for every action of the game in slot ``game``."""
        i = self._game(game)
        k = int(self.n_actions[i])
        m = self._hmeta[i, :k]
        return [(int(x) & 3, int(a), int(x) >> 2) for a, x in zip(self.history[i, :k], m)]

    def observation(self, game: int, seat: int) -> Any:
        """The typed :class:`~skatsim.observation.Observation` of ``seat`` in slot ``game``:
        the object ``SkatState.observation(seat)`` gives for the same game."""
        from .observation import build_observation

        i = self._game(game)
        if isinstance(seat, bool) or seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        h = self.game_history(i)
        return build_observation(self.state[i], int(seat), [a for _, a, _ in h], [p for p, _, _ in h],
                                 [ph for _, _, ph in h])

    def _game(self, game: Any) -> int:
        if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < self.n:
            raise ValueError(f"game must be a slot index 0..{self.n - 1}, got {game!r}")
        return int(game)

    def _games(self, games: Any) -> np.ndarray:
        if games is None:
            return np.arange(self.n, dtype=np.int64)
        g = np.asarray(games)
        if g.dtype == np.bool_ and g.shape == (self.n,):
            return np.flatnonzero(g).astype(np.int64)
        if g.ndim != 1 or (g.size and g.dtype.kind not in "iu"):
            raise ValueError(f"games must be slot indices (a 1-d int array) or an (n,) bool mask, got {games!r}")
        g = g.astype(np.int64)
        if g.size and (g.min() < 0 or g.max() >= self.n or len(np.unique(g)) != len(g)):
            raise ValueError(f"games must be distinct slot indices 0..{self.n - 1}")
        return g

    def _check_open(self) -> None:
        if self._closed:
            raise EnvClosedError("the environment is closed")

    # ------------------------------------------------------------------ dealing
    def reset(self, seeds: Any = None, *, seed: Any = None) -> StepOutput:
        """Deal every slot: the next ``n`` deals of the stream (``seed``: restart the stream
        with that run seed first), or the explicit deal seeds ``seeds`` (``n`` ints;
        ``deal_index`` -1). Returns the first observations."""
        self._check_open()
        if seed is not None:
            self._seed = check_run_seed(seed)
            self._smul = KS.seed_mul(self._seed)
            self._counters[0] = 0
        self.reset_games(None, seeds)
        return self._output()

    def reset_games(self, games: Any, seeds: Any = None, deal_index: Any = None, *, policies: Any = None) -> None:
        """Deal new games into the slots ``games`` (``None``: all): from the stream, or the deal
        seeds ``seeds`` (one per slot; ``deal_index`` optional, default -1). ``policies``
        sets who plays them (see the class). Compiled seats play until a caller's seat is to
        move; a game of compiled seats only ends at once (``done`` True, ``last_results`` set).
        A game running in such a slot is abandoned (its buffered rows dropped)."""
        self._check_open()
        idx = self._games(games)
        k = len(idx)
        if seeds is None:
            if deal_index is not None:
                raise ValueError("deal_index goes with explicit seeds")
            start = int(self._counters[0])
            di = np.arange(start, start + k, dtype=np.int64)
            ds = np.array([KS.deal_seed_of(self._smul, j) for j in di], dtype=np.int64)
            self._counters[0] = start + k
        else:
            ds = np.asarray(seeds)
            if ds.shape != (k,) or (k and ds.dtype.kind not in "iu"):
                raise ValueError(f"seeds must be {k} int deal seeds, got {seeds!r}")
            ds = np.array([int(x) & SEED_MASK for x in ds.tolist()], dtype=np.int64)
            di = np.full(k, -1, dtype=np.int64) if deal_index is None else np.asarray(deal_index, dtype=np.int64)
            if di.shape != (k,):
                raise ValueError(f"deal_index must be {k} ints")
        if policies is not None:
            self._seat_players(idx, self._ctrl_rows(policies, k))
        if self.auto_reset and k and (self._ctrl[idx] >= 0).all(axis=1).any():
            raise ValueError("with auto_reset every game needs at least one seat played by the caller")
        self.deal_seed[idx] = ds
        self.deal_index[idx] = di
        ser = int(self._counters[1])
        self.serial[idx] = np.arange(ser, ser + k, dtype=np.int64)
        self._counters[1] = ser + k
        with _threads(self._run_threads):
            _kv().reset_kernel(self._games_arrays, self._buf_arrays, self.buffer is not None, idx, self.rules.flags,
                               self._kind)
        self._started = True

    def drop(self, games: Any) -> None:
        """End the games in slots ``games`` now, without a result (the slots stay empty,
        ``to_move`` -1, until :meth:`reset_games`); their buffered rows are dropped."""
        self._check_open()
        idx = self._games(games)
        self.state[idx, K.F_PHASE] = K.PH_DONE
        self.state[idx, K.F_PLAYER] = -1
        self.to_move[idx] = -1
        self.obs[idx] = 0.0
        self.legal_mask[idx] = False
        self.done[idx] = False
        self.rewards[idx] = 0.0
        if self.buffer is not None:
            self.buffer.fill[idx] = self.buffer.start[idx]

    def forfeit(self, game: int, seat: int) -> None:
        """End the game in slot ``game`` because ``seat``'s player broke the rules (an agent
        that raised, answered illegally or ran out of time): settled by the forfeit rule of
        the core (:func:`skatsim.kernels.game.settle_forfeit`, ISkO 4.1.4/4.1.5) as a
        finished game is (``last_results``, ``rewards``, ``done``, the reward-to-go of its
        buffered decisions); the slot then stays empty until :meth:`reset_games`.

        >>> env = VecEnv(1, seed=3, auto_reset=False)
        >>> _ = env.reset()
        >>> env.forfeit(0, 1)       # middlehand fails in the bidding: nobody has declared
        >>> bool(env.done[0]), int(env.last_results[0]["declarer"]), int(env.to_move[0])
        (True, -1, -1)
        """
        self._check_open()
        i = self._game(game)
        if isinstance(seat, bool) or seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        if self.state[i, K.F_PHASE] == K.PH_DONE:
            raise VecEnvError(f"slot {i} has no game running to forfeit")
        _kv().forfeit_kernel(self._games_arrays, self._buf_arrays, self.buffer is not None, self._kind, i, int(seat))
        self.state[i, K.F_PHASE] = K.PH_DONE
        self.state[i, K.F_PLAYER] = -1
        self.to_move[i] = -1
        self.obs[i] = 0.0
        self.legal_mask[i] = False

    def _output(self) -> StepOutput:
        return StepOutput(self.obs, self.legal_mask, self.to_move, self.rewards, self.done)

    # ------------------------------------------------------------------ stepping
    def _check_actions(self, actions: Any) -> np.ndarray:
        a = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        if a.shape != (self.n,):
            raise ActionArrayError(f"actions must have shape ({self.n},) (one action per game), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ActionArrayError(f"actions must be an integer array, got dtype {a.dtype}")
        if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
            raise ActionArrayError("actions do not fit in int64")
        out = self._actions
        out[:] = a
        return out

    def step(self, actions: Any) -> StepOutput:
        """Apply ``actions[i]`` for the seat to move in game ``i`` (ignored in an empty slot),
        then the compiled seats, the settlement of finished games (``done``, ``rewards``,
        ``last_results``) and, with ``auto_reset``, the next deals; returns the new
        observations. Raises :class:`IllegalActionError` / :class:`ActionArrayError` before
        changing any game."""
        self._check_open()
        if not self._started:
            raise EnvClosedError("call reset() before step()")
        a = self._check_actions(actions)
        b = self.buffer
        if b is not None and int(b.fill.max()) >= b.T:
            i = int(np.argmax(b.fill))
            raise BufferFullError(f"the trajectory buffer's column for game {i} is full ({b.T} rows): call "
                                  "buffer.take() (or make T larger than one game's decisions plus a round's)")
        with _threads(self._run_threads):
            bad = _kv().step_kernel(self._games_arrays, self._buf_arrays, self.buffer is not None, a, self._ok,
                                    self._counters, self._smul, self.rules.flags, self._kind, self.auto_reset)
        if bad >= 0:
            raise self._illegal(int(bad), int(a[bad]))
        return self._output()

    def _illegal(self, i: int, action: int) -> IllegalActionError:
        st = self.state[i]
        base, lo, hi = (int(x) for x in K.legal_set(st))

        legal = action_ids(base, lo, hi)
        try:
            name = repr(action_to_string(action))
        except (ValueError, TypeError, IndexError):
            name = "not an action id"
        shown = [action_to_string(x) for x in legal]
        text = ", ".join(shown) if len(shown) <= 12 else ", ".join(shown[:6]) + f", ... ({len(shown)} actions)"
        seat = int(st[K.F_PLAYER])
        phase = K.PHASE_NAMES[int(st[K.F_PHASE])]
        return IllegalActionError(f"game {i}: illegal action {action} ({name}) for seat {seat} in phase {phase}; "
                                  f"legal: {text}. No game was changed.", game=i, seat=seat, phase=phase,
                                  action=action, legal=legal)

    def policy_actions(self, policy: Any = "rule_based", phases: Sequence[str] | None = None,
                       out: np.ndarray | None = None) -> np.ndarray:
        """A built-in ``policy``'s action (a ``policies`` entry: ``"rule_based"``,
        ``("rule_based", {...})``, ``"random"``) for the seat to move in every game whose
        phase is in ``phases`` (names of :data:`skatsim.layout.PHASE_NAMES`; default: all),
        -1 elsewhere and in empty slots: decided on the mover's view from its seat stream
        (advanced), as when the policy plays that seat. What a learner hands to a compiled
        player (DMC's phases it did not learn).

        >>> env = VecEnv(4, seed=1)
        >>> _ = env.reset()
        >>> a = env.policy_actions("rule_based", ["bidding"])
        >>> bool(all(env.legal_mask[i, a[i]] for i in range(4)))
        True
        """
        self._check_open()
        row = _policy_row(policy)
        if row is None:
            raise ValueError(f"policy must be a built-in policy (random, rule_based), got {policy!r}")
        names = K.PHASE_NAMES[:K.PH_DONE] if phases is None else tuple(phases)
        mask = np.zeros(K.PH_DONE + 1, dtype=np.bool_)
        for ph in names:
            if ph not in K.PHASE_NAMES[:K.PH_DONE]:
                raise ValueError(f"unknown phase {ph!r}: expected some of {K.PHASE_NAMES[:K.PH_DONE]}")
            mask[K.PHASE_NAMES.index(ph)] = True
        params = np.repeat(np.array([row[1]], dtype=np.float64), 3, axis=0)
        cuts = np.repeat(seat_cutoffs_of(params[:1]), 3, axis=0)
        if out is None:
            out = np.empty(self.n, dtype=np.int64)
        with _threads(self._run_threads):
            _kv().policy_actions(self._games_arrays, row[0], params, cuts, mask, out)
        return out

    def random_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action per game (-1 for an empty slot), drawn from the
        mover's seat stream: games stepped with it are ``simulate(policy="random")`` games."""
        self._check_open()
        if out is None:
            out = np.empty(self.n, dtype=np.int64)
        elif out.shape != (self.n,) or out.dtype != np.int64:
            raise ActionArrayError(f"out must be an int64 array of shape ({self.n},)")
        with _threads(self._run_threads):
            _kv().random_actions(self.state, self.seat_rng, out)
        return out

    def observe(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s observation tensor of every game, ``(n, 574) float32`` (from its masked view)."""
        self._check_open()
        if isinstance(seat, bool) or seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        if out is None:
            out = np.empty((self.n, OBS_SIZE), dtype=np.float32)
        elif out.shape != (self.n, OBS_SIZE) or out.dtype != np.float32:
            raise ValueError(f"out must be float32 of shape ({self.n}, {OBS_SIZE})")
        view = np.empty_like(self._view)
        with _threads(self._run_threads):
            _kv().observe_kernel(self.state, view, int(seat), out)
        return out

    def close(self) -> None:
        """Release the environment; any later call raises :class:`EnvClosedError`."""
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def __repr__(self) -> str:
        return (f"VecEnv(n={self.n}, rules={self.rules!r}, seed={self._seed}, reward={self.reward!r}, "
                f"auto_reset={self.auto_reset})")


def sample_masks(legal_mask: np.ndarray, rng: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """A uniformly random True column per row of a bool ``legal_mask (k, m)`` (-1 for an
    all-False row), compiled; ``rng`` is an ``int64 (k,)`` array of SplitMix64 states, one per
    row, advanced in place (``skatsim.bits.seed_state(s)`` makes one from any int), so the
    draws do not depend on the thread count.

    >>> m = np.zeros((2, 130), bool); m[0, [3, 7]] = True
    >>> a = sample_masks(m, np.array([1, 2], np.int64))
    >>> int(a[0]) in (3, 7), int(a[1])
    (True, -1)
    """
    m = np.asarray(legal_mask)
    if m.ndim != 2 or m.dtype != np.bool_:
        raise ValueError(f"legal_mask must be a 2-d bool array, got {m.dtype} {m.shape}")
    if not isinstance(rng, np.ndarray) or rng.dtype != np.int64 or rng.shape != (m.shape[0],):
        raise ValueError(f"rng must be an int64 array of shape ({m.shape[0]},) (one stream per row)")
    if out is None:
        out = np.empty(m.shape[0], dtype=np.int64)
    _kv().sample_masks(np.ascontiguousarray(m), rng, out)
    return out
