"""The constraint families of paper 000: ``R_{i1}`` (eq. (2), Theorem 2) and ``R^E_{i1}`` (eqs. (4)-(5)).

Both are written in the *normalised* variables of THEORY.md section 2: one variable
``e_p = q_p d(mu_p)`` in ``[0, 1]`` per unordered pair ``p = {i, j}``, ordered as
``numpy.triu_indices(K, 1)``.  Every row of either family is then a 0/1 covering row
``sum_{p in P} e_p >= 1`` whatever the gaps, which is what makes the cutting-plane loop
well conditioned.

A family offers

* :meth:`enumerate` -- every row, straight from the definition (reference; small K only),
* :meth:`separate` -- the most violated rows for a given ``e`` (sorting-based oracle,
  000 Sec. 4.1.1), ``O(K^2 log K)`` per pass,
* :meth:`min_row_sum` / :meth:`max_violation` / :meth:`contains` -- Algorithm 1's check (3):
  "is ``{N_ij / log t}`` in ``R_{i1}(mu_hat)``?".

>>> from boundcalc import PreferenceMatrix
>>> pm = PreferenceMatrix([[.5, .6, .6, .6], [.4, .5, .9, .1], [.4, .1, .5, .9], [.4, .9, .1, .5]])
>>> fam = CopelandFamily(pm, winner=0)
>>> len(fam.enumerate())
10
>>> fam.contains(np.ones(fam.n_vars))
True
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Iterable, Sequence

import numpy as np

from ..matrix import as_preference_matrix

__all__ = ["CopelandFamily", "ECWFamily", "pair_ids", "TooLargeError"]


class TooLargeError(ValueError):
    """Raised when a full enumeration would be too large to write out."""


def pair_ids(K: int) -> np.ndarray:
    """K x K array mapping a pair (i, j), i != j, to its variable index (-1 on the diagonal)."""
    pid = np.full((K, K), -1, dtype=np.int64)
    iu = np.triu_indices(K, 1)
    idx = np.arange(iu[0].size)
    pid[iu] = idx
    pid[(iu[1], iu[0])] = idx
    return pid


def _as_square(e: np.ndarray, K: int) -> np.ndarray:
    """Accept a pair vector (length K(K-1)/2) or a symmetric K x K matrix; return K x K."""
    e = np.asarray(e, dtype=float)
    n = K * (K - 1) // 2
    if e.shape == (n,):
        E = np.zeros((K, K))
        iu = np.triu_indices(K, 1)
        E[iu] = e
        E[(iu[1], iu[0])] = e
        return E
    if e.shape == (K, K):
        return e
    raise ValueError(f"expected a pair vector of length {n} or a {K}x{K} matrix; got shape {e.shape}")


def _prefix(sorted_vals: np.ndarray) -> np.ndarray:
    """Prefix sums along the last axis with a leading zero; +inf entries are kept as inf."""
    shape = sorted_vals.shape[:-1] + (1,)
    with np.errstate(invalid="ignore"):
        return np.concatenate([np.zeros(shape), np.cumsum(sorted_vals, axis=-1)], axis=-1)


class _FamilyBase:
    def __init__(self, matrix, winner: int):
        pm = as_preference_matrix(matrix)
        self.pm = pm
        K = pm.K
        self.K = K
        winner = int(winner)
        if winner not in set(pm.copeland_winners.tolist()):
            raise ValueError(
                f"arm {winner} is not a Copeland winner (winners: {pm.copeland_winners.tolist()})"
            )
        self.winner = winner
        self.n_vars = K * (K - 1) // 2
        self.pid = pair_ids(K)
        beats = pm.beats
        # pool[i2, j]: j beats i2 and j != winner; i2 != winner (S_{i2} \ {i1})
        pool = beats.T.copy()
        pool[:, winner] = False
        pool[winner, :] = False
        self.pool = pool
        self.pool_size = pool.sum(axis=1)
        self.inferiors = pm.inferiors(winner)

    # -- helpers ----------------------------------------------------------------
    def _sorted_pools(self, E: np.ndarray, T: np.ndarray | None = None):
        """Per arm i2, the pool's values ``E[i2, j]`` sorted ascending (ties broken by ``T``).

        Returns ``(order, prefix sums of E, prefix sums of T or None)``; entries past the
        pool's size are +inf.
        """
        keys = np.where(self.pool, E, np.inf)
        if T is None:
            order = np.argsort(keys, axis=1, kind="stable")
        else:
            order = np.lexsort((np.where(self.pool, T, np.inf), keys), axis=1)
        PE = _prefix(np.take_along_axis(keys, order, axis=1))
        PT = None
        if T is not None:
            PT = _prefix(np.take_along_axis(np.where(self.pool, T, np.inf), order, axis=1))
        return order, PE, PT

    def rows_to_dense(self, rows: Sequence[np.ndarray]) -> np.ndarray:
        """0/1 matrix (n_rows x n_vars) of the given rows."""
        A = np.zeros((len(rows), self.n_vars))
        for r, idx in enumerate(rows):
            A[r, idx] = 1.0
        return A

    def min_row_sum(self, e) -> float:
        """Smallest left-hand side ``sum_{p in row} e_p`` over *all* rows (inf when there are none)."""
        return float(self._scan(_as_square(e, self.K))[0].min(initial=np.inf))

    def max_violation(self, e) -> float:
        """Largest ``1 - sum_{p in row} e_p`` over all rows (<= 0 means feasible)."""
        return 1.0 - self.min_row_sum(e)

    def contains(self, e, tol: float = 1e-9) -> bool:
        """Algorithm 1's check (3): does ``e`` (normalised) satisfy every row, up to ``tol``?"""
        return self.max_violation(e) <= tol

    def contains_q(self, q, tol: float = 1e-9) -> bool:
        """As :meth:`contains` but for raw rates ``q`` (e.g. ``N_ij / log t``), K x K or a pair vector."""
        Q = _as_square(q, self.K)
        return self.contains(Q * self.pm.d, tol)


class CopelandFamily(_FamilyBase):
    """``R_{i1}``: the feasible set of paper 000's lower-bound LP for winner ``i1`` (eq. (2)).

    For every ``i2 != i1``, ``l in max(0, L(1)-1) .. L(2)``, ``I`` a subset of ``I_{i1}`` with
    ``|I| = l + 1 - L(1)`` and ``S`` a subset of ``S_{i2} \\ {i1}`` with
    ``|S| = max(0, L_{i2} - l - [i2 in I])``: ``sum_{p in P_IS} e_p >= 1`` where
    ``P_IS = {(i1, j): j in I} u {(i2, j): j in S}`` (THEORY.md section 2).

    Parameters
    ----------
    matrix : PreferenceMatrix or array_like
    winner : int
        A Copeland winner ``i1``.
    levels : iterable of int, optional
        Restrict ``l`` to these values (intersected with the admissible range); used e.g. to
        compare with RMED's Condorcet bound, which is the ``l = 0`` part (FORMULAS.md).
    """

    def __init__(self, matrix, winner: int, levels: Iterable[int] | None = None):
        super().__init__(matrix, winner)
        pm = self.pm
        L1 = int(pm.L_sorted[0])
        L2 = int(pm.L_sorted[1])
        self.L1 = L1
        ls = np.arange(max(0, L1 - 1), L2 + 1)
        if levels is not None:
            ls = np.array(sorted(set(int(x) for x in levels) & set(ls.tolist())), dtype=np.int64)
        self.levels = ls
        K, a = self.K, self.winner
        L = pm.L.astype(np.int64)
        nI = self.inferiors.size
        in_Ia = pm.beats[a].copy()  # i2 in I_{i1}
        self.in_Ia = in_Ia
        mI = ls + 1 - L1  # (nl,)
        # case A: i2 not in I
        mIA = np.broadcast_to(mI, (K, ls.size)).copy()
        capA = nI - in_Ia.astype(np.int64)  # |I_{i1} \ {i2}|
        mSA = np.maximum(0, L[:, None] - ls[None, :])
        okA = (mIA >= 0) & (mIA <= capA[:, None]) & (mSA <= self.pool_size[:, None])
        # case B: i2 in I (needs i2 in I_{i1} and |I| >= 1)
        mIB = mIA - 1
        mSB = np.maximum(0, L[:, None] - ls[None, :] - 1)
        okB = in_Ia[:, None] & (mIB >= 0) & (mIB <= capA[:, None]) & (mSB <= self.pool_size[:, None])
        okA[a] = False
        okB[a] = False
        self._mIA, self._mSA, self._okA = mIA, mSA, okA
        self._mIB, self._mSB, self._okB = mIB, mSB, okB

    # -- counting / enumeration -------------------------------------------------------
    def n_rows(self) -> int:
        """Number of (I, S) combinations in the definition (rows before de-duplication)."""
        nI = self.inferiors.size
        total = 0
        for i2 in range(self.K):
            for t, _ in enumerate(self.levels):
                if self._okA[i2, t]:
                    total += comb(nI - int(self.in_Ia[i2]), int(self._mIA[i2, t])) * comb(
                        int(self.pool_size[i2]), int(self._mSA[i2, t])
                    )
                if self._okB[i2, t]:
                    total += comb(nI - 1, int(self._mIB[i2, t])) * comb(
                        int(self.pool_size[i2]), int(self._mSB[i2, t])
                    )
        return total

    def enumerate(self, max_rows: int = 200_000) -> list[np.ndarray]:
        """Every row of ``R_{i1}``, written literally from the definition (THEORY.md section 2).

        Deliberately independent of the separation code: it loops over ``i2``, ``l``, and all
        subsets ``I``, ``S`` with :func:`itertools.combinations`.  Duplicate rows are removed.
        Raises :class:`TooLargeError` when the definition has more than ``max_rows`` rows.
        """
        n = self.n_rows()
        if n > max_rows:
            raise TooLargeError(
                f"R_{{{self.winner}}} has {n} rows for K={self.K} (limit {max_rows}); use the"
                " cutting-plane method"
            )
        pm, a, pid = self.pm, self.winner, self.pid
        L = pm.L
        Ia = set(pm.inferiors(a).tolist())
        seen: set[tuple[int, ...]] = set()
        rows: list[np.ndarray] = []
        for i2 in range(self.K):
            if i2 == a:
                continue
            pool = [j for j in pm.superiors(i2).tolist() if j != a]
            for l in self.levels.tolist():
                size_I = l + 1 - self.L1
                if size_I < 0 or size_I > len(Ia):
                    continue
                for I in itertools.combinations(sorted(Ia), size_I):
                    size_S = max(0, int(L[i2]) - l - (1 if i2 in I else 0))
                    if size_S > len(pool):
                        continue
                    for S in itertools.combinations(pool, size_S):
                        pairs = {int(pid[a, j]) for j in I} | {int(pid[i2, j]) for j in S}
                        key = tuple(sorted(pairs))
                        if key not in seen:
                            seen.add(key)
                            rows.append(np.array(key, dtype=np.int64))
        return rows

    # -- separation -------------------------------------------------------------------
    def _scan(self, E: np.ndarray, T: np.ndarray | None = None):
        """Minimal row sum for every (i2, l, case).

        Returns ``best`` (per i2), the tables ``sumA``/``sumB`` (rows i2, columns levels) for
        the two cases, the same tables for the tie-break key ``T`` (or None), and the
        orderings used.  Values are sorted by ``E`` with ties broken by ``T``.
        """
        a = self.winner
        Ia = self.inferiors
        nI = Ia.size
        va = E[a, Ia]
        orderA = np.argsort(va, kind="stable") if T is None else np.lexsort((T[a, Ia], va))
        rankA = np.full(self.K, nI, dtype=np.int64)  # rank of i2 within sorted I_{i1}; nI if absent
        rankA[Ia[orderA]] = np.arange(nI)
        order_pool, PSE, PST = self._sorted_pools(E, T)

        def tables(M, PS):
            PA = _prefix(M[a, Ia][orderA])
            mi2 = M[a]

            def excl(m):
                # smallest-by-order m values of M[i1, .] over I_{i1} \ {i2}, for every i2
                m = np.clip(m, 0, nI)
                base = PA[m]
                alt = PA[np.minimum(m + 1, nI)] - mi2[:, None]
                return np.where(rankA[:, None] < m, alt, base)

            sA = excl(self._mIA) + np.take_along_axis(PS, np.clip(self._mSA, 0, self.K), axis=1)
            sB = mi2[:, None] + excl(self._mIB) + np.take_along_axis(PS, np.clip(self._mSB, 0, self.K), axis=1)
            return np.where(self._okA, sA, np.inf), np.where(self._okB, sB, np.inf)

        sumA, sumB = tables(E, PSE)
        tie = tables(T, PST) if T is not None else None
        best = np.minimum(sumA.min(axis=1, initial=np.inf), sumB.min(axis=1, initial=np.inf))
        return best, sumA, sumB, tie, orderA, order_pool

    def separate(self, e, tol: float = 1e-9, per_i2: int = 1, tiebreak=None,
                 neighbours: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
        """The most violated rows for ``e`` (000 Sec. 4.1.1).

        For each ``i2`` and each admissible ``(l, case)``, the row with the smallest left-hand
        side takes the smallest ``e`` values on both sides; this returns, for every ``i2``
        whose best row is violated by more than ``tol``, up to ``per_i2`` distinct such rows
        (most violated first).  Among equally violated rows the one with the smallest
        ``tiebreak`` total (e.g. the LP costs) is preferred.  Returns ``(rows, violations)``.
        """
        E = _as_square(e, self.K)
        T = None if tiebreak is None else _as_square(tiebreak, self.K)
        return self._rows_from_scan(E, T, tol, per_i2, neighbours)

    def cheapest_rows(self, costs, per_i2: int = 1) -> list[np.ndarray]:
        """For every ``i2``, the rows with the smallest total cost (a warm start for the LP)."""
        Cm = _as_square(costs, self.K)
        rows, _ = self._rows_from_scan(Cm, None, -np.inf, per_i2)
        return rows

    def _rows_from_scan(self, E, T, tol, per_i2, neighbours=0):
        best, sumA, sumB, tie, orderA, order_pool = self._scan(E, T)
        a, Ia, pid = self.winner, self.inferiors, self.pid
        sortedI = Ia[orderA]
        nl = self.levels.size
        targets = np.flatnonzero(1.0 - best > tol)
        if targets.size == 0:
            return [], np.zeros(0)
        cand = np.concatenate([sumA[targets], sumB[targets]], axis=1)  # (n_targets, 2 nl)
        npick = min(cand.shape[1], max(1, per_i2) * 2)
        if tie is None:
            picks = np.argsort(cand, axis=1, kind="stable")[:, :npick]
        else:
            tcand = np.concatenate([tie[0][targets], tie[1][targets]], axis=1)
            picks = np.lexsort((tcand, np.round(cand, 12)), axis=1)[:, :npick]
        rows, viols, seen = [], [], set()
        pidA = pid[a]
        Ea = E[a]

        def emit(i2, Ipart, Spart, case_b):
            lhs = float(Ea[Ipart].sum() + E[i2, Spart].sum() + (Ea[i2] if case_b else 0.0))
            if 1.0 - lhs <= tol:
                return False
            parts = [pidA[Ipart], pid[i2, Spart]]
            if case_b:
                parts.append(pidA[i2 : i2 + 1])
            idx = np.sort(np.concatenate(parts))
            k = idx.tobytes()
            if k in seen:
                return False
            seen.add(k)
            rows.append(idx)
            viols.append(1.0 - lhs)
            return True

        for ti, i2 in enumerate(targets.tolist()):
            got = 0
            Iorder = sortedI[sortedI != i2]
            for t in picks[ti].tolist():
                c = cand[ti, t]
                if not np.isfinite(c) or 1.0 - c <= tol:
                    break
                case_b = t >= nl
                lt = t - nl if case_b else t
                mI = int((self._mIB if case_b else self._mIA)[i2, lt])
                mS = int((self._mSB if case_b else self._mSA)[i2, lt])
                Ipart = Iorder[:mI]
                Spart = order_pool[i2, :mS]
                if not emit(i2, Ipart, Spart, case_b):
                    continue
                got += 1
                # neighbour cuts: swap one of the largest chosen values for the next one in order
                if neighbours:
                    if mS < self.pool_size[i2]:
                        nxt = order_pool[i2, mS]
                        for r in range(mS - 1, max(-1, mS - 1 - neighbours), -1):
                            S2 = Spart.copy()
                            S2[r] = nxt
                            emit(i2, Ipart, S2, case_b)
                    if mI < Iorder.size:
                        nxt = Iorder[mI]
                        for r in range(mI - 1, max(-1, mI - 1 - neighbours), -1):
                            I2 = Ipart.copy()
                            I2[r] = nxt
                            emit(i2, I2, Spart, case_b)
                if got >= per_i2:
                    break
        return rows, np.asarray(viols)


class ECWFamily(_FamilyBase):
    """``R^E_{i1}``: ECW-RMED's feasible set (paper 000, eqs. (4)-(5); THEORY.md section 3).

    ``e_{i1 j} = 1`` for every ``j in I_{i1}``, and for every ``i2 != i1`` and every ``S``
    subset of ``S_{i2} \\ {i1}`` with ``|S| = L_{i2} - L_{i1} + 1``: ``sum_{j in S} e_{j i2} >= 1``.
    The fixed part is exposed as :attr:`fixed_vars` (variables whose lower bound is 1).
    """

    def __init__(self, matrix, winner: int):
        super().__init__(matrix, winner)
        pm = self.pm
        L = pm.L.astype(np.int64)
        self.m = L - L[self.winner] + 1  # required |S| per i2
        self.has_row = (self.m <= self.pool_size) & (np.arange(self.K) != self.winner)
        self.fixed_vars = np.sort(self.pid[self.winner, self.inferiors])

    def n_rows(self) -> int:
        return int(
            sum(comb(int(self.pool_size[i]), int(self.m[i])) for i in np.flatnonzero(self.has_row))
        )

    def enumerate(self, max_rows: int = 200_000) -> list[np.ndarray]:
        """Every covering row of ``R^E_{i1}`` from the definition (the fixed part excluded)."""
        n = self.n_rows()
        if n > max_rows:
            raise TooLargeError(f"R^E_{{{self.winner}}} has {n} rows (limit {max_rows})")
        pm, a, pid = self.pm, self.winner, self.pid
        rows = []
        for i2 in range(self.K):
            if i2 == a:
                continue
            pool = [j for j in pm.superiors(i2).tolist() if j != a]
            size = int(pm.L[i2] - pm.L[a] + 1)
            if size > len(pool):
                continue
            for S in itertools.combinations(pool, size):
                rows.append(np.array(sorted(int(pid[j, i2]) for j in S), dtype=np.int64))
        return rows

    def _scan(self, E: np.ndarray):
        _, PS, _ = self._sorted_pools(E)
        s = np.take_along_axis(PS, np.clip(self.m, 0, self.K)[:, None], axis=1)[:, 0]
        s = np.where(self.has_row, s, np.inf)
        fixed = E[self.winner, self.inferiors]
        # the fixed part e_{i1 j} = 1 acts as rows {e_{i1 j} >= 1}
        fixed_min = fixed.min(initial=np.inf)
        return np.array([min(s.min(initial=np.inf), fixed_min)]), s
