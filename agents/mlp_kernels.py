"""Compiled MLP arithmetic shared by the networks that answer inside numba code (the neural
bidder's and the DMC player's batch paths): one dense layer of one row, in a fixed order, so
a row's result never depends on the batch it is in.

>>> import numpy as np
>>> out = np.empty(2, np.float32)
>>> dense_row(np.array([1, 0, 2], np.float32), np.ones((3, 2), np.float32), np.array([0.5, -9], np.float32), True, out)
>>> out.tolist()
[3.5, 0.0]
"""

from __future__ import annotations

from numba import njit

__all__ = ["dense_row"]


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
