"""The torch side the two networks share (the DMC player's Q network and the neural bidder):
the ReLU body of an MLP and the ``<stem>.pt`` + ``<stem>.json`` checkpoint pair. Their compiled
inference is in :mod:`agents.mlp_kernels`; their heads, layouts and checks stay with each.

>>> body, width = mlp_body(4, (8, 3))
>>> width, [type(m).__name__ for m in body]
(3, ['Linear', 'ReLU', 'Linear', 'ReLU'])
>>> [p.name for p in checkpoint_files("runs/x/model.pt")]
['model.pt', 'model.json']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

__all__ = ["lazy_torch", "mlp_body", "checkpoint_files", "write_checkpoint"]


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
