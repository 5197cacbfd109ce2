"""Compiled (numba) inner loops of paper 004's pure-exploration algorithms (Chen, Du, Huang &
Zhao, ICML 2020).

* :func:`exact_draws` -- the exact sampler's draws (:class:`boundcalc.cpe.sampler.MatchingSampler`,
  sequential conditional sampling from the subset tables), with the generator's own integer
  rule, so a draw consumes the generator exactly as ``Generator.integers`` does;
* :func:`best_forced` -- 004's MWMC with forced sets over the enumerated maximum matchings, where
  its maximum is unique (:class:`boundcalc.cpe.algorithms._Lin`);
* :func:`clucb_rounds` -- rounds of Algorithm 1 / 5's loop over the enumerated maximum
  matchings (:func:`boundcalc.cpe.algorithms.clucb_borda_pac`);
* :func:`confidence` -- the confidence matrices ``bar P_t``, ``underline P_t`` of eq. (8);
* :func:`car_round` -- CAR-Cond's counts after a round's duels, its confidence matrices and the
  screen of its line 9 tests (:class:`boundcalc.cpe.algorithms._MaxMin`), as a filter: True only
  when no test of the round can succeed, by a margin;
* :func:`bounds01` -- CAR-Cond's certified bounds on an oracle value at 0/1 points;
* :func:`verify_round` -- one round of CAR-Verify's verification (Algorithm 4, lines 5-14) over
  the enumerated matchings;
* :func:`condorcet_lp`, :func:`dual_point` -- the emptiness tests, the LP and the points read
  from its solution, of the Condorcet oracle (eq. (6), :func:`boundcalc.cpe.oracle.condorcet_oracle`).

Each does what the numpy code it replaces did, in the same order where the order shows in a
result (sums in numpy's pairwise order, draws in the generator's order); decisions that a
different summation order could move by a rounding error are left to the callers' exact path
(a band of ``margin`` around every threshold).  The tests compare whole seeded runs with the
reference paths and with runs recorded from the numpy implementation
(``tests/test_cpe_algorithms.py``).

The callers (:mod:`boundcalc.cpe.algorithms`, :mod:`boundcalc.cpe.oracle`,
:mod:`boundcalc.cpe.sampler`) import this module where they use it, so numba is imported only by
the CPE algorithms that run compiled (the ``fast=`` choice of :func:`boundcalc.cpe.algorithms.clucb_borda_pac`
and its siblings).

>>> x = np.array([0.1, 0.2, 0.3])
>>> bool(pairwise_sum(x, np.array([2, 0]), 2) == x[[2, 0]].sum())
True
>>> a, b = np.random.default_rng(5), np.random.default_rng(5)
>>> [int(bounded(a, np.int64(h))) for h in (7, 2**40)] == b.integers(0, [7, 2**40]).tolist()
True
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import compile_gc  # noqa: F401  (the garbage-collection guard of every compilation)

__all__ = [
    "exact_draws",
    "best_forced",
    "clucb_rounds",
    "confidence",
    "car_round",
    "bounds01",
    "verify_round",
    "condorcet_lp",
    "dual_point",
    "pairwise_sum",
    "OUTPUT",
    "BREAK",
    "TIE",
    "MORE",
    "ERROR",
    "DUEL",
    "FALLBACK",
]


# Return codes of clucb_rounds.
OUTPUT, BREAK, TIE, MORE = 0, 1, 2, 3
# Return codes of verify_round (OUTPUT as above).
ERROR, DUEL, FALLBACK = 4, 5, 6


# ---------------------------------------------------------------------------- shared helpers
@njit(cache=True)
def pairwise_sum(x, idx, n):
    """``x[idx[:n]].sum()`` in numpy's summation order (pairwise_sum for n <= 128: 8 accumulators)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += x[idx[i]]
        return res
    r0, r1, r2, r3 = x[idx[0]], x[idx[1]], x[idx[2]], x[idx[3]]
    r4, r5, r6, r7 = x[idx[4]], x[idx[5]], x[idx[6]], x[idx[7]]
    i = 8
    stop = n - (n % 8)
    while i < stop:
        r0 += x[idx[i]]
        r1 += x[idx[i + 1]]
        r2 += x[idx[i + 2]]
        r3 += x[idx[i + 3]]
        r4 += x[idx[i + 4]]
        r5 += x[idx[i + 5]]
        r6 += x[idx[i + 6]]
        r7 += x[idx[i + 7]]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += x[idx[i]]
        i += 1
    return res


# ---------------------------------------------------------------------------- exact sampler
@njit(cache=True)
def _raw64(rng):
    """One raw 64-bit output of the bit generator (``next_uint64``)."""
    return rng.integers(0, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64, endpoint=True)


@njit(cache=True)
def bounded(rng, high):
    """An integer uniform on ``[0, high)`` drawn exactly as ``Generator.integers(0, high)`` draws
    each entry of an int64 array ``high`` (numpy's ``random_bounded_uint64``: nothing when
    ``high = 1``, Lemire's rejection on 32 bits below ``2^32``, on 64 bits above).  numba's own
    ``integers`` is used below ``2^32``; above, its threshold is computed in floating point
    (uint64 minus int64), so the 64-bit rejection is written out here."""
    r = np.uint64(high - 1)
    if r <= np.uint64(0xFFFFFFFF):
        return rng.integers(0, high)
    one = np.uint64(1)
    lo32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    rng_excl = r + one
    x = _raw64(rng)
    leftover = x * rng_excl
    if leftover < rng_excl:
        threshold = (np.uint64(0xFFFFFFFFFFFFFFFF) - r) % rng_excl
        while leftover < threshold:
            x = _raw64(rng)
            leftover = x * rng_excl
    # the high 64 bits of the 128-bit product x * rng_excl
    x0, x1 = x & lo32, x >> s32
    e0, e1 = rng_excl & lo32, rng_excl >> s32
    w0 = x0 * e0
    t = x1 * e0 + (w0 >> s32)
    w1 = (t & lo32) + x0 * e1
    return np.int64(x1 * e1 + (t >> s32) + (w1 >> s32))


@njit(cache=True)
def exact_draws(rng, tables, adj_start, adj_pos, adj_edge, edge_pos, chosen, use_int):
    """Sequential conditional sampling of ``chosen.shape[0]`` maximum matchings (see
    :class:`boundcalc.cpe.sampler.MatchingSampler`): candidates last to first, each sample
    drawing ``r`` uniform below ``f_i[S]`` and taking the first term of
    ``f_{i-1}[S], f_{i-1}[S - p_1], ...`` (unused, then its free adjacent positions in edge
    order) whose running sum exceeds ``r``.  The generator is read candidate by candidate,
    sample by sample: ``Generator.integers(0, f_i[S])`` on int64 tables, ``random() * f_i[S]``
    on float tables (``use_int`` False).  ``chosen`` holds the forced edges and receives the rest."""
    n = chosen.shape[0]
    nC = adj_start.shape[0] - 1
    full = tables.shape[1] - 1
    S = np.full(n, full, dtype=np.int64)
    for i in range(nC, 0, -1):
        a, b = adj_start[i - 1], adj_start[i]
        for s in range(n):
            cur = S[s]
            tot = tables[i, cur]
            ri = np.int64(0)
            rf = 0.0
            if use_int:
                ri = bounded(rng, np.int64(tot))
            else:
                rf = rng.random() * tot
            acc = tables[i - 1, cur]
            if (acc > ri) if use_int else (acc > rf):
                continue  # the candidate stays unused
            for k in range(a, b):
                bit = np.int64(1) << adj_pos[k]
                if cur & bit:
                    acc += tables[i - 1, cur ^ bit]
                    if (acc > ri) if use_int else (acc > rf):
                        e = adj_edge[k]
                        chosen[s, edge_pos[e]] = e
                        S[s] = cur ^ bit
                        break


# ---------------------------------------------------------------------------- MWMC by enumeration
@njit(cache=True)
def best_forced(w, Ms, inc, include, exclude, minimize, tie_tol, val):
    """004's MWMC over the enumerated maximum matchings ``Ms`` (rows in position order, ``inc``
    their edge indicators) that contain every edge of ``include`` and none of ``exclude``: the
    index of the one of largest ``w(M)`` (smallest when ``minimize``) if every other is worse by
    more than ``tie_tol``, its weight (summed in numpy's order) in ``val[0]``; -1 when tied (the
    caller asks the LSA oracle, whose choice among tied matchings this does not reproduce); -2
    when no matching qualifies."""
    nM, l = Ms.shape
    best, second, ib = -np.inf, -np.inf, -2
    for i in range(nM):
        ok = True
        for e in include:
            if not inc[i, e]:
                ok = False
                break
        if ok:
            for e in exclude:
                if inc[i, e]:
                    ok = False
                    break
        if not ok:
            continue
        v = pairwise_sum(w, Ms[i], l)
        if minimize:
            v = -v
        if ib == -2 or v > best:
            second = best
            best, ib = v, i
        elif v > second:
            second = v
    if ib >= 0 and second >= best - tie_tol:
        return -1
    if ib >= 0:
        val[0] = -best if minimize else best
    return ib


# ---------------------------------------------------------------------------- CLUCB-Borda
@njit(cache=True)
def best_two(w, Ms, nM, l):
    """The largest and second-largest weight ``w(M)`` over the enumerated matchings, and the
    first index reaching the largest (MWMC by enumeration; ties are detected by the caller)."""
    best, second, ib = -np.inf, -np.inf, -1
    for i in range(nM):
        v = pairwise_sum(w, Ms[i], l)
        if v > best:
            second = best
            best, ib = v, i
        elif v > second:
            second = v
    return best, second, ib


@njit(cache=True)
def clucb_rounds(
    Ms,
    inc,
    ep,
    P,
    S,
    T,
    wbar,
    h,
    unseen,
    c,
    wt,
    buf,
    U,
    t,
    k,
    k_end,
    log4K_d,
    bonus,
    l_eps,
    eq_tol,
    exact,
    tie_tol,
    res,
    zlog,
    dout,
):
    """Rounds of Algorithm 1 / 5's loop from round ``t``, duel ``k`` of the block, as
    :func:`boundcalc.cpe.algorithms._clucb_phase` runs them, on the enumerated matchings ``Ms``.

    Stops before a round's duel when the block (or budget) ends at ``k_end`` (code MORE), when
    an MWMC argmax is tied within ``tie_tol`` or a stop test is within ``1e-9`` of its threshold
    (TIE: the caller runs that round with the LSA oracle), or at line 15 / 18 / 22 (OUTPUT /
    BREAK).  ``res`` receives (t, k, index of M_t).
    """
    nM, l = Ms.shape
    m = wbar.shape[0]
    code = MORE
    diff = 0.0
    while True:
        # line 5 / 8: M_t = MWMC(bar w_t)
        best, second, ib = best_two(wbar, Ms, nM, l)
        if second >= best - tie_tol:
            code = TIE
            break
        # line 6 / 9: c_t(e) = sqrt(ln(4 K t^3 / delta) / (2 T_t(e))), x/0 := 1
        L = log4K_d + 3.0 * math.log(t)
        for e in range(m):
            if unseen[e]:
                c[e] = 1.0
            else:
                c[e] = math.sqrt(L * h[e])
            if inc[ib, e]:  # lines 7-13 / 10-16
                wt[e] = wbar[e] - c[e] - bonus
            else:
                wt[e] = wbar[e] + c[e] + bonus
        # line 14 / 17: tilde M_t = MWMC(tilde w_t)
        best, second, it = best_two(wt, Ms, nM, l)
        if second >= best - tie_tol:
            code = TIE
            break
        if it == ib:  # both paths then compute the same sum twice: diff = 0 exactly
            diff = 0.0
        else:
            diff = best - pairwise_sum(wt, Ms[ib], l)
            if abs(diff - l_eps) <= 1e-9 or (exact and abs(diff - eq_tol) <= 1e-9):
                code = TIE
                break
        if exact and diff <= eq_tol:  # Algorithm 5 line 18
            code = OUTPUT
            break
        if diff <= l_eps:  # Algorithm 1 line 15 / Algorithm 5 line 22
            code = OUTPUT if not exact else BREAK
            break
        # line 19 / 25: z_t, ties to the smallest edge index
        z, cz = 0, -np.inf
        for e in range(m):
            v = c[e] if inc[ib, e] != inc[it, e] else -1.0
            if v > cz:
                z, cz = e, v
        if k >= k_end:
            code = MORE
            break
        # lines 20-22 / 26-28: the duel (z_t, e(M', s(z_t))) with the block's sample and uniform
        f = buf[k, ep[z]]
        x = 1.0 if U[k] < P[z, f] else 0.0
        zlog[k, 0], zlog[k, 1], zlog[k, 2] = z, f, int(x)
        S[z] += x
        T[z] += 1.0
        wbar[z] = S[z] / T[z]
        h[z] = 0.5 / T[z]
        unseen[z] = False
        t += 1
        k += 1
    res[0], res[1], res[2] = t, k, ib
    dout[0] = diff
    return code


# ---------------------------------------------------------------------------- CAR-Cond's screen
@njit(cache=True)
def confidence(W, N, comp, log_term, Pu, Pl):
    """``bar P_t`` (into ``Pu``) and ``underline P_t`` (into ``Pl``) of 004 eq. (8) from the win
    counts ``W`` and duel counts ``N``: ``hat p +- c`` clipped to [0, 1] with ``c = sqrt(log_term /
    (2 N))`` (``log_term = ln(4 K t^3 / delta)``; ``x/0 := 1``: ``hat p = 1/2``, ``c = 1`` where
    ``N = 0``), 1/2 on the diagonal, 0 between incomparable edges."""
    m = W.shape[0]
    for e in range(m):
        for f in range(m):
            if e == f:
                Pu[e, f] = 0.5
                Pl[e, f] = 0.5
            elif comp[e, f]:
                n = N[e, f]
                if n > 0:
                    ph = W[e, f] / n
                    c = math.sqrt(log_term / (2.0 * n))
                else:
                    ph = 0.5
                    c = 1.0
                v = ph + c
                Pu[e, f] = v if v < 1.0 else 1.0
                v = ph - c
                Pl[e, f] = v if v > 0.0 else 0.0
            else:
                Pu[e, f] = 0.0
                Pl[e, f] = 0.0


@njit(cache=True)
def car_round(W, N, pa, pb, xs, comp, X, allowed, starts, log_term, thr, margin, Pu, Pl, bounds):
    """One round of CAR-Cond after its duels (:func:`boundcalc.cpe.algorithms._car_cond_gen`).

    Adds the round's outcomes to the counts (pair ``(pa[k], pb[k])``: ``W[a, b] += x``, ``W[b, a]
    += 1 - x``, ``N[a, b] += 1``, ``N[b, a] += 1``, in order), fills ``Pu``, ``Pl`` with the
    round's confidence matrices (:func:`confidence`, line 7), then -- when ``X`` has rows --
    returns True when every screen bound of the round clears ``thr`` by ``margin``: no line 15 /
    17 test can succeed (see :meth:`boundcalc.cpe.algorithms._MaxMin.screen`).

    The screen: each row ``x`` of ``X`` (the screen's start points) gives the bound ``(1/l)
    sum_j min_{f in E_j allowed} (Pu^T x)_f`` (into ``bounds``), a sum whose order may differ
    from numpy's matrix product by rounding -- hence the margin."""
    for k in range(pa.shape[0]):
        a, b, x = pa[k], pb[k], xs[k]
        W[a, b] += x
        W[b, a] += 1.0 - x
        N[a, b] += 1.0
        N[b, a] += 1.0
    confidence(W, N, comp, log_term, Pu, Pl)
    if X.shape[0] == 0:
        return False
    m = W.shape[0]
    l = starts.shape[0]
    settled = True
    for r in range(X.shape[0]):
        tot = 0.0
        for j in range(l):
            end = starts[j + 1] if j + 1 < l else m
            lo = np.inf
            for f in range(starts[j], end):
                if allowed[f]:
                    g = 0.0
                    for e in range(starts[j], end):  # Pu vanishes outside the position's block
                        g += X[r, e] * Pu[e, f]
                    if g < lo:
                        lo = g
            tot += lo
        bounds[r] = tot / l
        if not bounds[r] >= thr + margin:
            settled = False
    return settled


@njit(cache=True)
def bounds01(Q, ysel, xsel, A1, R1, A, R, Ms, inc, ep, tie_tol, w, out):
    """The certified bounds of one CAR-Cond oracle value at 0/1 points, as
    :meth:`boundcalc.cpe.algorithms._MaxMin.get_bounds` computes them: ``out[0] = max_{M in
    P(A1, R1)} w(M)`` with ``w = Q y`` and ``out[1] = min_{M in P(A, R)} w'(M)`` with ``w' = Q^T x``,
    ``y`` the matching ``ysel`` and ``x`` the matching ``xsel`` (empty: the first maximiser).

    ``Q`` must vanish between edges of different positions (as ``bar P``, ``underline P`` do):
    then ``(Q y)_e = Q[e, y's edge at s(e)]`` exactly, whatever the order of a matrix product's
    sum.  False when an MWMC optimum is tied (the caller's numpy / LSA path decides)."""
    m = Q.shape[0]
    for e in range(m):
        w[e] = Q[e, ysel[ep[e]]]
    i = best_forced(w, Ms, inc, A1, R1, False, tie_tol, out[0:1])
    if i < 0:
        return False
    x = xsel if xsel.shape[0] > 0 else Ms[i]
    for f in range(m):
        w[f] = Q[x[ep[f]], f]
    return best_forced(w, Ms, inc, A, R, True, tie_tol, out[1:2]) >= 0


# ---------------------------------------------------------------------------- CAR-Verify's rounds
@njit(cache=True)
def _unique_best(x, Mv, l, tie_tol, margin):
    """The index of the largest ``x(M)`` over the rows of ``Mv`` when every other row is below
    it by more than ``tie_tol + margin``, else -1 (tied, or too close to tell)."""
    best, second, ib = best_two(x, Mv, Mv.shape[0], l)
    return -1 if second >= best - tie_tol - margin else ib


@njit(cache=True)
def verify_round(W, N, inMhat, Mhat, Mv, log_term, tie_tol, margin, c, au, al, out):
    """One round of CAR-Verify's verification (Algorithm 4, lines 5-14) over the enumerated
    matchings ``Mv`` other than ``M^`` (see :func:`boundcalc.cpe.algorithms._car_verify_gen`).

    Line 5: ``c``, ``au`` (``bar P``) and ``al`` (``underline P``) on the pairs
    ``(e, e(M^, s(e)))``, 1/2 on ``M^``; line 6: ERROR when the best ``al(M)`` is ``>= l/2``;
    lines 9-10: OUTPUT when the best ``au(M)`` is ``<= l/2``; line 14: DUEL with ``out[0] =
    e_t``, the edge of largest radius among the positions where ``M_t`` differs from ``M^``
    (first position on ties).  FALLBACK when either maximum is not unique by more than
    ``tie_tol + margin`` (the caller runs the round with the ``l`` MWMC calls)."""
    m = W.shape[0]
    l = Mhat.shape[0]
    for e in range(m):
        n = N[e]
        if n > 0:
            c[e] = math.sqrt(log_term / (2.0 * n))
            ph = W[e] / n
        else:
            c[e] = 1.0
            ph = 0.5
        if inMhat[e]:
            au[e] = 0.5
            al[e] = 0.5
        else:
            v = ph + c[e]
            au[e] = v if v < 1.0 else 1.0
            v = ph - c[e]
            al[e] = v if v > 0.0 else 0.0
    i = _unique_best(al, Mv, l, tie_tol, margin)
    if i < 0:
        return FALLBACK
    if pairwise_sum(al, Mv[i], l) / l >= 0.5:  # line 6
        return ERROR
    j = _unique_best(au, Mv, l, tie_tol, margin)
    if j < 0:
        return FALLBACK
    if pairwise_sum(au, Mv[j], l) / l <= 0.5:  # line 10
        return OUTPUT
    best, e_t = -1.0, -1
    for p in range(l):  # line 14
        e = Mv[j, p]
        if e != Mhat[p] and c[e] > best:
            best, e_t = c[e], e
    out[0] = e_t
    return DUEL


# ---------------------------------------------------------------------------- Condorcet oracle LP
@njit(cache=True)
def face(ep, ec, l, n, A, R):
    """``P(M, A, R)``'s face data: (free edges mask, positions covered by A, A is a matching
    disjoint from R).  An edge is free when it is not in R and shares no position or candidate
    with A (A's own edges are not free: they are fixed at 1)."""
    m = ep.shape[0]
    pcov = np.zeros(l, dtype=np.bool_)
    ccov = np.zeros(n, dtype=np.bool_)
    inR = np.zeros(m, dtype=np.bool_)
    for r in R:
        inR[r] = True
    ok = True
    for a in A:
        if pcov[ep[a]] or ccov[ec[a]] or inR[a]:
            ok = False
        pcov[ep[a]] = True
        ccov[ec[a]] = True
    free = np.zeros(m, dtype=np.bool_)
    for e in range(m):
        free[e] = not (inR[e] or pcov[ep[e]] or ccov[ec[e]])
    return free, pcov, ok


@njit(cache=True)
def _saturates(ep, ec, pstart, n, free, pcov):
    """Whether the free edges match every position outside ``pcov`` to distinct candidates
    (augmenting paths, breadth first): ``P(M, A, R)`` is non-empty exactly then."""
    l = pstart.shape[0] - 1
    cand_pos = np.full(n, -1, dtype=np.int64)  # candidate -> matched position
    pos_cand = np.full(l, -1, dtype=np.int64)  # position -> matched candidate
    prev = np.empty(n, dtype=np.int64)
    queue = np.empty(l, dtype=np.int64)
    for root in range(l):
        if pcov[root]:
            continue
        prev[:] = -1
        queue[0] = root
        head, tail, found = 0, 1, -1
        while head < tail and found < 0:
            j = queue[head]
            head += 1
            for e in range(pstart[j], pstart[j + 1]):
                if not free[e]:
                    continue
                c = ec[e]
                if prev[c] >= 0:
                    continue
                prev[c] = j
                if cand_pos[c] < 0:
                    found = c
                    break
                queue[tail] = cand_pos[c]
                tail += 1
        if found < 0:
            return False
        c = found
        while True:  # flip the path back to the root
            j = prev[c]
            old = pos_cand[j]
            pos_cand[j] = c
            cand_pos[c] = j
            if j == root:
                break
            c = old
    return True


@njit(cache=True)
def _numbered(keep, first):
    """``first, first + 1, ...`` at the kept indices in order, -1 elsewhere; and how many."""
    out = np.full(keep.shape[0], -1, dtype=np.int64)
    k = 0
    for i in range(keep.shape[0]):
        if keep[i]:
            out[i] = first + k
            k += 1
    return out, k


@njit(cache=True)
def condorcet_lp(Q, Qb, Qta, ep, ec, pstart, n, A1, R1, A2, R2):
    """The LP of :func:`boundcalc.cpe.oracle.condorcet_oracle` (its docstring derives it) for
    ``P1 = P(M, A1, R1)``, ``P2 = P(M, A2, R2)``, given ``Qb = Q chi_{A2}`` and
    ``Qta = Q^T chi_{A1}``.

    Returns ``(code, F1, F2, cost, col_lo, col_hi, row_lo, row_hi, start, index, value)``:
    code 1 when ``P1`` is empty, 2 when only ``P2`` is, else 0 and the LP -- columns ``z``
    (``F1``), ``u`` (``J2``), ``v`` (``C2``); rows ``f in F2``, then ``J1``, then ``C1``; the
    matrix column-wise with rows ascending in each column (the order of ``lexsort((rows,
    cols))`` on the coordinate lists).  A candidate constraint over fewer than two free edges
    is left out (implied)."""
    l = pstart.shape[0] - 1
    free1, pcov1, ok1 = face(ep, ec, l, n, A1, R1)
    e_i = np.zeros(0, dtype=np.int64)
    e_f = np.zeros(0)
    e_i32 = np.zeros(0, dtype=np.int32)
    if not (ok1 and _saturates(ep, ec, pstart, n, free1, pcov1)):
        return 1, e_i, e_i, e_f, e_f, e_f, e_f, e_f, e_i32, e_i32, e_f
    free2, pcov2, ok2 = face(ep, ec, l, n, A2, R2)
    if not (ok2 and _saturates(ep, ec, pstart, n, free2, pcov2)):
        return 2, e_i, e_i, e_f, e_f, e_f, e_f, e_f, e_i32, e_i32, e_f
    F1 = np.flatnonzero(free1)
    F2 = np.flatnonzero(free2)
    n1, k2 = F1.shape[0], F2.shape[0]
    cnt1 = np.zeros(n, dtype=np.int64)
    cnt2 = np.zeros(n, dtype=np.int64)
    for e in F1:
        cnt1[ec[e]] += 1
    for f in F2:
        cnt2[ec[f]] += 1
    # columns: z (F1) | u (positions J2) | v (candidates C2); rows: f in F2 | J1 | C1
    ucol, nu = _numbered(~pcov2, n1)
    vcol, nv = _numbered(cnt2 >= 2, n1 + nu)
    jrow, nj1 = _numbered(~pcov1, k2)
    crow, nc1 = _numbered(cnt1 >= 2, k2 + nj1)
    ncol, nrow = n1 + nu + nv, k2 + nj1 + nc1
    cost = np.empty(ncol)
    col_lo = np.empty(ncol)
    col_hi = np.full(ncol, np.inf)
    for i in range(n1):
        cost[i] = Qb[F1[i]] / l
        col_lo[i] = 0.0
    for i in range(n1, n1 + nu):
        cost[i] = 1.0
        col_lo[i] = -np.inf
    for i in range(n1 + nu, ncol):
        cost[i] = -1.0
        col_lo[i] = 0.0
    row_lo = np.empty(nrow)
    row_hi = np.empty(nrow)
    for r in range(k2):
        row_lo[r] = -np.inf
        row_hi[r] = Qta[F2[r]] / l
    for r in range(k2, k2 + nj1):
        row_lo[r] = 1.0
        row_hi[r] = 1.0
    for r in range(k2 + nj1, nrow):
        row_lo[r] = -np.inf
        row_hi[r] = 1.0
    nnz = 0
    for i in range(n1):
        for r in range(k2):
            if Q[F1[i], F2[r]] != 0.0:
                nnz += 1
        nnz += 1 + (crow[ec[F1[i]]] >= 0)
    for r in range(k2):
        nnz += 1 + (vcol[ec[F2[r]]] >= 0)
    start = np.zeros(ncol + 1, dtype=np.int32)
    index = np.empty(nnz, dtype=np.int32)
    value = np.empty(nnz)
    k = 0
    for i in range(n1):  # z_e: -(1/l) Q[e, f] in rows f, 1 in its position's row and candidate's row
        e = F1[i]
        for r in range(k2):
            q = Q[e, F2[r]]
            if q != 0.0:
                index[k] = r
                value[k] = -q / l
                k += 1
        index[k] = jrow[ep[e]]
        value[k] = 1.0
        k += 1
        if crow[ec[e]] >= 0:
            index[k] = crow[ec[e]]
            value[k] = 1.0
            k += 1
        start[i + 1] = k
    for j in range(l):  # u_j: 1 in the rows f at position j
        if ucol[j] < 0:
            continue
        for r in range(k2):
            if ep[F2[r]] == j:
                index[k] = r
                value[k] = 1.0
                k += 1
        start[ucol[j] + 1] = k
    for c in range(n):  # v_c: -1 in the rows f at candidate c
        if vcol[c] < 0:
            continue
        for r in range(k2):
            if ec[F2[r]] == c:
                index[k] = r
                value[k] = -1.0
                k += 1
        start[vcol[c] + 1] = k
    return 0, F1, F2, cost, col_lo, col_hi, row_lo, row_hi, start, index, value


@njit(cache=True)
def dual_point(x_z, duals, a, b, F1, F2, ep, ec, l, n, R2, tol):
    """The oracle's points from the LP solution: ``x = chi_{A1}`` with ``z`` (clipped to [0, 1])
    on ``F1``; ``y = chi_{A2}`` with ``|duals|`` of the ``f in F2`` rows on ``F2``, its clipped
    copy, and whether ``y`` passes the membership checks of ``P(M, A2, R2)`` within ``tol``
    (position sums 1, candidate sums at most 1, zero on ``R2``; sums accumulated in edge order,
    as ``numpy.bincount`` does)."""
    m = a.shape[0]
    x = a.copy()
    for i in range(F1.shape[0]):
        v = x_z[i]
        x[F1[i]] = min(max(v, 0.0), 1.0)
    y = b.copy()
    for r in range(F2.shape[0]):
        y[F2[r]] = abs(duals[r])
    pos = np.zeros(l)
    cand = np.zeros(n)
    for e in range(m):
        pos[ep[e]] += y[e]
        cand[ec[e]] += y[e]
    ok = True
    for j in range(l):
        if not abs(pos[j] - 1.0) <= tol:
            ok = False
    for c in range(n):
        if not cand[c] <= 1.0 + tol:
            ok = False
    for e in R2:
        if not y[e] <= tol:
            ok = False
    yc = np.empty(m)
    for e in range(m):
        yc[e] = min(max(y[e], 0.0), 1.0)
    return x, y, yc, ok
