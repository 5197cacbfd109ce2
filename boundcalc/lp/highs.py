"""An incremental covering LP on HiGHS (``highspy``): add rows, change costs, re-solve warm.

The model is ``min c.e  s.t.  0 <= e <= 1 (or lb <= e <= 1),  A e >= 1`` with 0/1 rows added
over time.  HiGHS keeps its simplex basis between calls, so after :meth:`add_rows` the dual
simplex restarts from the previous optimum, and after :meth:`set_costs` the primal simplex
does.  Solver status is never ignored: anything but "Optimal" raises :class:`SolverError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

try:  # pragma: no cover - import guard
    import highspy
except ImportError as exc:  # pragma: no cover
    raise ImportError("boundcalc needs highspy (pip install highspy)") from exc

__all__ = ["CoveringLP", "SolverError", "LPSolution"]


class SolverError(RuntimeError):
    """The LP solver did not report an optimal solution."""


@dataclass
class LPSolution:
    x: np.ndarray
    objective: float
    row_duals: np.ndarray
    status: str
    simplex_iterations: int


class CoveringLP:
    """``min c.x, lb <= x <= 1, rows: sum_{j in row} x_j >= 1`` kept warm in one HiGHS instance.

    >>> lp = CoveringLP(np.array([1.0, 2.0, 3.0]))
    >>> lp.add_rows([np.array([0, 1]), np.array([1, 2])])
    2
    >>> sol = lp.solve()
    >>> round(sol.objective, 9), sol.x.round(9).tolist()
    (2.0, [0.0, 1.0, 0.0])
    """

    def __init__(self, costs: np.ndarray, lower: np.ndarray | None = None, *, threads: int = 1):
        costs = np.asarray(costs, dtype=float)
        if not np.all(np.isfinite(costs)):
            raise ValueError("LP costs must be finite")
        n = costs.size
        self.n = n
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", int(threads))
        h.setOptionValue("primal_feasibility_tolerance", 1e-9)
        h.setOptionValue("dual_feasibility_tolerance", 1e-9)
        lb = np.zeros(n) if lower is None else np.asarray(lower, dtype=float)
        h.addVars(n, lb, np.ones(n))
        h.changeColsCost(n, np.arange(n, dtype=np.int32), costs)
        self.h = h
        self.costs = costs.copy()
        self.n_rows = 0
        self._row_keys: set[bytes] = set()
        self.rows: list[np.ndarray] = []
        self.solves = 0
        self.iterations = 0

    def has_row(self, idx: np.ndarray) -> bool:
        return np.asarray(idx, dtype=np.int64).tobytes() in self._row_keys

    def add_rows(self, rows: Sequence[np.ndarray]) -> int:
        """Add covering rows (index arrays, sorted); duplicates of rows already present are skipped."""
        new = []
        for r in rows:
            r = np.asarray(r, dtype=np.int64)
            k = r.tobytes()
            if k in self._row_keys:
                continue
            self._row_keys.add(k)
            new.append(r)
        if not new:
            return 0
        starts = np.zeros(len(new), dtype=np.int32)
        lens = np.array([r.size for r in new])
        starts[1:] = np.cumsum(lens)[:-1]
        idx = np.concatenate(new).astype(np.int32)
        m = len(new)
        self.h.addRows(m, np.ones(m), np.full(m, highspy.kHighsInf), idx.size, starts, idx, np.ones(idx.size))
        self.rows.extend(new)
        self.n_rows += m
        return m

    def set_costs(self, costs: np.ndarray) -> None:
        costs = np.asarray(costs, dtype=float)
        if costs.shape != (self.n,) or not np.all(np.isfinite(costs)):
            raise ValueError("costs must be a finite vector of the model's size")
        self.h.changeColsCost(self.n, np.arange(self.n, dtype=np.int32), costs)
        self.costs = costs.copy()

    def set_lower(self, lower: np.ndarray) -> None:
        lower = np.asarray(lower, dtype=float)
        self.h.changeColsBounds(self.n, np.arange(self.n, dtype=np.int32), lower, np.ones(self.n))

    def solve(self) -> LPSolution:
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
        x = np.clip(np.asarray(sol.col_value, dtype=float), 0.0, 1.0) + 0.0  # no -0.0
        duals = np.asarray(sol.row_dual, dtype=float)
        return LPSolution(x, float(info.objective_function_value), duals, name, its)
