"""Parallel kernels where they are safe, their serial twins where they are not.

numba's ``omp`` threading layer (GNU OpenMP) aborts a process that was forked from one in
which a parallel region already ran ("fork() called from a process already using GNU
OpenMP"). Tournaments fork their worker processes (fast start, and agents defined in a
script or notebook reach them), so code that may run in a worker asks :func:`kernel` for
the right compiled function: the ``parallel=True`` kernel normally, and after such a fork
its serial twin — the same Python source compiled without threads (``prange`` runs as
``range``): one source, two compilations. The same holds after a fork from a process that
imported torch, whose operations run GNU OpenMP threads of their own: there the child's
first parallel region does not abort but waits for ever.

>>> import numpy as np
>>> from numba import njit, prange
>>> @njit(parallel=True)
... def double(a):
...     for i in prange(a.shape[0]):
...         a[i] *= 2
>>> a = np.ones(3); kernel(double)(a); a.tolist()
[2.0, 2.0, 2.0]
"""

from __future__ import annotations

import os
import types
from typing import Any

from numba import njit

__all__ = ["kernel", "parallel_unsafe", "serial_twin"]

_FORKED_AFTER_OMP = False
_TWINS: dict[int, Any] = {}


def _after_fork_in_child() -> None:
    global _FORKED_AFTER_OMP
    import sys

    import numba

    if "torch" in sys.modules:  # torch's own OpenMP threads may have run in the parent (a model's
        _FORKED_AFTER_OMP = True  # weights initialised, an op on a big tensor): a numba parallel
        return  # region in this child would then wait for ever inside libgomp
    try:
        _FORKED_AFTER_OMP = _FORKED_AFTER_OMP or numba.threading_layer() == "omp"
    except ValueError:  # no parallel region ran before the fork
        pass


os.register_at_fork(after_in_child=_after_fork_in_child)


def parallel_unsafe() -> bool:
    """This process was forked after numba's OpenMP threads started: no parallel region here."""
    return _FORKED_AFTER_OMP


def serial_twin(dispatcher: Any) -> Any:
    """``dispatcher``'s Python function compiled without threads (cached on disk under its own
    name: numba's cache is keyed on the qualified name, not on ``parallel``)."""
    key = id(dispatcher)
    if key not in _TWINS:
        fn = dispatcher.py_func
        name = fn.__name__ + "_serial"
        twin = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
        twin.__qualname__ = fn.__qualname__ + "_serial"
        twin.__module__ = fn.__module__
        _TWINS[key] = njit(cache=True)(twin)
    return _TWINS[key]


def kernel(dispatcher: Any) -> Any:
    """The compiled function to call now: ``dispatcher``, or its serial twin in a process where
    a parallel region is not safe (:func:`parallel_unsafe`)."""
    return serial_twin(dispatcher) if _FORKED_AFTER_OMP else dispatcher
