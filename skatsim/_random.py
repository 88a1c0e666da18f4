"""One randomness convention for every public entry point.

Every function of skatsim that needs randomness takes one argument, ``seed`` or
``rng``, which is one of

- an ``int`` (or numpy integer): a reproducible seed. Any int is accepted, negative
  ones included, and distinct ints give distinct streams within the documented
  range: a deal seed is reduced modulo ``2**63`` (``deal(-5)`` is ``deal(2**63 - 5)``,
  never ``deal(5)``);
- a ``numpy.random.Generator``: the function draws what it needs from it (a 63-bit
  seed with :func:`to_seed`), so a run seeded by a Generator is reproducible from the
  Generator's own seed and the order of the calls;
- ``None``: fresh OS entropy (not reproducible; functions that record a seed record
  the one they drew).

``bool``, ``float`` and ``str`` are refused with ``TypeError`` (``1.5`` is not silently
``1``, ``"7"`` not silently ``7``).

Two bounds hold for every run, from Python and on the command line alike:

- a **run seed** (``simulate``, ``VecEnv``, tournaments, leagues, every command's
  ``--seed``) is a signed 64-bit int, ``-2**63 <= seed < 2**63``
  (:func:`check_run_seed`; the kernels use it modulo ``2**64``, so a wider seed would
  alias another);
- a **run** holds at most :data:`MAX_DEALS` deals or boards, ``10**12`` (days of the
  fastest engine: a larger count is a typo, refused by :func:`check_deal_count` before any
  work; :func:`skatsim.simulate`, which keeps every row in one DataFrame, stops at 20 M).

Two helpers normalise the argument: :func:`check_random_state` (anything above to a
``Generator``, QuantEcon/scikit-learn style) and :func:`to_seed` (anything above to
one ``int`` seed, for the compiled kernels, which draw from SplitMix64 streams).
Parallel work splits a seed with ``skatsim.bits.derive_seed(seed, i)``: item ``i`` of a
run (deal ``i`` of ``simulate(n, seed=s, start=k)`` is ``derive_seed(s, k + i)``), so the
results do not depend on the number of workers or the chunking.

>>> to_seed(7), to_seed(-5)
(7, -5)
>>> import numpy as np
>>> to_seed(np.random.default_rng(1)) == to_seed(np.random.default_rng(1))
True
>>> to_seed(1.5)
Traceback (most recent call last):
...
TypeError: seed must be an int, a numpy Generator or None, got float 1.5
>>> int(check_random_state(3).integers(10)) == int(np.random.default_rng(3).integers(10))
True
"""

from __future__ import annotations

from typing import Union

import numpy as np

__all__ = ["check_random_state", "to_seed", "SeedLike", "SEED_BITS", "RUN_SEED_MIN", "RUN_SEED_MAX",
           "check_run_seed", "MAX_DEALS", "check_deal_count"]

#: Seeds drawn from a Generator are uniform in ``[0, 2**63 - 1)`` (the deal stream's range).
SEED_BITS = 63
_SEED_HIGH = (1 << SEED_BITS) - 1

SeedLike = Union[int, np.integer, np.random.Generator, None]

#: The range of a run seed: a signed 64-bit int.
RUN_SEED_MIN, RUN_SEED_MAX = -(1 << 63), (1 << 63) - 1
#: The most deals (or tournament boards) one run may hold.
MAX_DEALS = 10**12


def _type_error(what: str, value: object) -> TypeError:
    return TypeError(f"{what} must be an int, a numpy Generator or None, got {type(value).__name__} {value!r}")


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_random_state(rng: SeedLike, *, name: str = "rng") -> np.random.Generator:
    """Normalise ``rng`` to a ``numpy.random.Generator``.

    A Generator is returned as is; an int seeds a new one (``numpy.random.default_rng``;
    a negative int is refused by numpy with ``ValueError``); ``None`` takes fresh
    entropy. Anything else raises ``TypeError``.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if _is_int(rng):
        if rng < 0:
            raise ValueError(f"{name} seed must be a non-negative int, got {rng}")
        return np.random.default_rng(int(rng))
    raise _type_error(name, rng)


def to_seed(seed_or_rng: SeedLike, *, name: str = "seed") -> int:
    """One ``int`` seed: an int is returned as is (numpy ints as Python ints); a
    Generator, or ``None`` (fresh entropy), draws a seed in ``[0, 2**63 - 1)``."""
    if _is_int(seed_or_rng):
        return int(seed_or_rng)  # type: ignore[arg-type]
    if seed_or_rng is None or isinstance(seed_or_rng, np.random.Generator):
        gen = check_random_state(seed_or_rng)
        return int(gen.integers(0, _SEED_HIGH, dtype=np.int64))
    raise _type_error(name, seed_or_rng)


def check_run_seed(seed: SeedLike, *, name: str = "seed") -> int:
    """The run seed of ``seed`` (:func:`to_seed`), which must fit in 64 bits.

    >>> check_run_seed(-1), check_run_seed(2**63 - 1) == RUN_SEED_MAX
    (-1, True)
    >>> check_run_seed(2**64)
    Traceback (most recent call last):
    ...
    ValueError: a run seed must fit in 64 bits (-2**63 <= seed < 2**63), got 18446744073709551616
    """
    s = to_seed(seed, name=name)
    if not RUN_SEED_MIN <= s <= RUN_SEED_MAX:
        raise ValueError(f"a run seed must fit in 64 bits (-2**63 <= seed < 2**63), got {s}")
    return s


def check_deal_count(n: object, *, name: str = "n_deals", zero: bool = False) -> int:
    """``n`` as an int in ``1..MAX_DEALS`` (``0..`` with ``zero=True``), else ``ValueError``
    (``bool`` and non-integers included) naming ``name``.

    >>> check_deal_count(10**20)
    Traceback (most recent call last):
    ...
    ValueError: n_deals must be an int in 1..10**12 (MAX_DEALS), got 100000000000000000000
    """
    lo = 0 if zero else 1
    if not _is_int(n) or not lo <= int(n) <= MAX_DEALS:  # type: ignore[call-overload]
        raise ValueError(f"{name} must be an int in {lo}..10**12 (MAX_DEALS), got {n!r}")
    return int(n)  # type: ignore[call-overload]
