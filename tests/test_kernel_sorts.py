"""The LP kernels' written-out sorts (:mod:`boundcalc.kernels.lp`) against numpy's.

``_sort_head`` (the oracle's in-place quicksort, :func:`~boundcalc.kernels.lp.copeland_sums`) must
give ``np.sort``'s array, and ``_stable_sort`` (the row builder's order,
:func:`~boundcalc.kernels.lp.copeland_rows`) the order of the numpy twin's two stable argsorts
(:func:`boundcalc.lp.constraints._ordered`: by the tie-break key, then by value), on seeded random
inputs of every size around the sorts' cut-offs (16 and 8 values, merge widths), many with ties.
Both have no Python wrapper (compiled callers only), so they are called through small compiled
shims here.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from boundcalc.kernels.lp import _sort_head, _stable_sort

SIZES = list(range(0, 40)) + [63, 64, 65, 100, 127, 128, 129, 200, 513]


@njit
def _sort_shim(x, n):
    _sort_head(x, n)


@njit
def _stable_shim(idx, n, k1, k2, buf):
    _stable_sort(idx, n, k1, k2, buf)


@pytest.mark.parametrize("n", SIZES)
def test_sort_head_equals_np_sort(n):
    rng = np.random.default_rng(n)
    for rep in range(20):
        x = rng.random(n + 3)
        if rep % 2:  # ties
            x = np.round(x * 4) / 4
        got = x.copy()
        _sort_shim(got, n)
        assert np.array_equal(got[:n], np.sort(x[:n]))
        assert np.array_equal(got[n:], x[n:])  # the tail is left alone


@pytest.mark.parametrize("n", SIZES)
def test_stable_sort_equals_two_stable_argsorts(n):
    rng = np.random.default_rng(1000 + n)
    for rep in range(20):
        m = n + int(rng.integers(0, 5))
        k1 = np.round(rng.random(m) * 3) / 3 if rep % 2 else rng.random(m)
        k2 = np.round(rng.random(m) * 2) if rep % 3 else np.zeros(m)
        members = np.sort(rng.choice(m, n, replace=False))
        ref = members[np.argsort(k2[members], kind="mergesort")]
        ref = ref[np.argsort(k1[ref], kind="mergesort")]
        got = members.copy()
        _stable_shim(got, n, k1, k2, np.empty(max(n, 1), dtype=np.int64))
        assert np.array_equal(got, ref)
