"""What the two networks share (the DMC player's Q network and the neural bidder): on the
torch side the ReLU body of an MLP and the ``<stem>.pt`` + ``<stem>.json`` checkpoint pair; on
the compiled side the dense layer their batch paths answer with inside numba code, one row in a
fixed order, so a row's result never depends on the batch it is in. Their heads, layouts and
checks stay with each.

>>> body, width = mlp_body(4, (8, 3))
>>> width, [type(m).__name__ for m in body]
(3, ['Linear', 'ReLU', 'Linear', 'ReLU'])
>>> [p.name for p in checkpoint_files("runs/x/model.pt")]
['model.pt', 'model.json']
>>> import numpy as np
>>> out = np.empty(2, np.float32)
>>> dense_row(np.array([1, 0, 2], np.float32), np.ones((3, 2), np.float32), np.array([0.5, -9], np.float32), True, out)
>>> out.tolist()
[3.5, 0.0]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from numba import njit, prange

__all__ = ["lazy_torch", "mlp_body", "checkpoint_files", "write_checkpoint", "dense_row", "dense_rows"]


def lazy_torch() -> Any:
    """``torch``, imported on first use (importing the agents does not load it)."""
    import torch

    return torch


def mlp_body(d_in: int, hidden: Sequence[int], dropout: float = 0.0) -> tuple[Any, int]:
    """``(nn.Sequential, width)``: ``Linear -> ReLU`` per hidden size (and ``Dropout`` after
    each ReLU when ``dropout``), from ``d_in`` inputs; ``width`` is the last layer's."""
    nn = lazy_torch().nn
    layers: list[Any] = []
    d = int(d_in)
    for k in hidden:
        layers += [nn.Linear(d, int(k)), nn.ReLU()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        d = int(k)
    return nn.Sequential(*layers), d


def checkpoint_files(path: str | Path) -> tuple[Path, Path]:
    """``(<stem>.pt, <stem>.json)`` of a checkpoint named by its stem, ``.pt`` or ``.json``."""
    p = Path(path)
    p = p.with_suffix("") if p.suffix in (".pt", ".json") else p
    return p.with_name(p.name + ".pt"), p.with_name(p.name + ".json")


def write_checkpoint(net: Any, path: str | Path, config: dict[str, Any]) -> tuple[Path, Path]:
    """Write ``net``'s ``state_dict`` (CPU tensors) and ``config`` as JSON; returns both paths."""
    torch = lazy_torch()
    pt, js = checkpoint_files(path)
    pt.parent.mkdir(parents=True, exist_ok=True)
    torch.save({k: v.detach().cpu().contiguous() for k, v in net.state_dict().items()}, pt)
    js.write_text(json.dumps(config, indent=1, sort_keys=True, default=str))
    return pt, js


@njit(cache=True)
def dense_row(x, wt, b, relu, out) -> None:
    """``out = x @ wt + b`` for one row (ReLU when ``relu``), zero inputs skipped."""
    for j in range(wt.shape[1]):
        out[j] = b[j]
    for k in range(wt.shape[0]):
        xk = x[k]
        if xk != 0.0:
            for j in range(wt.shape[1]):
                out[j] += xk * wt[k, j]
    if relu:
        for j in range(wt.shape[1]):
            if out[j] < 0.0:
                out[j] = 0.0


@njit(cache=True, parallel=True)
def dense_rows(x, wt, b, relu, out) -> None:
    """:func:`dense_row` for every row of ``x`` into ``out`` (rows in parallel: each row's
    result is the same in any batch; call it through ``skatsim.kernels.threads.kernel``)."""
    for i in prange(x.shape[0]):
        dense_row(x[i], wt, b, relu, out[i])
