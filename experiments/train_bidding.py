"""Train the bidding network (:mod:`agents.neural_bidding`) on simulated labels.

    .venv/bin/python experiments/train_bidding.py --config experiments/configs/train_bidding.json

The config (JSON) has four parts:

- ``data``: ``dirs`` (label directories of :mod:`agents.bidding_data`); ``generate``
  (optional :class:`agents.bidding_data.LabelConfig` fields: the first directory is
  generated, or resumed, with ``workers`` processes before training).
- ``model``: ``hidden`` sizes, ``dropout``.
- ``train``: ``val_fraction`` (split by deal), ``batch_size``, ``lr``, ``weight_decay``,
  ``max_epochs``, ``patience`` (early stopping on the validation log-loss),
  ``e_weight`` (weight of the expected-score loss), ``context_augment`` (share of rows whose
  bidding block is randomised: for unconditioned labels, which do not depend on it; use 0
  for auction-conditioned labels, whose ``bid_level`` fills the bid slot), ``threads``.
- ``seed``, ``study`` and ``out`` (``runs_dir``; ``ship``: also copy the checkpoint there).

A run writes ``runs/<study>__<seed>__<time>/``: ``config.json``, ``metrics.json``,
``history.csv``, ``calibration.csv``, ``calibration.png``, ``model.pt`` + ``model.json``.
It prints the validation metrics and the reliability table.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULTS: dict[str, Any] = {
    "study": "train_bidding",
    "seed": 0,
    "data": {"dirs": ["runs/bidding_data/rule_based_w16_s0"], "generate": None, "workers": 2},
    "model": {"hidden": [128, 128], "dropout": 0.0},
    "train": {"val_fraction": 0.1, "batch_size": 1024, "lr": 3e-3, "weight_decay": 1e-5, "max_epochs": 10,
              "patience": 3, "e_weight": 1.0, "context_augment": 0.5, "threads": 2, "max_rows": None},
    "out": {"runs_dir": "runs", "ship": None},
}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if k not in base:
            raise ValueError(f"unknown config key {k!r}; known: {sorted(base)}")
        out[k] = _merge(base[k], v) if isinstance(base[k], dict) and isinstance(v, dict) else v
    return out


def load_config(path: str | None, overrides: Sequence[str] = ()) -> dict[str, Any]:
    cfg = json.loads(Path(path).read_text()) if path else {}
    cfg = _merge(DEFAULTS, cfg)
    for o in overrides:  # key.sub=value (JSON value)
        k, _, v = o.partition("=")
        node = cfg
        parts = k.split(".")
        for p in parts[:-1]:
            node = node[p]
        if parts[-1] not in node:
            raise ValueError(f"unknown config key {k!r}")
        try:
            node[parts[-1]] = json.loads(v)
        except json.JSONDecodeError:
            node[parts[-1]] = v
    return cfg


def arrays(df: Any) -> tuple[np.ndarray, ...]:
    """Features, win targets, score targets (/100), per-contract weights, deal ids."""
    from agents.neural_bidding import encode_features
    from agents.bidding_data import CONTRACTS

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
    from agents.bidding_data import CONTRACTS, read_labels

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


def reliability(p_pred: np.ndarray, p_true: np.ndarray, w: np.ndarray, bins: int = 10) -> list[dict[str, float]]:
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


def plot_calibration(table: list[dict[str, float]], path: Path, title: str) -> None:
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


def train(cfg: dict[str, Any], *, progress: bool = True) -> dict[str, Any]:
    """Run one training (see the module docstring); returns the metrics dict."""
    import torch

    from agents.neural_bidding import BiddingNet, CONTEXT, save_checkpoint
    from agents.bidding_data import CONTRACTS, LabelConfig, data_hash, generate, read_labels

    t_start = time.perf_counter()
    seed = int(cfg["seed"])
    tc = cfg["train"]
    torch.manual_seed(seed)
    torch.set_num_threads(int(tc["threads"]))
    gen = np.random.default_rng(seed)
    dirs = [str(ROOT / d) if not Path(d).is_absolute() else d for d in cfg["data"]["dirs"]]
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

    stamp = time.strftime("%Y%m%d-%H%M%S")
    run = ROOT / cfg["out"]["runs_dir"] / f"{cfg['study']}__{seed}__{stamp}"
    run.mkdir(parents=True, exist_ok=True)
    (run / "config.json").write_text(json.dumps(cfg, indent=1))

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
    best, best_state, bad = math.inf, None, 0
    epochs = int(tc["max_epochs"])
    bar = tqdm(range(epochs), desc="train", unit="epoch", disable=not progress)
    for ep_i in bar:
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
        bar.set_postfix_str(f"val log-loss {vll:.4f}, E MAE {vmae:.1f}")
        if vll < best - 1e-5:
            best, bad = vll, 0
            best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
        else:
            bad += 1
            if bad >= int(tc["patience"]):
                break
    bar.close()
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
               "sources": sorted(df["source"].unique().tolist()), "params": int(sum(t.numel() for t in net.parameters()))}
    (run / "metrics.json").write_text(json.dumps({**metrics, "calibration": table}, indent=1))
    conditioned = bool((df["bid_level"] > 0).any())
    ckpt = {"context": "bid_level" if conditioned else "auction", "data_hash": metrics["data_hash"], "data_dirs": cfg["data"]["dirs"], "train_config": cfg,
            "metrics": {k: v for k, v in metrics.items() if k != "per_contract_log_loss"}}
    save_checkpoint(net, run / "model", **ckpt)
    if cfg["out"].get("ship"):
        dst = ROOT / cfg["out"]["ship"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        for suf in (".pt", ".json"):
            shutil.copyfile(run / f"model{suf}", dst.with_name(dst.name + suf))
        shutil.copyfile(run / "calibration.png", dst.parent / f"{dst.name}_calibration.png")
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


def tournament(n_deals: int, seed: int, workers: int, card_play: str, params: dict[str, Any], out: Path) -> Any:
    """Neural bidding vs rule-based bidding, the same card play on both sides (duplicate)."""
    from agents import run_tournament

    nb = ("neural_bidder", {"card_play": card_play, **params})
    other = "rule_based" if card_play == "rule_based" else ("pimc", {"worlds": int(params.get("pimc_worlds", 32))})
    t = time.perf_counter()
    res = run_tournament([nb, other], n_deals, seed, workers=workers, engine="python")
    out.mkdir(parents=True, exist_ok=True)
    res.games.attrs = {}
    res.games.to_parquet(out / "games.parquet")
    text = str(res)
    (out / "summary.txt").write_text(text + f"\n\n{n_deals} deals, seed {seed}, {time.perf_counter() - t:.0f} s\n")
    print(text)
    return res


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="train_bidding", description="Train the bidding network on simulated labels.")
    ap.add_argument("--config", help="JSON config (experiments/configs/train_bidding.json)")
    ap.add_argument("--tournament", type=int, default=0, metavar="DEALS",
                    help="instead of training: neural bidding vs rule-based bidding over DEALS duplicate deals")
    ap.add_argument("--card-play", default="rule_based", choices=("rule_based", "pimc"))
    ap.add_argument("--agent", action="append", default=[], metavar="KEY=VALUE",
                    help="neural_bidder parameter for --tournament (model=..., aggressiveness=...)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a config entry, e.g. --set train.max_epochs=5")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    if a.tournament:
        params: dict[str, Any] = {}
        for kv in a.agent:
            k, _, v = kv.partition("=")
            try:
                params[k] = json.loads(v)
            except json.JSONDecodeError:
                params[k] = v
        stamp = time.strftime("%Y%m%d-%H%M%S")
        tournament(a.tournament, a.seed, a.workers, a.card_play, params,
                   ROOT / "runs" / f"bidding_tournament_{a.card_play}__{a.seed}__{stamp}")
        return 0
    try:
        cfg = load_config(a.config, a.set)
    except (ValueError, KeyError, FileNotFoundError, json.JSONDecodeError) as e:
        print(f"train_bidding: bad config: {e}", file=sys.stderr)
        return 2
    m = train(cfg, progress=not a.no_progress)
    print(format_metrics(m))
    return 0


#: The entry point for ``skatsim train-bidding`` (skatsim_app/cli.py).
train_bidding_main = main

if __name__ == "__main__":
    raise SystemExit(main())
