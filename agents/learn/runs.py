"""What the trainers share: nested JSON configs checked against their defaults, live
TensorBoard logs, and shipping a trained model into the package (``agents/models/NAME``).

The run folders themselves (``<runs_dir>/<study>__<seed>__<time>/`` with ``manifest.json``)
are :mod:`skatsim.runs`'s; the trainers are :mod:`agents.learn.dmc` and
:mod:`agents.learn.bidding`.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any, Sequence

from agents.players import MODELS_DIR

# ----------------------------------------------------------------------------- nested configs


class ConfigError(ValueError):
    """A config entry that is missing, unknown or of the wrong type or range."""


def nested_config(defaults: dict[str, Any], path: str | Path | None, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """A trainer's config: ``defaults``, then the JSON file ``path``, then
    ``key.sub=value`` overrides (JSON values, else text); every value has its default's type.

    >>> d = {"seed": 0, "train": {"lr": 0.1, "epochs": 3}}
    >>> nested_config(d, None, ["train.epochs=5"])["train"], d["train"]["epochs"]
    ({'lr': 0.1, 'epochs': 5}, 3)
    >>> nested_config(d, None, ["train.epoch=5"])
    Traceback (most recent call last):
    ...
    agents.learn.runs.ConfigError: unknown config key 'train.epoch'; known under train: ['epochs', 'lr']
    """
    try:
        data = json.loads(Path(path).read_text()) if path else {}
    except FileNotFoundError:
        raise ConfigError(f"no config file {str(path)!r}") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: not valid JSON: {e}") from None
    cfg = merge_config(defaults, data)
    for o in overrides:
        k, eq, v = o.partition("=")
        if not eq:
            raise ConfigError(f"--set needs key=value, got {o!r}")
        node, parts = cfg, k.split(".")
        for p in parts[:-1]:
            if not isinstance(node.get(p), dict):
                raise ConfigError(f"unknown config key {k!r}")
            node = node[p]
        if parts[-1] not in node:
            raise ConfigError(f"unknown config key {k!r}; known under {'.'.join(parts[:-1]) or 'the top'}: "
                              f"{sorted(node)}")
        try:
            node[parts[-1]] = json.loads(v)
        except json.JSONDecodeError:
            node[parts[-1]] = v
    check_types(cfg, defaults)
    return cfg


def merge_config(base: dict[str, Any], over: dict[str, Any], where: str = "") -> dict[str, Any]:
    """``base`` updated by ``over``, as a new nested dict (``base`` is never changed)."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if k not in base:
            raise ConfigError(f"unknown config key {where + k!r}; known: {sorted(base)}")
        out[k] = merge_config(base[k], v, where + k + ".") if isinstance(base[k], dict) and isinstance(v, dict) else v
    return out


def check_types(cfg: dict[str, Any], defaults: dict[str, Any], where: str = "") -> None:
    """Every value has the type of its default (ints may stand for floats, numbers are not
    negative, ``None`` takes anything), so a typo fails before hours of work."""
    for k, default in defaults.items():
        v, key = cfg[k], where + k
        if isinstance(default, dict):
            if not isinstance(v, dict):
                raise ConfigError(f"config entry {key!r} must be a mapping, got {v!r}")
            check_types(v, default, key + ".")
        elif default is None or v is None:
            continue
        elif isinstance(default, bool):
            if not isinstance(v, bool):
                raise ConfigError(f"config entry {key!r} must be true or false, got {v!r}")
        elif isinstance(default, (int, float)):
            wrong_int = isinstance(default, int) and not isinstance(v, int)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or wrong_int:
                raise ConfigError(f"config entry {key!r} must be {'an int' if isinstance(default, int) else 'a number'}"
                                  f", got {v!r}")
            if v < 0:
                raise ConfigError(f"config entry {key!r} must not be negative, got {v!r}")
        elif isinstance(default, list) and not isinstance(v, list):
            raise ConfigError(f"config entry {key!r} must be a list, got {v!r}")
        elif isinstance(default, str) and not isinstance(v, str):
            raise ConfigError(f"config entry {key!r} must be text, got {v!r}")


# ----------------------------------------------------------------------------- live training logs


def check_tensorboard() -> None:
    """``--tensorboard DIR`` needs the ``tensorboard`` package (``pip install
    "skatsim[tensorboard]"``): refused before any work without it."""
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        raise ConfigError('--tensorboard needs the tensorboard package: pip install "skatsim[tensorboard]" '
                          "(or pip install tensorboard)") from None


class TensorBoardLog:
    """A training's log rows, also as TensorBoard scalars (``torch.utils.tensorboard``) in
    ``ROOT/<run name>``, written as they come, so ``tensorboard --logdir ROOT`` shows the
    curves live and the runs under ROOT side by side. A row's numbers go in by name:
    ``eval_x`` as ``eval/x``, ``val_x`` as ``val/x``, ``train_x`` and the rest as
    ``train/...``; ``step`` (``frames``, ``epoch``) is the x axis and, with the other
    counters in ``skip``, no curve of its own. ``root=None``: nothing is written.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     tb = TensorBoardLog(d, Path("runs/x__1__2"), step="epoch")
    ...     tb.write({"epoch": 1, "train_loss": 0.5, "val_log_loss": 0.4, "eval_margin": float("nan")})
    ...     tb.close()
    ...     sorted(p.parent.name for p in Path(d).rglob("events.out.tfevents.*"))
    ['x__1__2']
    >>> TensorBoardLog.tag("eval_margin"), TensorBoardLog.tag("val_log_loss"), TensorBoardLog.tag("loss")
    ('eval/margin', 'val/log_loss', 'train/loss')
    """

    def __init__(self, root: str | Path | None, run: Path, *, step: str,
                 skip: Sequence[str] = ("round", "frames", "games", "seconds", "epoch")) -> None:
        self.step, self.skip = step, set(skip) | {step}
        self.writer: Any = None
        if root is not None:
            check_tensorboard()
            from torch.utils.tensorboard import SummaryWriter

            self.folder = Path(root) / run.name
            self.writer = SummaryWriter(log_dir=str(self.folder))

    @staticmethod
    def tag(key: str) -> str:
        """The TensorBoard tag of log column ``key``."""
        for prefix in ("eval", "val", "train"):
            if key.startswith(prefix + "_"):
                return f"{prefix}/{key[len(prefix) + 1:]}"
        return f"train/{key}"

    def write(self, row: dict[str, Any]) -> None:
        """Row ``row``'s finite numbers at step ``row[step]``, flushed to disk at once."""
        if self.writer is None:
            return
        import math
        import numbers

        step = int(row[self.step])
        for k, v in row.items():
            if (k not in self.skip and isinstance(v, numbers.Real) and not isinstance(v, bool)
                    and math.isfinite(v)):
                self.writer.add_scalar(self.tag(k), float(v), step)
        self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


# ----------------------------------------------------------------------------- shipping a model


#: Where shipped models go: ``agents/models/`` of the installed package, where the players find them.
MODELS = MODELS_DIR


def check_model_name(name: str, force: bool, agent: str, default: Path) -> Path:
    """``MODELS/name``, refused before any work if ``name`` is not letters, digits, ``_``
    or ``-``, or if that model exists and not ``force`` (the message names the model
    ``default`` that agent ``agent`` loads by default).

    >>> check_model_name("my model", False, "dmc", MODELS / "dmc_v2")
    Traceback (most recent call last):
    ...
    ValueError: a model name is letters, digits, '_' or '-', got 'my model'
    """
    if not name or not all(c.isalnum() or c in "_-" for c in name):
        raise ValueError(f"a model name is letters, digits, '_' or '-', got {name!r}")
    dst = MODELS / name
    if (dst.with_name(name + ".pt").exists() or dst.with_name(name + ".json").exists()) and not force:
        raise FileExistsError(f"agents/models/{name} exists; --force replaces it (the default {agent} "
                              f"agent loads agents/models/{default.name})")
    return dst


def ship_model(run: str | Path, name: str, *, plot: str, agent: str, default: Path, force: bool = False) -> Path:
    """Copy run ``run``'s ``model.pt`` / ``model.json`` to ``agents/models/NAME`` (refused as
    :func:`check_model_name` says) and its plot ``run/<plot>.png`` to ``NAME_<plot>.png``;
    returns ``agents/models/NAME``, what the agent's ``model=`` loads."""
    run = Path(run)
    if not (run / "model.pt").is_file() or not (run / "model.json").is_file():
        raise FileNotFoundError(f"{os.fspath(run)!r} holds no trained model (model.pt, model.json)")
    dst = check_model_name(name, force, agent, default)
    for suf in (".pt", ".json"):
        shutil.copyfile(run / f"model{suf}", dst.with_name(dst.name + suf))
    if (run / f"{plot}.png").is_file():
        shutil.copyfile(run / f"{plot}.png", MODELS / f"{name}_{plot}.png")
    return dst
