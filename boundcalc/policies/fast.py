"""Compiled whole-run kernels (numba) for the deterministic policies, and the duel stream they share
with the step-by-step simulator.

A kernel runs one simulation of ``T`` rounds of one policy on one matrix: it draws each duel
from the counter-based stream :func:`duel_uniform` (exactly as
:class:`boundcalc.simulate.DuelEnvironment` does), lets the policy's state learn only from the
outcomes (the matrix is read for drawing and for the regret, never by the policy's logic), and
accumulates the regret.  Each kernel re-implements its policy class step for step, with the
same arithmetic in the same order, so that both choose the same pairs for the same outcomes;
the contract test checks this on many matrices and seeds (``tests/test_policies.py``).

* :func:`ecw_rmed_run` -- :class:`~boundcalc.policies.copeland_rmed.ECWRMED`.  Between two real
  duels nothing but ``t`` changes, so check (3)'s smallest row sum per winner and line 11's
  allocation are cached and reused (a self-duel costs O(K)).
* :func:`rmed1_run` -- :class:`~boundcalc.policies.rmed1.RMED1`, with the empirical divergences
  updated for the two arms of each duel (O(K) per round).
* :func:`ecw_closed_form` -- Theorem 5 of paper 000 for one empirical winner (tested equal to
  :mod:`boundcalc.lp.ecw`).
* :func:`rucb_run`, :func:`dts_run` -- the randomized policies :class:`~boundcalc.policies.rucb.RUCB`
  and :class:`~boundcalc.policies.dts.DTS` / ``DTSPlus``, drawing from their own documented
  policy stream (:func:`stream_uniform`, :func:`stream_beta`, ...; SplitMix64, seeded by
  ``params["stream_seed"]``): the same pairs as the class whose draws are routed to that
  stream, the class's distribution otherwise (``tests/test_policies_dts.py``).
* :func:`ccb_run` -- :class:`~boundcalc.policies.ccb.CCB` (paper 002 Algorithm 1) on the same
  policy stream, tested the same way (``tests/test_policies_ccb_scb.py``).
* :func:`scb_run` -- :class:`~boundcalc.policies.scb.SCB` (paper 002 Algorithms 2-4) on the
  same stream, calling the class's own helpers compiled in place (``scb._compile``).

The duel stream
    The ``n``-th duel (``n = 0, 1, ...``) of the unordered pair ``lo <= hi`` in a run with keys
    ``(key0, key1)`` uses ``u = duel_uniform(key0, key1, lo * K + hi, n)``; arm ``lo`` wins when
    ``u < mu[lo, hi]``.  ``u`` is a SplitMix64 output (Steele, Lea & Flood, OOPSLA 2014) of a
    per-pair stream, so two policies given the same keys see the same outcome for the same
    draw of the same pair (common random numbers), whatever else they draw.

>>> duel_uniform(np.uint64(1), np.uint64(2), 3, 0) == duel_uniform_py(1, 2, 3, 0)
True
>>> mu = np.array([[0.5, 0.9], [0.1, 0.5]])
>>> out, st = run_kernel("rmed1", mu, 100, {"f_scale": 0.3, "f_power": 1.01, "n_init": 1}, 1, 2,
...                      np.array([10, 100]), np.ones((1, 2, 2)) - np.eye(2)[None])
>>> out.shape, st["initial"], bool(out[0, 1] <= 100)
((1, 2), 1, True)
"""

from __future__ import annotations

import math

import numpy as np

try:  # numba is a core dependency; the import is guarded only to give a clear message
    import numba
    from numba import njit
except ImportError as exc:  # pragma: no cover - exercised only without numba
    raise ImportError("boundcalc.policies.fast needs numba (pip install numba)") from exc

from ..lp import _kernels  # noqa: E402

_kernels.load()  # the shared compiled helpers below are called from inside this module's kernels
_sort_by_key = _kernels._sort_by_key
_tgt_row = _kernels.ecw_pool_row
ecw_closed_form = _kernels.ecw_closed_form  # one closed form, shared with the LP core

__all__ = ["duel_uniform", "duel_uniform_py", "ecw_rmed_run", "rmed1_run", "ecw_closed_form",
           "KERNELS", "kernel_stats_names", "run_kernel", "rucb_run", "dts_run", "stream_next",
           "stream_uniform", "stream_index", "stream_normal", "stream_gamma", "stream_beta", "ccb_run",
           "scb_run", "scb_pair_decided", "scb_kl_bounds", "scb_eliminate"]

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


def _mix64_py(z: int) -> int:
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def duel_uniform_py(key0: int, key1: int, code: int, n: int) -> float:
    """Pure-Python :func:`duel_uniform` (the reference the compiled one is tested against)."""
    s = _mix64_py((key0 + (code + 1) * _GOLDEN) & _MASK) ^ key1
    z = _mix64_py((s + (n + 1) * _GOLDEN) & _MASK)
    return (z >> 11) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _mix64(z):
    z = (z ^ (z >> numba.uint64(30))) * numba.uint64(_M1)
    z = (z ^ (z >> numba.uint64(27))) * numba.uint64(_M2)
    return z ^ (z >> numba.uint64(31))


@njit(cache=True)
def duel_uniform(key0, key1, code, n):
    """Uniform on [0, 1) for the ``n``-th duel of pair ``code`` under keys ``(key0, key1)`` (uint64)."""
    g = numba.uint64(_GOLDEN)
    s = _mix64(numba.uint64(key0) + numba.uint64(code + 1) * g) ^ numba.uint64(key1)
    z = _mix64(s + numba.uint64(n + 1) * g)
    return float(z >> numba.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _kl(p):
    # d(p) = KL(p, 1/2) as boundcalc.matrix.kl_half computes it (bit for bit)
    x = 2.0 * p - 1.0
    if abs(x) >= 1.0:
        return math.log(2.0)
    return x * math.atanh(x) + 0.5 * math.log1p(-x * x)


@njit(cache=True)
def _duel(mu, counts, key0, key1, i, j):
    K = mu.shape[0]
    lo = min(i, j)
    hi = max(i, j)
    code = lo * K + hi
    u = duel_uniform(key0, key1, code, counts[code])
    counts[code] += 1
    lo_wins = u < mu[lo, hi]
    if i == lo:
        return lo_wins
    return not lo_wins


@njit(cache=True)
def _record(regrets, cum, out, checkpoints, c, t, i, j):
    for u in range(regrets.shape[0]):
        cum[u] += regrets[u, i, j]
    while c < checkpoints.shape[0] and checkpoints[c] == t:
        for u in range(regrets.shape[0]):
            out[u, c] = cum[u]
        c += 1
    return c


@njit(cache=True)
def _chk_row(beats, L, info, a, i2, vals):
    """Check (3), eq. (5) row of ``i2`` for winner ``a``: the ``m`` smallest ``N d`` of the pool
    summed in ascending order (``inf`` when the pool is too small to give a row)."""
    K = beats.shape[0]
    n = 0
    for j in range(K):
        if beats[j, i2] and j != a:
            vals[n] = info[i2, j]
            n += 1
    m = L[i2] - L[a] + 1
    if n < m:
        return np.inf
    s = np.sort(vals[:n])
    tot = 0.0
    for q in range(m):
        tot += s[q]
    return tot


@njit(cache=True)
def _chk_I(beats, info, a):
    """Check (3), eq. (4) read as ``>=``: the smallest ``N_{a j} d`` over ``j in I_a``."""
    best = np.inf
    for j in range(beats.shape[0]):
        if beats[a, j] and info[a, j] < best:
            best = info[a, j]
    return best


@njit(cache=True)
def _set_pair_stats(W, N, beats, L, d, info, C, i, j):
    """d, N d and cost of the pair (i, j) after a duel that left the structure unchanged."""
    K = W.shape[0]
    if beats[i, j] or beats[j, i]:
        n = N[i, j]
        x = 0.5 * (_kl(W[i, j] / n) + _kl(W[j, i] / n))
        d[i, j] = x
        d[j, i] = x
    else:
        d[i, j] = 0.0
        d[j, i] = 0.0
    L1 = L[0]
    for q in range(K):
        if L[q] < L1:
            L1 = L[q]
    for (x, y) in ((i, j), (j, i)):
        info[x, y] = float(N[x, y]) * d[x, y]
        if d[x, y] > 0:
            r = (float(L[x]) + float(L[y]) - 2.0 * float(L1)) / (2.0 * (K - 1))
            C[x, y] = r / d[x, y]
        else:
            C[x, y] = np.inf


@njit(cache=True)
def _ecw_refresh(W, N, beats, L, d, info, C):
    """Recompute the empirical structure, d, N d and the costs from the counts."""
    K = W.shape[0]
    for j in range(K):
        L[j] = 0
    for i in range(K):
        for j in range(K):
            beats[i, j] = i != j and 2 * W[i, j] > N[i, j]
    for i in range(K):
        for j in range(K):
            if beats[i, j]:
                L[j] += 1
    L1 = L[0]
    for j in range(K):
        if L[j] < L1:
            L1 = L[j]
    for i in range(K):
        for j in range(K):
            if beats[i, j] or beats[j, i]:
                n = N[i, j]
                a = _kl(W[i, j] / n)
                b = _kl(W[j, i] / n)
                d[i, j] = 0.5 * (a + b)
            else:
                d[i, j] = 0.0
            info[i, j] = float(N[i, j]) * d[i, j]
            if i != j and d[i, j] > 0:
                r = (float(L[i]) + float(L[j]) - 2.0 * float(L1)) / (2.0 * (K - 1))
                C[i, j] = r / d[i, j]
            else:
                C[i, j] = np.inf


@njit(cache=True)
def ecw_rmed_run(mu, T, alpha, beta, key0, key1, checkpoints, regrets):
    """One run of ECW-RMED (000 Algorithm 1 with Theorem 5), ``T`` rounds.

    Returns ``(out, stats)``: ``out[u, c]`` the cumulative regret in unit ``u``
    (``regrets[u]``, K x K including the diagonal) after round ``checkpoints[c]``;
    ``stats = [forced, checks, targets, solves, self_duels]``.

    Caches: a duel that keeps the empirical structure changes one pair's ``d``, ``N d`` and
    cost, hence only the eq. (5) rows of that pair's loser and the eq. (4) row of its winner;
    those rows of check (3) and of Theorem 5 are recomputed, the others reused (a change of
    structure recomputes everything).  The arithmetic of each row is that of the Python class.
    """
    K = mu.shape[0]
    P = K * K
    W = np.zeros((K, K), dtype=np.int64)
    N = np.zeros((K, K), dtype=np.int64)
    counts = np.zeros(P, dtype=np.int64)
    beats = np.zeros((K, K), dtype=np.bool_)
    L = np.zeros(K, dtype=np.int64)
    d = np.zeros((K, K))
    info = np.zeros((K, K))
    C = np.zeros((K, K))
    Q = np.zeros((K, K))
    vals = np.empty(K)
    keys = np.empty(K)
    chk_row = np.full((K, K), np.inf)
    chk_I = np.full(K, np.inf)
    chk_dirty = np.ones(K, dtype=np.bool_)
    chkI_dirty = np.ones(K, dtype=np.bool_)
    tgt_part = np.zeros((K, K))
    tgt_h = np.zeros((K, K), dtype=np.int64)
    tgt_level = np.zeros((K, K))
    tgt_sel = np.zeros((K, K, K), dtype=np.int64)
    tgt_I = np.zeros(K)
    tgt_dirty = np.ones(K, dtype=np.bool_)
    tgtI_dirty = np.ones(K, dtype=np.bool_)
    is_win = np.zeros(K, dtype=np.bool_)
    wval = np.empty(K)
    LC = np.empty(P, dtype=np.int64)
    inLR = np.zeros(P, dtype=np.bool_)
    inLN = np.zeros(P, dtype=np.bool_)
    forced = np.empty(P, dtype=np.int64)
    nLC = 0
    for i in range(1, K):
        for j in range(i):
            LC[nLC] = i * K + j
            inLR[i * K + j] = True
            nLC += 1
    pos = 0
    nF = 0
    fpos = 0
    pass_start = True
    full = True  # the structure changed: every cache is stale
    have_target = False
    istar = 0
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(5, dtype=np.int64)
    c = 0
    t = 1
    while t <= T:
        if pass_start:
            pass_start = False
            fpos = 0
            nF = 0
            log_t = math.log(t)
            thr = alpha * math.sqrt(log_t)
            loglog = math.log(log_t) if log_t > 0 else -np.inf
            use_beta = loglog > 0 and beta > 0
            band = beta / loglog if use_beta else 0.0
            for i in range(1, K):
                for j in range(i):
                    n = N[i, j]
                    if n < thr:
                        forced[nF] = i * K + j
                        nF += 1
                    elif use_beta:
                        m_ = W[i, j] / n if n > 0 else 0.5
                        if abs(m_ - 0.5) < band:
                            forced[nF] = i * K + j
                            nF += 1
        in_loop = fpos >= nF
        if in_loop:
            code = LC[pos]
        else:
            code = forced[fpos]
            fpos += 1
            stats[0] += 1
        i = code // K
        j = code % K
        if in_loop and i == j:
            stats[4] += 1
        won = _duel(mu, counts, key0, key1, i, j)
        if i != j:
            old_ij = beats[i, j]
            old_ji = beats[j, i]
            if won:
                W[i, j] += 1
            else:
                W[j, i] += 1
            N[i, j] += 1
            N[j, i] += 1
            have_target = False
            if full or (2 * W[i, j] > N[i, j]) != old_ij or (2 * W[j, i] > N[j, i]) != old_ji:
                full = True
            else:
                _set_pair_stats(W, N, beats, L, d, info, C, i, j)
                if beats[i, j] or beats[j, i]:
                    lo_ = j if beats[i, j] else i  # the pair's loser: its eq. (5) rows change
                    hi_ = i if beats[i, j] else j  # the pair's winner: its eq. (4) row changes
                    chk_dirty[lo_] = True
                    tgt_dirty[lo_] = True
                    chkI_dirty[hi_] = True
                    tgtI_dirty[hi_] = True
        c = _record(regrets, cum, out, checkpoints, c, t, i, j)
        if in_loop:
            if full:
                _ecw_refresh(W, N, beats, L, d, info, C)
                L1 = L[0]
                for q in range(K):
                    if L[q] < L1:
                        L1 = L[q]
                for q in range(K):
                    is_win[q] = L[q] == L1
                    chk_dirty[q] = True
                    tgt_dirty[q] = True
                    chkI_dirty[q] = True
                    tgtI_dirty[q] = True
                full = False
            # refresh the stale rows of check (3) for every empirical winner
            for a in range(K):
                if not is_win[a]:
                    continue
                if chkI_dirty[a]:
                    chk_I[a] = _chk_I(beats, info, a)
                for i2 in range(K):
                    if i2 != a and chk_dirty[i2]:
                        chk_row[a, i2] = _chk_row(beats, L, info, a, i2, vals)
            for q in range(K):
                chk_dirty[q] = False
                chkI_dirty[q] = False
            log_t = math.log(t)
            exploit = -1
            if log_t <= 0:
                for a in range(K):
                    if is_win[a]:
                        exploit = a
                        break
            else:
                stats[1] += 1
                for a in range(K):
                    if is_win[a]:
                        mr = chk_I[a]
                        for i2 in range(K):
                            if i2 != a and chk_row[a, i2] < mr:
                                mr = chk_row[a, i2]
                        if mr >= log_t:
                            exploit = a
                            break
            inLR[code] = False
            if exploit >= 0:
                p = exploit * K + exploit
                if not inLR[p]:
                    inLN[p] = True
            else:
                stats[2] += 1
                if not have_target:
                    stats[3] += 1
                    vmin = np.inf
                    for a in range(K):
                        wval[a] = np.inf
                        if not is_win[a]:
                            continue
                        if tgtI_dirty[a]:
                            s_ = 0.0
                            for q in range(K):
                                if beats[a, q]:
                                    s_ += C[a, q]
                            tgt_I[a] = s_
                        v = tgt_I[a]
                        for i2 in range(K):
                            if i2 == a:
                                continue
                            if tgt_dirty[i2]:
                                part, h, level = _tgt_row(beats, L, C, a, i2, tgt_sel[a, i2], keys)
                                tgt_part[a, i2] = part
                                tgt_h[a, i2] = h
                                tgt_level[a, i2] = level
                            v += tgt_part[a, i2]
                        wval[a] = v
                        if v < vmin:
                            vmin = v
                    for q in range(K):
                        tgt_dirty[q] = False
                        tgtI_dirty[q] = False
                    # near-ties (relative WINNER_TIE_RTOL = 1e-12) go to the smaller index
                    tol = 1e-12 * abs(vmin)
                    for a in range(K):
                        if is_win[a] and wval[a] <= vmin + tol:
                            istar = a
                            break
                    # Q = E / d for the chosen winner (E normalised, Theorem 5)
                    for x in range(K):
                        for y in range(K):
                            Q[x, y] = 0.0
                    for i2 in range(K):
                        if i2 == istar:
                            continue
                        h = tgt_h[istar, i2]
                        for q in range(h):
                            y = tgt_sel[istar, i2, q]
                            Q[i2, y] = tgt_level[istar, i2] / d[i2, y]
                            Q[y, i2] = Q[i2, y]
                    for y in range(K):
                        if beats[istar, y]:
                            Q[istar, y] = 1.0 / d[istar, y]
                            Q[y, istar] = Q[istar, y]
                    have_target = True
                for a in range(1, K):
                    for b in range(a):
                        if Q[a, b] > N[a, b] / log_t:
                            p = a * K + b
                            if not inLR[p]:
                                inLN[p] = True
                p = istar * K + istar
                if not inLR[p]:
                    inLN[p] = True
            pos += 1
            if pos == nLC:
                nLC = 0
                for p in range(P):
                    inLR[p] = inLN[p]
                    if inLN[p]:
                        LC[nLC] = p
                        nLC += 1
                    inLN[p] = False
                pos = 0
                pass_start = True
        t += 1
    return out, stats


@njit(cache=True)
def _rmed1_row(W, N, G, I, i):
    K = W.shape[0]
    s = 0.0
    for j in range(K):
        s += G[i, j]
    I[i] = s


@njit(cache=True)
def _rmed_learn(mu, counts, key0, key1, W, N, G, I, i, j):
    """Draw the duel ``(i, j)`` and update RMED's counts, ``G = N d`` and the row sums ``I``
    of the two arms (shared by RMED1 and RMED2)."""
    won = _duel(mu, counts, key0, key1, i, j)
    if i != j:
        if won:
            W[i, j] += 1
        else:
            W[j, i] += 1
        N[i, j] += 1
        N[j, i] += 1
        for (x, y) in ((i, j), (j, i)):
            n = N[x, y]
            if 2 * W[x, y] < n:
                G[x, y] = float(n) * _kl(W[x, y] / n)
            else:
                G[x, y] = 0.0
        _rmed1_row(W, N, G, I, i)
        _rmed1_row(W, N, G, I, j)


@njit(cache=True)
def _rmed_state(K):
    """RMED's counts and lists at t = 1 (shared by RMED1 and RMED2): ``W, N``, ``G = N d``, the
    row sums ``I``, the duel counters, ``L_C = [K]`` (all arms in ``L_R``), ``L_N`` empty."""
    LC = np.arange(K)
    inLR = np.ones(K, dtype=np.bool_)
    inLN = np.zeros(K, dtype=np.bool_)
    return (np.zeros((K, K), dtype=np.int64), np.zeros((K, K), dtype=np.int64), np.zeros((K, K)),
            np.zeros(K), np.zeros(K * K, dtype=np.int64), LC, inLR, inLN)


@njit(cache=True)
def _rmed_first_pair(N, thr):
    """The first pair ``a < b`` (row-major) drawn fewer than ``thr`` times, or ``(-1, -1)``:
    RMED's initial phase (``thr = n_init``) and RMED2's forced exploration (``alpha log log t``)."""
    K = N.shape[0]
    for a in range(K):
        for b in range(a + 1, K):
            if N[a, b] < thr:
                return a, b
    return -1, -1


@njit(cache=True)
def _argmin(x):
    """The first index of the smallest entry (RMED's ``i*(t)``, ties to the smallest arm)."""
    m = 0
    for a in range(1, x.shape[0]):
        if x[a] < x[m]:
            m = a
    return m


@njit(cache=True)
def _rmed1_opponent(W, N, l, istar):
    """RMED1's opponent of ``l`` (Algorithm 2): ``i*`` when it is in ``O_l = {j : mu_lj <= 1/2}``
    or ``O_l`` is empty, else ``argmin_{j != l} mu_lj`` (undrawn pairs 1/2; that argmin lies in
    ``O_l``, whose members are the only arms with ``mu_lj <= 1/2``)."""
    K = W.shape[0]
    n_opp = 0
    istar_opp = False
    for b in range(K):
        if b != l and 2 * W[l, b] <= N[l, b]:
            n_opp += 1
            if b == istar:
                istar_opp = True
    if istar_opp or n_opp == 0:
        return istar
    best = np.inf
    m = -1
    for b in range(K):
        if b == l:
            continue
        x = W[l, b] / N[l, b] if N[l, b] > 0 else 0.5
        if x < best:
            best = x
            m = b
    return m


@njit(cache=True)
def _rmed_next_list(LC, inLR, inLN, I, pos, nLC, t, fK):
    """RMED's list step after a draw of the loop (shared by RMED1 and RMED2): the arm just
    drawn leaves L_R, every arm within ``log t + f(K)`` of the best ``I`` joins L_N, and a
    finished pass starts the next.  Returns ``(pos, nLC)``."""
    K = I.shape[0]
    l = LC[pos]
    inLR[l] = False
    istar = _argmin(I)
    bound = math.log(t) + fK
    for a in range(K):
        if not inLR[a] and I[a] - I[istar] <= bound:
            inLN[a] = True
    pos += 1
    if pos == nLC:
        nLC = 0
        for a in range(K):
            inLR[a] = inLN[a]
            if inLN[a]:
                LC[nLC] = a
                nLC += 1
            inLN[a] = False
        pos = 0
    return pos, nLC


@njit(cache=True)
def rmed1_run(mu, T, f_scale, f_power, n_init, key0, key1, checkpoints, regrets):
    """One run of RMED1 (Komiyama et al., COLT 2015, Algorithms 1-2), ``T`` rounds.

    Returns ``(out, stats)`` as :func:`ecw_rmed_run`; ``stats = [initial, self_duels]``.
    """
    K = mu.shape[0]
    W, N, G, I, counts, LC, inLR, inLN = _rmed_state(K)
    fK = f_scale * float(K) ** f_power
    nLC = K
    pos = 0
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(2, dtype=np.int64)
    c = 0
    initial = True
    t = 1
    while t <= T:
        in_loop = False
        i = -1
        j = -1
        if initial:
            i, j = _rmed_first_pair(N, n_init)
            if i >= 0:
                stats[0] += 1
            else:
                initial = False
        if not initial:
            in_loop = True
            l = LC[pos]
            istar = _argmin(I)
            m = _rmed1_opponent(W, N, l, istar)
            i = l
            j = m
            if i == j:
                stats[1] += 1
        _rmed_learn(mu, counts, key0, key1, W, N, G, I, i, j)
        c = _record(regrets, cum, out, checkpoints, c, t, i, j)
        if in_loop:
            pos, nLC = _rmed_next_list(LC, inLR, inLN, I, pos, nLC, t, fK)
        t += 1
    return out, stats


# ----------------------------------------------------------------------------- randomized policies
# The policy stream of a randomized kernel (RUCB, D-TS, D-TS+): SplitMix64 (Steele, Lea & Flood,
# OOPSLA 2014) -- ``state += 0x9E3779B97F4A7C15; output = mix64(state)`` with the mixer of
# :func:`_mix64` -- started from ``params["stream_seed"]`` (uint64; the simulator takes it from
# the run's policy SeedSequence, ``generate_state(1, uint64)[0]``).  From its outputs:
# uniforms ``(x >> 11) 2^-53`` on [0, 1); indices ``floor(u n)``; standard normals by Box-Muller
# in pairs (``r = sqrt(-2 ln(1 - u1))``: ``r cos(2 pi u2)`` is returned, ``r sin(2 pi u2)`` kept in
# ``spare`` -- a float64 array ``[has_spare, value]`` -- for the next call); Gamma(a), a >= 1, by
# Marsaglia & Tsang (ACM TOMS 2000); Beta(a, b) = X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
# These kernels draw in the order their class documents, so a class whose draws are routed to
# this stream chooses exactly the kernel's pairs (tests/test_policies_dts.py); with numpy's
# Generator (the protocol path) the class has the same distribution, not the same stream.


@njit(cache=True)
def stream_next(state):
    """Next SplitMix64 output of the stream ``state`` (a uint64 array of length 1, advanced)."""
    state[0] += numba.uint64(_GOLDEN)
    return _mix64(state[0])


@njit(cache=True)
def stream_uniform(state):
    """Uniform on [0, 1) (53 bits)."""
    return float(stream_next(state) >> numba.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def stream_index(state, n):
    """Uniform index in [0, n): ``floor(u n)``."""
    k = int(stream_uniform(state) * n)
    return k if k < n else n - 1


@njit(cache=True)
def stream_normal(state, spare):
    """Standard normal by Box-Muller in pairs (the sine of a pair waits in ``spare``)."""
    if spare[0] != 0.0:
        spare[0] = 0.0
        return spare[1]
    u1 = 1.0 - stream_uniform(state)
    u2 = stream_uniform(state)
    r = math.sqrt(-2.0 * math.log(u1))
    w = 2.0 * math.pi * u2
    spare[0] = 1.0
    spare[1] = r * math.sin(w)
    return r * math.cos(w)


@njit(cache=True)
def stream_gamma(state, spare, a):
    """Gamma(a, 1) for ``a >= 1`` by Marsaglia & Tsang's squeeze-and-reject method."""
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = stream_normal(state, spare)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = stream_uniform(state)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return d * v
        if u > 0.0 and math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return d * v


@njit(cache=True)
def stream_beta(state, spare, a, b):
    """Beta(a, b) for ``a, b >= 1`` as ``X / (X + Y)``, X ~ Gamma(a) drawn first."""
    x = stream_gamma(state, spare, a)
    y = stream_gamma(state, spare, b)
    return x / (x + y)


@njit(cache=True)
def _ucb(W, N, al, i, j):
    # u_ij of RUCB / 001 line 4: W/N + sqrt(alpha ln t / N); x/0 := 1 gives 2 on an undrawn pair
    n = N[i, j]
    if n == 0:
        return 2.0
    return W[i, j] / n + math.sqrt(al / n)


@njit(cache=True)
def _lcb(W, N, al, i, j):
    # l_ij of 001 line 4: W/N - sqrt(alpha ln t / N); x/0 := 1 gives 0 on an undrawn pair
    n = N[i, j]
    if n == 0:
        return 0.0
    return W[i, j] / n - math.sqrt(al / n)


@njit(cache=True)
def rucb_run(mu, T, alpha, seed, key0, key1, checkpoints, regrets):
    """One run of RUCB (Zoghi et al., ICML 2014, Algorithm 1), ``T`` rounds, policy stream ``seed``.

    Returns ``(out, stats)`` as :func:`ecw_rmed_run`; ``stats = [self_duels, empty_C]``.  Step for
    step :class:`boundcalc.policies.rucb.RUCB` (same bounds arithmetic, same draws in the same
    order).
    """
    K = mu.shape[0]
    W = np.zeros((K, K), dtype=np.int64)
    N = np.zeros((K, K), dtype=np.int64)
    counts = np.zeros(K * K, dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    cand = np.empty(K, dtype=np.int64)
    col = np.empty(K)
    ties = np.empty(K, dtype=np.int64)
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(2, dtype=np.int64)
    B = -1
    c = 0
    for t in range(1, T + 1):
        al = alpha * math.log(t)
        nC = 0  # line 6
        for i in range(K):
            ok = True
            for j in range(K):
                if j != i and _ucb(W, N, al, i, j) < 0.5:
                    ok = False
                    break
            if ok:
                cand[nC] = i
                nC += 1
        if nC == 0:  # line 7
            a = stream_index(state, K)
            B = -1
            stats[1] += 1
        else:
            if B >= 0:  # line 8
                inC = False
                for q in range(nC):
                    if cand[q] == B:
                        inC = True
                if not inC:
                    B = -1
            if nC == 1:  # line 9
                a = cand[0]
                B = a
            elif B < 0:  # line 11, B empty
                a = cand[stream_index(state, nC)]
            elif stream_uniform(state) < 0.5:  # line 11, p(B) = 1/2
                a = B
            else:
                k = stream_index(state, nC - 1)
                a = -1
                for q in range(nC):
                    if cand[q] != B:
                        if k == 0:
                            a = cand[q]
                            break
                        k -= 1
        m = -np.inf  # line 13
        for j in range(K):
            col[j] = 0.5 if j == a else _ucb(W, N, al, j, a)
            if col[j] > m:
                m = col[j]
        nt = 0
        for j in range(K):
            if col[j] == m:
                ties[nt] = j
                nt += 1
        if nt > 1:
            nt = 0
            for j in range(K):
                if col[j] == m and j != a:
                    ties[nt] = j
                    nt += 1
        d = ties[0] if nt == 1 else ties[stream_index(state, nt)]
        if d == a:
            stats[0] += 1
        won = _duel(mu, counts, key0, key1, a, d)
        if a != d:
            if won:
                W[a, d] += 1
            else:
                W[d, a] += 1
            N[a, d] += 1
            N[d, a] += 1
        c = _record(regrets, cum, out, checkpoints, c, t, a, d)
    return out, stats


@njit(cache=True)
def dts_run(mu, T, alpha, plus, seed, key0, key1, checkpoints, regrets):
    """One run of D-TS (001 Algorithm 1) or, with ``plus``, D-TS+ (001 Sec. 4.3), policy stream ``seed``.

    Returns ``(out, stats)`` as :func:`ecw_rmed_run`; ``stats = [self_duels, eliminations, ties]``.
    Step for step :class:`boundcalc.policies.dts.DTS` / ``DTSPlus`` (same arithmetic, same draws
    in the same order).
    """
    K = mu.shape[0]
    W = np.zeros((K, K), dtype=np.int64)
    N = np.zeros((K, K), dtype=np.int64)
    counts = np.zeros(K * K, dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    spare = np.zeros(2)
    theta = np.full((K, K), 0.5)
    cand = np.empty(K, dtype=np.int64)
    best = np.empty(K, dtype=np.int64)
    score = np.zeros(K, dtype=np.int64)
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(3, dtype=np.int64)
    c = 0
    for t in range(1, T + 1):
        al = alpha * math.log(t)
        mx = -1  # lines 4-6: upper Copeland scores and the candidates C
        for i in range(K):
            s = 0
            for j in range(K):
                if j != i and _ucb(W, N, al, i, j) > 0.5:
                    s += 1
            score[i] = s
            if s > mx:
                mx = s
        nC = 0
        for i in range(K):
            if score[i] == mx:
                cand[nC] = i
                nC += 1
        if nC < K:
            stats[1] += 1
        for i in range(K):  # lines 7-10
            for j in range(i + 1, K):
                x = stream_beta(state, spare, W[i, j] + 1.0, W[j, i] + 1.0)
                theta[i, j] = x
                theta[j, i] = 1.0 - x
        for i in range(K):
            s = 0
            for j in range(K):
                if j != i and theta[i, j] > 0.5:
                    s += 1
            score[i] = s
        mx = -1  # line 11 (D-TS+: Sec. 4.3)
        for q in range(nC):
            if score[cand[q]] > mx:
                mx = score[cand[q]]
        nb = 0
        for q in range(nC):
            if score[cand[q]] == mx:
                best[nb] = cand[q]
                nb += 1
        if nb == 1:
            a1 = best[0]
        else:
            stats[2] += 1
            if plus:
                zstar = 0.0
                for i in range(K):
                    z = score[i] / (K - 1)
                    if z > zstar:
                        zstar = z
                a1 = best[0]
                rbest = np.inf
                for q in range(nb):
                    i = best[q]
                    zi = score[i] / (K - 1)
                    r = 0.0
                    for j in range(K):
                        if j != i and theta[i, j] != 0.5:
                            r += (zstar - 0.5 * (zi + score[j] / (K - 1))) / _kl(theta[i, j])
                    if r < rbest:
                        rbest = r
                        a1 = i
            else:
                a1 = best[stream_index(state, nb)]
        a2 = a1  # lines 13-14: fresh theta2_{i a1}; argmax over l_{i a1} <= 1/2
        vbest = -np.inf
        for i in range(K):
            if i == a1:
                v = 0.5
                eligible = True
            else:
                v = stream_beta(state, spare, W[i, a1] + 1.0, W[a1, i] + 1.0)
                eligible = _lcb(W, N, al, i, a1) <= 0.5
            if eligible and v > vbest:
                vbest = v
                a2 = i
        if a1 == a2:
            stats[0] += 1
        won = _duel(mu, counts, key0, key1, a1, a2)
        if a1 != a2:
            if won:
                W[a1, a2] += 1
            else:
                W[a2, a1] += 1
            N[a1, a2] += 1
            N[a2, a1] += 1
        c = _record(regrets, cum, out, checkpoints, c, t, a1, a2)
    return out, stats


@njit(cache=True)
def _ccb_reset(B, Bi):
    K = B.shape[0]
    for i in range(K):
        B[i] = True
        for j in range(K):
            Bi[i, j] = False
    return K


@njit(cache=True)
def ccb_run(mu, T, alpha, seed, key0, key1, checkpoints, regrets):
    """One run of CCB (002 Algorithm 1), ``T`` rounds, policy stream ``seed``.

    Returns ``(out, stats)`` as :func:`ecw_rmed_run`; ``stats = [self_duels, explore,
    explore_eligible, resets]``.  Step for step :class:`boundcalc.policies.ccb.CCB` (same bounds
    arithmetic, same draws in the same order; the stream is created once per run, never reseeded).
    """
    K = mu.shape[0]
    W = np.zeros((K, K), dtype=np.int64)
    N = np.zeros((K, K), dtype=np.int64)
    counts = np.zeros(K * K, dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    Uc = np.empty((K, K))
    Lc = np.empty((K, K))
    up = np.zeros(K, dtype=np.int64)
    lo = np.zeros(K, dtype=np.int64)
    cand = np.empty(K, dtype=np.int64)
    both = np.empty(K, dtype=np.int64)
    elems = np.empty(K, dtype=np.int64)
    ties = np.empty(K, dtype=np.int64)
    xp = np.empty(K * K, dtype=np.int64)
    B = np.ones(K, dtype=np.bool_)
    Bi = np.zeros((K, K), dtype=np.bool_)
    LC = K
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(4, dtype=np.int64)
    c = 0
    for t in range(1, T + 1):
        al = alpha * math.log(t)
        for i in range(K):  # line 6
            for j in range(K):
                if i == j:
                    Uc[i, j] = 0.5
                    Lc[i, j] = 0.5
                else:
                    Uc[i, j] = _ucb(W, N, al, i, j)
                    Lc[i, j] = _lcb(W, N, al, i, j)
        mxu = -1  # lines 7-8
        mxl = -1
        for i in range(K):
            su = 0
            sl = 0
            for j in range(K):
                if j != i:
                    if Uc[i, j] >= 0.5:
                        su += 1
                    if Lc[i, j] >= 0.5:
                        sl += 1
            up[i] = su
            lo[i] = sl
            if su > mxu:
                mxu = su
            if sl > mxl:
                mxl = sl
        nC = 0
        for i in range(K):
            if up[i] == mxu:
                cand[nC] = i
                nC += 1
        bad = False  # line 9A
        for i in range(K):
            for j in range(K):
                if Bi[i, j] and Lc[i, j] > 0.5:
                    bad = True
        if bad:
            LC = _ccb_reset(B, Bi)
            stats[3] += 1
        anyB = False  # line 9B
        for i in range(K):
            if B[i] and up[i] < mxl:
                B[i] = False
                n = 0
                for k in range(K):
                    if Bi[i, k]:
                        n += 1
                if n != LC + 1:
                    for k in range(K):
                        Bi[i, k] = Uc[i, k] < 0.5
            if B[i]:
                anyB = True
        if not anyB:
            LC = _ccb_reset(B, Bi)
            stats[3] += 1
        for q in range(nC):  # line 9C
            i = cand[q]
            if up[i] != lo[i]:
                continue
            B[i] = True
            for k in range(K):
                Bi[i, k] = False
            LC = K - 1 - up[i]
            m = LC + 1
            for j in range(K):
                if j == i:
                    continue
                n = 0
                for k in range(K):
                    if Bi[j, k]:
                        elems[n] = k
                        n += 1
                if n < m:
                    for k in range(K):
                        Bi[j, k] = False
                elif n > m:
                    for h in range(m):  # partial Fisher-Yates
                        r = h + stream_index(state, n - h)
                        tmp = elems[h]
                        elems[h] = elems[r]
                        elems[r] = tmp
                    for k in range(K):
                        Bi[j, k] = False
                    for h in range(m):
                        Bi[j, elems[h]] = True
        nx = 0  # line 10
        for i in range(K):
            for j in range(K):
                if Bi[i, j] and Lc[i, j] <= 0.5 and Uc[i, j] >= 0.5:
                    xp[nx] = i * K + j
                    nx += 1
        if nx > 0:
            stats[2] += 1
        if stream_uniform(state) < 0.25 and nx > 0:
            code = xp[stream_index(state, nx)]
            stats[1] += 1
            a = code // K
            d = code % K
        else:
            nb = 0  # line 11
            for q in range(nC):
                if B[cand[q]]:
                    both[nb] = cand[q]
                    nb += 1
            if nb > 0 and stream_uniform(state) < 2.0 / 3.0:
                for q in range(nb):
                    cand[q] = both[q]
                nC = nb
            a = cand[0] if nC == 1 else cand[stream_index(state, nC)]  # line 12
            own = stream_uniform(state) < 0.5  # line 13
            if own:
                found = False
                for j in range(K):
                    if Bi[a, j] and Lc[j, a] <= 0.5:
                        found = True
                own = found
            m_ = -np.inf
            for j in range(K):
                if Lc[j, a] <= 0.5 and (Bi[a, j] or not own) and Uc[j, a] > m_:
                    m_ = Uc[j, a]
            nt = 0
            for j in range(K):
                if Lc[j, a] <= 0.5 and (Bi[a, j] or not own) and Uc[j, a] == m_:
                    ties[nt] = j
                    nt += 1
            if nt > 1:
                nt = 0
                for j in range(K):
                    if Lc[j, a] <= 0.5 and (Bi[a, j] or not own) and Uc[j, a] == m_ and j != a:
                        ties[nt] = j
                        nt += 1
            d = ties[0] if nt == 1 else ties[stream_index(state, nt)]
        if d == a:
            stats[0] += 1
        won = _duel(mu, counts, key0, key1, a, d)
        if a != d:
            if won:
                W[a, d] += 1
            else:
                W[d, a] += 1
            N[a, d] += 1
            N[d, a] += 1
        c = _record(regrets, cum, out, checkpoints, c, t, a, d)
    return out, stats


def _stream_seed(params):
    try:
        return np.uint64(params["stream_seed"])
    except KeyError:
        raise KeyError("a randomized policy's kernel needs params['stream_seed'] (its policy stream; "
                       "boundcalc.simulate.run_one sets it)") from None


def _run_rucb(mu, T, params, key0, key1, checkpoints, regrets):
    return rucb_run(mu, T, float(params["alpha"]), _stream_seed(params), key0, key1, checkpoints, regrets)


def _run_dts(mu, T, params, key0, key1, checkpoints, regrets):
    return dts_run(mu, T, float(params["alpha"]), False, _stream_seed(params), key0, key1, checkpoints,
                   regrets)


def _run_dts_plus(mu, T, params, key0, key1, checkpoints, regrets):
    return dts_run(mu, T, float(params["alpha"]), True, _stream_seed(params), key0, key1, checkpoints,
                   regrets)


def _run_ccb(mu, T, params, key0, key1, checkpoints, regrets):
    return ccb_run(mu, T, float(params["alpha"]), _stream_seed(params), key0, key1, checkpoints, regrets)


def _run_ecw(mu, T, params, key0, key1, checkpoints, regrets):
    return ecw_rmed_run(mu, T, params["alpha"], params["beta"], key0, key1, checkpoints, regrets)


def _run_rmed1(mu, T, params, key0, key1, checkpoints, regrets):
    return rmed1_run(mu, T, params["f_scale"], params["f_power"], params["n_init"], key0, key1,
                     checkpoints, regrets)


# ----------------------------------------------------------------------------- RMED2 and SAVAGE
@njit(cache=True)
def _mu_hat(W, N, a, b):
    n = N[a, b]
    if n > 0:
        return W[a, b] / n
    return 0.5


@njit(cache=True)
def rmed2_run(mu, T, f_scale, f_power, n_init, alpha, floor, key0, key1, checkpoints, regrets):
    """One run of RMED2 (Komiyama et al., COLT 2015, Algorithms 1 and 3), ``T`` rounds.

    Returns ``(out, stats)`` as :func:`ecw_rmed_run`; ``stats = [initial, forced, self_duels,
    to_winner, to_target]``.  Step for step :class:`boundcalc.policies.rmed2.RMED2` (RMED1's
    skeleton of :func:`rmed1_run`, plus line 1's forced exploration and the target ``b(l)``).
    """
    K = mu.shape[0]
    W, N, G, I, counts, LC, inLR, inLN = _rmed_state(K)
    fK = f_scale * float(K) ** f_power
    nLC = K
    pos = 0
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(5, dtype=np.int64)
    c = 0
    initial = True
    t = 1
    while t <= T:
        in_loop = False
        i = -1
        j = -1
        if initial:
            i, j = _rmed_first_pair(N, n_init)
            if i >= 0:
                stats[0] += 1
            else:
                initial = False
        if not initial and t >= 3:
            i, j = _rmed_first_pair(N, alpha * math.log(math.log(t)))
            if i >= 0:
                stats[1] += 1
        if not initial and i < 0:
            in_loop = True
            l = LC[pos]
            istar = _argmin(I)
            # b(l): argmin over j beating l of max(Delta_{i* l} + Delta_{i* j}, floor) / d(mu_lj)
            dl = _mu_hat(W, N, istar, l) - 0.5
            best = np.inf
            bt = -1
            for b in range(K):
                if b == l or not 2 * W[l, b] < N[l, b]:
                    continue
                num = dl + (_mu_hat(W, N, istar, b) - 0.5)
                if num < floor:
                    num = floor
                x = num / _kl(W[l, b] / N[l, b])
                if x < best:
                    best = x
                    bt = b
            if bt >= 0:
                loglog = math.log(math.log(t))
                if istar != l and 2 * W[l, istar] <= N[l, istar] and N[l, istar] * loglog <= N[l, bt]:
                    m = istar
                    stats[3] += 1
                else:
                    m = bt
                    stats[4] += 1
            else:
                m = _rmed1_opponent(W, N, l, istar)
            i = l
            j = m
            if i == j:
                stats[2] += 1
        _rmed_learn(mu, counts, key0, key1, W, N, G, I, i, j)
        c = _record(regrets, cum, out, checkpoints, c, t, i, j)
        if in_loop:
            pos, nLC = _rmed_next_list(LC, inLR, inLN, I, pos, nLC, t, fK)
        t += 1
    return out, stats


def _run_rmed2(mu, T, params, key0, key1, checkpoints, regrets):
    return rmed2_run(mu, T, params["f_scale"], params["f_power"], params["n_init"], float(params["alpha"]),
                     float(params["delta_floor"]), key0, key1, checkpoints, regrets)


@njit(cache=True)
def savage_run(mu, T, log_term, key0, key1, checkpoints, regrets):
    """One run of Copeland SAVAGE (003 Algorithm 1, Copeland predicate, explore then exploit), ``T``
    rounds; ``log_term = log(2 N T_h / delta)`` of eq. (1) (:func:`boundcalc.policies.savage.savage_log_term`).

    Returns ``(out, stats)`` as :func:`ecw_rmed_run`; ``stats = [exploration, self_duels]``.  Step
    for step :class:`boundcalc.policies.savage.SAVAGE`; the Copeland scores ``Lo``/``Up`` are kept
    up to date per duel (only the drawn pair's box changes), and once ``W`` is empty the winner's
    self-duel is replayed to ``T`` without recomputation.
    """
    K = mu.shape[0]
    W = np.zeros((K, K), dtype=np.int64)
    N = np.zeros((K, K), dtype=np.int64)
    counts = np.zeros(K * K, dtype=np.int64)
    lo = np.zeros((K, K))
    hi = np.ones((K, K))
    for a in range(K):
        lo[a, a] = 0.5
        hi[a, a] = 0.5
    low = np.zeros(K, dtype=np.int64)
    up = np.full(K, K - 1, dtype=np.int64)
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(2, dtype=np.int64)
    c = 0
    done = False
    w = 0
    t = 1
    while t <= T:
        if done:
            stats[1] += 1
            c = _record(regrets, cum, out, checkpoints, c, t, w, w)
            t += 1
            continue
        top = low[0]
        for a in range(1, K):
            if low[a] > top:
                top = low[a]
        bi = -1
        bj = -1
        bn = 0
        for a in range(K):
            for b in range(a + 1, K):
                if lo[a, b] <= 0.5 <= hi[a, b] and (up[a] >= top or up[b] >= top):
                    if bi < 0 or N[a, b] < bn:
                        bi = a
                        bj = b
                        bn = N[a, b]
        if bi < 0:
            done = True
            w = 0
            for a in range(1, K):
                if low[a] > low[w]:
                    w = a
            continue
        stats[0] += 1
        won = _duel(mu, counts, key0, key1, bi, bj)
        if won:
            W[bi, bj] += 1
        else:
            W[bj, bi] += 1
        N[bi, bj] += 1
        N[bj, bi] += 1
        n = N[bi, bj]
        m = W[bi, bj] / n
        r = math.sqrt(log_term / (2.0 * n))
        old_lo = lo[bi, bj] > 0.5
        old_hi = hi[bi, bj] > 0.5
        lo[bi, bj] = max(lo[bi, bj], m - r)
        hi[bi, bj] = min(hi[bi, bj], m + r)
        lo[bj, bi] = 1.0 - hi[bi, bj]
        hi[bj, bi] = 1.0 - lo[bi, bj]
        # Copeland score bounds: (bi, bj)'s entries only (lo_ji > 1/2 iff hi_ij < 1/2, etc.)
        low[bi] += int(lo[bi, bj] > 0.5) - int(old_lo)
        up[bi] += int(hi[bi, bj] > 0.5) - int(old_hi)
        low[bj] = 0
        up[bj] = 0
        for b in range(K):
            if b != bj:
                low[bj] += lo[bj, b] > 0.5
                up[bj] += hi[bj, b] > 0.5
        c = _record(regrets, cum, out, checkpoints, c, t, bi, bj)
        t += 1
    return out, stats


def _run_savage(mu, T, params, key0, key1, checkpoints, regrets):
    from .savage import savage_log_term

    lt = savage_log_term(mu.shape[0], int(params["horizon"]), float(params["delta_scale"]))
    return savage_run(mu, T, lt, key0, key1, checkpoints, regrets)


# ----------------------------------------------------------------------------- SCB (002 Algorithms 2-4)
# The class's helpers (boundcalc/policies/scb.py), compiled in place: the kernel below and the
# class call the same functions.
from . import scb as _scb  # noqa: E402

_scb._compile()
scb_pair_decided = _scb.scb_pair_decided
scb_kl_bounds = _scb.scb_kl_bounds
scb_eliminate = _scb.scb_eliminate


@njit(cache=True)
def scb_run(mu, T, eps, seed, key0, key1, checkpoints, regrets):
    """One run of SCB (002 Algorithm 3 over Algorithms 2 and 4), ``T`` rounds, ``eps`` of
    Algorithm 4's stopping rule, policy stream ``seed``.

    Returns ``(out, stats)`` as :func:`ecw_rmed_run`; ``stats = [self_duels, rounds,
    identified, rewards]``.  Step for step :class:`boundcalc.policies.scb.SCB` (same helpers, same
    draws in the same order); a round costs O(1) per duel and O(K) per completed pass.
    """
    K = mu.shape[0]
    counts = np.zeros(K * K, dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    S = np.ones(K, dtype=np.bool_)
    R = np.zeros(K, dtype=np.int64)
    U = regrets.shape[0]
    cum = np.zeros(U)
    out = np.zeros((U, checkpoints.shape[0]))
    stats = np.zeros(4, dtype=np.int64)
    Tr = 4.0
    delta = math.log(Tr) / Tr
    used = 0.0
    winner = -1
    t4 = 1
    pos = 0
    opp = -1
    qn = 0
    qw = 0
    stats[1] = 1
    c = 0
    for t in range(1, T + 1):
        if winner >= 0:  # Algorithm 3 line 3
            a = winner
            d = winner
        else:
            while not S[pos]:
                pos += 1
            a = pos
            if opp < 0:  # Algorithm 2 line 1: a new reward(a)
                k = stream_index(state, K - 1)
                opp = k + 1 if k >= a else k
                qn = 0
                qw = 0
            d = opp
        won = _duel(mu, counts, key0, key1, a, d)
        if a == d:
            stats[0] += 1
        else:
            qn += 1
            if won:
                qw += 1
            if scb_pair_decided(qw, qn, K, delta):
                stats[3] += 1
                if 2 * qw > qn:
                    R[a] += 1
                opp = -1
                pos += 1
                while pos < K and not S[pos]:
                    pos += 1
                if pos == K:  # a pass of Algorithm 4 is complete
                    winner = scb_eliminate(S, R, t4, K, delta, eps)
                    if winner >= 0:
                        stats[2] += 1
                    t4 += 1
                    pos = 0
        used += 1.0
        if used >= Tr:  # force-terminate: the next round of Algorithm 3
            stats[1] += 1
            Tr = Tr * Tr
            delta = math.log(Tr) / Tr
            used = 0.0
            winner = -1
            t4 = 1
            pos = 0
            opp = -1
            for i in range(K):
                S[i] = True
                R[i] = 0
        c = _record(regrets, cum, out, checkpoints, c, t, a, d)
    return out, stats


def _run_scb(mu, T, params, key0, key1, checkpoints, regrets):
    return scb_run(mu, T, float(params["eps"]), _stream_seed(params), key0, key1, checkpoints, regrets)


#: kernel name -> (driver, names of the stats it returns)
KERNELS = {
    "ecw_rmed": (_run_ecw, ("forced", "checks", "targets", "solves", "self_duels")),
    "rmed1": (_run_rmed1, ("initial", "self_duels")),
    "rucb": (_run_rucb, ("self_duels", "empty_C")),
    "dts": (_run_dts, ("self_duels", "eliminations", "ties")),
    "dts_plus": (_run_dts_plus, ("self_duels", "eliminations", "ties")),
    "rmed2": (_run_rmed2, ("initial", "forced", "self_duels", "to_winner", "to_target")),
    "savage": (_run_savage, ("exploration", "self_duels")),
    "ccb": (_run_ccb, ("self_duels", "explore", "explore_eligible", "resets")),
    "scb": (_run_scb, ("self_duels", "rounds", "identified", "rewards")),
}


def kernel_stats_names(name: str) -> tuple[str, ...]:
    return KERNELS[name][1]


def run_kernel(name: str, mu: np.ndarray, T: int, params: dict, key0: int, key1: int,
               checkpoints: np.ndarray, regrets: np.ndarray):
    """Run kernel ``name`` once; returns ``(out, stats dict)`` (see :func:`ecw_rmed_run`)."""
    fn, names = KERNELS[name]
    out, st = fn(np.ascontiguousarray(mu, dtype=np.float64), int(T), params, np.uint64(key0),
                 np.uint64(key1), np.ascontiguousarray(checkpoints, dtype=np.int64),
                 np.ascontiguousarray(regrets, dtype=np.float64))
    return out, dict(zip(names, (int(x) for x in st)))
