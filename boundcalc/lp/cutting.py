"""The cutting plane's pieces for paper 000's lower-bound LP (eq. (2), Theorem 2): costs, the
certificate, check (3)'s answer and the conditioning of a matrix.

For each Copeland winner ``i1`` the covering LP ``min c.e, 0 <= e <= 1, e in R_{i1}`` (normalised
variables ``e_p = q_p d(mu_p)``, costs ``c_p = r_p / d(mu_p)``) is solved with its exponentially
many rows generated on demand (:class:`~boundcalc.lp.online.CopelandLPSolver`):

1. solve the restricted LP with HiGHS (warm: the basis survives added rows);
2. run the sorting-based separation oracle over *all* rows of the family (000 Sec. 4.1.1;
   :meth:`~boundcalc.lp.constraints.CopelandFamily._sums`); stop when no row is violated by more
   than ``tol``;
3. for every violated ``i2``, its most violated ``(l, case)`` choices become cuts in the model the
   rule chose (:mod:`boundcalc.lp.rule`, :mod:`boundcalc.lp.lifted`); repeat.

Nothing is deleted.  Equal values are taken in a seeded random order per ``i2``, every solve
starting from ``seed``, so solves are reproducible and the value never depends on it.  The result
carries a :class:`~boundcalc.result.Certificate` (:func:`certificate_for`): the oracle's largest
violation over the whole family and a Lagrangian bound from the row duals
(:func:`~boundcalc.lp.highs.lagrangian_bound`); a solve whose violation exceeds ``tol`` or whose
relative duality gap exceeds ``gap_tol`` has ``status = "failed"`` (:func:`boundcalc.lower_bound`
raises :class:`~boundcalc.lp.highs.SolverError` on it).
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
from .structure import (
    Structure,
    as_structure,
    check_regret,
    empirical_structure,
    structure_d,
    triu,
)

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
    """Load the LP core's compiled kernels (:mod:`boundcalc.kernels.lp`) from numba's cache -- or
    compile them, on an empty cache -- for the argument types the solver passes, once per process;
    returns the wall seconds it took (0 once loaded).  A compiled solve calls it before its clock
    starts, so its ``stats["seconds"]`` is the solve and the one-time loading is
    ``stats["load_seconds"]``."""
    if "lp" in _LOADED:
        return 0.0
    t = time.perf_counter()
    st = empirical_structure(np.array([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]]), compiled=True)
    fam = CopelandFamily(st, 0, compiled=True)
    E = np.zeros((3, 3))
    S = fam._sums(E)
    for winner_side in (True, False):
        fam._rows(E, S, 1e-9, 1, None, winner_side)
    ecw_allocation(st.beats, np.ones((3, 3)), 0, compiled=True)
    _LOADED.add("lp")
    return time.perf_counter() - t


def pair_costs(matrix: MatrixLike | Structure, regret: ArrayLike | None = None) -> np.ndarray:
    """Normalised costs ``c_p = r_p / d(mu_p)`` per pair, in ``triu_indices`` order.

    ``matrix`` is a PreferenceMatrix or a :class:`~boundcalc.lp.structure.Structure` with ``d``;
    ``regret`` overrides paper 000's pair regret (a symmetric K x K matrix, e.g. RMED's;
    validated by :func:`~boundcalc.lp.structure.check_regret`).  A pair with ``d = 0`` (an
    empirical tie: in no row) gets cost 1, so its optimal ``e`` is 0.
    """
    st = matrix if isinstance(matrix, Structure) else as_structure(matrix)
    K = st.K
    iu = triu(K)
    R = st.regret if regret is None else check_regret(regret, K)
    r = R[iu]
    d = structure_d(st)[iu]
    out = np.ones(d.size)
    return np.divide(r, d, out=out, where=d > 0)


def _pair_costs_000(st: Structure) -> np.ndarray:
    """:func:`pair_costs` of ``st`` with 000's regret, computed on the pairs alone (an online solver
    asks at every line-11 answer): ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))`` by the very
    operations of :func:`~boundcalc.matrix.pair_regret` on the same numbers, so equal bit for bit."""
    K = st.K
    i, j = triu(K)
    L = np.asarray(st.L, dtype=float)
    r = (L[i] + L[j] - 2.0 * L.min()) / (2.0 * (K - 1))
    d = structure_d(st)[i, j]
    out = np.ones(d.size)
    return np.divide(r, d, out=out, where=d > 0)


#: The smallest gap ``|mu_ij - 1/2|`` a double holds next to 1/2 (``2**-53``; ``1/2 + eps`` rounds
#: to 1/2 below about that).  The cutting plane solves and certifies the LP down to it (checked
#: against an exact rational LP on empirical matrices with pairs at 1/2 + 1e-14 and 1/2 + 1.1e-16,
#: costs ``c = r / d ~ r / (2 gap^2)`` then spanning 31 orders of magnitude; and with both methods
#: on every gap a :class:`~boundcalc.PreferenceMatrix` takes, above 1e-12: ``tests/test_lp_lifted.py``).
MIN_SOLVABLE_GAP = 2.0**-53

#: ``1 / machine epsilon`` (4.5e15): when the largest pair cost exceeds the smallest positive one by
#: more, the optimal value is still exact, but the allocation of the cheap pairs no longer changes
#: it in double precision (it is one optimum among many that the objective cannot tell apart).
ALLOCATION_COST_RATIO = 1.0 / float(np.finfo(float).eps)


@dataclass(frozen=True)
class Conditioning:
    """How well posed the lower-bound LP of a matrix is (see :func:`check_conditioning`).

    Attributes
    ----------
    min_gap : float
        Smallest ``|mu_ij - 1/2|``, ``i != j`` (0 for a tie left in place, e.g. by ``1/2 + eps``
        rounding to 1/2).
    max_cost, min_cost : float
        Largest and smallest positive pair cost ``c_p = r_p / d(mu_p)`` (NaN when no cost is
        positive, e.g. every arm a Copeland winner).
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


def check_conditioning(matrix: MatrixLike | Structure, regret: np.ndarray | None = None) -> Conditioning:
    """The :class:`Conditioning` of the lower-bound LP of ``matrix``.

    ``matrix`` is a PreferenceMatrix or a path to one, or an array read as an empirical matrix
    (exact ties allowed, so that a tie left in place is reported rather than refused).
    ``solvable`` says whether the LP is defined and verified there; ``allocation_resolved``
    whether the objective still tells the cheap pairs' allocation apart.

    >>> from boundcalc.datasets import load_example
    >>> c = check_conditioning(load_example("table2"))
    >>> c.solvable, c.allocation_resolved, round(c.min_gap, 3)
    (True, True, 0.1)
    >>> check_conditioning([[0.5, 0.5 + 1e-17], [0.5 - 1e-17, 0.5]]).solvable   # 1/2 + 1e-17 is 1/2
    False
    """
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
    """The optimality certificate of ``x`` for ``min c.e`` over ``family`` (see :class:`Certificate`).

    ``rows`` are the rows the duals belong to: a :class:`~boundcalc.lp.lifted.CopelandModel` or
    :class:`~boundcalc.lp.highs.CoveringLP` (its model rows, lifted ones included), a
    :class:`~boundcalc.lp.constraints.RowBlock` or a list of index arrays (covering rows).
    ``max_violation`` is the oracle's largest violation over the whole family (recomputed when
    not given); the bounds are those of ``costs`` (which may differ from the costs the model was
    solved with: :class:`CopelandLPSolver`'s ``perturb``); the dual bound is :func:`~boundcalc.lp.highs.lagrangian_bound` for ``y = max(0,
    duals)``, valid for any ``y >= 0`` (rows outside the model carry ``y = 0``).
    """
    v = family.max_violation(x) if max_violation is None else float(max_violation)
    if v > 0:
        xf = np.minimum(1.0, x / (1.0 - v)) if v < 1 else np.ones_like(x)
    else:
        xf = x
    primal = float(costs @ xf)
    lp = rows.lp if isinstance(rows, CopelandModel) else rows
    if isinstance(lp, CoveringLP):
        # with ``costs``, not the model's own (a solver's ``perturb``: the model solved perturbed
        # costs, the bound is the true LP's, valid for the perturbed duals as for any y >= 0)
        c = np.concatenate([np.asarray(costs, dtype=float), np.zeros(lp.n_vars - lp.n)])
        dual = lagrangian_bound(c, lp._lb, lp._ub, lp._starts, lp._idx, lp._val, lp._lo, duals)
    else:
        block = lp if isinstance(lp, RowBlock) else rows_to_csr(list(lp))
        m = block.n_rows
        dual = lagrangian_bound(
            costs,
            np.zeros(costs.size),
            np.ones(costs.size),
            block.starts,
            block.idx,
            np.ones(block.idx.size),
            np.ones(m),
            duals,
        )
    return Certificate(max_violation=float(v), primal_bound=primal, dual_bound=dual)


def _q_matrix(d: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``q = e / d`` (K x K), 0 where ``d = 0`` (the diagonal and empirical ties)."""
    E = _as_square(x, d.shape[0])
    return np.divide(E, d, out=np.zeros(d.shape), where=d > 0)


@dataclass(frozen=True)
class Violation:
    """Answer to Algorithm 1's check (3) for one winner (see :meth:`CopelandLPSolver.violation`).

    Attributes
    ----------
    amount : float
        ``max over rows of (1 - sum_{p in row} q_p d(mu_p))``; ``<= 0`` means ``q`` lies in
        ``R_{winner}(mu)`` (every covering row satisfied).
    rows : list of ndarray (m, 2)
        The most violated rows, each as the array of its pairs ``(i, j)`` with ``i < j``:
        the pairs whose exploration would fix them.  Empty when ``amount <= tol``.
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
