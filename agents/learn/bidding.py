"""Train the bidding network (:mod:`agents.players.neural_bidding`) on simulated labels.

    skatsim train-bidding --config experiments/configs/train_bidding.json

(``python experiments/train_bidding.py ...`` in a checkout is the same command; ``main`` here
is both.)

The config (JSON) has four parts:

- ``data``: ``dirs`` (label directories of :mod:`agents.learn.bidding_data`); ``generate``
  (optional :class:`agents.learn.bidding_data.LabelConfig` fields: the first directory is
  generated, or resumed, with ``workers`` processes before training).
- ``model``: ``hidden`` sizes, ``dropout``.
- ``train``: ``val_fraction`` (split by deal), ``batch_size``, ``lr``, ``weight_decay``,
  ``max_epochs``, ``patience`` (early stopping on the validation log-loss),
  ``e_weight`` (weight of the expected-score loss), ``context_augment`` (share of rows whose
  bidding block is randomised: for unconditioned labels, which do not depend on it; use 0
  for auction-conditioned labels, whose ``bid_level`` fills the bid slot), ``threads``.
- ``seed``, ``study`` and ``out`` (``runs_dir``: the folder of run directories, relative to
  the current folder; default ``runs``).

A run writes ``<runs_dir>/<study>__<seed>__<time>/``: ``manifest.json`` (the config, versions,
commit and command line; :mod:`skatsim.runs`), ``metrics.json``,
``history.csv``, ``calibration.csv``, ``calibration.png``, ``model.pt`` + ``model.json``, and
``checkpoint.pt`` after every epoch (``--resume RUN`` goes on from it after a Ctrl-C or a
crash); with ``--tensorboard DIR`` each epoch's losses also as TensorBoard scalars in
``DIR/<run name>``, written as they come. It prints the validation metrics and the reliability table. Nothing is written
into the source tree: the shipped model (``agents/models/``) changes only with an explicit
``--ship NAME`` (``--force`` to replace an existing one).

Settings are checked before any work starts: every ``--set key=value`` against the
defaults' keys and types, ``--agent key=value`` against the neural bidder's parameters.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.learn.runs import (TensorBoardLog, check_model_name, check_tensorboard, check_types, merge_config,
                               nested_config, ship_model)

DEFAULTS: dict[str, Any] = {
    "study": "train_bidding",
    "seed": 0,
    "data": {"dirs": ["runs/bidding_data/rule_based_w16_s0"], "generate": None, "workers": 2},
    "model": {"hidden": [128, 128], "dropout": 0.0},
    "train": {"val_fraction": 0.1, "batch_size": 1024, "lr": 3e-3, "weight_decay": 1e-5, "max_epochs": 10,
              "patience": 3, "e_weight": 1.0, "context_augment": 0.5, "threads": 2, "max_rows": None},
    "out": {"runs_dir": "runs"},
}
_RUN: dict[str, str] = {}  # the run directory of the training in progress (for the Ctrl-C message)


def load_config(path: str | None, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """The defaults, the JSON file ``path`` and ``key.sub=value`` overrides (JSON values), checked."""
    cfg = nested_config(DEFAULTS, path, overrides)
    if cfg["data"].get("generate"):
        from agents.learn.bidding_data import LabelConfig

        LabelConfig.from_dict(cfg["data"]["generate"])  # refuses unknown or bad label settings now
    return cfg


def arrays(df: Any) -> tuple[np.ndarray, ...]:
    """Features, win targets, score targets (/100), per-contract weights, deal ids."""
    from agents.players.neural_bidding import encode_features
    from agents.learn.bidding_data import CONTRACTS

    ctx = None
    if "bid_level" in df and (df["bid_level"] > 0).any():  # auction-conditioned rows: the bid slot says at what bid
        ctx = np.zeros((len(df), 5), np.float32)
        ctx[:, 0] = df["bid_level"].to_numpy(np.float32) / 264.0
    x = encode_features(df["hand"].to_numpy(np.int64), df["seat"].to_numpy(np.int64), ctx)
    p = np.stack([df[f"p_{c}"].to_numpy(np.float32) for c in CONTRACTS], axis=1)
    e = np.stack([df[f"e_list_{c}"].to_numpy(np.float32) for c in CONTRACTS], axis=1) / 100.0
    nw = df["n_worlds"].to_numpy(np.float32)[:, None]
    w = np.stack([df[f"n_{c}"].to_numpy(np.float32) for c in CONTRACTS], axis=1) / nw
    return x, p, e, w, df["deal_index"].to_numpy(np.int64)


def _read(dirs: Sequence[str]) -> Any:
    """The label columns training needs (the per-world lists are left on disk)."""
    from agents.learn.bidding_data import CONTRACTS, read_labels

    cols = ["source", "deal_index", "seat", "hand", "n_worlds", "bid_level"]
    cols += [f"{k}_{c}" for c in CONTRACTS for k in ("p", "e_list", "n")]
    return read_labels(dirs, columns=cols)


def random_context(n: int, gen: np.random.Generator) -> np.ndarray:
    """Plausible bidding blocks (bid, passed next/prev, bids next/prev, all / 264)."""
    from skatsim.contracts import BID_VALUES

    ladder = np.array((0,) + BID_VALUES[:20], np.float32) / 264.0
    bid = ladder[gen.integers(0, len(ladder), n)]
    ctx = np.zeros((n, 5), np.float32)
    ctx[:, 0] = bid
    ctx[:, 1:3] = gen.integers(0, 2, (n, 2))
    ctx[:, 3:5] = bid[:, None] * gen.integers(0, 2, (n, 2))
    return ctx


def log_loss(p_pred: np.ndarray, p_true: np.ndarray, w: np.ndarray) -> float:
    q = np.clip(p_pred, 1e-6, 1 - 1e-6)
    ll = -(p_true * np.log(q) + (1 - p_true) * np.log(1 - q))
    return float((ll * w).sum() / w.sum())


def reliability(p_pred: np.ndarray, p_true: np.ndarray, w: np.ndarray, bins: int = 10) -> list[dict[str, Any]]:
    """Reliability table over every (hand, contract): per bin of predicted probability the
    mean prediction, the observed win rate (label) and the weight (worlds)."""
    pp, pt, ww = p_pred.ravel(), p_true.ravel(), w.ravel()
    edges = np.linspace(0, 1, bins + 1)
    idx = np.clip(np.digitize(pp, edges) - 1, 0, bins - 1)
    rows = []
    for b in range(bins):
        m = idx == b
        s = float(ww[m].sum())
        rows.append({"bin": f"{edges[b]:.1f}-{edges[b + 1]:.1f}", "n": int(m.sum()),
                     "predicted": float((pp[m] * ww[m]).sum() / s) if s else math.nan,
                     "observed": float((pt[m] * ww[m]).sum() / s) if s else math.nan})
    return rows


def plot_calibration(table: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pr = [r["predicted"] for r in table if r["n"]]
    ob = [r["observed"] for r in table if r["n"]]
    ns = [r["n"] for r in table if r["n"]]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 4))
    a1.plot([0, 1], [0, 1], "k--", lw=1, label="perfect")
    a1.plot(pr, ob, "o-", label="network")
    a1.set_xlabel("predicted win probability")
    a1.set_ylabel("observed (label) win rate")
    a1.set_title(title)
    a1.legend()
    a2.bar(range(len(ns)), ns)
    a2.set_yscale("log")
    a2.set_xlabel("bin")
    a2.set_ylabel("hand x contract pairs")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def train(cfg: dict[str, Any], *, progress: bool = True, resume: str | None = None,
          tensorboard: str | None = None) -> dict[str, Any]:
    """Run one training (see the module docstring); returns the metrics dict. ``resume``: a
    run directory of an interrupted training of the same config (it goes on from its last
    finished epoch). ``tensorboard``: a folder; every epoch's row of ``history.csv`` also goes
    to TensorBoard in ``tensorboard/<run name>`` as it comes (:class:`agents.learn.runs.TensorBoardLog`)."""
    import torch

    from agents.players.neural_bidding import BiddingNet, CONTEXT, save_checkpoint
    from agents.learn.bidding_data import CONTRACTS, LabelConfig, data_hash, generate

    t_start = time.perf_counter()
    seed = int(cfg["seed"])
    tc = cfg["train"]
    torch.manual_seed(seed)
    torch.set_num_threads(int(tc["threads"]))
    gen = np.random.default_rng(seed)
    dirs = [str(Path(d).resolve()) for d in cfg["data"]["dirs"]]
    if cfg["data"].get("generate"):
        generate(dirs[0], LabelConfig.from_dict(cfg["data"]["generate"]), workers=int(cfg["data"]["workers"]),
                 progress=progress)
    df = _read(dirs)
    if tc.get("max_rows"):
        df = df.iloc[:int(tc["max_rows"])]
    x, p, e, w, deals = arrays(df)
    ud = np.unique(deals)
    val_deals = set(gen.permutation(ud)[:max(1, int(len(ud) * float(tc["val_fraction"])))].tolist())
    is_val = np.array([d in val_deals for d in deals])
    tr, va = np.where(~is_val)[0], np.where(is_val)[0]

    if resume is None:
        from skatsim.runs import new_run_dir, write_manifest

        run = new_run_dir(cfg["study"], seed, cfg["out"]["runs_dir"])

        write_manifest(run, "training:bidding", cfg, argv=sys.argv, status="running")
    else:
        run = Path(resume)
    print(f"training run: {run}", file=sys.stderr)
    _RUN["dir"] = str(run)

    net = BiddingNet(tuple(cfg["model"]["hidden"]), float(cfg["model"]["dropout"]))
    opt = torch.optim.AdamW(net.parameters(), lr=float(tc["lr"]), weight_decay=float(tc["weight_decay"]))
    X, P, E, W = (torch.from_numpy(a) for a in (x, p, e, w))
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    huber = torch.nn.functional.smooth_l1_loss
    ew = float(tc["e_weight"])
    bs = int(tc["batch_size"])
    aug = float(tc["context_augment"])
    free = df["bid_level"].to_numpy() == 0

    def evaluate(idx: np.ndarray) -> tuple[float, float, np.ndarray]:
        net.eval()
        with torch.inference_mode():
            lg, ep = net(X[idx])
            pr = torch.sigmoid(lg).numpy()
            mae = float((np.abs(ep.numpy() - e[idx]) * 100 * w[idx]).sum() / w[idx].sum())
        return log_loss(pr, p[idx], w[idx]), mae, pr

    from tqdm.auto import tqdm

    history = []
    best, best_state, bad, start = math.inf, None, 0, 0
    ckpt_path = run / "checkpoint.pt"
    if resume is not None and ckpt_path.is_file():
        ck = torch.load(ckpt_path, weights_only=False, map_location="cpu")  # our own file: model, optimiser, rng
        net.load_state_dict(ck["net"])
        opt.load_state_dict(ck["opt"])
        gen.bit_generator.state = ck["gen"]
        torch.set_rng_state(ck["torch_rng"])
        history, best, bad, start = ck["history"], ck["best"], ck["bad"], ck["epoch"]
        best_state = ck["best_state"]
        print(f"resuming after epoch {start}", file=sys.stderr)
    epochs = int(tc["max_epochs"])
    tb = TensorBoardLog(tensorboard, run, step="epoch")
    bar = tqdm(range(start, epochs), desc="train", unit="epoch", disable=not progress, initial=start, total=epochs)
    for ep_i in bar:
        if bad >= int(tc["patience"]):
            break
        net.train()
        perm = tr[gen.permutation(len(tr))]
        tot = 0.0
        for a in range(0, len(perm), bs):
            b = perm[a:a + bs]
            xb = X[b].clone()
            if aug:
                m = (gen.random(len(b)) < aug) & free[b]  # conditioned rows keep their bid level
                if m.any():
                    xb[torch.from_numpy(m), CONTEXT] = torch.from_numpy(random_context(int(m.sum()), gen))
            lg, epred = net(xb)
            loss = (bce(lg, P[b], weight=W[b], reduction="sum") + ew * (huber(epred, E[b], reduction="none")
                                                                        * W[b]).sum()) / W[b].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(b)
        vll, vmae, _ = evaluate(va)
        history.append({"epoch": ep_i + 1, "train_loss": tot / len(tr), "val_log_loss": vll, "val_e_mae": vmae})
        tb.write(history[-1])
        bar.set_postfix_str(f"val log-loss {vll:.4f}, E MAE {vmae:.1f}")
        if vll < best - 1e-5:
            best, bad = vll, 0
            best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
        else:
            bad += 1
        from skatsim.runs import atomic_path

        with atomic_path(ckpt_path) as tmp:  # after every epoch: a Ctrl-C loses at most the epoch in progress
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "gen": gen.bit_generator.state,
                        "torch_rng": torch.get_rng_state(), "history": history, "best": best, "bad": bad,
                        "epoch": ep_i + 1, "best_state": best_state}, tmp)
        if bad >= int(tc["patience"]):
            break
    bar.close()
    tb.close()
    if best_state is not None:
        net.load_state_dict(best_state)
    vll, vmae, pr = evaluate(va)
    base_p = (p[tr] * w[tr]).sum(0) / w[tr].sum(0)
    base_ll = log_loss(np.broadcast_to(base_p, pr.shape), p[va], w[va])
    per_contract = {c: log_loss(pr[:, i], p[va, i], w[va, i]) for i, c in enumerate(CONTRACTS)}
    table = reliability(pr, p[va], w[va])
    brier = float((((pr - p[va]) ** 2) * w[va]).sum() / w[va].sum())
    ece = float(sum(r["n"] * abs(r["predicted"] - r["observed"]) for r in table if r["n"]) / sum(r["n"] for r in table))
    import pandas as pd

    pd.DataFrame(history).to_csv(run / "history.csv", index=False)
    pd.DataFrame(table).to_csv(run / "calibration.csv", index=False)
    plot_calibration(table, run / "calibration.png", f"bidding net, validation ({len(va)} hands)")
    seconds = time.perf_counter() - t_start
    metrics = {"rows": int(len(df)), "train_rows": int(len(tr)), "val_rows": int(len(va)),
               "epochs": len(history), "val_log_loss": vll, "baseline_log_loss": base_ll, "val_brier": brier,
               "val_ece": ece, "val_e_list_mae": vmae, "per_contract_log_loss": per_contract,
               "seconds": round(seconds, 1), "data_hash": data_hash(df),
               "sources": sorted(df["source"].unique().tolist()),
               "params": int(sum(t.numel() for t in net.parameters()))}
    (run / "metrics.json").write_text(json.dumps({**metrics, "calibration": table}, indent=1))
    conditioned = bool((df["bid_level"] > 0).any())
    ckpt = {"context": "bid_level" if conditioned else "auction", "data_hash": metrics["data_hash"],
            "data_dirs": cfg["data"]["dirs"], "train_config": cfg,
            "metrics": {k: v for k, v in metrics.items() if k != "per_contract_log_loss"}}
    save_checkpoint(net, run / "model", **ckpt)
    metrics["run_dir"] = str(run)
    metrics["calibration"] = table
    return metrics


def format_metrics(m: dict[str, Any]) -> str:
    lines = [f"run: {m['run_dir']}",
             f"rows {m['rows']} (train {m['train_rows']}, validation {m['val_rows']}), {m['epochs']} epochs, "
             f"{m['seconds']:.1f} s, {m['params']} parameters",
             f"validation log-loss {m['val_log_loss']:.4f} (base rate per contract {m['baseline_log_loss']:.4f}), "
             f"Brier {m['val_brier']:.4f}, ECE {m['val_ece']:.4f}, expected-score MAE {m['val_e_list_mae']:.1f}",
             "reliability (validation, every hand x contract):",
             "  bin        n        predicted  observed"]
    for r in m["calibration"]:
        lines.append(f"  {r['bin']:<9} {r['n']:>8}  {r['predicted']:>9.3f}  {r['observed']:>8.3f}")
    return "\n".join(lines)


def ship(run: str | Path, name: str, *, force: bool = False) -> Path:
    """Copy a run's model into the package as ``agents/models/NAME`` (``.pt``, ``.json`` and the
    calibration plot): what ``neural_bidder:model=`` loads by name. An existing model is
    replaced only with ``force`` (:func:`agents.learn.runs.ship_model`)."""
    from agents.players.neural_bidding import default_model_path

    return ship_model(run, name, plot="calibration", agent="neural_bidder", default=default_model_path(),
                      force=force)


def tournament(n_deals: int, seed: int, workers: int, card_play: str, params: dict[str, Any], out: Path,
               progress: bool = True) -> Any:
    """Neural bidding vs rule-based bidding, the same card play on both sides (duplicate), into
    the resumable run directory ``out``."""
    from agents.arena.tournament import run_tournament

    nb = ("neural_bidder", {"card_play": card_play, **params})
    other = "rule_based" if card_play == "rule_based" else ("pimc", {"worlds": int(params.get("pimc_worlds", 32))})
    t = time.perf_counter()
    res = run_tournament([nb, other], n_deals, seed, workers=workers, parallel="processes", out=out, progress=progress)
    text = str(res)
    (out / "summary.txt").write_text(text + f"\n\n{n_deals} deals, seed {seed}, {time.perf_counter() - t:.0f} s\n")
    print(text)
    return res


def main(argv: Sequence[str] | None = None, prog: str = "train_bidding.py") -> int:
    ap = argparse.ArgumentParser(prog=prog, description="Train the bidding network on simulated labels, ship a "
                                 "trained model, or play neural bidding against rule-based bidding.")
    ap.add_argument("--config", help="JSON config (e.g. experiments/configs/train_bidding.json)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a config entry, e.g. --set train.max_epochs=5 (checked before any work)")
    ap.add_argument("--out", metavar="DIR", default=None,
                    help="folder of the run directories (relative to the current one; default: the config's "
                         "out.runs_dir, runs)")
    ap.add_argument("--resume", metavar="RUN", default=None,
                    help="go on with the interrupted training in run directory RUN (the config of its manifest)")
    ap.add_argument("--ship", metavar="NAME", default=None,
                    help="after training (or, with --resume of a finished run, at once) copy the model to "
                         "agents/models/NAME, where neural_bidder:model=agents/models/NAME finds it")
    ap.add_argument("--force", action="store_true", help="with --ship: replace an existing model of that name")
    ap.add_argument("--tournament", type=int, default=None, metavar="DEALS",
                    help="instead of training: neural bidding vs rule-based bidding over DEALS duplicate deals")
    ap.add_argument("--card-play", default=None, choices=("rule_based", "pimc"),
                    help="with --tournament: the card play of both sides (default rule_based)")
    ap.add_argument("--agent", action="append", default=[], metavar="KEY=VALUE",
                    help="with --tournament: a neural_bidder parameter (model=..., aggressiveness=...)")
    ap.add_argument("--seed", type=int, default=None, help="with --tournament: the master seed (default 1)")
    ap.add_argument("--workers", type=int, default=None,
                    help="with --tournament: worker processes (default: every core)")
    ap.add_argument("--tensorboard", metavar="DIR", default=None,
                    help="also write each epoch's losses as TensorBoard scalars to DIR/<run name>, as they come: "
                         "tensorboard --logdir DIR (needs the tensorboard package: pip install "
                         "\"skatsim[tensorboard]\")")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    a = ap.parse_args(argv)
    if a.tensorboard:
        check_tensorboard()
    if a.tournament is not None:
        if a.tournament < 1:
            raise ValueError(f"--tournament needs a positive number of deals, got {a.tournament}")
        for opt in ("config", "resume", "ship", "tensorboard"):
            if getattr(a, opt):
                raise ValueError(f"--{opt} trains; it has no effect with --tournament")
        if a.set or a.force:
            raise ValueError("--set and --force belong to training; they have no effect with --tournament")
        from agents.arena.base import AgentSpec

        params: dict[str, Any] = {}
        for kv in a.agent:
            k, eq, v = kv.partition("=")
            if not eq or k in params:
                raise ValueError(f"--agent needs key=value, each key once, got {kv!r}")
            params[k] = v
        spec = AgentSpec("neural_bidder", {"card_play": a.card_play or "rule_based", **params})  # checked now
        workers = a.workers or os.cpu_count() or 1
        if workers < 1:
            raise ValueError(f"--workers must be positive, got {workers}")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        seed = 1 if a.seed is None else a.seed
        out = Path(a.out or "runs") / f"bidding_tournament_{a.card_play or 'rule_based'}__{seed}__{stamp}"
        print(f"tournament run directory: {out} (after a Ctrl-C: skatsim tournament --resume {out})", file=sys.stderr)
        tournament(a.tournament, seed, workers, a.card_play or "rule_based",
                   {k: v for k, v in spec.params if k != "card_play"}, out, progress=not a.no_progress)
        return 0
    for opt in ("card_play", "seed", "workers"):
        if getattr(a, opt) is not None:
            raise ValueError(f"--{opt.replace('_', '-')} belongs to --tournament; training takes the seed and "
                             "workers from the config (--set seed=..., --set data.workers=...)")
    if a.agent:
        raise ValueError("--agent belongs to --tournament")
    if a.force and not a.ship:
        raise ValueError("--force needs --ship NAME")
    if a.resume:
        if a.config or a.set:
            raise ValueError("--resume RUN trains with the config of RUN's manifest; give no --config or --set")
        from skatsim.runs import read_manifest

        man = read_manifest(a.resume)
        if man.get("kind") != "training:bidding":
            raise ValueError(f"{a.resume!r} holds a {man.get('kind')} run, not a bidding-network training")
        cfg = merge_config(DEFAULTS, man["config"])
        check_types(cfg, DEFAULTS)
    else:
        cfg = load_config(a.config, a.set)
        if a.out:
            cfg["out"]["runs_dir"] = a.out
    if a.ship:  # refuse a bad or existing name before the work, not after it
        from agents.players.neural_bidding import default_model_path

        check_model_name(a.ship, a.force, "neural_bidder", default_model_path())
    if a.resume and (Path(a.resume) / "model.pt").is_file() and (Path(a.resume) / "metrics.json").is_file():
        print(f"{a.resume} is a finished training", file=sys.stderr)
        if a.ship:
            print(f"model shipped to {ship(a.resume, a.ship, force=a.force)}")
        return 0
    try:
        m = train(cfg, progress=not a.no_progress, resume=a.resume, tensorboard=a.tensorboard)
    except KeyboardInterrupt:
        run = _RUN.get("dir")
        if run is None:  # still labelling: the label run directory resumes with the same command
            print("\ninterrupted while labelling; the finished label shards are kept: the same command resumes",
                  file=sys.stderr)
        else:
            print(f"\ninterrupted; the finished epochs are kept: resume with skatsim train-bidding --resume {run}",
                  file=sys.stderr)
        return 130
    print(format_metrics(m))
    if a.ship:
        print(f"model shipped to {ship(m['run_dir'], a.ship, force=a.force)}")
    else:
        print(f"(the shipped model is unchanged; to ship this one: skatsim train-bidding --resume {m['run_dir']} "
              "--ship NAME)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
