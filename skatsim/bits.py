"""Bit helpers that run both as plain Python and inside numba kernels.

Each helper is an ordinary Python function (used by plain Python code and under
``NUMBA_DISABLE_JIT=1``) with a numba ``@overload`` that compiles it to a single
LLVM intrinsic (``ctpop``, ``cttz``, ``ctlz``, ``pdep``) inside jitted code.
Masks are non-negative ints below 2**63; card masks use the low 32 bits.

>>> popcount(0b1011), lsb(0b1000), msb(0b1011), nth_bit(0b10110, 1)
(3, 3, 3, 2)

The random-number helpers implement SplitMix64 (Steele, Lea & Flood 2014), a
counter-based generator: a stream is a 64-bit state, each draw adds a constant
and hashes it. Python and numba produce the same numbers for the same state.

>>> s = seed_state(42)
>>> k, s = rand_below(s, 10)
>>> 0 <= k < 10
True
"""

from __future__ import annotations

from llvmlite import binding as _llvm_binding
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

__all__ = [
    "popcount",
    "lsb",
    "msb",
    "nth_bit",
    "nth_bit_mask",
    "iter_bits",
    "mix64",
    "seed_state",
    "rand_below",
    "derive_seed",
    "seat_stream",
    "assume_below",
    "branchless",
    "HAS_FAST_PDEP",
    "GOLDEN",
]

M64 = 0xFFFF_FFFF_FFFF_FFFF
#: The SplitMix64 increment (2**64 / the golden ratio).
GOLDEN = 0x9E37_79B9_7F4A_7C15
_MUL1 = 0xBF58_476D_1CE4_E5B9
_MUL2 = 0x94D0_49BB_1331_11EB


def _detect_fast_pdep() -> bool:
    """BMI2 ``pdep`` is one cycle on Intel Haswell+ and AMD Zen 3+, microcoded on Zen 1/2."""
    try:
        features = _llvm_binding.get_host_cpu_features()
        name = _llvm_binding.get_host_cpu_name()
    except Exception:  # pragma: no cover - exotic hosts
        return False
    if not features.get("bmi2", False):
        return False
    return name not in ("znver1", "znver2")


HAS_FAST_PDEP = _detect_fast_pdep()


# --------------------------------------------------------------------------- python versions


def popcount(x: int) -> int:
    """Number of set bits."""
    return int(x).bit_count()


def lsb(x: int) -> int:
    """Index of the lowest set bit (``x`` must be non-zero)."""
    x = int(x)
    return (x & -x).bit_length() - 1


def msb(x: int) -> int:
    """Index of the highest set bit (``x`` must be non-zero)."""
    return int(x).bit_length() - 1


def nth_bit(x: int, k: int) -> int:
    """Index of the ``k``-th lowest set bit of ``x`` (0-based; ``k < popcount(x)``)."""
    x = int(x)
    for _ in range(int(k)):
        x &= x - 1
    return (x & -x).bit_length() - 1


def nth_bit_mask(x: int, k: int) -> int:
    """The ``k``-th lowest set bit of ``x`` as a one-bit mask: ``1 << nth_bit(x, k)``.

    In jitted code one ``pdep`` (no bit scan and shift after it), which shortens the
    dependency chain of a shuffle that takes card after card from a mask.

    >>> nth_bit_mask(0b10110, 1)
    4
    """
    return 1 << nth_bit(x, k)


def iter_bits(x: int):
    """Yield the indices of the set bits of ``x`` in increasing order (Python only)."""
    x = int(x)
    while x:
        b = x & -x
        yield b.bit_length() - 1
        x ^= b


def mix64(z: int) -> int:
    """SplitMix64 finaliser: a bijective 64-bit hash (returned as a Python int)."""
    z = int(z) & M64
    z = ((z ^ (z >> 30)) * _MUL1) & M64
    z = ((z ^ (z >> 27)) * _MUL2) & M64
    return z ^ (z >> 31)


def seed_state(seed: int) -> int:
    """Turn any integer seed into a generator state (an int in ``[0, 2**63)``)."""
    return mix64(int(seed) & M64) >> 1


def derive_seed(seed: int, index: int) -> int:
    """The seed of item ``index`` of a stream seeded with ``seed``: deal ``i`` of a batch.

    Independent of how the items are split across workers or chunks.
    """
    return mix64((int(seed) * GOLDEN + int(index) + 1) & M64) >> 1


def seat_stream(deal_seed: int, seat: int) -> int:
    """The random stream (SplitMix64 state) of ``seat``'s player in the deal ``deal_seed``.

    Keyed on the deal and the seat only, never on who sits there: in duplicate play every
    agent in a seat draws from the same stream (common random numbers). Same value in
    Python and in compiled code.

    >>> seat_stream(7, 0) != seat_stream(7, 1) and 0 <= seat_stream(7, 2) < 2**63
    True
    """
    return derive_seed(deal_seed, 0x5EA7_0000 + int(seat))


def rand_below(state: int, n: int) -> tuple[int, int]:
    """Draw an int uniformly from ``[0, n)``; returns ``(value, new_state)``.

    Uses the high 32 bits of one SplitMix64 output and Lemire's multiply-shift
    (bias below ``n / 2**32``, irrelevant for ``n <= 64``).
    """
    state = (int(state) + GOLDEN) & (M64 >> 1)
    z = mix64(state)
    return ((z >> 32) * int(n)) >> 32, state


def assume_below(x: int, n: int) -> int:
    """``x``, with the promise ``0 <= x < n`` to the compiler (in jitted code).

    Compiled, it is ``llvm.assume(x <u n)``: numba then drops the negative-index
    wrap-around it emits for every array index it cannot prove non-negative (a compare
    and a select per access). Plain Python returns ``x`` unchecked; the caller guarantees
    the bound (e.g. the seat to move is 0..2 during card play).

    >>> assume_below(2, 3)
    2
    """
    return x


def branchless(cond: bool, a: int, b: int) -> int:
    """``a if cond else b``, compiled without a branch.

    In jitted code it is one ``select`` marked ``!unpredictable``, so LLVM keeps a
    conditional move instead of turning it into a jump (which it does when it guesses the
    condition is predictable; a mispredicted jump costs about 15 cycles). For conditions
    that depend on random cards, e.g. who wins a trick.

    >>> branchless(True, 1, 2), branchless(False, 1, 2)
    (1, 2)
    """
    return a if cond else b


# --------------------------------------------------------------------------- numba intrinsics

_I64 = ir.IntType(64)


def _unary_intrinsic(name: str, extra_false: bool):
    @intrinsic
    def _impl(typingctx, x):
        sig = types.int64(x)

        def codegen(context, builder, signature, args):
            v = context.cast(builder, args[0], signature.args[0], types.int64)
            if extra_false:
                fnty = ir.FunctionType(_I64, [_I64, ir.IntType(1)])
                fn = builder.module.declare_intrinsic(name, [_I64], fnty)
                return builder.call(fn, [v, ir.Constant(ir.IntType(1), 0)])
            fn = builder.module.declare_intrinsic(name, [_I64])
            return builder.call(fn, [v])

        return sig, codegen

    return _impl


_ctpop = _unary_intrinsic("llvm.ctpop", False)
_cttz = _unary_intrinsic("llvm.cttz", True)
_ctlz = _unary_intrinsic("llvm.ctlz", True)


@intrinsic
def _pdep(typingctx, x, m):
    sig = types.int64(x, m)

    def codegen(context, builder, signature, args):
        a = context.cast(builder, args[0], signature.args[0], types.int64)
        b = context.cast(builder, args[1], signature.args[1], types.int64)
        fnty = ir.FunctionType(_I64, [_I64, _I64])
        fn = builder.module.declare_intrinsic("llvm.x86.bmi.pdep.64", [], fnty)
        return builder.call(fn, [a, b])

    return sig, codegen


@overload(popcount)
def _popcount_ol(x):
    return lambda x: _ctpop(x)


@overload(lsb)
def _lsb_ol(x):
    return lambda x: _cttz(x)


@overload(msb)
def _msb_ol(x):
    return lambda x: 63 - _ctlz(x)


if HAS_FAST_PDEP:

    @overload(nth_bit)
    def _nth_bit_ol(x, k):
        def impl(x, k):
            return _cttz(_pdep(1 << k, x))

        return impl

    @overload(nth_bit_mask)
    def _nth_bit_mask_ol(x, k):
        def impl(x, k):
            return _pdep(1 << k, x)

        return impl

else:  # pragma: no cover - depends on the CPU

    @overload(nth_bit)
    def _nth_bit_ol(x, k):
        def impl(x, k):
            y = x
            for _ in range(k):
                y &= y - 1
            return _cttz(y)

        return impl

    @overload(nth_bit_mask)
    def _nth_bit_mask_ol(x, k):  # the loop of nth_bit's fallback above, ending in the bit's mask
        def impl(x, k):
            y = x
            for _ in range(k):
                y &= y - 1
            return y & -y

        return impl


@overload(mix64)
def _mix64_ol(z):
    def impl(z):
        u = _as_u64(z)
        u = (u ^ (u >> 30)) * _U_MUL1
        u = (u ^ (u >> 27)) * _U_MUL2
        return u ^ (u >> 31)

    return impl


@overload(derive_seed)
def _derive_seed_ol(seed, index):
    def impl(seed, index):
        return _np.int64(mix64(_as_u64(seed) * _U_GOLDEN + _as_u64(index + 1)) >> _np.uint64(1))

    return impl


@overload(seat_stream)
def _seat_stream_ol(deal_seed, seat):
    def impl(deal_seed, seat):
        return derive_seed(deal_seed, 0x5EA7_0000 + seat)

    return impl


@overload(rand_below)
def _rand_below_ol(state, n):
    def impl(state, n):
        # unsigned add: a signed one may be compiled as non-wrapping (nsw), and LLVM then
        # drops the mask when draws are chained in one function
        u = (_as_u64(state) + _U_GOLDEN_HALF) & _U_M63
        s = _as_i64(u)
        u = (u ^ (u >> 30)) * _U_MUL1
        u = (u ^ (u >> 27)) * _U_MUL2
        u = u ^ (u >> 31)
        hi = _as_i64(u >> 32)
        return (hi * n) >> 32, s

    return impl


@intrinsic
def _assume_below(typingctx, x, n):
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        v, m = args
        fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(1)])
        fn = builder.module.declare_intrinsic("llvm.assume", fnty=fnty)
        builder.call(fn, [builder.icmp_unsigned("<", v, m)])
        return v

    return sig, codegen


@overload(assume_below, inline="always")
def _assume_below_ol(x, n):
    return lambda x, n: _assume_below(x, n)


@intrinsic
def _select_unpredictable(typingctx, cond, a, b):
    sig = types.int64(types.boolean, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        c, x, y = args
        v = builder.select(c, x, y)
        v.set_metadata("unpredictable", builder.module.add_metadata([]))
        return v

    return sig, codegen


@overload(branchless, inline="always")
def _branchless_ol(cond, a, b):
    return lambda cond, a, b: _select_unpredictable(cond, a, b)


# _as_u64 and _as_i64 are twins on purpose: an intrinsic's signature is fixed when it is
# declared, so each direction of the reinterpreting cast is its own four-line declaration.
@intrinsic
def _as_u64(typingctx, x):
    sig = types.uint64(x)

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], signature.args[0], types.int64)

    return sig, codegen


@intrinsic
def _as_i64(typingctx, x):
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], signature.args[0], types.uint64)

    return sig, codegen


# numba freezes these module globals as typed constants
import numpy as _np  # noqa: E402

_U_MUL1 = _np.uint64(_MUL1)
_U_MUL2 = _np.uint64(_MUL2)
_U_GOLDEN = _np.uint64(GOLDEN)
_M63 = M64 >> 1
# ``state + GOLDEN`` masked to 63 bits equals ``state + (GOLDEN mod 2**63)`` masked to 63 bits
_GOLDEN_HALF = GOLDEN & _M63
_U_GOLDEN_HALF = _np.uint64(_GOLDEN_HALF)
_U_M63 = _np.uint64(_M63)
