"""The LP core's compiled kernels (paper 000: Komiyama, Honda & Nakagawa, ICML 2016).

* :func:`winner_tables` -- the tables of a winner ``a`` for the sorting oracle of 000 Sec. 4.1.1
  (``I_a``, the pools ``S_{i2} \\ {a}`` and, per ``(i2, l, case)`` of eq. (2), the sizes ``|I|``,
  ``|S|`` and whether the case has rows), shared by the LP core and the RMED family;
* :func:`copeland_sums` -- the minimal row sum of every ``(i2, l, case)`` of ``R_a`` (the oracle,
  and Algorithm 1's check (3));
* :func:`copeland_rows` -- the most violated rows themselves, as index lists with their hashes;
* :func:`ecw_closed_form` -- Theorem 5's closed form for one winner (its pool row,
  :func:`ecw_pool_row`, is cached per pool by ECW-RMED).

The tables, the sums and the closed form have numpy twins in :mod:`boundcalc.lp` (``CopelandFamily._tables_numpy``,
``._sums_numpy``, :func:`~boundcalc.lp.ecw.ecw_allocation` with ``compiled=False``: the offline path, which loads no
numba) that compute the same numbers in the same order (sorted values, sequential prefix sums, equal values in a fixed
order), so both agree to the last bit; the tests check this on many random inputs.

The sorts are written out rather than numba's ``np.sort``/mergesort, which every calling kernel would
compile again, and min/max as ``a if a < b else b``: numba compiles an overload once per set of the
calling kernel's flags, so the kernels here share two flag sets.

>>> beats = np.array([[False, True], [False, False]]); E = np.empty((2, 2))   # arm 0 beats arm 1
>>> ecw_closed_form(beats, beats.sum(axis=0), np.ones((2, 2)), 0, E), E.tolist()
(1.0, [[0.0, 1.0], [1.0, 0.0]])
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compile_gc  # noqa: F401  (the garbage-collection guard of every compilation)
from .codesize import optimize_for_size

__all__ = ["winner_tables", "copeland_sums", "copeland_rows", "ecw_pool_row", "ecw_closed_form"]


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def winner_tables(beats, L, a, ls, L1, Ia, in_Ia, pool, pool_size, mI, mS, ok, gI, gS, caseB):
    """Fill the oracle's tables of winner ``a`` of the structure ``(beats, L)`` at the levels ``ls``
    (``L1`` the smallest loss); returns ``|I_a|``.

    ``Ia[:|I_a|]`` the arms ``a`` beats, ascending (``in_Ia`` as a mask); ``pool[i2]`` the mask of
    ``S_{i2} \\ {a}`` (empty for ``i2 = a``), ``pool_size`` its size; ``mI``, ``mS``, ``ok`` (K x 2nl,
    columns ``0..nl-1`` case A, ``i2`` not in ``I``, then case B) the unclipped ``|I|``, ``|S|`` and
    whether the case has rows; ``gI``, ``gS`` the sizes clipped to ``[0, |I_a|]`` and ``[0, K]``
    (they may be ``mI``, ``mS``: then clipped in place); ``caseB[c]`` whether column ``c`` is case B.
    """
    optimize_for_size()
    K = beats.shape[0]
    nl = ls.shape[0]
    nI = 0
    for j in range(K):
        in_Ia[j] = beats[a, j]
        if beats[a, j]:
            Ia[nI] = j
            nI += 1
    for i2 in range(K):
        size = 0
        for j in range(K):
            v = beats[j, i2] and j != a and i2 != a
            pool[i2, j] = v
            size += v
        pool_size[i2] = size
    for c in range(2 * nl):
        caseB[c] = c >= nl
    for i2 in range(K):
        cap = nI - (1 if in_Ia[i2] else 0)  # |I_a \\ {i2}|
        for c in range(2 * nl):
            b = 1 if caseB[c] else 0
            lv = ls[c - b * nl]
            m = lv + 1 - L1 - b  # |I| = l + 1 - L(1) and |S| = max(0, L_{i2} - l), less one in case B
            s_ = L[i2] - lv - b
            s_ = s_ if s_ > 0 else 0
            mI[i2, c] = m
            mS[i2, c] = s_
            ok[i2, c] = i2 != a and (b == 0 or in_Ia[i2]) and m >= 0 and m <= cap and s_ <= pool_size[i2]
            v = m if m > 0 else 0
            gI[i2, c] = v if v < nI else nI
            gS[i2, c] = s_ if s_ < K else K
    return nI


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sort_head(x, n):
    """``x[:n]`` sorted ascending in place: quicksort (median of three, Hoare's partition, the smaller
    part first), insertion sort on parts of at most 16 values.

    Any sort gives the same sorted numbers (equal values differ only as 0.0 and -0.0, which sum alike;
    no NaN reaches the oracle); in place, it allocates nothing below 17 values."""
    optimize_for_size()
    lo = 0
    hi = n - 1
    sp = 0
    stack = np.empty(2 * 64 if n > 16 else 0, dtype=np.int64)  # the larger parts still to sort
    while True:
        while hi - lo >= 16:
            mid = (lo + hi) >> 1  # median of x[lo], x[mid], x[hi], which then bound the scans
            if x[mid] < x[lo]:
                x[mid], x[lo] = x[lo], x[mid]
            if x[hi] < x[mid]:
                x[hi], x[mid] = x[mid], x[hi]
                if x[mid] < x[lo]:
                    x[mid], x[lo] = x[lo], x[mid]
            p = x[mid]
            i = lo
            j = hi
            while True:
                i += 1
                while x[i] < p:
                    i += 1
                j -= 1
                while p < x[j]:
                    j -= 1
                if i >= j:
                    break
                x[i], x[j] = x[j], x[i]
            if j - lo < hi - j:  # x[lo..j] <= p <= x[j+1..hi]: the smaller part now, the larger later
                stack[sp] = j + 1
                stack[sp + 1] = hi
                hi = j
            else:
                stack[sp] = lo
                stack[sp + 1] = j
                lo = j + 1
            sp += 2
        for q in range(lo + 1, hi + 1):
            v = x[q]
            b = q - 1
            while b >= lo and x[b] > v:
                x[b + 1] = x[b]
                b -= 1
            x[b + 1] = v
        if sp == 0:
            return
        sp -= 2
        lo = stack[sp]
        hi = stack[sp + 1]


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def copeland_sums(E, a, Ia, pool, mI, mS, ok, caseB, in_Ia, out):
    """Fill ``out`` (K x 2nl) with every ``(i2, l, case)``'s smallest row sum (inf: no row)."""
    optimize_for_size()
    K = E.shape[0]
    nI = Ia.shape[0]
    va = np.empty(nI)
    for k in range(nI):
        va[k] = E[a, Ia[k]]
    _sort_head(va, nI)
    PA = np.empty(nI + 1)
    PA[0] = 0.0
    for k in range(nI):
        PA[k + 1] = PA[k] + va[k]
    tmp = np.empty(K)
    PS = np.empty(K + 1)
    nc = out.shape[1]
    for i2 in range(K):
        anyok = False
        for c in range(nc):
            if ok[i2, c]:
                anyok = True
                break
        if anyok:  # the pool's sorted prefix sums, for the case columns with rows
            n = np.int64(0)  # not a literal 0: numba would compile _sort_head for that type too
            for j in range(K):
                if pool[i2, j]:
                    tmp[n] = E[i2, j]
                    n += 1
            _sort_head(tmp, n)
            PS[0] = 0.0
            for k in range(n):
                PS[k + 1] = PS[k] + tmp[k]
        own = E[a, i2]
        for c in range(nc):
            if not ok[i2, c]:
                out[i2, c] = np.inf
                continue
            m = mI[i2, c]
            w = PA[m]
            if in_Ia[i2] and m > 0 and own <= va[m - 1]:
                w = PA[m + 1] - own
            if caseB[c]:
                w += own
            out[i2, c] = w + PS[mS[i2, c]]
    return out


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _stable_sort(idx, n, k1, k2, buf):
    """``idx[:n]`` sorted in place by ``(k1[j], k2[j])``, equal keys in their order in ``idx``: what
    stable argsorts by ``k2``, then ``k1`` give (insertion sort on runs of 8, then bottom-up merges
    through ``buf``, ``len >= n``)."""
    for lo in range(0, n, 8):
        hi = lo + 8 if lo + 8 < n else n
        for q in range(lo + 1, hi):
            v = idx[q]
            a1 = k1[v]
            a2 = k2[v]
            b = q - 1
            while b >= lo and (k1[idx[b]] > a1 or (k1[idx[b]] == a1 and k2[idx[b]] > a2)):
                idx[b + 1] = idx[b]
                b -= 1
            idx[b + 1] = v
    src = idx
    dst = buf
    width = 8
    passes = 0
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            i = lo
            j = mid
            o = lo
            while i < mid and j < hi:
                x = src[i]
                y = src[j]
                if k1[y] < k1[x] or (k1[y] == k1[x] and k2[y] < k2[x]):  # the right one only when smaller
                    dst[o] = y
                    j += 1
                else:
                    dst[o] = x
                    i += 1
                o += 1
            while i < mid:
                dst[o] = src[i]
                i += 1
                o += 1
            while j < hi:
                dst[o] = src[j]
                j += 1
                o += 1
        src, dst = dst, src
        width *= 2
        passes += 1
    if passes % 2 == 1:  # the last pass wrote into buf
        for q in range(n):
            idx[q] = buf[q]


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def copeland_rows(E, a, Ia, pool, mI, mS, ok, caseB, in_Ia, pid, sums, tb, tol, per_i2, z1, z2):
    """The most violated rows of ``R_a`` at ``E`` (000 Sec. 4.1.1), as index lists with their hashes.

    ``sums`` is :func:`copeland_sums` of ``E``.  For every ``i2`` whose smallest sum is below
    ``1 - tol``, up to ``per_i2`` of its columns with the smallest sums (violated by more than
    ``tol``; equal sums in column order) each give one row: the ``mS`` smallest values of ``i2``'s
    pool, the ``mI`` smallest of ``I_a \\ {i2}`` and ``(a, i2)`` in case B;
    equal values in the order of ``tb[i2]``, then arm order.  Each row's two Zobrist hashes are the
    wrapping sums of ``z1``, ``z2`` over its variables.

    Returns ``(n, violation, starts, idx, h1, h2)``; row ``r`` is
    ``idx[starts[r]:starts[r + 1]]``, winner side first.
    """
    K = E.shape[0]
    nc = sums.shape[1]
    nI = Ia.shape[0]
    npick = per_i2 if per_i2 < nc else nc
    maxr = K * npick
    width = K + 1 + nI
    pick_v = np.empty(maxr)
    # np.empty, not np.zeros: each np.zeros of another dtype is one more compilation
    starts = np.empty(maxr + 1, dtype=np.int64)
    starts[0] = 0
    idx = np.empty(maxr * width, dtype=np.int64)
    h1 = np.empty(maxr, dtype=np.uint64)
    h2 = np.empty(maxr, dtype=np.uint64)
    members = np.empty(K, dtype=np.int64)
    wmem = np.empty(nI, dtype=np.int64)
    corder = np.empty(nc, dtype=np.int64)
    buf = np.empty(K if K > nc else nc, dtype=np.int64)
    n = 0
    nnz = 0
    for i2 in range(K):
        best = np.inf
        for c in range(nc):
            if sums[i2, c] < best:
                best = sums[i2, c]
        if not (1.0 - best > tol):
            continue
        for c in range(nc):
            corder[c] = c
        _stable_sort(corder, nc, sums[i2], sums[i2], buf)  # equal sums in column order
        m = np.int64(0)  # not a literal 0 (numba would compile _stable_sort for that type too)
        for j in range(K):
            if pool[i2, j]:
                members[m] = j
                m += 1
        _stable_sort(members, m, E[i2], tb[i2], buf)  # the pool by (value, tb, arm)
        w = np.int64(0)
        for k in range(nI):
            if Ia[k] != i2:
                wmem[w] = Ia[k]
                w += 1
        _stable_sort(wmem, w, E[a], tb[i2], buf)  # I_a \\ {i2} by (value, tb, arm)
        for q in range(npick):
            c = corder[q]
            s = sums[i2, c]
            if not (1.0 - s > tol):
                break
            pick_v[n] = 1.0 - s
            first = nnz
            for k in range(mI[i2, c]):
                idx[nnz] = pid[a, wmem[k]]
                nnz += 1
            if caseB[c]:
                idx[nnz] = pid[a, i2]
                nnz += 1
            for k in range(mS[i2, c]):
                idx[nnz] = pid[i2, members[k]]
                nnz += 1
            g1 = np.uint64(0)
            g2 = np.uint64(0)
            for k in range(first, nnz):
                g1 += z1[idx[k]]
                g2 += z2[idx[k]]
            h1[n] = g1
            h2[n] = g2
            n += 1
            starts[n] = nnz
    return n, pick_v[:n], starts[: n + 1], idx[:nnz], h1[:n], h2[:n]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ecw_pool_row(beats, L, C, a, i2, idx, keys):
    """Theorem 5 on the pool of ``i2`` for winner ``a``: ``(part, h, level)``; ``idx[:h]`` are the
    selected arms (stable order by (cost, arm)).  ``h = 0`` when there is no row."""
    optimize_for_size()
    K = beats.shape[0]
    n = 0
    for j in range(K):
        if beats[j, i2] and j != a:
            idx[n] = j
            keys[j] = C[i2, j]
            n += 1
    m = L[i2] - L[a] + 1
    k = n - m
    if k < 0:
        return 0.0, 0, 0.0
    for q in range(1, n):  # insertion sort of idx[:n] by (keys[idx], idx) ascending (stable, ties by index)
        v = idx[q]
        kv = keys[v]
        b = q - 1
        while b >= 0 and (keys[idx[b]] > kv or (keys[idx[b]] == kv and idx[b] > v)):
            idx[b + 1] = idx[b]
            b -= 1
        idx[b + 1] = v
    best = np.inf
    hbest = 0
    cum = 0.0
    for h in range(1, n + 1):
        cum += keys[idx[h - 1]]
        if h >= k + 1:
            r = cum / float(h - k)
            if r < best:
                best = r
                hbest = h
    return best, hbest, 1.0 / float(hbest - k)


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def ecw_closed_form(beats, L, C, a, E):
    """Theorem 5 of paper 000 for winner ``a``: returns ``C^E*_a`` and writes the normalised ``E``.

    ``beats`` strict, ``L`` the losses, ``C`` the costs ``r/d`` (finite on every decided pair).
    Each pool's ``h`` cheapest (by cost, then arm; ``h`` the first minimiser of their sum over
    ``h - k``) get ``e = 1/(h - k)`` (:func:`ecw_pool_row`), and ``e_{a j} = 1`` on ``I_a``.
    """
    optimize_for_size()
    K = beats.shape[0]
    for i in range(K):
        for j in range(K):
            E[i, j] = 0.0
    idx = np.empty(K, dtype=np.int64)
    keys = np.empty(K)
    total_I = 0.0
    for j in range(K):  # e_{a j} = 1 on I_a; the pools' rows below write no entry of row or column a
        if beats[a, j]:
            total_I += C[a, j]
            E[a, j] = 1.0
            E[j, a] = 1.0
    parts = 0.0
    for i2 in range(K):
        if i2 == a:
            continue
        best, hbest, level = ecw_pool_row(beats, L, C, a, i2, idx, keys)
        if hbest == 0:
            continue
        parts += best
        for q in range(hbest):
            E[i2, idx[q]] = level
            E[idx[q], i2] = level
    return total_I + parts
