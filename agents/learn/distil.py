"""Distillation of PIMC card play into a network (:mod:`agents.players.distilled`).

One file for the algorithm, CleanRL-style: the typed :class:`DistilConfig`, the data (card
labels from :mod:`agents.learn.card_labels` turned into features and canonical targets),
the loss, the loop with checkpoints that resume, and the validation figures.

The loss teaches which card is better, not only what the position is worth:

- **value**: binary cross-entropy between the network's per-card win probability and the
  label's fraction of worlds won with that card, over the legal cards (the fraction over a
  few worlds is an unbiased estimate of the value under the seat's belief, so the fit
  averages the worlds' noise over many positions);
- **policy**: cross-entropy of a softmax over the legal cards towards the card PIMC played
  (its choice carries its tie-breaks: the exact points late in the hand, then the
  rule-based card).

Validation (games held out whole, ``val_games``): the mean *regret* of the network's card
(the label's best win fraction minus that of the card chosen, the loss in "worlds won" a
decision costs against the teacher's own estimate), how often the network's card is one of
the label's best, and how often it is PIMC's card; the same figures for the rule-based card
as a yardstick.

Run it as ``skatsim train-distil --labels DIR [DIR ...] --out RUN`` or
:func:`train`. ``--device auto|cpu|cuda`` picks where the network trains (tests run on CPU).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..players.distilled import CANON, build_net, encode, play_order, save_card_model
from .nets import lazy_torch as _torch

__all__ = ["DistilConfig", "load_dataset", "Dataset", "split", "train", "evaluate_choices", "yardsticks", "tie_table",
           "main"]


@dataclass(frozen=True)
class DistilConfig:
    """Everything that determines a distillation run.

    Args:
        labels: card-label run directories (:mod:`agents.learn.card_labels`).
        hidden: sizes of the MLP over the flat features.
        sequence: add the transformer encoder over the cards played.
        d_model, layers, heads: its width, depth and heads.
        epochs: passes over the training rows.
        batch: rows per step.
        lr, weight_decay: AdamW's.
        policy_weight: weight of the policy loss beside the value loss.
        val_games: games held out for validation (the last ones of the last run).
        max_rows: use at most this many training rows (0: all).
        train_games: train on the first this many games not held out (0: all); the held-out
            games stay the same, so runs that differ only here share one validation set (a
            curve of what more labels buy).
        tie: the policy weight of the player's choice (``value + tie * policy``).
        seed: initialisation and batch order.
        device: ``"auto"`` (CUDA when there is one), ``"cpu"`` or ``"cuda"``.
        threads: torch CPU threads.
        init: a card model to start from (``RUN/model`` or a shipped stem) instead of random
            weights: fine-tuning, as in a round of expert iteration or DAgger; its architecture
            must be this config's.
    """

    labels: tuple[str, ...] = ()
    hidden: tuple[int, ...] = (512, 256)
    sequence: bool = True
    d_model: int = 64
    layers: int = 2
    heads: int = 4
    epochs: int = 8
    batch: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-5
    policy_weight: float = 0.5
    val_games: int = 200
    max_rows: int = 0
    train_games: int = 0
    tie: float = 0.05
    seed: int = 0
    device: str = "auto"
    threads: int = 2
    init: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda, got {self.device!r}")
        for k in ("epochs", "batch", "d_model", "layers", "heads", "threads"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{k} must be a positive int, got {v!r}")
        if isinstance(self.train_games, bool) or not isinstance(self.train_games, int) or self.train_games < 0:
            raise ValueError(f"train_games must be an int >= 0, got {self.train_games!r}")
        if not self.lr > 0 or not math.isfinite(self.lr):
            raise ValueError(f"lr must be a positive number, got {self.lr!r}")
        object.__setattr__(self, "labels", tuple(str(p) for p in self.labels))
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))

    @property
    def arch(self) -> dict[str, Any]:
        return {"hidden": list(self.hidden), "sequence": self.sequence, "d_model": self.d_model,
                "layers": self.layers, "heads": self.heads}

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["labels"] = list(self.labels)
        d["hidden"] = list(self.hidden)
        return d


@dataclass
class Dataset:
    """Features and canonical targets of labelled positions (all arrays row-aligned)."""

    flat: np.ndarray      # float32 (n, N_FLAT)
    tokens: np.ndarray    # int64 (n, MAX_TOKENS, 4)
    legal: np.ndarray     # bool (n, 32), canonical cards
    wins: np.ndarray      # float32 (n, 32), canonical; 0 where not legal
    chosen: np.ndarray    # int64 (n,), canonical
    rule_based: np.ndarray  # int64 (n,), canonical
    game: np.ndarray      # int64 (n,): game index in its run (with run offsets)

    def __len__(self) -> int:
        return len(self.chosen)

    def take(self, idx: np.ndarray) -> "Dataset":
        return Dataset(*(getattr(self, f.name)[idx] for f in dataclasses.fields(self)))


def load_dataset(paths: Sequence[str | os.PathLike[str]], max_rows: int = 0) -> Dataset:
    """The rows of card-label runs as features and canonical targets."""
    from .card_labels import read_card_labels

    parts = []
    offset = 0
    for p in paths:
        df = read_card_labels(p, columns=["game", "seat", "game_type", "view", "seq", "legal", "wins", "chosen",
                                          "rule_based"])
        df["game"] = df["game"].to_numpy(np.int64) + offset
        offset = int(df["game"].max()) + 1
        parts.append(df)
    import pandas as pd

    df = pd.concat(parts, ignore_index=True)
    if max_rows and len(df) > max_rows:
        df = df.iloc[:max_rows]
    views = np.stack(df["view"].to_numpy()).astype(np.int64)
    g = df["game_type"].to_numpy(np.int64)
    seqs = [list(map(int, s)) for s in df["seq"]]
    players = [play_order(s, int(gt)) for s, gt in zip(seqs, g)]
    flat, tokens = encode(views, df["seat"].to_numpy(np.int64), seqs, players, df["rule_based"].to_numpy(np.int64))
    n = len(df)
    canon = CANON[g]  # (n, 32): canonical index of each real card
    wins_real = np.stack(df["wins"].to_numpy()).astype(np.float32)
    legal_real = ~np.isnan(wins_real)
    wins = np.zeros((n, 32), np.float32)
    legal = np.zeros((n, 32), bool)
    rows = np.arange(n)[:, None]
    wins[rows, canon] = np.nan_to_num(wins_real, nan=0.0)
    legal[rows, canon] = legal_real
    chosen = canon[np.arange(n), df["chosen"].to_numpy(np.int64)]
    rb = canon[np.arange(n), df["rule_based"].to_numpy(np.int64)]
    return Dataset(flat, tokens, legal, wins, chosen.astype(np.int64), rb.astype(np.int64),
                   df["game"].to_numpy(np.int64))


def split(data: Dataset, val_games: int) -> tuple[Dataset, Dataset]:
    """``(training rows, validation rows)``: the last ``val_games`` games held out whole."""
    games = np.unique(data.game)
    is_val = np.isin(data.game, games[-val_games:]) if val_games else np.zeros(len(data), bool)
    return data.take(np.flatnonzero(~is_val)), data.take(np.flatnonzero(is_val))


def evaluate_choices(choice: np.ndarray, data: Dataset) -> dict[str, float]:
    """Regret (label's best win fraction minus the chosen card's), the share of choices among
    the label's best cards, and the share equal to PIMC's card, for cards ``choice`` (canonical)."""
    n = len(data)
    best = np.where(data.legal, data.wins, -1.0).max(axis=1)
    got = data.wins[np.arange(n), choice]
    return {"regret": float((best - got).mean()), "best": float((got >= best - 1e-6).mean()),
            "teacher": float((choice == data.chosen).mean())}


def yardsticks(values: np.ndarray, policy: np.ndarray, data: Dataset) -> list[tuple[str, str, np.ndarray]]:
    """The cards the network's choice is measured beside, as ``(log key, label, cards)``: its
    policy alone, the rule-based card and PIMC's own card (regret 0 by definition). One list
    for the training log and :func:`tie_table`."""
    return [("policy_only", "policy only", choose(np.zeros_like(values), policy, data.legal, 1.0)),
            ("rule_based", "rule-based card", data.rule_based),
            ("teacher", "PIMC's card (the labels' own choice)", data.chosen)]


def _device(name: str) -> str:
    torch = _torch()
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was asked for, but torch sees no CUDA device here; use --device cpu or auto")
    return name


def _scores(net: Any, data: Dataset, device: str, tie: float, batch: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """``(value probabilities, policy probabilities)`` over the legal cards, ``(n, 32)``."""
    torch = _torch()
    vs, ps = [], []
    net.eval()
    with torch.inference_mode():
        for a in range(0, len(data), batch):
            f = torch.from_numpy(data.flat[a:a + batch]).to(device)
            t = torch.from_numpy(data.tokens[a:a + batch]).to(device)
            out = net(f, t).float().cpu().numpy()
            lg = np.where(data.legal[a:a + batch], out[:, 32:], -np.inf)
            lg = lg - lg.max(axis=1, keepdims=True)
            p = np.exp(lg)
            ps.append(p / p.sum(axis=1, keepdims=True))
            vs.append(1.0 / (1.0 + np.exp(-out[:, :32])))
    net.train()
    return np.concatenate(vs), np.concatenate(ps)


def choose(values: np.ndarray, policy: np.ndarray, legal: np.ndarray, tie: float) -> np.ndarray:
    """The card of highest ``value + tie * policy`` among the legal ones, per row."""
    s = np.where(legal, values + tie * policy, -np.inf)
    return s.argmax(axis=1)


def train(cfg: DistilConfig, out: str | os.PathLike[str], *, progress: bool = True,
          data: Dataset | None = None) -> dict[str, Any]:
    """Train (or resume) a distillation run in ``out``: ``model.pt``/``model.json`` after every
    epoch (the latest), ``checkpoint.pt`` (optimiser, epoch) to resume, ``log.jsonl`` one line
    per epoch. Returns the last epoch's log line."""
    torch = _torch()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cfg_path = out / "config.json"
    if cfg_path.exists():
        old = {**DistilConfig().to_dict(), **json.loads(cfg_path.read_text())}  # fields added since: defaults
        if {k: v for k, v in old.items() if k != "epochs"} != {k: v for k, v in cfg.to_dict().items() if k != "epochs"}:
            raise ValueError(f"{os.fspath(out)!r} holds a distillation run of another config; use a new folder")
    cfg_path.write_text(json.dumps(cfg.to_dict(), indent=1, sort_keys=True))
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    device = _device(cfg.device)
    if data is None:
        data = load_dataset(cfg.labels, cfg.max_rows)
    tr, va = split(data, cfg.val_games)
    if cfg.train_games:
        tr = tr.take(np.flatnonzero(np.isin(tr.game, np.unique(tr.game)[:cfg.train_games])))
    net = build_net(**cfg.arch)
    if cfg.init:
        _load_init(net, cfg)
    net = net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    start = 0
    ck = out / "checkpoint.pt"
    if ck.exists():
        state = torch.load(ck, map_location=device, weights_only=True)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        start = int(state["epoch"])
    total_steps = cfg.epochs * max(1, math.ceil(len(tr) / cfg.batch))
    done = start * math.ceil(len(tr) / cfg.batch)  # steps of the epochs a resumed run has behind it
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(1.0, (s + done) / total_steps))))
    rng = np.random.default_rng(cfg.seed)
    for _ in range(start):
        rng.permutation(len(tr))
    T = {k: torch.from_numpy(getattr(tr, k)) for k in ("flat", "tokens", "legal", "wins", "chosen")}
    last: dict[str, Any] = {}
    for epoch in range(start, cfg.epochs):
        t0 = time.process_time()
        order = rng.permutation(len(tr))
        losses = []
        for a in range(0, len(order), cfg.batch):
            idx = torch.from_numpy(order[a:a + cfg.batch])
            f, t, lg, w, c = (T[k][idx].to(device) for k in ("flat", "tokens", "legal", "wins", "chosen"))
            o = net(f, t)
            vl = torch.nn.functional.binary_cross_entropy_with_logits(o[:, :32], w, reduction="none")
            vloss = (vl * lg).sum() / lg.sum()
            pl = o[:, 32:].masked_fill(~lg, -1e9)
            ploss = torch.nn.functional.cross_entropy(pl, c)
            loss = vloss + cfg.policy_weight * ploss
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append((float(vloss.detach()), float(ploss.detach())))
        v, p = _scores(net, va, device, cfg.tie) if len(va) else (np.zeros((0, 32)), np.zeros((0, 32)))
        line: dict[str, Any] = {"epoch": epoch + 1, "train_rows": len(tr), "val_rows": len(va),
                                "value_loss": float(np.mean([x[0] for x in losses])),
                                "policy_loss": float(np.mean([x[1] for x in losses])),
                                "cpu_seconds": round(time.process_time() - t0, 1)}
        if len(va):
            line.update({f"net_{k}": x for k, x in evaluate_choices(choose(v, p, va.legal, cfg.tie), va).items()})
            line.update({f"value_only_{k}": x for k, x in evaluate_choices(choose(v, p, va.legal, 0.0), va).items()})
            for key, _, cards in yardsticks(v, p, va):
                line.update({f"{key}_{k}": x for k, x in evaluate_choices(cards, va).items()})
        save_card_model(net.cpu(), out / "model", {"arch": cfg.arch, "config": cfg.to_dict(), "epoch": epoch + 1,
                                                   "validation": line})
        net.to(device)
        tmp = out / "checkpoint.pt.tmp"
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch + 1}, tmp)
        os.replace(tmp, ck)
        with open(out / "log.jsonl", "a") as fh:
            fh.write(json.dumps(line) + "\n")
        if progress:
            print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in line.items()), flush=True)
        last = line
    return last


def _load_init(net: Any, cfg: DistilConfig) -> None:
    """Copy the weights of ``cfg.init`` into ``net`` (refusing another architecture)."""
    from ..players.distilled import load_card_model

    m = load_card_model(cfg.init)
    arch = m.meta.get("arch", {})
    if {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in arch.items()} != cfg.arch:
        raise ValueError(f"init {cfg.init!r} has the architecture {arch}, this config {cfg.arch}")
    net.load_state_dict(m.net.state_dict())


def tie_table(model: str | os.PathLike[str], ties: Sequence[float] = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0),
              data: Dataset | None = None) -> list[dict[str, Any]]:
    """The held-out figures of a trained run's model (``RUN/model``, its config beside it) for
    each ``tie`` of the decision rule ``value + tie * policy`` (the agent's ``tie``), then the
    policy alone, the rule-based card and PIMC's own card: how to set ``tie`` from held-out
    games, never from tournament results."""
    from ..players.distilled import load_card_model

    m = load_card_model(Path(model))
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in m.meta["config"].items()}
    cfg = DistilConfig(**fields)
    if data is None:
        data = load_dataset(cfg.labels, cfg.max_rows)
    va = split(data, cfg.val_games)[1]
    v, p = _scores(m.net, va, "cpu", 0.0)
    rows: list[dict[str, Any]] = [
        {"rule": f"value + {t:g} x policy", "tie": float(t), **evaluate_choices(choose(v, p, va.legal, t), va)}
        for t in ties]
    rows += [{"rule": label, **evaluate_choices(cards, va)} for _, label, cards in yardsticks(v, p, va)]
    for r in rows:
        r["rows"] = len(va)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """``skatsim train-distil --labels DIR [DIR ...] --out RUN [--epochs N] [--set key=value ...]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="skatsim train-distil", description=__doc__.split("\n")[0])
    ap.add_argument("--labels", nargs="+", required=True, help="card-label run directories")
    ap.add_argument("--out", required=True, help="run folder (resumed when it holds the same config)")
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a DistilConfig field, e.g. --set epochs=12 --set sequence=false")
    a = ap.parse_args(argv)
    kw: dict[str, Any] = {"labels": tuple(a.labels), "device": a.device}
    fields = {f.name: f for f in dataclasses.fields(DistilConfig)}
    for item in a.set:
        k, eq, v = item.partition("=")
        if not eq or k not in fields or k in ("labels", "extra"):
            keys = ", ".join(n for n in fields if n not in ("labels", "extra"))
            ap.error(f"--set takes KEY=VALUE with KEY one of {keys}")
        cur = getattr(DistilConfig(), k)
        try:
            if isinstance(cur, bool):
                kw[k] = v.lower() in ("1", "true", "yes", "on")
            elif isinstance(cur, tuple):
                kw[k] = tuple(int(x) for x in v.split(",") if x)
            else:
                kw[k] = type(cur)(v)
        except ValueError:
            ap.error(f"--set {k}: {v!r} is not a {type(cur).__name__}")
    try:
        cfg = DistilConfig(**kw)
        train(cfg, a.out)
    except (ValueError, FileNotFoundError) as e:
        ap.error(str(e))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
