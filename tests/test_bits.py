"""The bit helpers of skatsim.bits: each jitted form (an LLVM intrinsic) equals its plain
Python form."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from skatsim.bits import lsb, msb, nth_bit, nth_bit_mask, popcount


@njit(cache=False)
def _jitted(x, k):
    return popcount(x), lsb(x), msb(x), nth_bit(x, k), nth_bit_mask(x, k)


@given(st.integers(1, 2**63 - 1), st.integers(0, 62))
def test_jitted_bit_helpers_equal_python(x, k):
    k %= popcount(x)
    assert _jitted(x, k) == (popcount(x), lsb(x), msb(x), nth_bit(x, k), nth_bit_mask(x, k))


@given(st.integers(1, 2**32 - 1), st.integers(0, 31))
def test_nth_bit_mask_is_the_kth_set_bit(x, k):
    k %= popcount(x)
    bits = [1 << i for i in range(32) if x >> i & 1]
    assert nth_bit_mask(x, k) == bits[k] == _jitted(x, k)[4]
