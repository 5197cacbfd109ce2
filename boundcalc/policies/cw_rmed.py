"""CW-RMED: paper 000's Algorithm 1 with the exact lower-bound LP (Komiyama, Honda & Nakagawa, ICML 2016).

Paper 000 proves that CW-RMED attains the Copeland regret lower bound (Theorem 3) but could not
run it: its check (3) and line 11 need the LP of eq. (2), whose constraints are exponentially
many, on the empirical matrix at every step.  Here both go to boundcalc's LP core
(:class:`boundcalc.lp.CopelandLPSolver`), kept on the policy between steps:

* check (3) is :meth:`~boundcalc.lp.CopelandLPSolver.violation` on the observed rates
  ``N / log t``: the largest ``1 - sum_{p in row} (N_p / log t) d(mu_hat_p)`` over every
  covering row of ``R_{i1}(mu_hat)``, by the sorting oracle (no LP); the counts pass when it is
  at most ``check_tol``.  Observed counts are tested against the covering rows only (the box
  ``q <= 1/d`` does not apply to them; THEORY.md section 4);
* line 11 is :meth:`~boundcalc.lp.CopelandLPSolver.solve_empirical`: ``C*_{i1}(mu_hat)`` and an
  optimal allocation for every empirical Copeland winner, warm from the last solve while the
  empirical structure is unchanged (a small LRU keeps the last few structures warm), exact
  ties read as "in neither S nor I" (THEORY.md section 4).  With two or more empirical
  Copeland winners (and no ties) the answer comes from 000 Theorem 6 (``C* = C^E*``, ECW's
  closed-form allocation, oracle-checked).

Everything else -- the lists ``L_C``, ``L_R``, ``L_N``, forced exploration, the readings of the
loose parts of the text -- is the skeleton shared with ECW-RMED
(:class:`boundcalc.policies.copeland_rmed.CopelandRMED`; its module text lists the readings).
The skeleton calls line 11 only when the counts changed since the last call.

A failed LP (status "failed": a HiGHS error or a certificate out of tolerance) raises
:class:`boundcalc.SolverError`: the policy never acts on an unverified allocation.
"""

from __future__ import annotations

import numpy as np

from ..lp.cutting import CopelandLPSolver
from ..lp.highs import SolverError
from .base import Real
from .copeland_rmed import CopelandRMED, EmpiricalState, argmin_winner
from .registry import register_policy

__all__ = ["CWRMED"]


@register_policy
class CWRMED(CopelandRMED):
    """CW-RMED: 000's Algorithm 1 with the exact LP ``R_{i1}`` of eq. (2) (Theorems 2-3).

    Hyperparameters ``alpha = 3``, ``beta = 0.01`` (000's experiments; ``beta = 0`` allowed) and
    ``check_tol`` (check (3) passes when the largest row violation of ``N / log t`` is at most
    this; default 1e-12, i.e. exact up to rounding).

    Examples
    --------
    >>> import numpy as np
    >>> from boundcalc.datasets import load_example
    >>> mu = load_example("table2").mu
    >>> p, rng = CWRMED(4, rng=np.random.default_rng(0)), np.random.default_rng(1)
    >>> for _ in range(300):
    ...     i, j = p.select_pair(); p.update(i, j, bool(rng.random() < mu[i, j]))
    >>> p.t, p.stats["solves"] > 0
    (301, True)
    """

    name = "cw-rmed"
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (CW), eq. (2), Theorems 2-3"
    fast_kernel = None
    hyperparameters = {
        **CopelandRMED.hyperparameters,
        "check_tol": Real(1e-12, low=0.0, high=1.0, doc="check (3) passes when the largest row violation is <= this"),
    }

    def __init__(self, K: int, *, rng=None, **params):
        super().__init__(K, rng=rng, **params)
        # the oracle's random tie-breaks have a fixed seed: the policy stays deterministic (its
        # pairs are a function of the outcomes alone) and never draws from ``rng``
        self.solver = CopelandLPSolver(seed=0)
        # counters (ints, like the skeleton's): HiGHS solves, line-11 answers from Theorem 6
        self.stats.update({"lp_solves": 0, "theorem6": 0})

    def check_winner(self, state: EmpiricalState) -> int | None:
        st = state.structure
        q = state.rates
        tol = self.params["check_tol"]
        for a in st.winners.tolist():
            if self.solver.violation(st, q, a, rows=False).amount <= tol:
                return int(a)
        return None

    def target(self, state: EmpiricalState) -> tuple[int, np.ndarray]:
        res = self.solver.solve_empirical(state.structure)
        if not res.success:
            raise SolverError(f"CW-RMED at t = {state.t}: the lower-bound LP failed: {res.message}")
        self.stats["lp_solves"] += int(res.stats["lp_solves"])
        self.stats["theorem6"] += int(res.stats["method"].startswith("closed-form"))
        a = argmin_winner(res.per_winner)
        return a, res.allocations[a]
