"""``boundcalc.kernels.stats``: the shortcut of RUCB's line 6 answers as the bound it skips, on every
count up to 80 duels; the argmax's tie-break draws one index over the tied positions, ascending,
leaving out the excluded one (``argmax_ties`` has no CPython wrapper: its Python source is run)."""

from __future__ import annotations

import math

import numpy as np

from boundcalc.kernels.stats import argmax_ties, stream_index, ucb, ucb_below_half


def test_ucb_below_half_is_the_bound_compared_with_a_half():
    W = np.zeros((2, 2), dtype=np.int64)
    N = np.zeros((2, 2), dtype=np.int64)
    for al in (0.0, 0.51 * math.log(2), 0.51 * math.log(1e5), 3.0 * math.log(1e7)):
        for n in range(81):
            for w in range(n + 1):
                W[0, 1], N[0, 1] = w, n
                assert ucb_below_half(W, N, al, 0, 1) == (ucb(W, N, al, 0, 1) < 0.5), (al, w, n)


def test_argmax_ties_draws_over_the_tied_positions():
    col = np.array([0.3, 0.9, 0.2, 0.9, 0.9])
    ties = np.empty(5, dtype=np.int64)
    for seed in range(20):
        state = np.array([seed], dtype=np.uint64)
        got = argmax_ties.py_func(state, col, 3, ties)  # 1, 3, 4 tied; 3 left out: one index over (1, 4)
        ref = np.array([seed], dtype=np.uint64)
        assert got == (1, 4)[stream_index(ref, 2)] and state[0] == ref[0]
    single = np.array([0.1, 0.7, 0.2])
    state = np.array([5], dtype=np.uint64)
    assert argmax_ties.py_func(state, single, 1, ties) == 1 and state[0] == 5  # one maximiser: no draw
