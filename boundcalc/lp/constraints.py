"""The constraint families of paper 000 (Komiyama, Honda & Nakagawa, ICML 2016): ``R_{i1}`` (eq. (2), Theorem 2)
and ``R^E_{i1}`` (eqs. (4)-(5)).

Both are written in normalised variables: ``e_p = q_p d(mu_p)`` in ``[0, 1]`` (eq. (2)'s box ``0 <= q_p <= 1/d(mu_p)``
scaled by ``d``), one per unordered pair ``p = {i, j}`` in the order of ``numpy.triu_indices(K, 1)``.  Every row is
then a 0/1 covering row ``sum_{p in P} e_p >= 1`` whatever the gaps, which keeps the cutting plane well conditioned.
A family is built from the Copeland structure alone (:mod:`~boundcalc.lp.structure` says why).  It writes out every
row (:meth:`enumerate`: the reference, small K only), finds the most violated rows at ``e`` by the sorting oracle of
000 Sec. 4.1.1 (:meth:`separate_csr`, ``O(K^2 log K)`` a pass; ties among equal ``e``, typically 0, broken at random
per ``i2`` so that different ``i2`` offer different pairs), and answers Algorithm 1's check (3), "is
``{N_ij / log t}`` in ``R_{i1}(mu_hat)``?" (:meth:`contains`, :meth:`max_violation`, :meth:`min_row_sum`).

The oracle's tables and row sums are numpy here, the sums also compiled (:mod:`boundcalc.kernels.lp`,
``compiled=True``, the online path; the same numbers to the last bit); the rows come from the compiled row builder.
Rows are exchanged in CSR form (:class:`RowBlock`), ready for one bulk ``Highs.addRows``.

>>> from boundcalc import PreferenceMatrix
>>> pm = PreferenceMatrix([[.5, .6, .6, .6], [.4, .5, .9, .1], [.4, .1, .5, .9], [.4, .9, .1, .5]])
>>> fam = CopelandFamily(pm, winner=0)
>>> len(fam.enumerate())
10
>>> fam.contains(np.ones(fam.n_vars))
True
>>> block = fam.separate_csr(np.zeros(fam.n_vars))   # every i2's most violated rows at e = 0
>>> block.n_rows > 0, bool(np.all(block.violation == 1.0))
(True, True)
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..matrix import MatrixLike
from .structure import Structure, as_structure

__all__ = ["CopelandFamily", "ECWFamily", "RowBlock", "pair_ids", "TooLargeError", "rows_to_csr"]


class TooLargeError(ValueError):
    """Raised when a full enumeration would be too large to write out."""


@functools.cache
def pair_ids(K: int) -> np.ndarray:
    """K x K array mapping a pair (i, j), i != j, to its variable index (-1 on the diagonal); read-only, one per K."""
    pid = np.full((K, K), -1, dtype=np.int64)
    iu = np.triu_indices(K, 1)
    idx = np.arange(iu[0].size)
    pid[iu] = idx
    pid[(iu[1], iu[0])] = idx
    pid.setflags(write=False)
    return pid


def _as_square(e: ArrayLike, K: int) -> np.ndarray:
    """Accept a pair vector (length K(K-1)/2) or a symmetric K x K matrix; return K x K."""
    e = np.asarray(e, dtype=float)
    n = K * (K - 1) // 2
    if e.shape == (n,):
        E = e[pair_ids(K)]
        np.fill_diagonal(E, 0.0)
        return E
    if e.shape == (K, K):
        return e
    raise ValueError(f"expected a pair vector of length {n} or a {K}x{K} matrix; got shape {e.shape}")


def _prefix(sorted_vals: np.ndarray) -> np.ndarray:
    """Prefix sums along the last axis with a leading zero; +inf entries are kept as inf."""
    out = np.empty(sorted_vals.shape[:-1] + (sorted_vals.shape[-1] + 1,))
    out[..., 0] = 0.0
    with np.errstate(invalid="ignore"):
        np.cumsum(sorted_vals, axis=-1, out=out[..., 1:])
    return out


@dataclass
class RowBlock:
    """Covering rows in CSR form.

    Parameters
    ----------
    starts, idx : ndarray of int64
        Row ``r`` is ``idx[starts[r]:starts[r + 1]]`` (in no particular order).
    violation : ndarray
        ``1 - sum_{p in row r} e_p`` at the ``e`` the rows were separated from (NaN when unknown).
    """

    starts: np.ndarray
    idx: np.ndarray
    violation: np.ndarray

    @property
    def n_rows(self) -> int:
        return int(self.starts.size - 1)

    def rows(self) -> list[np.ndarray]:
        """The rows as a list of sorted index arrays."""
        s = self.starts
        return [np.sort(self.idx[s[r] : s[r + 1]]) for r in range(self.n_rows)]


def rows_to_csr(rows: Sequence[np.ndarray]) -> RowBlock:
    """A :class:`RowBlock` from a list of index arrays (each sorted here)."""
    rows = [np.sort(np.asarray(r, dtype=np.int64)) for r in rows]
    lens = np.array([r.size for r in rows], dtype=np.int64)
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=starts[1:])
    idx = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    return RowBlock(starts, idx.astype(np.int64), np.full(len(rows), np.nan))


class _FamilyBase:
    def __init__(self, matrix: MatrixLike | Structure, winner: int) -> None:
        self.structure = st = as_structure(matrix)
        self.K = K = st.K
        winner = int(winner)
        if winner not in set(st.winners.tolist()):
            raise ValueError(f"arm {winner} is not a Copeland winner (winners: {st.winners.tolist()})")
        self.winner = winner
        self.n_vars = K * (K - 1) // 2
        self.pid = pair_ids(K)
        # pool[i2, j]: j in S_{i2} \ {i1} (j beats i2, j != winner); empty for i2 = winner
        pool = st.beats.T.copy()
        pool[:, winner] = False
        pool[winner, :] = False
        self.pool = pool
        self.pool_size = pool.sum(axis=1)
        self.inferiors = st.inferiors(winner)

    def _pool_sorted_sums(self, E: np.ndarray) -> np.ndarray:
        """Per arm i2, prefix sums of the pool's values sorted ascending (inf past the pool)."""
        keys = np.where(self.pool, E, np.inf)
        keys.sort(axis=1)
        return _prefix(keys)

    def _best(self, E: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        """The smallest row sums of the family at the K x K ``E``."""
        raise NotImplementedError

    def min_row_sum(self, e: ArrayLike) -> float:
        """Smallest left-hand side ``sum_{p in row} e_p`` over all rows (inf when there are none)."""
        return float(self._best(_as_square(e, self.K)).min(initial=np.inf))

    def max_violation(self, e: ArrayLike) -> float:
        """Largest ``1 - sum_{p in row} e_p`` over all rows (<= 0 means feasible)."""
        return 1.0 - self.min_row_sum(e)

    def contains(self, e: ArrayLike, tol: float = 1e-9) -> bool:
        """Algorithm 1's check (3): does ``e`` (normalised) satisfy every row, up to ``tol``?"""
        return self.max_violation(e) <= tol


class CopelandFamily(_FamilyBase):
    """``R_{i1}``: the feasible set of paper 000's lower-bound LP for winner ``i1`` (eq. (2)).

    For every ``i2 != i1``, ``l in max(0, L(1)-1) .. L(2)``, ``I`` a subset of ``I_{i1}`` with ``|I| = l + 1 - L(1)``
    and ``S`` a subset of ``S_{i2} \\ {i1}`` with ``|S| = max(0, L_{i2} - l - [i2 in I])``:
    ``sum_{p in P_IS} e_p >= 1`` where ``P_IS = {(i1, j): j in I} u {(i2, j): j in S}``.  The oracle groups the rows
    by ``(i2, l, case)``, case A ``i2 not in I`` and case B ``i2 in I``: tables of K x 2nl columns, case A first.

    Parameters
    ----------
    matrix : PreferenceMatrix, Structure or array_like
        Only its Copeland structure is read (an array's by :func:`~boundcalc.lp.structure.empirical_structure`).
    winner : int
        A Copeland winner ``i1``.
    levels : iterable of int, optional
        Restrict ``l`` to these values (intersected with the admissible range), e.g. ``[0]`` for
        the Condorcet regret lower bound of RMED (Komiyama et al. 2015).
    compiled : bool
        Sum the rows by the compiled oracle of :mod:`boundcalc.kernels.lp` (the same numbers as numpy).
    """

    def __init__(
        self,
        matrix: MatrixLike | Structure,
        winner: int,
        levels: Iterable[int] | None = None,
        *,
        compiled: bool = False,
    ):
        super().__init__(matrix, winner)
        self.compiled = bool(compiled)
        st = self.structure
        self.L1 = L1 = int(st.L_sorted[0])
        ls = np.arange(max(0, L1 - 1), int(st.L_sorted[1]) + 1)
        if levels is not None:
            ls = np.array(sorted(set(int(x) for x in levels) & set(ls.tolist())), dtype=np.int64)
        self.levels = ls
        K, a = self.K, self.winner
        L = st.L.astype(np.int64)
        nI = self.inferiors.size
        self.in_Ia = st.beats[a].copy()  # i2 in I_{i1}
        if self.compiled:
            from ..kernels import compile_notice

            compile_notice(["lp"], "the LP core")
        self._mI, self._mS, self._ok = self._tables_numpy(ls, L, nI)
        self._caseB = np.concatenate([np.zeros(ls.size, bool), np.ones(ls.size, bool)])
        self._gI = np.clip(self._mI, 0, nI)
        self._gS = np.clip(self._mS, 0, K)
        # precomputed gathers of _sums_numpy
        self._gI1 = np.minimum(self._gI + 1, nI)
        self._has_rows = bool(self._ok.any())
        self._flatS = np.arange(K)[:, None] * (K + 1) + self._gS
        self._inIa_col = self.in_Ia[:, None]
        self._caseB_f = self._caseB.astype(float)[None, :]

    def _tables_numpy(self, ls: np.ndarray, L: np.ndarray, nI: int) -> tuple:
        """``(m_I, m_S, ok)`` (K x 2nl, unclipped): :func:`boundcalc.kernels.lp.winner_tables`'s layout in numpy."""
        K, a, in_Ia = self.K, self.winner, self.in_Ia
        mIA = np.broadcast_to(ls + 1 - self.L1, (K, ls.size)).copy()
        capA = nI - in_Ia.astype(np.int64)  # |I_{i1} \\ {i2}|
        mSA = np.maximum(0, L[:, None] - ls[None, :])
        okA = (mIA >= 0) & (mIA <= capA[:, None]) & (mSA <= self.pool_size[:, None])
        mIB = mIA - 1
        mSB = np.maximum(0, L[:, None] - ls[None, :] - 1)
        okB = in_Ia[:, None] & (mIB >= 0) & (mIB <= capA[:, None]) & (mSB <= self.pool_size[:, None])
        okA[a] = False
        okB[a] = False
        return tuple(np.concatenate(ab, axis=1) for ab in ((mIA, mIB), (mSA, mSB), (okA, okB)))

    def n_rows(self) -> int:
        """Number of (I, S) combinations in the definition (rows before de-duplication)."""
        nI = self.inferiors.size
        return sum(
            comb(nI - int(self.in_Ia[i2]), int(self._mI[i2, c])) * comb(int(self.pool_size[i2]), int(self._mS[i2, c]))
            for i2, c in zip(*np.nonzero(self._ok))
        )

    def enumerate(self, max_rows: int = 200_000) -> list[np.ndarray]:
        """Every row of ``R_{i1}``, de-duplicated, written literally from 000 eq. (2).

        Independent of the oracle (it loops over all subsets with :mod:`itertools`); raises :class:`TooLargeError`
        when the definition has more than ``max_rows`` rows.
        """
        n = self.n_rows()
        if n > max_rows:
            raise TooLargeError(
                f"R_{{{self.winner}}} has {n} rows for K={self.K} (limit {max_rows}); use the cutting-plane method"
            )
        st, a, pid = self.structure, self.winner, self.pid
        Ia = set(st.inferiors(a).tolist())
        rows: dict[tuple[int, ...], None] = {}  # insertion-ordered, without duplicates
        for i2 in range(self.K):
            if i2 == a:
                continue
            pool = [j for j in st.superiors(i2).tolist() if j != a]
            for l in self.levels.tolist():
                size_I = l + 1 - self.L1
                if size_I < 0 or size_I > len(Ia):
                    continue
                for I in itertools.combinations(sorted(Ia), size_I):
                    size_S = max(0, int(st.L[i2]) - l - (1 if i2 in I else 0))
                    if size_S > len(pool):
                        continue
                    for S in itertools.combinations(pool, size_S):
                        rows[tuple(sorted({int(pid[a, j]) for j in I} | {int(pid[i2, j]) for j in S}))] = None
        return [np.array(key, dtype=np.int64) for key in rows]

    def _sums(self, E: np.ndarray) -> np.ndarray:
        """Minimal row sum of every ``(i2, l, case)`` (K x 2nl; inf where no row exists)."""
        if self.compiled:
            from ..kernels.lp import copeland_sums

            out = np.empty(self._ok.shape)
            return copeland_sums(np.ascontiguousarray(E, dtype=float), *self.oracle_args(), out)
        return self._sums_numpy(E)

    def oracle_args(self) -> tuple[Any, ...]:
        """The arguments of :func:`boundcalc.kernels.lp.copeland_sums` between ``E`` and ``out``:
        ``(winner, I_winner, pool, m_I, m_S, ok, case_B, in_I)``, for callers with their own compiled loop."""
        return (self.winner, self.inferiors, self.pool, self._gI, self._gS, self._ok, self._caseB, self.in_Ia)

    def _sums_numpy(self, E: np.ndarray) -> np.ndarray:
        """:meth:`_sums` in numpy.

        The winner's values over ``I_{i1}`` are sorted once: the ``m`` smallest of ``I_{i1} \\ {i2}`` are the list's
        ``m`` smallest, or its ``m + 1`` smallest but ``e_{i1 i2}`` when ``e_{i1 i2}`` is at most the ``m``-th smallest.
        """
        ea = E[self.winner]
        va = np.sort(ea[self.inferiors])
        PA = _prefix(va)
        psum = self._pool_sorted_sums(E).ravel()[self._flatS]
        own = ea[:, None]
        vext = np.concatenate(([-np.inf], va))
        inside = self._inIa_col & (own <= vext[self._gI])
        wsum = np.where(inside, PA[self._gI1] - own, PA[self._gI])
        wsum += self._caseB_f * own
        wsum += psum
        wsum[~self._ok] = np.inf
        return wsum

    def _best(self, E: np.ndarray) -> np.ndarray:
        if not self._has_rows:
            return np.full(self.K, np.inf)
        return self._sums(E).min(axis=1)

    def _rows(
        self, E: np.ndarray, sums: np.ndarray, tol: float, per_i2: int, rng: np.random.Generator | None
    ) -> tuple[Any, ...]:
        """The most violated rows at ``E`` with their hashes by :func:`boundcalc.kernels.lp.copeland_rows`, whatever
        :attr:`compiled` says (offline, only the plain model, the fallback, asks for rows); ties broken by keys drawn
        from ``rng`` (arm order when None)."""
        if not self.compiled:
            from ..kernels import compile_notice

            compile_notice(["lp"], "the LP core")
        tb = np.zeros((self.K, self.K)) if rng is None else rng.random((self.K, self.K))
        z1, z2 = _zobrist(self.n_vars)
        E = np.ascontiguousarray(E, dtype=float)
        from ..kernels.lp import copeland_rows

        # gI, gS equal mI, mS wherever ok, and only such columns are violated
        return copeland_rows(E, *self.oracle_args(), self.pid, sums, tb, float(tol), int(per_i2), z1, z2)

    def separate_csr(
        self,
        e: ArrayLike,
        tol: float = 1e-9,
        per_i2: int = 4,
        rng: np.random.Generator | None = None,
        sums: np.ndarray | None = None,
    ) -> RowBlock:
        """The most violated rows for ``e`` (000 Sec. 4.1.1), each violated by more than ``tol``.

        Per ``i2``, the rows of up to ``per_i2`` ``(l, case)`` choices with the smallest sums, each taking the
        smallest ``e`` values (ties in a random order per ``i2`` drawn from ``rng``; arm order when None).  ``sums``
        may pass :meth:`_sums` of the same ``e``.
        """
        E = _as_square(e, self.K)
        if not self._has_rows:
            return rows_to_csr([])
        S = self._sums(E) if sums is None else sums
        _, viol, starts, idx, _, _ = self._rows(E, S, tol, per_i2, rng)
        return RowBlock(np.array(starts), np.array(idx), np.array(viol))


def _select_rows(block: RowBlock, keep: np.ndarray) -> RowBlock:
    """The rows ``keep`` of ``block``."""
    s = block.starts
    lens = np.diff(s)[keep]
    starts = np.zeros(keep.size + 1, dtype=np.int64)
    np.cumsum(lens, out=starts[1:])
    take = np.repeat(s[:-1][keep] - starts[:-1], lens) + np.arange(starts[-1])
    return RowBlock(starts, block.idx[take], block.violation[keep])


@functools.cache
def _zobrist(n_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """Two fixed random odd 64-bit words per variable (the same for every family of that size)."""
    g = np.random.default_rng(0x5EED_B0C)
    Z = tuple(g.integers(0, 2**63, n_vars, dtype=np.uint64) * np.uint64(2) + np.uint64(1) for _ in range(2))
    for z in Z:
        z.setflags(write=False)
    return Z[0], Z[1]


def row_hashes(block: RowBlock, n_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """Two independent 64-bit Zobrist hashes per row (sums of fixed random words, mod 2^64).

    Equal rows hash equally; two different rows collide on both with probability 2^-128.
    """
    out = []
    for z in _zobrist(n_vars):
        cs = np.zeros(block.idx.size + 1, dtype=np.uint64)
        np.cumsum(z[block.idx], out=cs[1:])
        out.append(cs[block.starts[1:]] - cs[block.starts[:-1]])
    return out[0], out[1]


class ECWFamily(_FamilyBase):
    """``R^E_{i1}``: ECW-RMED's feasible set (paper 000, eqs. (4)-(5), Theorem 4).

    ``e_{i1 j} = 1`` for every ``j in I_{i1}`` (:attr:`fixed_vars`: lower bound 1), and for every ``i2 != i1`` and
    every ``S`` subset of ``S_{i2} \\ {i1}`` with ``|S| = L_{i2} - L_{i1} + 1``: ``sum_{j in S} e_{j i2} >= 1``.

    Parameters
    ----------
    matrix : PreferenceMatrix, Structure or array_like
        Only its Copeland structure is read.
    winner : int
        A Copeland winner ``i1``.
    """

    def __init__(self, matrix: MatrixLike | Structure, winner: int):
        super().__init__(matrix, winner)
        L = self.structure.L.astype(np.int64)
        self.m = L - L[self.winner] + 1  # required |S| per i2
        self.has_row = (self.m <= self.pool_size) & (np.arange(self.K) != self.winner)
        self.fixed_vars = np.sort(self.pid[self.winner, self.inferiors])
        self._gm = np.clip(self.m, 0, self.K)[:, None]

    def n_rows(self) -> int:
        return int(sum(comb(int(self.pool_size[i]), int(self.m[i])) for i in np.flatnonzero(self.has_row)))

    def enumerate(self, max_rows: int = 200_000) -> list[np.ndarray]:
        """Every covering row of ``R^E_{i1}`` from the definition (the fixed part excluded)."""
        n = self.n_rows()
        if n > max_rows:
            raise TooLargeError(f"R^E_{{{self.winner}}} has {n} rows (limit {max_rows})")
        st, a, pid = self.structure, self.winner, self.pid
        rows = []
        for i2 in range(self.K):
            if i2 == a:
                continue
            pool = [j for j in st.superiors(i2).tolist() if j != a]
            size = int(st.L[i2] - st.L[a] + 1)
            if size > len(pool):
                continue
            for S in itertools.combinations(pool, size):
                rows.append(np.array(sorted(int(pid[j, i2]) for j in S), dtype=np.int64))
        return rows

    def _best(self, E: np.ndarray) -> np.ndarray:
        """Per i2 the smallest covering-row sum; the fixed part ``e_{i1 j} >= 1`` counts as rows."""
        s = np.take_along_axis(self._pool_sorted_sums(E), self._gm, axis=1)[:, 0]
        s = np.where(self.has_row, s, np.inf)
        return np.append(s, E[self.winner, self.inferiors])
