"""Train the DMC player (:mod:`agents.players.dmc`) by Deep Monte-Carlo self-play on the vectorised environment.

    skatsim train-dmc --config experiments/configs/train_dmc_small.json

(``python experiments/train_dmc.py ...`` in a checkout is the same command; ``main`` here is
both.)

Deep Monte-Carlo (DouZero, SkatZero): epsilon-greedy actors play games on a
:class:`skatsim.vec.VecEnv`; every decision of the learned phases becomes a row
``(observation, action, return)`` where the return is the seat's final Seeger-Fabian
result (Skat pays only at the end, so the Monte-Carlo return of every decision of a seat is
the game's score for that seat); the Q network (:func:`agents.players.dmc.DMCNet`, one forward
pass scores all 130 actions) regresses ``Q(obs, action)`` onto it (mean squared error).

``learn``: ``"play"`` (milestone 1: the learner plays the cards; bidding, skat, discard and
declaration are the rule-based player's, computed for all games at once by
:func:`agents.players.dmc.rule_based_actions`) or ``"all"`` (every phase learned).

The config (JSON, every key checked before any work; ``--set key.sub=value`` overrides):

- ``learn``, ``seed``, ``study``;
- ``model``: ``hidden`` sizes; ``init``: a checkpoint to start from (warm start);
- ``actors``: ``games`` (VecEnv slots per actor), ``epsilon`` (exploration), ``steps``
  (environment steps per actor and round), ``mix`` (share of games with 3 learners, with
  1 learner + 2 rule-based, with 2 learners + 1 rule-based), ``demo`` (with ``learn="all"``: share
  of games whose early decisions the rule-based player takes for the learner, rows kept: Monte-Carlo
  returns of sensible bids, against the collapse into passing every hand), ``threads`` (numba), ``ray``
  (``count`` Ray actors when ``--address`` is given);
- ``train``: ``frames`` (learner rows to train on), ``lr``, ``batch_size``, ``reuse``
  (passes over each round's rows), ``threads`` (torch), ``scale`` (returns / scale);
- ``eval``: ``every_frames``, ``deals`` (duplicate boards against ``opponent``), ``seed``;
- ``checkpoint_seconds``; ``out.runs_dir``.

A run writes ``<runs_dir>/<study>__<seed>__<time>/`` (under the current folder):
``manifest.json``, ``checkpoint.pt`` (network, optimiser, counters; every
``checkpoint_seconds`` and at every evaluation), ``model.pt`` + ``model.json`` (the latest
network as a :mod:`agents.players.dmc` checkpoint), ``log.parquet`` (one row per round: frames,
games, seconds, frames/s, loss, and the evaluations), ``curve.png``; with ``--tensorboard DIR``
the same rows as TensorBoard scalars in ``DIR/<run name>``, written as they come. ``--resume RUN`` goes
on from the checkpoint; ``--ship NAME`` copies the final model to ``agents/models/NAME``
(refused if it exists, unless ``--force``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # numba's and torch's OpenMP pools share 2 cores

import numpy as np
from numba import njit

from agents.learn.evaluation import duplicate
from agents.learn.runs import (ConfigError, TensorBoardLog, check_model_name, check_tensorboard, check_types,
                               merge_config, nested_config, ship_model)
from skatsim.layout import (F_BID, F_DEALT0, F_DEALT_SKAT, F_DECLARER, F_FLAGS, F_GAME, F_KONTRA, F_PHASE, F_PLAYER,
                            PH_PLAY)
from skatsim.rules import NULL
from skatsim.scoring import matadors_of, settle_core, sf_points
from skatsim.valuation import SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED

KIND = "training:dmc"

DEFAULTS: dict[str, Any] = {
    "study": "train_dmc",
    "seed": 0,
    "learn": "play",
    "targets": "returns",
    "solver": {"node_limit": 300_000},
    "model": {"hidden": [512, 256, 256], "init": None},
    "actors": {"games": 1024, "epsilon": 0.05, "steps": 64, "mix": [0.5, 0.25, 0.25], "demo": 0.0, "threads": 1,
               "ray": {"count": 2}},
    "train": {"frames": 2_000_000, "lr": 3e-4, "batch_size": 2048, "reuse": 1, "threads": 2, "scale": 100.0,
              "advantage_weight": 0.0},
    "eval": {"every_frames": 1_000_000, "deals": 500, "seed": 9001, "opponent": "rule_based"},
    "checkpoint_seconds": 300,
    "out": {"runs_dir": "runs"},
}
LEARN = ("play", "all")
TARGETS = ("returns", "solver")
_RUN: dict[str, str] = {}
#: ``main``'s Ctrl-C / ``kill`` handler defers a signal that arrives while a checkpoint is being
#: written (``saving``) to the end of that write (``pending``): a half-written save (a module
#: half imported, a file half moved) would break the save the interruption then makes.
_SIGNALS = {"saving": False, "pending": False}


def check_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """Refuse a config that cannot train, before any work (a :class:`ConfigError` naming the entry)."""
    check_types(cfg, DEFAULTS)
    if cfg["learn"] not in LEARN:
        raise ConfigError(f"learn must be one of {LEARN}, got {cfg['learn']!r}")
    if cfg["targets"] not in TARGETS:
        raise ConfigError(f"targets must be one of {TARGETS}, got {cfg['targets']!r}")
    if cfg["targets"] == "solver" and cfg["learn"] != "play":
        raise ConfigError("targets='solver' labels the card play only: use learn='play'")
    if cfg["solver"]["node_limit"] < 1:
        raise ConfigError("solver.node_limit must be positive")
    h = cfg["model"]["hidden"]
    if not 1 <= len(h) <= 3 or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in h):
        raise ConfigError(f"model.hidden must be 1 to 3 positive ints, got {h!r}")
    if cfg["model"]["init"] is not None:
        from agents.players.dmc import load_net

        try:
            _, meta = load_net(cfg["model"]["init"])
        except (ValueError, OSError) as err:
            raise ConfigError(f"model.init: {err}") from None
        if list(meta["hidden"]) != list(h):
            raise ConfigError(f"model.init has hidden sizes {meta['hidden']}, model.hidden is {h}")
    a, t, e = cfg["actors"], cfg["train"], cfg["eval"]
    if a["games"] < 1 or a["steps"] < 1 or a["threads"] < 1:
        raise ConfigError("actors.games, actors.steps and actors.threads must be positive")
    if not 0 <= a["demo"] <= 1:
        raise ConfigError(f"actors.demo must be in [0, 1], got {a['demo']}")
    if not 0 <= a["epsilon"] <= 1:
        raise ConfigError(f"actors.epsilon must be in [0, 1], got {a['epsilon']}")
    mix = a["mix"]
    bad = any(isinstance(x, bool) or not isinstance(x, (int, float)) or x < 0 for x in mix)
    if len(mix) != 3 or bad or sum(mix) <= 0:
        raise ConfigError(f"actors.mix must be 3 non-negative weights (3 learners, 1 learner, 2 learners), got {mix!r}")
    if a["ray"]["count"] < 1:
        raise ConfigError("actors.ray.count must be positive")
    for k in ("frames", "batch_size", "reuse", "threads"):
        if t[k] < 1:
            raise ConfigError(f"train.{k} must be positive, got {t[k]}")
    if t["lr"] <= 0 or t["scale"] <= 0:
        raise ConfigError("train.lr and train.scale must be positive")
    if e["every_frames"] < 0 or e["deals"] < 0:
        raise ConfigError("eval.every_frames and eval.deals must not be negative")
    from agents.arena.base import AgentSpec

    try:
        AgentSpec.coerce(e["opponent"])
    except (ValueError, TypeError, KeyError) as err:
        raise ConfigError(f"eval.opponent: {err}") from None
    return cfg


def load_config(path: str | None, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """The defaults, then the JSON file ``path``, then ``key.sub=value`` overrides; checked."""
    cfg = nested_config(DEFAULTS, path, overrides)
    return check_config(cfg)


# ----------------------------------------------------------------------------- actors


def _policy_rows(n: int, mix: Sequence[float], seed: int) -> tuple[list[list[Any]], np.ndarray]:
    """Per slot: who plays each seat (``None`` the learner) and a bool (n, 3) learner mask."""
    w = np.asarray(mix, np.float64) / float(sum(mix))
    counts = np.floor(w * n).astype(int)
    counts[0] += n - counts.sum()
    kinds = np.repeat(np.arange(3), counts)
    rows: list[list[Any]] = []
    learner = np.zeros((n, 3), np.bool_)
    for i, k in enumerate(kinds.tolist()):
        s = (i + seed) % 3
        r: list[str | None]
        if k == 0:
            r = [None, None, None]
        elif k == 1:  # one learner in seat s
            r = ["rule_based"] * 3
            r[s] = None
        else:  # one rule-based player in seat s
            r = [None, None, None]
            r[s] = "rule_based"
        rows.append(r)
        learner[i] = [x is None for x in r]
    return rows, learner


class Actor:
    """Plays epsilon-greedy games on a VecEnv with a copy of the network and returns the
    learned phases' rows. The same class runs in the learner's process or as a Ray actor."""

    def __init__(self, cfg: dict[str, Any], index: int, remote: bool = False, start_round: int = 0) -> None:
        import torch

        if remote:  # a Ray actor: one core (the learner's process keeps its own thread setting)
            torch.set_num_threads(int(cfg["actors"]["threads"]))

        from agents.players.dmc import DMCNet
        from skatsim.bits import derive_seed
        from skatsim.vec import TrajectoryBuffer, VecEnv

        self.cfg = cfg
        a = cfg["actors"]
        self.learn_all = cfg["learn"] == "all"
        self.delegated = () if self.learn_all else ("bidding", "skat", "discard", "declare")
        self.eps = float(a["epsilon"])
        self.steps = int(a["steps"])
        # a resumed run (start_round > 0) deals a fresh stream, not the deals of its first rounds again
        seed = derive_seed(int(cfg["seed"]), 1000 + index) if start_round == 0 else \
            derive_seed(derive_seed(int(cfg["seed"]), 1000 + index), start_round)
        n = int(a["games"])
        rows, self.learner = _policy_rows(n, a["mix"], index)
        self.env = VecEnv(n, seed=seed, reward="sf", policies=rows, threads=int(a["threads"]))
        self.solver_targets = cfg["targets"] == "solver"
        if self.solver_targets:
            from skatsim.solver import Solver

            self.solver = Solver()
            self.node_limit = int(cfg["solver"]["node_limit"])
        else:
            self.buf = TrajectoryBuffer(self.steps + 200, n)
            self.env.record(self.buf)
        self.env.reset()
        self.gen = np.random.default_rng(seed & 0x7FFF_FFFF_FFFF_FFFF)
        self.net = DMCNet(tuple(cfg["model"]["hidden"])).eval()
        self.acts = np.empty(n, np.int64)
        self.demo = np.zeros(n, np.bool_)  # slots whose early decisions are the rule-based player's
        if self.learn_all and a["demo"] > 0:
            self.demo[self.gen.permutation(n)[:int(round(float(a["demo"]) * n))]] = True
        self.early = ("bidding", "skat", "discard", "declare")
        self._rb = np.empty(n, np.int64)
        self._torch = torch

    def set_weights(self, state: dict[str, Any]) -> None:
        torch = self._torch
        self.net.load_state_dict({k: v.clone() if isinstance(v, torch.Tensor) else torch.from_numpy(np.array(v))
                                  for k, v in state.items()})

    def collect(self, state: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
        """``steps`` environment steps; the finished games' rows of the learned phases:
        ``obs`` (canonical), ``action``, ``mask``, ``ret`` (SF points), ``role``, plus
        ``games`` finished and the mean learner return."""
        from agents.players.dmc import PHASES, canonical, greedy, phase_of_rows, role_of_rows, rule_based_actions
        from skatsim.vec import sample_masks

        torch = self._torch
        if state is not None:
            self.set_weights(state)
        env, acts = self.env, self.acts
        games = 0
        cap: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # solver targets: obs, mask, state
        finished: list[np.ndarray] = []
        for _ in range(self.steps):
            if self.delegated:
                rule_based_actions(env, self.delegated, out=acts)
            else:
                acts[:] = -1
                if self.demo.any():
                    rule_based_actions(env, self.early, out=self._rb)
                    acts[self.demo] = self._rb[self.demo]
            idx = np.flatnonzero((acts < 0) & (env.to_move >= 0))
            if len(idx):
                obs = env.obs[idx]
                mask = env.legal_mask[idx]
                with torch.inference_mode():
                    q = self.net(torch.from_numpy(canonical(obs))).numpy()
                a = greedy(q, mask)
                ex = np.flatnonzero(self.gen.random(len(idx)) < self.eps)
                if len(ex):
                    a[ex] = sample_masks(np.ascontiguousarray(mask[ex]),
                                         self.gen.integers(1, 2**62, len(ex), dtype=np.int64))
                acts[idx] = a
                if self.solver_targets:
                    sel = (env.state[idx, F_PHASE] == PH_PLAY) & (mask.sum(axis=1) > 1)
                    if sel.any():
                        cap.append((obs[sel], mask[sel], env.state[idx[sel]].copy()))
            out = env.step(acts)
            games += int(out.done.sum())
            if self.solver_targets and out.done.any():
                finished.append(out.rewards[out.done][self.learner[out.done]])
        if self.solver_targets:
            return self._solver_rows(cap, games, finished)
        tr = self.buf.take()
        ph = phase_of_rows(tr.obs)
        keep = np.ones(len(tr), np.bool_) if self.learn_all else ph == PHASES.index("play")
        keep &= tr.legal_mask.sum(axis=1) > 1  # a forced move teaches nothing
        return {"obs": canonical(tr.obs[keep]), "action": tr.action[keep].astype(np.int64),
                "mask": tr.legal_mask[keep], "ret": tr.reward_to_go[keep].astype(np.float32),
                "role": role_of_rows(tr.obs[keep]).astype(np.int8), "phase": ph[keep].astype(np.int8),
                "games": np.array([games]),
                "mean_return": np.array([float(tr.reward_to_go[tr.last].mean()) if tr.last.any() else 0.0])}


    def _solver_rows(self, cap: list[tuple[np.ndarray, np.ndarray, np.ndarray]], games: int,
                     finished: list[np.ndarray]) -> dict[str, np.ndarray]:
        """Card-play rows labelled by the open-hand solver on the true deal: ``target`` holds,
        for every legal card, the mover's Seeger-Fabian score if everybody plays open-handed
        from there (:func:`solver_labels`); ``ret`` is the best of them (the position's value)."""
        from agents.players.dmc import canonical, role_of_rows

        if cap:
            obs = np.concatenate([c[0] for c in cap])
            mask = np.concatenate([c[1] for c in cap])
            st = np.concatenate([c[2] for c in cap])
        else:
            obs = np.zeros((0, self.env.obs.shape[1]), np.float32)
            mask = np.zeros((0, self.env.legal_mask.shape[1]), np.bool_)
            st = np.zeros((0, self.env.state.shape[1]), np.int64)
        vals = self.solver.state_values(st, node_limit=self.node_limit)
        ok = ~(vals == -2).any(axis=1)  # positions over the node budget are dropped
        obs, mask, st, vals = obs[ok], mask[ok], st[ok], vals[ok]
        target = np.zeros(mask.shape, np.float32)
        solver_labels(st, vals, target)
        best = np.where(mask, target, -np.inf).max(axis=1) if len(target) else np.zeros(0, np.float32)
        fin = np.concatenate(finished) if finished else np.zeros(0)
        return {"obs": canonical(obs), "action": np.zeros(len(obs), np.int64), "mask": mask,
                "target": target, "ret": best.astype(np.float32), "role": role_of_rows(obs).astype(np.int8),
                "phase": np.full(len(obs), 5, np.int8), "games": np.array([games]),
                "dropped": np.array([int((~ok).sum())]),
                "mean_return": np.array([float(fin.mean()) if len(fin) else 0.0])}


@njit(cache=True)
def solver_labels(st: np.ndarray, vals: np.ndarray, out: np.ndarray) -> None:
    """``out[i, c]``: the Seeger-Fabian score of the seat to move in state ``st[i]`` if it
    plays card ``c`` and the declarer then reaches his announced goal (``vals[i, c] == 1``) or
    not (``0``), settled by :func:`skatsim.scoring.settle_core` at the goal's edge (no
    schneider beyond the announced one); other entries are left as they are."""
    for i in range(st.shape[0]):
        s = st[i]
        g, f, d, p = s[F_GAME], s[F_FLAGS], s[F_DECLARER], s[F_PLAYER]
        mat = matadors_of(s[F_DEALT0 + d] | s[F_DEALT_SKAT], g)
        if g == NULL:
            wp, wt, lp, lt = 0, 0, 0, 1
        elif f & SCHWARZ_ANNOUNCED:
            wp, wt, lp, lt = 120, 10, 100, 9
        elif f & SCHNEIDER_ANNOUNCED:
            wp, wt, lp, lt = 90, 7, 89, 6
        else:
            wp, wt, lp, lt = 61, 5, 60, 5
        r = settle_core(g, f, mat, s[F_BID], wp, wt, s[F_KONTRA])
        win = sf_points(r[0], r[7], p, d)
        r = settle_core(g, f, mat, s[F_BID], lp, lt, s[F_KONTRA])
        lose = sf_points(r[0], r[7], p, d)
        for c in range(32):
            if vals[i, c] == 1:
                out[i, c] = win
            elif vals[i, c] == 0:
                out[i, c] = lose


def solver_loss(q: Any, target: Any, mask: Any, advantage_weight: float = 0.0) -> Any:
    """Mean squared error of ``Q`` against the solver's labels over the legal cards, plus
    ``advantage_weight`` times that of the *centred* values (each row minus its mean over the
    legal cards): most positions' cards are all worth the same, so the plain error is mostly
    the position's value, while play depends only on the differences between the cards."""
    import torch

    d = (q - target) * mask
    n = torch.clamp(mask.sum(), min=1.0)
    loss = torch.sum(d ** 2) / n
    if advantage_weight > 0:
        k = torch.clamp(mask.sum(dim=1, keepdim=True), min=1.0)
        c = (d - d.sum(dim=1, keepdim=True) / k) * mask
        loss = loss + advantage_weight * torch.sum(c ** 2) / n
    return loss


def dd_agreement(q: np.ndarray, target: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    """How the greedy card of ``q`` fares by the solver's labels, over the positions whose
    legal cards differ in value: share of optimal choices and the mean loss (SF points)."""
    t = np.where(mask, target, -np.inf)
    best = t.max(axis=1)
    differ = np.where(mask, target, np.inf).min(axis=1) < best
    pick = np.argmax(np.where(mask, q, -np.inf), axis=1)
    got = target[np.arange(len(target)), pick]
    if not differ.any():
        return {"dd_optimal": math.nan, "dd_regret": math.nan, "dd_positions": 0}
    return {"dd_optimal": float((got == best)[differ].mean()), "dd_regret": float((best - got)[differ].mean()),
            "dd_positions": int(differ.sum())}


# ----------------------------------------------------------------------------- training


def _model_meta(cfg: dict[str, Any], frames: int, games: int, seconds: float) -> dict[str, Any]:
    return {"learn": cfg["learn"], "train_config": cfg, "frames": int(frames), "games": int(games),
            "seconds": round(seconds, 1), "reward": "sf", "scale": cfg["train"]["scale"]}


def _phases(cfg: dict[str, Any]) -> tuple[str, ...]:
    from agents.players.dmc import PHASES

    # Kontra/Re: the training rules (ISkO) have none, so the model never learns it; a delegate decides
    return tuple(p for p in PHASES if p != "kontra") if cfg["learn"] == "all" else ("play",)


def plot_curve(log: Any, path: Path, title: str) -> None:
    """Evaluation margin (with 95% intervals) and training loss against frames."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    ev = log[log["eval_margin"].notna()] if "eval_margin" in log else log.iloc[:0]
    if len(ev):
        a1.errorbar(ev["frames"] / 1e6, ev["eval_margin"], yerr=ev["eval_margin_ci"], fmt="o-", capsize=3)
    a1.axhline(0, color="k", lw=0.8)
    a1.set_xlabel("frames (millions)")
    a1.set_ylabel("duplicate margin vs opponent (SF/game)")
    a1.set_title(title)
    a2.plot(log["frames"] / 1e6, log["loss"], lw=0.8)
    a2.set_yscale("log")
    a2.set_xlabel("frames (millions)")
    a2.set_ylabel("MSE loss (returns / scale)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _actor_pool(cfg: dict[str, Any], address: str | None, start_round: int = 0) -> tuple[list[Any], bool]:
    if address is None:
        return [Actor(cfg, 0, start_round=start_round)], False
    import ray

    if not ray.is_initialized():
        import signal

        # ray.init installs its own SIGTERM handler, which ends the process at once: keep ours
        # (``kill PID`` writes the checkpoint, on Ray as without it)
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
        ray.init(address=None if address == "local" else address, ignore_reinit_error=True,
                 num_cpus=int(cfg["actors"]["ray"]["count"]) if address == "local" else None)
        for sig, h in handlers.items():
            if callable(h):
                signal.signal(sig, h)
    remote = ray.remote(num_cpus=1)(Actor)
    return [remote.remote(cfg, i, True, start_round) for i in range(int(cfg["actors"]["ray"]["count"]))], True


def train(cfg: dict[str, Any], *, resume: str | None = None, address: str | None = None,
          progress: bool = True, tensorboard: str | None = None) -> dict[str, Any]:
    """Run (or resume) one training; returns a summary dict (run directory, frames, hours,
    frames/s, last evaluation). ``tensorboard``: a folder; the log's rows also go to
    TensorBoard in ``tensorboard/<run name>`` as they come (:class:`agents.learn.runs.TensorBoardLog`,
    step: frames)."""
    import pandas as pd
    import torch

    from agents.players.dmc import DMCNet, load_net, save_checkpoint
    from skatsim.runs import atomic_path, write_manifest

    seed = int(cfg["seed"])
    tc = cfg["train"]
    torch.manual_seed(seed)
    torch.set_num_threads(int(tc["threads"]))
    if resume is None:
        from skatsim.runs import new_run_dir

        run = new_run_dir(cfg["study"], seed, cfg["out"]["runs_dir"])
        write_manifest(run, KIND, cfg, argv=sys.argv, status="running")
    else:
        run = Path(resume)
    _RUN["dir"] = str(run)
    print(f"training run: {run}", file=sys.stderr)

    net = DMCNet(tuple(cfg["model"]["hidden"]))
    if cfg["model"]["init"]:
        init, _ = load_net(cfg["model"]["init"])
        net.load_state_dict(init.state_dict())
    opt = torch.optim.Adam(net.parameters(), lr=float(tc["lr"]))
    frames = games = rounds = 0
    seconds = 0.0
    log: list[dict[str, Any]] = []
    next_eval = 0 if cfg["eval"]["every_frames"] else math.inf
    ck_path = run / "checkpoint.pt"
    if resume is not None and ck_path.is_file():
        ck = torch.load(ck_path, map_location="cpu", weights_only=True)
        net.load_state_dict(ck["net"])
        opt.load_state_dict(ck["opt"])
        frames, games, rounds, seconds = int(ck["frames"]), int(ck["games"]), int(ck["rounds"]), float(ck["seconds"])
        next_eval = float(ck["next_eval"])
        if (run / "log.parquet").is_file():
            log = pd.read_parquet(run / "log.parquet").to_dict("records")
        print(f"resuming at {frames:,} frames ({rounds} rounds)", file=sys.stderr)

    tb = TensorBoardLog(tensorboard, run, step="frames")

    def record(row: dict[str, Any]) -> None:
        log.append(row)
        tb.write(row)

    actors, is_ray = _actor_pool(cfg, address, rounds)
    bs, scale, reuse = int(tc["batch_size"]), float(tc["scale"]), int(tc["reuse"])
    gen = np.random.default_rng([seed, rounds])
    phases = _phases(cfg)
    eval_model = run / "eval" / "model"

    def save(final: bool = False, interrupted: bool = False) -> None:
        _SIGNALS["saving"] = True
        try:
            with atomic_path(ck_path) as tmp:
                torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "frames": frames, "games": games,
                            "rounds": rounds, "seconds": seconds,
                            "next_eval": next_eval if math.isfinite(next_eval) else -1.0}, tmp)
            save_checkpoint(net, run / "model", phases=phases, **_model_meta(cfg, frames, games, seconds))
            if log:
                df = pd.DataFrame(log)
                with atomic_path(run / "log.parquet") as tmp:
                    df.to_parquet(tmp)
                plot_curve(df, run / "curve.png", f"DMC ({cfg['learn']}) vs {cfg['eval']['opponent']}")
        finally:
            _SIGNALS["saving"] = False
        if _SIGNALS["pending"]:
            _SIGNALS["pending"] = False
            if not interrupted:  # the signal that came during the write: stop now, the save is whole
                raise KeyboardInterrupt

    held: dict[str, np.ndarray] = {}

    def evaluate() -> dict[str, float]:
        save_checkpoint(net, eval_model, phases=phases, **_model_meta(cfg, frames, games, seconds))
        t = time.perf_counter()
        r = duplicate(("dmc", {"model": str(eval_model)}), cfg["eval"]["opponent"], int(cfg["eval"]["deals"]),
                      int(cfg["eval"]["seed"]))
        if cfg["targets"] == "solver":  # and the card choices on held-out solver-labelled positions
            if not held:
                held.update(Actor(merge_config(cfg, {"actors": {"epsilon": 0.0}}), 10_000).collect())
            with torch.inference_mode():
                q = net(torch.from_numpy(held["obs"])).numpy()
            r.update(dd_agreement(q, held["target"], held["mask"]))
        r["eval_seconds"] = time.perf_counter() - t
        return r

    last_ck = time.perf_counter()
    target = int(tc["frames"])
    t_round = time.perf_counter()
    try:
        while frames < target:
            if frames >= next_eval and cfg["eval"]["deals"]:
                r = evaluate()
                dd = (f"; open-hand optimal card {r['dd_optimal']:.1%}, loss {r['dd_regret']:.1f} SF where cards "
                      f"differ" if "dd_optimal" in r else "")
                print(f"eval @ {frames:,} frames: {r['margin']:+.2f} ± {r['margin_ci']:.2f} SF/game vs "
                      f"{cfg['eval']['opponent']} ({r['boards']} boards; declarer {r['declarer_sf']:+.1f}, "
                      f"defender {r['defender_sf']:+.1f} SF/game{dd}, {r['eval_seconds']:.0f} s)", flush=True)
                record({"round": rounds, "frames": frames, "games": games, "seconds": seconds,
                        "frames_per_s": math.nan, "loss": math.nan, "mean_return": math.nan,
                        **{f"eval_{k}": v for k, v in r.items()}})
                next_eval = frames + int(cfg["eval"]["every_frames"])
                save()
                t_round = time.perf_counter()
            sd = {k: v.detach().clone() for k, v in net.state_dict().items()}
            if is_ray:
                import ray

                ref = ray.put({k: v.numpy() for k, v in sd.items()})
                parts = ray.get([a.collect.remote(ref) for a in actors])
            else:
                parts = [actors[0].collect(sd)]
            data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
            m = len(data["action"])
            X = torch.from_numpy(data["obs"])
            A = torch.from_numpy(data["action"])
            G = torch.from_numpy(data["ret"] / scale)
            if "target" in data:  # solver targets: every legal card has its label
                TG = torch.from_numpy(data["target"] / scale)
                TM = torch.from_numpy(data["mask"].astype(np.float32))
                aw = float(tc["advantage_weight"])
            net.train()
            tot, nb = 0.0, 0
            for _ in range(reuse):
                perm = torch.from_numpy(gen.permutation(m))
                for s in range(0, m, bs):
                    b = perm[s:s + bs]
                    if "target" in data:
                        loss = solver_loss(net(X[b]), TG[b], TM[b], aw)
                    else:
                        q = net(X[b]).gather(1, A[b, None])[:, 0]
                        loss = torch.mean((q - G[b]) ** 2)
                    opt.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(net.parameters(), 40.0)
                    opt.step()
                    tot += float(loss.detach())
                    nb += 1
            net.eval()
            frames += m
            g = int(data["games"].sum())
            games += g
            rounds += 1
            now = time.perf_counter()
            dt = now - t_round
            t_round = now
            seconds += dt
            row = {"round": rounds, "frames": frames, "games": games, "seconds": seconds,
                   "frames_per_s": m / dt if dt > 0 else math.nan, "loss": tot / max(nb, 1),
                   "mean_return": float(data["mean_return"].mean())}
            if "dropped" in data:
                row["dropped"] = int(data["dropped"].sum())
            for role, name in ((0, "declarer"), (1, "defender")):
                sel = data["role"] == 0 if role == 0 else data["role"] != 0
                row[f"ret_{name}"] = float(data["ret"][sel].mean()) if sel.any() else math.nan
            record(row)
            if progress and rounds % 10 == 0:
                print(f"round {rounds}: {frames:,} frames, {games:,} games, {row['frames_per_s']:,.0f} frames/s, "
                      f"loss {row['loss']:.4f}", flush=True)
            if now - last_ck >= float(cfg["checkpoint_seconds"]):
                save()
                last_ck = time.perf_counter()
        if cfg["eval"]["deals"]:
            r = evaluate()
            print(f"final eval @ {frames:,} frames: {r['margin']:+.2f} ± {r['margin_ci']:.2f} SF/game vs "
                  f"{cfg['eval']['opponent']} ({r['boards']} boards)", flush=True)
            record({"round": rounds, "frames": frames, "games": games, "seconds": seconds,
                    "frames_per_s": math.nan, "loss": math.nan, "mean_return": math.nan,
                    **{f"eval_{k}": v for k, v in r.items()}})
        save(final=True)
    except KeyboardInterrupt:
        save(interrupted=True)
        raise
    finally:
        tb.close()
    from skatsim.runs import read_manifest

    man = read_manifest(run)
    write_manifest(run, KIND, man["config"], argv=man.get("argv"), status="complete", frames=frames, games=games,
                   seconds=round(seconds, 1))
    ev = [r for r in log if isinstance(r.get("eval_margin"), float) and not math.isnan(r["eval_margin"])]
    return {"run_dir": str(run), "frames": frames, "games": games, "seconds": seconds,
            "frames_per_s": frames / seconds if seconds else math.nan, "last_eval": ev[-1] if ev else None}


def ship(run: str | Path, name: str, *, force: bool = False) -> Path:
    """Copy a run's ``model.pt`` / ``model.json`` to ``agents/models/NAME`` (refused if that
    model exists, unless ``force``) and its learning curve to ``NAME_curve.png``
    (:func:`agents.learn.runs.ship_model`)."""
    from agents.players.dmc import default_model_path

    return ship_model(run, name, plot="curve", agent="dmc", default=default_model_path(), force=force)


def _check_ship_name(name: str, force: bool) -> None:
    from agents.players.dmc import default_model_path

    check_model_name(name, force, "dmc", default_model_path())


def main(argv: Sequence[str] | None = None, prog: str = "train_dmc.py") -> int:
    ap = argparse.ArgumentParser(prog=prog, description="Train the DMC Skat player by Deep Monte-Carlo self-play.")
    ap.add_argument("--config", help="JSON config (e.g. experiments/configs/train_dmc_small.json)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a config entry, e.g. --set train.frames=200000 (checked before any work)")
    ap.add_argument("--out", metavar="DIR", default=None,
                    help="folder of the run directories (relative to the current one; default: out.runs_dir, runs)")
    ap.add_argument("--resume", metavar="RUN", default=None,
                    help="go on with the training in run directory RUN (--set train.frames=N raises its budget)")
    ap.add_argument("--ship", metavar="NAME", default=None,
                    help="after training (or, with --resume of a finished run, at once) copy the model to "
                         "agents/models/NAME (dmc:model=agents/models/NAME loads it)")
    ap.add_argument("--force", action="store_true", help="with --ship: replace an existing model of that name")
    ap.add_argument("--address", default=None,
                    help="run the actors on Ray: a cluster address ('auto', 'ray://host:10001') or 'local'")
    ap.add_argument("--tensorboard", metavar="DIR", default=None,
                    help="also write the log's rows (loss, frames/s, returns, evaluations; step: frames) as "
                         "TensorBoard scalars to DIR/<run name>, as they come: tensorboard --logdir DIR "
                         "(needs the tensorboard package: pip install \"skatsim[tensorboard]\")")
    ap.add_argument("--no-progress", action="store_true", help="no progress lines")
    a = ap.parse_args(argv)
    try:
        if a.tensorboard:
            check_tensorboard()
        if a.force and not a.ship:
            raise ConfigError("--force needs --ship NAME")
        if a.ship:
            _check_ship_name(a.ship, a.force)
        if a.resume:
            if a.config or any(not o.startswith("train.frames=") for o in a.set):
                raise ConfigError("--resume RUN trains with the config of RUN's manifest; give no --config, and "
                                  "no --set but train.frames=N (a larger budget)")
            from skatsim.runs import read_manifest, write_manifest

            man = read_manifest(a.resume)
            if man.get("kind") != KIND:
                raise ConfigError(f"{a.resume!r} holds a {man.get('kind')} run, not a DMC training")
            cfg = check_config(merge_config(DEFAULTS, man["config"]))
            if a.set:  # go on past the old budget: the manifest records the new one
                budget = load_config(None, a.set[-1:])["train"]["frames"]
                if budget <= cfg["train"]["frames"]:
                    raise ConfigError(f"train.frames={budget} is not above the run's budget "
                                      f"{cfg['train']['frames']}")
                cfg["train"]["frames"] = budget
                write_manifest(a.resume, KIND, cfg, argv=sys.argv, status="running")
            elif man.get("status") == "complete":
                print(f"{a.resume} is a finished training", file=sys.stderr)
                if a.ship:
                    print(f"model shipped to {ship(a.resume, a.ship, force=a.force)}")
                return 0
        else:
            cfg = load_config(a.config, a.set)
            if a.out:
                cfg["out"]["runs_dir"] = a.out
    except (ValueError, FileExistsError, FileNotFoundError) as e:  # ConfigError, or no run directory
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    import signal

    def _stop(signum: int, frame: Any) -> None:
        if _SIGNALS["saving"]:  # finish the checkpoint first (see _SIGNALS)
            _SIGNALS["pending"] = True
            return
        raise KeyboardInterrupt

    _SIGNALS.update(saving=False, pending=False)
    old = signal.signal(signal.SIGINT, _stop)  # Ctrl-C, also in a background job (nohup ... &)
    old_term = signal.signal(signal.SIGTERM, _stop)  # kill PID: the checkpoint is written, as with Ctrl-C
    try:
        s = train(cfg, resume=a.resume, address=a.address, progress=not a.no_progress, tensorboard=a.tensorboard)
    except KeyboardInterrupt:
        print(f"\ninterrupted; the checkpoint is kept: resume with {prog} --resume {_RUN.get('dir')}", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGINT, old)
        signal.signal(signal.SIGTERM, old_term)
    print(f"run: {s['run_dir']}")
    print(f"{s['frames']:,} frames, {s['games']:,} games in {s['seconds'] / 3600:.2f} h "
          f"({s['frames_per_s']:,.0f} frames/s)")
    if s["last_eval"]:
        ev = s["last_eval"]
        print(f"last evaluation: {ev['eval_margin']:+.2f} ± {ev['eval_margin_ci']:.2f} SF/game vs "
              f"{cfg['eval']['opponent']} over {ev['eval_boards']} boards")
    print(f"the model plays as: dmc:model={s['run_dir']}/model")
    if a.ship:
        print(f"model shipped to {ship(s['run_dir'], a.ship, force=a.force)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
