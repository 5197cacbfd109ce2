"""An incremental covering LP on HiGHS (``highspy``): add rows, drop slack rows, change costs, re-solve warm.

The model is ``min c.e  s.t.  lb <= e <= ub,  A e >= 1`` with 0/1 rows added over time in bulk
(one ``addRows`` call per :class:`~boundcalc.lp.constraints.RowBlock`).  HiGHS keeps its simplex
basis between calls, so after :meth:`CoveringLP.add_rows` the dual simplex restarts from the
previous optimum, and after :meth:`CoveringLP.set_costs` the primal simplex does.
:meth:`CoveringLP.drop_slack` deletes rows that are not binding (activity above 1 and zero
dual): their slacks are basic, so the basis stays valid and the optimum is unchanged, and each
later re-solve pays only for the rows that matter.  Rows are identified by two 64-bit hashes
(:func:`~boundcalc.lp.constraints.row_hashes`), so a row already in the model is never added
twice.  Solver status is never ignored: anything but "Optimal" raises :class:`SolverError`.

A ``CoveringLP`` holds a live HiGHS object and does not pickle; the solvers that own one
(:class:`~boundcalc.lp.cutting.CopelandLPSolver`) drop it when pickled and rebuild it on the other side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

try:  # pragma: no cover - import guard
    import highspy
except ImportError as exc:  # pragma: no cover
    raise ImportError("boundcalc needs highspy (pip install highspy)") from exc

from .._highs import new_highs
from .constraints import RowBlock, row_hashes, rows_to_csr

__all__ = ["CoveringLP", "SolverError", "LPSolution", "LPBasis"]


class SolverError(RuntimeError):
    """The LP solver did not report an optimal solution (or its answer failed the certificate)."""


@dataclass
class LPSolution:
    x: np.ndarray
    objective: float
    row_duals: np.ndarray
    row_values: np.ndarray
    status: str
    simplex_iterations: int


@dataclass
class LPBasis:
    """A simplex basis of a :class:`CoveringLP` (:meth:`CoveringLP.basis`).

    ``x``: the solution (as :meth:`CoveringLP.solve` returns it); ``status[j]``: 0 nonbasic at its
    lower bound, 1 basic, 2 nonbasic at its upper bound, 3 not in the model (at its lower bound) or
    another HiGHS status; ``row_basic[r]``: row ``r``'s slack is basic (the row is not held at 1);
    ``starts``/``idx``: the model's rows in CSR form (row ``r`` is ``idx[starts[r]:starts[r+1]]``);
    ``lower``/``upper``: the variables' bounds.
    """

    x: np.ndarray
    status: np.ndarray
    row_basic: np.ndarray
    starts: np.ndarray
    idx: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


class CoveringLP:
    """``min c.x, lb <= x <= ub, rows: sum_{j in row} x_j >= 1`` kept warm in one HiGHS instance.

    Parameters
    ----------
    costs : ndarray
        Finite objective coefficients.
    lower, upper : ndarray, optional
        Variable bounds (default 0 and 1).
    threads : int
        HiGHS threads (1: the models are small and solved many times).
    presolve : bool
        HiGHS presolve; off by default (measured: on these LPs it only costs time, and a
        warm start skips it anyway).

    >>> lp = CoveringLP(np.array([1.0, 2.0, 3.0]))
    >>> lp.add_rows([np.array([0, 1]), np.array([1, 2])])
    2
    >>> sol = lp.solve()
    >>> round(sol.objective, 9), sol.x.round(9).tolist()
    (2.0, [0.0, 1.0, 0.0])
    """

    def __init__(self, costs: np.ndarray, lower: np.ndarray | None = None, upper: np.ndarray | None = None,
                 *, threads: int = 1, presolve: bool = False):
        costs = np.asarray(costs, dtype=float)
        if not np.all(np.isfinite(costs)):
            raise ValueError("LP costs must be finite")
        if np.any(costs < 0):
            raise ValueError("LP costs must be non-negative (a variable in no row is left at its lower bound)")
        n = costs.size
        self.n = n
        h = new_highs(threads=int(threads), primal_feasibility_tolerance=1e-9,
                      dual_feasibility_tolerance=1e-9, presolve="on" if presolve else "off")
        self._lb = np.zeros(n) if lower is None else np.asarray(lower, dtype=float).copy()
        self._ub = np.ones(n) if upper is None else np.asarray(upper, dtype=float).copy()
        # Columns are created lazily: a variable enters HiGHS with the first row that uses it
        # (a variable in no row sits at its lower bound, which is optimal for costs >= 0 and is
        # checked by the certificate for the rest).  On K = 136 this keeps ~1,000 of 9,180 columns.
        self._col = np.full(n, -1, dtype=np.int64)  # variable -> HiGHS column
        self._var = np.zeros(0, dtype=np.int64)  # HiGHS column -> variable
        self.h = h
        self.costs = costs.copy()
        # the model's rows, CSR, in HiGHS order
        self._starts = np.zeros(1, dtype=np.int64)
        self._idx = np.zeros(0, dtype=np.int64)
        self._h1 = np.zeros(0, dtype=np.uint64)
        self._h2 = np.zeros(0, dtype=np.uint64)
        self._keys: set[tuple[int, int]] = set()
        self.solves = 0
        self.iterations = 0
        self.rows_added = 0
        self.rows_removed = 0

    # ------------------------------------------------------------------ rows
    @property
    def n_rows(self) -> int:
        return int(self._starts.size - 1)

    @property
    def rows(self) -> list[np.ndarray]:
        """The model's rows (index arrays), in HiGHS order."""
        s = self._starts
        return [self._idx[s[r]:s[r + 1]] for r in range(self.n_rows)]

    def block(self) -> RowBlock:
        """The model's rows as one :class:`~boundcalc.lp.constraints.RowBlock`."""
        return RowBlock(self._starts.copy(), self._idx.copy(), np.full(self.n_rows, np.nan))

    def has_row(self, idx: np.ndarray) -> bool:
        b = rows_to_csr([idx])
        h1, h2 = row_hashes(b, self.n)
        return (int(h1[0]), int(h2[0])) in self._keys

    def add_rows(self, rows: RowBlock | Sequence[np.ndarray]) -> int:
        """Add covering rows (a RowBlock, or index arrays); rows already present are skipped.

        Returns the number of rows added.
        """
        block = rows if isinstance(rows, RowBlock) else rows_to_csr(list(rows))
        if block.n_rows == 0:
            return 0
        h1, h2 = row_hashes(block, self.n)
        # first occurrence of each row within the block ...
        _, first = np.unique(np.stack([h1, h2], axis=1), axis=0, return_index=True)
        first.sort()
        # ... that the model does not hold (h1 screens, the exact (h1, h2) pair decides)
        maybe = np.isin(h1[first], self._h1, assume_unique=False)
        if maybe.any():
            keys = self._keys
            hit = np.array([(a, b) in keys for a, b in zip(h1[first[maybe]].tolist(), h2[first[maybe]].tolist())])
            drop = np.zeros(first.size, dtype=bool)
            drop[np.flatnonzero(maybe)[hit]] = True
            first = first[~drop]
        if first.size == 0:
            return 0
        new = first
        self._keys.update(zip(h1[new].tolist(), h2[new].tolist()))
        s = block.starts
        if len(new) == block.n_rows:
            starts, idx = s, block.idx
            nh1, nh2 = h1, h2
        else:
            keep = np.asarray(new)
            lens = np.diff(s)[keep]
            starts = np.zeros(keep.size + 1, dtype=np.int64)
            np.cumsum(lens, out=starts[1:])
            take = np.repeat(s[:-1][keep] - starts[:-1], lens) + np.arange(starts[-1])
            idx = block.idx[take]
            nh1, nh2 = h1[keep], h2[keep]
        m = starts.size - 1
        self._ensure_cols(idx)
        self.h.addRows(m, np.ones(m), np.full(m, highspy.kHighsInf), int(idx.size),
                       starts[:-1].astype(np.int32), self._col[idx].astype(np.int32), np.ones(idx.size))
        self._starts = np.concatenate([self._starts, self._starts[-1] + starts[1:]])
        self._idx = np.concatenate([self._idx, idx])
        self._h1 = np.concatenate([self._h1, nh1])
        self._h2 = np.concatenate([self._h2, nh2])
        self.rows_added += m
        return m

    def _ensure_cols(self, idx: np.ndarray) -> None:
        new = np.unique(idx[self._col[idx] < 0])
        if new.size == 0:
            return
        first = self._var.size
        self._col[new] = first + np.arange(new.size)
        self._var = np.concatenate([self._var, new])
        self.h.addVars(int(new.size), self._lb[new], self._ub[new])
        cols = np.arange(first, first + new.size, dtype=np.int32)
        self.h.changeColsCost(int(new.size), cols, self.costs[new])

    @property
    def n_cols(self) -> int:
        """Columns in the HiGHS model (variables used by some row so far)."""
        return int(self._var.size)

    def drop_slack(self, sol: LPSolution, tol: float = 1e-9) -> int:
        """Delete the rows with activity above ``1 + tol`` and zero dual at ``sol``; return how many.

        ``sol`` must come from this model; rows added since are kept.

        Binding rows (and every row with a nonzero dual) stay, so the optimum, the basis and
        the dual bound of the certificate are unchanged.
        """
        m = self.n_rows
        m0 = sol.row_values.size  # rows added after the solve (appended) are left alone
        if m == 0 or m0 == 0 or m0 > m:
            return 0
        slack = np.zeros(m, dtype=bool)
        slack[:m0] = (sol.row_values > 1.0 + tol) & (np.abs(sol.row_duals) <= 1e-12)
        k = int(slack.sum())
        if k == 0:
            return 0
        gone = np.flatnonzero(slack)
        self.h.deleteRows(k, gone.astype(np.int32))
        keep = ~slack
        lens = np.diff(self._starts)
        entry_keep = np.repeat(keep, lens)
        self._idx = self._idx[entry_keep]
        nl = lens[keep]
        self._starts = np.zeros(nl.size + 1, dtype=np.int64)
        np.cumsum(nl, out=self._starts[1:])
        for a, b in zip(self._h1[gone].tolist(), self._h2[gone].tolist()):
            self._keys.discard((a, b))
        self._h1 = self._h1[keep]
        self._h2 = self._h2[keep]
        self.rows_removed += k
        return k

    # ------------------------------------------------------------------ data
    def set_costs(self, costs: np.ndarray) -> None:
        costs = np.asarray(costs, dtype=float)
        if costs.shape != (self.n,) or not np.all(np.isfinite(costs)):
            raise ValueError("costs must be a finite vector of the model's size")
        self.costs = costs.copy()
        k = self._var.size
        if k:
            self.h.changeColsCost(k, np.arange(k, dtype=np.int32), costs[self._var])

    def set_bounds(self, lower: np.ndarray, upper: np.ndarray | None = None) -> None:
        self._lb = np.asarray(lower, dtype=float).copy()
        self._ub = np.ones(self.n) if upper is None else np.asarray(upper, dtype=float).copy()
        k = self._var.size
        if k:
            self.h.changeColsBounds(k, np.arange(k, dtype=np.int32), self._lb[self._var], self._ub[self._var])

    def set_lower(self, lower: np.ndarray) -> None:
        self.set_bounds(lower, self._ub)

    def row_activity(self, x: np.ndarray) -> np.ndarray:
        """``A x`` for the model's rows."""
        cs = np.zeros(self._idx.size + 1)
        np.cumsum(np.asarray(x, dtype=float)[self._idx], out=cs[1:])
        return cs[self._starts[1:]] - cs[self._starts[:-1]]

    def dual_aty(self, y: np.ndarray) -> np.ndarray:
        """``A^T y`` for row weights ``y`` (one per model row)."""
        w = np.repeat(np.asarray(y, dtype=float), np.diff(self._starts))
        return np.bincount(self._idx, weights=w, minlength=self.n)

    def basis(self) -> LPBasis:
        """The simplex basis and solution of the last :meth:`solve`, in the variables' numbering.

        For a caller that tests, without HiGHS, whether the basis stays optimal under new costs
        (rows and bounds unchanged: the basis stays primal feasible and its solution is unchanged;
        it is optimal while the reduced costs keep their signs -- CW-RMED's line 11,
        :mod:`boundcalc.policies.cw_rmed`).  See :class:`LPBasis`.
        """
        n = self.n
        status = np.full(n, 3, dtype=np.int8)
        row_basic = np.zeros(self.n_rows, dtype=bool)
        x = self._lb.copy()
        if self._var.size:
            b = self.h.getBasis()
            # HighsBasisStatus values: kLower 0, kBasic 1, kUpper 2, kZero 3, kNonbasic 4
            col = np.array([c.value for c in b.col_status], dtype=np.int8)
            col[col > 2] = 3
            status[self._var] = col
            row_basic[:] = np.array([c.value for c in b.row_status], dtype=np.int8) == 1
            x[self._var] = np.asarray(self.h.getSolution().col_value, dtype=float)
        x = np.clip(x, 0.0, 1.0) + 0.0  # as solve() returns it
        return LPBasis(x, status, row_basic, self._starts.copy(), self._idx.copy(), self._lb.copy(), self._ub.copy())

    # ------------------------------------------------------------------ solve
    def solve(self) -> LPSolution:
        if self.n_rows and np.any(np.diff(self._starts) == 0):
            self.solves += 1
            raise SolverError("the covering LP is Infeasible: it has an empty row (0 >= 1)")
        if self._var.size == 0 and self.n_rows == 0:
            # no row at all: every variable at its lower bound (costs are >= 0); HiGHS would
            # answer "Empty"
            x = np.clip(self._lb, 0.0, 1.0) + 0.0
            self.solves += 1
            return LPSolution(x, float(self.costs @ x), np.zeros(0), np.zeros(0), "Optimal", 0)
        h = self.h
        h.run()
        status = h.getModelStatus()
        name = h.modelStatusToString(status)
        self.solves += 1
        info = h.getInfo()
        its = int(max(info.simplex_iteration_count, 0))
        self.iterations += its
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"HiGHS returned status {name!r} on the covering LP ({self.n_rows} rows)")
        sol = h.getSolution()
        x = self._lb.copy()  # variables in no row sit at their lower bound
        x[self._var] = np.asarray(sol.col_value, dtype=float)
        x = np.clip(x, 0.0, 1.0) + 0.0  # no -0.0
        duals = np.asarray(sol.row_dual, dtype=float)
        rv = np.asarray(sol.row_value, dtype=float)
        return LPSolution(x, float(info.objective_function_value), duals, rv, name, its)
