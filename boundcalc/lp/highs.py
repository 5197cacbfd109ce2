"""An incremental LP on HiGHS (``highspy``): add rows and columns, change costs, re-solve warm.

The model is ``min c.x  s.t.  lb <= x <= ub,  A (x, w) >= lo`` over the *pair variables* ``x`` (one per unordered
pair, ``c >= 0``) and *auxiliary variables* ``w`` (cost 0, bounded), with rows added over time in bulk: 0/1 covering
rows ``sum_{p in row} x_p >= 1`` (:meth:`CoveringLP.add_rows`, none twice), and auxiliary variables and rows with any
coefficients and lower bounds (:meth:`CoveringLP.add_vars`, :meth:`CoveringLP.add_general_rows`: the lifted rows of
:mod:`boundcalc.lp.lifted`).

HiGHS keeps its simplex basis between calls: after new rows the dual simplex restarts from the last optimum, after
:meth:`CoveringLP.set_costs` the primal simplex.  A pair variable becomes a HiGHS column (:attr:`CoveringLP.n_cols`)
only when a row first uses it (in no row it sits at its lower bound, optimal for ``c >= 0``).

Solver status is never ignored: when HiGHS does not report "Optimal" (its dual simplex can stop with "Solve error" on
costs spanning 18 orders of magnitude: a pair within 1e-10 of 1/2 has ``c = r / d ~ 1e19``), the :data:`FALLBACKS`
solve the model again, the first optimal answer counted in :attr:`CoveringLP.fallbacks`; when none is optimal,
:class:`SolverError` names every status.  The caller certifies the answer (the oracle's violation,
:meth:`CoveringLP.lagrangian_bound`).  A ``CoveringLP`` holds a live HiGHS object and does not pickle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

try:  # pragma: no cover - import guard
    import highspy
except ImportError as exc:  # pragma: no cover
    raise ImportError("boundcalc needs highspy (pip install highspy)") from exc

from .._highs import new_highs

# the margins of the warm-basis test the LP core and CW-RMED share (numba-free)
from ..kernels import DUAL_MARGIN, ROUNDING
from .constraints import RowBlock, _select_rows, row_hashes, rows_to_csr

__all__ = ["CoveringLP", "SolverError", "LPSolution", "FALLBACKS", "lagrangian_bound"]

#: What :meth:`CoveringLP.solve` tries, from scratch and in this order, when the warm dual
#: simplex does not end "Optimal": ``(name, HiGHS options)``.
FALLBACKS: tuple[tuple[str, dict], ...] = (
    ("cold dual simplex", {}),
    ("presolve", {"presolve": "on"}),
    ("primal simplex", {"simplex_strategy": 4}),
    ("interior point", {"solver": "ipm", "run_crossover": "on"}),
)


def _option(h, name: str):
    """An option's value (highspy answers ``(status, value)`` for some types, the value for others)."""
    v = h.getOptionValue(name)
    return v[1] if isinstance(v, tuple) else v


def lagrangian_bound(
    costs: np.ndarray,
    lb: np.ndarray,
    ub: np.ndarray,
    starts: np.ndarray,
    idx: np.ndarray,
    val: np.ndarray,
    lo: np.ndarray,
    y: np.ndarray,
) -> float:
    """Weak duality for ``min c.v, lb <= v <= ub, A v >= lo`` (``A`` in CSR: ``starts, idx, val``).

    For row weights ``y`` (negative entries read as 0), ``sum_r y_r lo_r + sum_v min(lb_v g_v, ub_v g_v)`` with
    ``g = c - A^T y`` is at most the optimum -- of this LP and of every LP with more rows (a row outside has ``y = 0``).
    For 0/1 covering rows over ``[0, 1]`` it reads ``sum_r y_r + sum_p min(0, c_p - (A^T y)_p)``.

    >>> lagrangian_bound(np.array([1.0, 2.0]), np.zeros(2), np.ones(2), np.array([0, 2]),
    ...                  np.array([0, 1]), np.ones(2), np.ones(1), np.array([1.0]))
    1.0
    """
    y = np.maximum(0.0, np.asarray(y, dtype=float))
    g = np.asarray(costs, dtype=float).copy()
    if y.size:
        w = np.repeat(y, np.diff(starts)) * val
        g -= np.bincount(idx, weights=w, minlength=g.size)
    return float(y @ np.asarray(lo, dtype=float) + np.minimum(lb * g, ub * g).sum())


#: The option sets a HiGHS instance was made with in this process (accepted: :func:`new_highs`
#: raises on an option HiGHS refuses); a model with one of them makes its instance when first needed.
_OPTIONS_CHECKED: set = set()


class SolverError(RuntimeError):
    """The LP solver did not report an optimal solution (or its answer failed the certificate)."""


@dataclass
class LPSolution:
    """One solve: ``x`` (pair variables), ``aux`` (auxiliary variables), row duals in model order,
    the status, simplex iterations, and the fallback used (None when the warm solve was optimal)."""

    x: np.ndarray
    objective: float
    row_duals: np.ndarray
    status: str
    simplex_iterations: int
    aux: np.ndarray | None = None
    fallback: str | None = None


def _add_rows(h, lower: np.ndarray, starts: np.ndarray, cols: np.ndarray, val: np.ndarray) -> None:
    """``h.addRows`` of the rows ``sum_k val[k] x[cols[k]] >= lower[r]`` over ``starts`` (CSR), no upper bound."""
    m = starts.size - 1
    first = (starts[:-1] - starts[0]).astype(np.int32)
    h.addRows(m, lower, np.full(m, highspy.kHighsInf), int(cols.size), first, cols.astype(np.int32), val)


def _clip01(a: np.ndarray) -> np.ndarray:
    """``np.clip(a, 0, 1)`` (the same numbers) without its Python wrapper."""
    return np.minimum(np.maximum(a, 0.0), 1.0)


class _LazySolution(LPSolution):
    """An optimal :class:`LPSolution` whose row duals ``read()`` computes on first use: the cutting
    plane does not read them (thousands of floats at 64 arms)."""

    def __init__(self, x, objective, iterations, aux, fallback, read) -> None:
        self.x, self.objective, self.status = x, objective, "Optimal"
        self.simplex_iterations, self.aux, self.fallback = iterations, aux, fallback
        self._read = read
        self._row_duals: np.ndarray | None = None

    @property
    def row_duals(self) -> np.ndarray:
        if self._row_duals is None:
            self._row_duals = self._read()
        return self._row_duals

    @row_duals.setter
    def row_duals(self, value) -> None:
        self._row_duals = value


class CoveringLP:
    """``min c.x, lb <= x <= ub, rows >= lo`` kept warm in one HiGHS instance (see the module text).

    Parameters
    ----------
    costs : ndarray
        Finite, non-negative costs of the pair variables.
    lower, upper : ndarray, optional
        Bounds of the pair variables (default 0 and 1).
    threads : int
        HiGHS threads.  HiGHS has one thread scheduler per process, made by the first solve, and a model asking
        for another number fails ("Not Set"): every HiGHS solve in boundcalc asks for 1 (small models, many solves).
    reuse_basis : bool
        When only the costs changed since the last optimal solve, answer from its basis if that
        stays optimal for them (:meth:`solve`); False: every solve runs HiGHS.
    options : dict, optional
        Further HiGHS options (name -> value; :func:`boundcalc.lp.rule.plan`), set last; a derived model keeps them.

    >>> lp = CoveringLP(np.array([1.0, 2.0, 3.0]))
    >>> lp.add_rows([np.array([0, 1]), np.array([1, 2])])
    2
    >>> sol = lp.solve()
    >>> round(sol.objective, 9), sol.x.round(9).tolist()
    (2.0, [0.0, 1.0, 0.0])
    >>> lp.n_cols, lp.n_rows            # columns only for the variables some row uses
    (3, 2)
    """

    def __init__(
        self,
        costs: np.ndarray,
        lower: np.ndarray | None = None,
        upper: np.ndarray | None = None,
        *,
        threads: int = 1,
        reuse_basis: bool = True,
        options: dict | None = None,
    ):
        costs = np.asarray(costs, dtype=float)
        if not np.all(np.isfinite(costs)):
            raise ValueError("LP costs must be finite")
        if np.any(costs < 0):
            raise ValueError("LP costs must be non-negative (a variable in no row is left at its lower bound)")
        self.n = n = costs.size
        # infinite_cost: HiGHS reads a cost of 1e20 or more as infinite (the variable pinned to a
        # bound), which a pair 1e-11 from 1/2 reaches (c = r / d ~ 6e20); every finite cost is a cost
        self._options = dict(
            threads=int(threads),
            primal_feasibility_tolerance=1e-9,
            dual_feasibility_tolerance=1e-9,
            presolve="off",
            infinite_cost=np.inf,
            **(options or {}),
        )  # also those of a derived model (:meth:`derived`)
        self._h = None  # the HiGHS instance, made on first use (:attr:`h`)
        key = tuple(sorted((k, repr(v)) for k, v in self._options.items()))
        if key not in _OPTIONS_CHECKED:  # an option HiGHS refuses is an error here, not at first use
            self._h = new_highs(**self._options)
            _OPTIONS_CHECKED.add(key)
        # bounds, costs and HiGHS column of every variable: pair variables 0..n-1, then auxiliary
        self._lb = np.zeros(n) if lower is None else np.asarray(lower, dtype=float).copy()
        self._ub = np.ones(n) if upper is None else np.asarray(upper, dtype=float).copy()
        self.costs = costs.copy()
        self._col = np.full(n, -1, dtype=np.int64)  # variable -> HiGHS column (-1: none yet)
        self._var = np.zeros(0, dtype=np.int64)  # HiGHS column -> variable
        self._pcols = np.zeros(0, dtype=np.int32)  # the HiGHS columns of pair variables
        self._empty_row = False  # some row has no entry and a positive lower bound (0 >= lo)
        # the model's rows, CSR over variables, in HiGHS order
        self._starts = np.zeros(1, dtype=np.int64)
        self._idx = np.zeros(0, dtype=np.int64)
        self._val = np.zeros(0)
        self._lo = np.zeros(0)
        self._keys: set[tuple[int, int]] = set()  # the covering rows' (h1, h2) hashes
        self.solves = self.iterations = self.rows_added = self.fallbacks = 0
        self.reused = 0  # solves answered by the last basis, no HiGHS run (:meth:`_reuse_basis`)
        self.reuse_basis = bool(reuse_basis)  # False: every solve runs HiGHS
        self._last: LPSolution | None = None  # the last optimal dual simplex solve (its basis may be kept)
        self._last_v = None  # its values of every variable
        self._read: tuple | None = None  # (its basis as _reuse_basis reads it, the solve read)
        self._costs_stale = False  # set_costs since HiGHS last got the costs
        #: solve by the compiled simplex where the model is plain (:meth:`_solve_simplex`)
        self.simplex = False
        self.simplex_solves = 0  # answered by the compiled simplex (not in :attr:`solves`: HiGHS runs)
        self.simplex_pivots = 0
        self._sx: list | None = None  # its basis: [bvar, trow, M^-1, code, x, nb, tight rows known]

    # ------------------------------------------------------------------ HiGHS
    @property
    def h(self) -> Any:  # highspy.Highs (its stubs lack the basis solves of highspy >= 1.10)
        """The model's HiGHS instance, made on first use with every column and row the model holds
        (kept out of HiGHS while the compiled simplex solved it: :meth:`_hl`)."""
        if self._h is None:
            h = new_highs(**self._options)
            nc = self._var.size
            if nc:
                v = self._var
                h.addVars(int(nc), self._lb[v], self._ub[v])
                pc = self._pcols
                if pc.size:
                    h.changeColsCost(int(pc.size), pc, self.costs[v[pc]])
                self._costs_stale = False
            if self.n_rows:
                _add_rows(h, self._lo, self._starts, self._col[self._idx], self._val)
            self._h = h
        return self._h

    def _hl(self) -> Any:  # highspy.Highs or None
        """The HiGHS instance to hand a change to now, or None while the compiled simplex solves the
        model and HiGHS has not been needed (the change stays in the model's arrays)."""
        if self._h is None and self.simplex:
            return None
        return self.h

    # ------------------------------------------------------------------ sizes
    @property
    def n_rows(self) -> int:
        return int(self._starts.size - 1)

    @property
    def n_vars(self) -> int:
        """Pair variables plus auxiliary variables."""
        return int(self._lb.size)

    @property
    def n_cols(self) -> int:
        """Columns in the HiGHS model (auxiliary variables and the pair variables some row used)."""
        return int(self._var.size)

    @property
    def n_pair_cols(self) -> int:
        """Pair variables that are HiGHS columns (used by some row so far)."""
        return int(self._pcols.size)

    @property
    def nnz(self) -> int:
        return int(self._idx.size)

    # ------------------------------------------------------------------ rows
    @property
    def rows(self) -> list[np.ndarray]:
        """The model's rows (variable index arrays), in HiGHS order."""
        s = self._starts
        return [self._idx[s[r] : s[r + 1]] for r in range(self.n_rows)]

    def add_rows(
        self, rows: RowBlock | Sequence[np.ndarray], hashes: tuple[np.ndarray, np.ndarray] | None = None
    ) -> int:
        """Add the covering rows not yet present (a RowBlock, or index arrays of pair variables); ``hashes``: their
        :func:`~boundcalc.lp.constraints.row_hashes` when the caller has them.  Returns how many it added."""
        block = rows if isinstance(rows, RowBlock) else rows_to_csr(list(rows))
        if block.n_rows == 0:
            return 0
        if block.idx.size and (block.idx.min() < 0 or block.idx.max() >= self.n):
            raise ValueError(f"covering rows must use pair variables 0..{self.n - 1}")
        h1, h2 = row_hashes(block, self.n) if hashes is None else hashes
        starts = block.starts - block.starts[0]
        return self.add_hashed_rows(block.n_rows, starts, block.idx[block.starts[0] :], h1, h2)

    def add_hashed_rows(self, n: int, starts: np.ndarray, idx: np.ndarray, h1: np.ndarray, h2: np.ndarray) -> int:
        """:meth:`add_rows` without its checks for the row builder's output (:func:`boundcalc.kernels.lp.copeland_rows`:
        its first ``n`` rows over ``starts``/``idx`` from 0, with their hashes); returns how many it added."""
        keys = self._keys
        # the first occurrence of each row the model does not hold (a set lookup per row: the blocks
        # are small, where np.unique/np.isin cost ~0.1 ms a call)
        keep = []
        for r, k in enumerate(zip(h1[:n].tolist(), h2[:n].tolist())):
            if k not in keys:
                keys.add(k)
                keep.append(r)
        m = len(keep)
        if m == 0:
            return 0
        starts = np.asarray(starts[: n + 1], dtype=np.int64)
        if m < n:
            block = _select_rows(RowBlock(starts, np.asarray(idx), np.zeros(n)), np.asarray(keep, dtype=np.int64))
            starts, idx = block.starts, block.idx
        else:
            idx = np.asarray(idx[: starts[n]], dtype=np.int64)
        ones = np.ones(max(m, idx.size))
        return self._append(starts, idx, ones[: idx.size], ones[:m])

    def add_vars(self, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """Add auxiliary variables (cost 0) with these bounds; returns their variable indices."""
        lower = np.asarray(lower, dtype=float)
        upper = np.asarray(upper, dtype=float)
        k = lower.size
        first = self._lb.size
        ids = np.arange(first, first + k, dtype=np.int64)
        if k == 0:
            return ids
        self._last = None
        h = self._hl()  # made (if at all) before the arrays grow: it gets the new columns below
        self._lb = np.concatenate([self._lb, lower])
        self._ub = np.concatenate([self._ub, upper])
        self._col = np.concatenate([self._col, self._var.size + np.arange(k, dtype=np.int64)])
        self._var = np.concatenate([self._var, ids])
        if h is not None:
            h.addVars(int(k), lower, upper)
        return ids

    def add_general_rows(self, starts: np.ndarray, idx: np.ndarray, val: np.ndarray, lower: np.ndarray) -> int:
        """Add rows ``sum_k val[k] v[idx[k]] >= lower[r]`` over ``starts`` (CSR; any variables,
        pair or auxiliary).  No de-duplication: the caller keys its rows.  Returns how many."""
        starts = np.asarray(starts, dtype=np.int64)
        m = starts.size - 1
        if m <= 0:
            return 0
        return self._append(
            starts, np.asarray(idx, dtype=np.int64), np.asarray(val, dtype=float), np.asarray(lower, dtype=float)
        )

    def _append(self, starts, idx, val, lower) -> int:
        m = starts.size - 1
        self._last = None
        self._empty_row |= bool(np.any((np.diff(starts) == 0) & (lower > 0)))
        cols = self._col[idx]
        h = self._hl()  # made (if at all) before the arrays grow: it gets the new columns and rows below
        if cols.size and cols.min() < 0:  # some pair variables get their columns first
            new = np.unique(idx[cols < 0])  # only pair variables can lack a column
            first = self._var.size
            self._col[new] = first + np.arange(new.size)
            self._var = np.concatenate([self._var, new])
            pcols = np.arange(first, first + new.size, dtype=np.int32)
            self._pcols = np.concatenate([self._pcols, pcols])
            if h is not None:
                h.addVars(int(new.size), self._lb[new], self._ub[new])
                h.changeColsCost(int(new.size), pcols, self.costs[new])
            cols = self._col[idx]
        if h is not None:
            _add_rows(h, lower, starts, cols, val)
        self._starts = np.concatenate([self._starts, self._starts[-1] + (starts[1:] - starts[0])])
        self._idx = np.concatenate([self._idx, idx])
        self._val = np.concatenate([self._val, val])
        self._lo = np.concatenate([self._lo, lower])
        self.rows_added += m
        return m

    def derived(self, drop: np.ndarray, costs: np.ndarray, upper: np.ndarray) -> CoveringLP:
        """A new model with this one's variables and rows but ``drop`` (row indices), new pair costs
        and upper bounds, started from this model's last basis; this model is left as it is."""
        new = CoveringLP.__new__(CoveringLP)
        new.__dict__.update(self.__dict__)
        new._h = new_highs(**self._options)
        new._h.passModel(self.h.getLp())
        basis = self.h.getBasis()
        if basis.valid:
            new._h.setBasis(basis)
        drop = np.asarray(drop, dtype=np.int64)
        keep = np.ones(self.n_rows, dtype=bool)
        keep[drop] = False
        if drop.size:
            new._h.deleteRows(int(drop.size), drop.astype(np.int32))
        lens = np.diff(self._starts)
        new._starts = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
        np.cumsum(lens[keep], out=new._starts[1:])
        inrow = np.repeat(keep, lens)
        new._idx = self._idx[inrow]
        new._val = self._val[inrow]
        new._lo = self._lo[keep]
        # own copies: set_bounds and _append write into them
        new._lb, new._ub, new._col = self._lb.copy(), self._ub.copy(), self._col.copy()
        new._last = new._last_v = new._read = None
        new._sx = None  # the compiled simplex's basis is this model's (its buffers are not shared)
        new._keys = set()  # covering-row hashes (a derived model's rows are lifted rows, not keyed)
        new._empty_row = bool(np.any((np.diff(new._starts) == 0) & (new._lo > 0)))
        new.solves = new.iterations = new.rows_added = new.fallbacks = new.reused = 0
        new.simplex_solves = new.simplex_pivots = 0
        new.costs = self.costs
        new.set_bounds(self._lb[: self.n], upper)
        new.set_costs(costs)
        return new

    # ------------------------------------------------------------------ data
    def set_costs(self, costs: np.ndarray) -> None:
        """New costs of the pair variables (auxiliary variables cost 0)."""
        costs = np.asarray(costs, dtype=float)
        if costs.shape != (self.n,) or not np.all(np.isfinite(costs)):
            raise ValueError("costs must be a finite vector of the model's size")
        if np.any(costs < 0):
            raise ValueError("LP costs must be non-negative")
        self.costs = costs.copy()
        self._costs_stale = True  # HiGHS gets them before its next run (:meth:`_run`)

    def set_bounds(self, lower: np.ndarray, upper: np.ndarray | None = None) -> None:
        """New bounds of the pair variables; HiGHS is handed those of the columns that changed."""
        self._last = None
        lower = np.asarray(lower, dtype=float)
        upper = np.ones(self.n) if upper is None else np.asarray(upper, dtype=float)
        cols = self._pcols
        v = self._var[cols]
        moved = (self._lb[v] != lower[v]) | (self._ub[v] != upper[v])
        self._lb[: self.n] = lower
        self._ub[: self.n] = upper
        if moved.any():
            c, vm = cols[moved], v[moved]
            h = self._hl()
            if h is not None:
                h.changeColsBounds(int(c.size), c, self._lb[vm], self._ub[vm])

    @property
    def upper(self) -> np.ndarray:
        """Upper bounds of the pair variables."""
        return self._ub[: self.n]

    def lagrangian_bound(self, y: np.ndarray) -> float:
        """:func:`lagrangian_bound` of this model for the row weights ``y`` (e.g. the row duals of
        :meth:`solve`): a lower bound on the optimum of any LP whose rows include these."""
        c = np.concatenate([self.costs, np.zeros(self.n_vars - self.n)])
        return lagrangian_bound(c, self._lb, self._ub, self._starts, self._idx, self._val, self._lo, y)

    def basis_status(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The basis of the last :meth:`solve`, for a caller that tests whether it stays optimal under new costs
        (CW-RMED's line 11), as new arrays ``(x, status, row_basic)``: ``status[j]`` 0 at its lower bound, 1 basic, 2 at
        its upper bound, 3 in no row or another status; ``row_basic[r]`` whether row ``r``'s slack is basic."""
        if self._sx is not None:  # the compiled simplex's basis (its SKIP read as 3)
            _, trow, _, code, x, nb = self._sx
            status = code.copy()
            status[status > 2] = 3
            row_basic = np.ones(self.n_rows, dtype=bool)
            row_basic[trow[:nb]] = False
            return _clip01(x) + 0.0, status, row_basic
        status = np.full(self.n_vars, 3, dtype=np.int8)
        row_basic = np.zeros(self.n_rows, dtype=bool)  # no valid basis: every row reads tight, none basic
        x = self._lb.copy()
        # the last HiGHS solve's values where the model has not changed since
        last = self._last_v if self._last is not None and self._last_v is not None else None
        var = self._var
        vals = last[var] if last is not None and last.size == self.n_vars else None
        got = self._column_status(vals) if var.size else None
        if got is not None:
            col, row_basic, _, v = got
            status[var] = col
            x[var] = v
        return _clip01(x) + 0.0, status, row_basic  # x as solve() returns it (np.clip's numbers)

    def _column_status(self, values: np.ndarray | None = None):
        """``(status per HiGHS column, row_basic, basic variables as HiGHS lists them, column values)``
        of the last solve, or None without a valid basis.  HiGHS lists a basic column ``j`` as ``j``
        and a basic row ``r`` as ``-1 - r``; a nonbasic column sits at a bound (0 lower, 2 upper) or,
        free, at 0 (3).  (``HighsBasis.col_status`` converts one enum object per column: 20x slower.)"""
        ok, bv = self.h.getBasicVariables()
        if ok != highspy.HighsStatus.kOk:
            return None
        bv = np.asarray(bv, dtype=np.int64)
        v = np.asarray(self.h.getSolution().col_value, dtype=float) if values is None else values
        lo, up = self._lb[self._var], self._ub[self._var]
        col = np.where(v >= up, 2, np.where(v <= lo, 0, 3)).astype(np.int8)
        col[bv[bv >= 0]] = 1
        row_basic = np.zeros(self.n_rows, dtype=bool)
        row_basic[-1 - bv[bv < 0]] = True
        return col, row_basic, bv, v

    # ------------------------------------------------------------------ solve
    def solve(self) -> LPSolution:
        """Solve warm: by the compiled simplex (:attr:`simplex`), from the kept basis when only the costs changed and
        it stays optimal (:meth:`_reuse_basis`, counted in :attr:`reused`), else HiGHS; on a status other than
        optimal, the :data:`FALLBACKS` from scratch.  Raises :class:`SolverError` when none reports an optimum."""
        if self._empty_row:
            self.solves += 1
            raise SolverError("the covering LP is Infeasible: it has an empty row (0 >= 1)")
        if self._var.size == 0 and self.n_rows == 0:
            # no row at all: every variable at its lower bound (costs >= 0), where HiGHS answers "Empty"
            x = _clip01(self._lb[: self.n]) + 0.0
            self.solves += 1
            return LPSolution(x, float(self.costs @ x), np.zeros(0), "Optimal", 0, np.zeros(0))
        if self.simplex:
            ans = self._solve_simplex()
            if ans is not None:
                return ans
        elif self._last is not None and self.reuse_basis:
            kept = self._reuse_basis()
            if kept is not None:
                return kept
        self._sx = None  # HiGHS's basis is the model's from here
        h = self.h
        name = self._run()
        used = None
        if name != "Optimal":
            tried = [f"dual simplex: {name!r}"]
            for label, opts in FALLBACKS:
                h.clearSolver()
                saved = {k: _option(h, k) for k in opts}
                for k, v in opts.items():
                    h.setOptionValue(k, v)
                try:
                    got = self._run()
                finally:
                    for k, v in saved.items():
                        h.setOptionValue(k, v)
                if got == "Optimal":
                    used = label
                    self.fallbacks += 1
                    break
                tried.append(f"{label}: {got!r}")
            else:
                h.clearSolver()  # leave no broken basis behind for the next call
                raise SolverError(
                    f"HiGHS found no optimal solution of the LP ({self.n_rows} rows,"
                    f" {self.n_cols} columns): " + "; ".join(tried)
                )
        sol = h.getSolution()
        v = self._lb.copy()  # pair variables in no row sit at their lower bound
        v[self._var] = sol.col_value
        x = _clip01(v[: self.n]) + 0.0  # no -0.0
        out = _LazySolution(
            x, self._last_obj, self._last_its, v[self.n :], used, lambda: np.asarray(sol.row_dual, dtype=float)
        )
        self._last = out if used is None else None
        self._last_v = v
        return out

    #: Pivots the compiled simplex may take in one solve before HiGHS is asked instead.
    SIMPLEX_MAXIT = 500

    def _solve_simplex(self) -> LPSolution | None:
        """The model solved by the compiled bounded simplex (:func:`boundcalc.kernels.simplex.solve_from_basis`) from
        its last basis (the slack basis for a new model, dual feasible for ``c >= 0``), or None for HiGHS to solve:
        the model is not plain (auxiliary variables, rows other than 0/1 ``>= 1``, lower bounds other than 0), or the
        simplex stopped (pivot cap, a numerical check, an apparently infeasible LP).  Under a cost perturbation its
        vertex is HiGHS's (tests/test_simplex.py)."""
        from ..kernels.simplex import OPTIMAL, solve_from_basis  # compiled; only online solves get here

        n = self.n
        if self._lb.size != n or self._plain_nnz != self._idx.size:
            if self._lb.size != n or not (np.all(self._val == 1.0) and np.all(self._lo == 1.0)):
                return None
            self._plain_nnz = self._idx.size  # every entry so far checked 0/1 and every row >= 1
        if np.any(self._lb != 0.0):
            return None
        sx = self._sx
        if sx is None:  # the slack basis: every variable at 0, every row's slack basic
            code = np.zeros(n, dtype=np.int8)
            code[~(self._ub > 0)] = 4  # SKIP: fixed at 0
            sx = [np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n * n), code, np.zeros(n), 0]
        bvar, trow, minv, code, x, nb = sx
        maxit = self.SIMPLEX_MAXIT
        status, nb, piv = solve_from_basis(
            self.costs, self._ub, self._starts, self._idx, x, code, nb, bvar, trow, minv, maxit, DUAL_MARGIN, ROUNDING
        )
        if status != OPTIMAL:
            self._sx = None
            return None
        sx[5] = nb
        self._sx = sx
        self._last = None
        self.simplex_solves += 1
        self.simplex_pivots += int(piv)
        xo = x + 0.0  # a copy (the buffer moves with the next solve), no -0.0
        solves, rows, costs = self.simplex_solves, self.n_rows, self.costs  # the basis the duals read

        def duals() -> np.ndarray:  # the basis's row duals: M^-T c_B on its tight rows, 0 elsewhere
            if self._sx is None or (self.simplex_solves, self.n_rows) != (solves, rows) or self.costs is not costs:
                raise RuntimeError("the row duals of a compiled simplex solve are read before the model's next solve")
            y = np.zeros(rows)
            if nb:
                y[trow[:nb]] = minv.reshape(n, n)[:nb, :nb].T @ costs[bvar[:nb]]
            return y

        return _LazySolution(xo, float(self.costs @ xo), int(piv), np.zeros(0), None, duals)

    _plain_nnz = -1

    def _reuse_basis(self) -> LPSolution | None:
        """The last solve's answer when only the costs changed since and its basis stays optimal for them, else None
        (HiGHS re-solves).  With rows and bounds unchanged the basis stays primal feasible; the duals ``y``
        (``B^T y = c_B``, one solve with HiGHS's factorisation) pass CW-RMED's warm-basis test
        (:func:`boundcalc.kernels.basis.duals_keep_signs`) only where HiGHS's warm re-solve would not pivot."""
        from ..kernels.basis import duals_keep_signs  # compiled; only online re-solves get here

        last = self._last
        read = self._basis_read()
        if read is None or last is None:
            return None
        tight, bv, colb, cols, code = read
        nc = self._var.size
        c = np.zeros(nc)
        c[self._pcols] = self.costs[self._var[self._pcols]]
        rhs = np.zeros(bv.size)
        rhs[colb] = c[bv[colb]]
        ok, y = self.h.getBasisTransposeSolve(rhs)
        if ok != highspy.HighsStatus.kOk:
            return None
        y = np.asarray(y, dtype=float)
        ymag = np.full(y.size, float(np.abs(rhs).max(initial=0.0)))
        if not duals_keep_signs(
            c, y, ymag, tight, self._starts, cols, self._val, code, DUAL_MARGIN, ROUNDING, np.empty(nc), np.empty(nc)
        ):
            return None
        self.reused += 1
        return LPSolution(last.x, float(self.costs @ last.x), y, "Optimal", 0, last.aux, None)

    def _basis_read(self):
        """The last optimal solve's basis as the warm-basis test reads it, over HiGHS's columns:
        ``(tight rows, basic variables, which are columns, each row entry's column, each column's
        code of boundcalc.kernels.basis)``; read once per HiGHS solve; None without a basis."""
        last = self._last
        if self._last_v is None:
            return None
        if self._read is None or self._read[1] is not last:
            got = self._column_status(self._last_v[self._var])
            if got is None:
                return None
            col, row_basic, bv, _ = got
            code = col.copy()
            code[~(self._ub[self._var] > self._lb[self._var])] = 4  # a fixed variable never moves
            self._read = ((~row_basic, bv, bv >= 0, self._col[self._idx], code), last)
        return self._read[0]

    def _run(self) -> str:
        h = self.h
        if self._costs_stale:
            cols = self._pcols
            if cols.size:
                h.changeColsCost(int(cols.size), cols, self.costs[self._var[cols]])
            self._costs_stale = False
        h.run()
        status = h.getModelStatus()
        self.solves += 1
        # two fields, not getInfo()'s whole record (a tenth of its cost)
        ok_i, its = h.getInfoValue("simplex_iteration_count")
        ok_o, obj = h.getInfoValue("objective_function_value")
        its = int(max(its, 0)) if ok_i == highspy.HighsStatus.kOk else 0
        self.iterations += its
        self._last_its = its
        self._last_obj = float(obj) if ok_o == highspy.HighsStatus.kOk else 0.0
        return "Optimal" if status == highspy.HighsModelStatus.kOptimal else h.modelStatusToString(status)
