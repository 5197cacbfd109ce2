"""The cutting plane's pieces for paper 000's lower-bound LP (eq. (2), Theorem 2): pair costs, the certificate,
check (3)'s answer and the conditioning of a matrix (the loop, and which model runs when: :mod:`boundcalc.lp.online`).

The certificate (:func:`certificate_for`) holds the oracle's largest violation over the whole family and a Lagrangian
bound from the row duals; a violation above ``tol`` or a relative duality gap above ``gap_tol`` gives
``status = "failed"`` (:func:`boundcalc.lower_bound` then raises :class:`~boundcalc.SolverError`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from ..result import Certificate
from .constraints import CopelandFamily, RowBlock, _as_square, rows_to_csr
from .ecw import ecw_allocation
from .highs import CoveringLP, lagrangian_bound
from .lifted import CopelandModel
from .structure import Structure, as_structure, check_regret, empirical_structure, over_d, structure_d, triu

__all__ = [
    "Violation",
    "pair_costs",
    "certificate_for",
    "MIN_SOLVABLE_GAP",
    "ALLOCATION_COST_RATIO",
    "Conditioning",
    "check_conditioning",
]

_LOADED: set = set()


def load_kernels() -> float:
    """Load (or compile) the LP core's kernels for the solver's argument types, once per process.

    Returns the wall seconds taken (0 once loaded): a compiled solve reports them as ``stats["load_seconds"]``, apart
    from the solve's ``stats["seconds"]``.
    """
    if "lp" in _LOADED:
        return 0.0
    t = time.perf_counter()
    st = empirical_structure(np.array([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]]))
    fam = CopelandFamily(st, 0, compiled=True)
    E = np.zeros((3, 3))
    fam._rows(E, fam._sums(E), 1e-9, 1, None)
    ecw_allocation(st.beats, np.ones((3, 3)), 0, compiled=True)
    _LOADED.add("lp")
    return time.perf_counter() - t


def pair_costs(matrix: MatrixLike | Structure, regret: ArrayLike | None = None) -> np.ndarray:
    """Normalised costs ``c_p = r_p / d(mu_p)`` per pair, in ``triu_indices`` order.

    ``regret`` overrides 000's pair regret (:func:`~boundcalc.lp.structure.check_regret`).  A pair with ``d = 0`` (an
    empirical tie, in no row) costs 1, so its optimal ``e`` is 0.
    """
    st = as_structure(matrix)
    iu = triu(st.K)
    R = st.regret if regret is None else check_regret(regret, st.K)
    return over_d(R[iu], structure_d(st)[iu], 1.0)


def _pair_costs_000(st: Structure) -> np.ndarray:
    """:func:`pair_costs` with 000's regret ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))``, on the pairs
    alone (for the online solver); the operations of :func:`~boundcalc.matrix.pair_regret`, bit for bit."""
    K = st.K
    i, j = triu(K)
    L = np.asarray(st.L, dtype=float)
    r = (L[i] + L[j] - 2.0 * L.min()) / (2.0 * (K - 1))
    return over_d(r, structure_d(st)[i, j], 1.0)


#: The smallest gap ``|mu_ij - 1/2|`` a double holds next to 1/2 (``2**-53``).  The cutting plane solves and certifies
#: the LP down to it, costs ``c ~ r / (2 gap^2)`` then spanning 31 orders of magnitude (``tests/test_lp_lifted.py``
#: checks it against an exact rational LP).
MIN_SOLVABLE_GAP = 2.0**-53

#: ``1 / machine epsilon`` (4.5e15): past this ratio of pair costs the value is still exact, but the cheap pairs'
#: allocation no longer changes it in double precision (one optimum among many).
ALLOCATION_COST_RATIO = 1.0 / float(np.finfo(float).eps)


@dataclass(frozen=True)
class Conditioning:
    """How well posed the lower-bound LP of a matrix is (see :func:`check_conditioning`).

    Attributes
    ----------
    min_gap : float
        Smallest ``|mu_ij - 1/2|``, ``i != j`` (0 for a tie left in place).
    max_cost, min_cost : float
        Largest and smallest positive pair cost ``c_p = r_p / d(mu_p)`` (NaN when none is positive).
    """

    min_gap: float
    max_cost: float
    min_cost: float

    @property
    def cost_ratio(self) -> float:
        return self.max_cost / self.min_cost if self.min_cost > 0 else float("nan")

    @property
    def solvable(self) -> bool:
        """Every gap at least :data:`MIN_SOLVABLE_GAP` (and every cost finite)."""
        return bool(self.min_gap >= MIN_SOLVABLE_GAP and not np.isinf(self.max_cost))

    @property
    def allocation_resolved(self) -> bool:
        """The cost ratio is below :data:`ALLOCATION_COST_RATIO` (or undefined)."""
        r = self.cost_ratio
        return bool(not np.isfinite(r) or r < ALLOCATION_COST_RATIO)

    @property
    def message(self) -> str:
        if not self.solvable:
            return (
                f"a pair lies {self.min_gap:.3g} from 1/2, below {MIN_SOLVABLE_GAP:.3g} (1/2 + eps rounds"
                " to 1/2 in double precision): the LP is not defined"
            )
        if not self.allocation_resolved:
            return (
                f"pair costs span {self.cost_ratio:.3g} (smallest gap {self.min_gap:.3g}): the value is"
                f" exact but the allocation of the cheapest pairs is not determined beyond"
                f" {ALLOCATION_COST_RATIO:.2g}"
            )
        return f"well posed: smallest gap {self.min_gap:.3g}, pair costs span {self.cost_ratio:.3g}"


def check_conditioning(matrix: MatrixLike, regret: np.ndarray | None = None) -> Conditioning:
    """The :class:`Conditioning` of the lower-bound LP of ``matrix``.

    Parameters
    ----------
    matrix : PreferenceMatrix, path or array_like
        An array is read as an empirical matrix, so that a tie left in place is reported, not refused.
    regret : ndarray, optional
        Override paper 000's pair regret.

    Returns
    -------
    Conditioning
        ``solvable``: the LP is defined and verified; ``allocation_resolved``: cheap pairs' allocation is determined.

    >>> from boundcalc.datasets import load_example
    >>> c = check_conditioning(load_example("table2"))
    >>> c.solvable, c.allocation_resolved, round(c.min_gap, 3)
    (True, True, 0.1)
    >>> check_conditioning([[0.5, 0.5 + 1e-17], [0.5 - 1e-17, 0.5]]).solvable   # 1/2 + 1e-17 is 1/2
    False
    """
    if isinstance(matrix, Structure):  # the gaps are the matrix's, not its structure's
        raise TypeError("check_conditioning needs the preference matrix (its gaps), not a Structure")
    if isinstance(matrix, (str, os.PathLike)):
        matrix = as_preference_matrix(matrix)
    if isinstance(matrix, PreferenceMatrix):
        mu, st = matrix.mu, matrix.structure
    else:
        mu = np.asarray(matrix, dtype=float)
        st = empirical_structure(mu)
    iu = triu(st.K)
    decided = (st.beats | st.beats.T)[iu]
    c = pair_costs(st, regret)[decided]
    pos = c[c > 0]
    return Conditioning(
        float(np.abs(mu[iu] - 0.5).min()),
        float(pos.max()) if pos.size else float("nan"),
        float(pos.min()) if pos.size else float("nan"),
    )


def certificate_for(
    family: CopelandFamily,
    costs: np.ndarray,
    x: np.ndarray,
    rows: CopelandModel | CoveringLP | RowBlock | Sequence[np.ndarray],
    duals: np.ndarray,
    max_violation: float | None = None,
) -> Certificate:
    """The optimality certificate of ``x`` for ``min costs.e`` over ``family``.

    ``rows`` are the rows ``duals`` belong to (a model, a row block or covering index arrays); ``max_violation`` is
    the oracle's over the whole family (recomputed when not given).  The dual bound is
    :func:`~boundcalc.lp.highs.lagrangian_bound` at ``y = max(0, duals)``, valid for any ``y >= 0``, so also for the
    duals of a model solved with perturbed costs.
    """
    v = family.max_violation(x) if max_violation is None else float(max_violation)
    primal = _primal_bound(costs, x, v)
    lp = rows.lp if isinstance(rows, CopelandModel) else rows
    if isinstance(lp, CoveringLP):
        c = np.concatenate([np.asarray(costs, dtype=float), np.zeros(lp.n_vars - lp.n)])
        dual = lagrangian_bound(c, lp._lb, lp._ub, lp._starts, lp._idx, lp._val, lp._lo, duals)
    else:
        b = lp if isinstance(lp, RowBlock) else rows_to_csr(list(lp))
        n = costs.size
        dual = lagrangian_bound(
            costs, np.zeros(n), np.ones(n), b.starts, b.idx, np.ones(b.idx.size), np.ones(b.n_rows), duals
        )
    return Certificate(max_violation=float(v), primal_bound=primal, dual_bound=dual)


def _primal_bound(costs: np.ndarray, x: np.ndarray, violation: float) -> float:
    """``costs.x`` at ``x`` scaled up to feasibility, ``min(1, x / (1 - violation))`` (1 when ``violation >= 1``): an
    upper bound on the optimum when no covering row is short by more than ``violation``."""
    xf = x if violation <= 0 else (np.minimum(1.0, x / (1.0 - violation)) if violation < 1 else np.ones_like(x))
    return float(costs @ xf)


def _q_matrix(d: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``q = e / d`` (K x K), 0 where ``d = 0`` (the diagonal and empirical ties)."""
    return over_d(_as_square(x, d.shape[0]), d, 0.0)


@dataclass(frozen=True)
class Violation:
    """Answer to Algorithm 1's check (3) for one winner (see :meth:`CopelandLPSolver.violation`).

    Attributes
    ----------
    amount : float
        ``max over rows of (1 - sum_{p in row} q_p d(mu_p))``; ``<= 0``: ``q`` lies in ``R_{winner}(mu)``.
    rows : list of ndarray (m, 2)
        The most violated rows, each as its pairs ``(i, j)``, ``i < j`` (empty when satisfied).
    winner : int
    """

    amount: float
    rows: list
    winner: int
    tol: float = 1e-9

    @property
    def satisfied(self) -> bool:
        """``amount <= tol``: the rates satisfy every covering row (check (3) passes)."""
        return self.amount <= self.tol

    def pairs(self) -> np.ndarray:
        """The distinct pairs ``(i, j)``, ``i < j``, that appear in :attr:`rows`."""
        if not self.rows:
            return np.zeros((0, 2), dtype=np.int64)
        return np.unique(np.concatenate(self.rows), axis=0)
