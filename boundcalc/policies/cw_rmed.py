"""CW-RMED: paper 000's Algorithm 1 with the exact lower-bound LP (Komiyama, Honda & Nakagawa, ICML 2016).

000 proves CW-RMED optimal (Theorem 3); its check (3) and line 11 need the LP of eq. (2), whose
rows are exponentially many, on the empirical matrix at every step.  The skeleton shared with
ECW-RMED (:mod:`boundcalc.policies.copeland_rmed`, check (3) included) runs compiled, and so does
every line-11 answer that needs no LP solve:

* two or more empirical Copeland winners and no tie: Theorem 6 (``C* = C^E*``), ECW's closed-form
  allocation checked feasible by the oracle;
* the structure unchanged since the last solve: only the costs ``c = r / d`` move, so the last
  basis stays primal feasible; it is kept while its reduced costs keep their signs
  (:func:`boundcalc.kernels.basis.duals_keep_signs`, with ``M^-1`` kept per basis).  On plain
  models a basis that fails is re-solved by the compiled simplex
  (:func:`~boundcalc.kernels.cw_rmed.resolve_from_basis`, at most :attr:`CWRMED.simplex_pivots` pivots).

Otherwise line 11 is :meth:`boundcalc.lp.CopelandLPSolver.solve_online` (:mod:`boundcalc.lp.online`).
Every path solves with the costs perturbed by :attr:`CWRMED.perturb` (:mod:`boundcalc.kernels.perturb`),
so that a degenerate LP's optimal vertex, hence the pairs, does not depend on the path; ``C*_{i1}``
and ``i*`` are computed from the true costs at that vertex.  Each allocation passes the oracle over
the whole ``R_{i1}``, and a failed LP raises :class:`boundcalc.SolverError`: the policy never acts
on an unverified allocation.

The run kernel :func:`~boundcalc.kernels.cw_rmed.copeland_run` returns to Python only to read a new
structure's warm bases, to solve the LP, and to grow its tables.  ``stats`` adds ``lp_solves``
(HiGHS solves), ``theorem6`` and ``warm_answers`` (no HiGHS run) to the skeleton's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels import copeland_rmed as cr
from ..kernels import cw_rmed as kcw
from ..kernels.basis import SKIP
from ..kernels.perturb import weights as perturb_weights
from ..lp.highs import CoveringLP, SolverError
from ..lp.online import CopelandLPSolver
from ..lp.structure import Structure
from .copeland_rmed import CopelandRMED
from .registry import register_policy

__all__ = ["CWRMED"]

#: Basic variables a stored basis may gain in the compiled simplex (its buffers' slack; beyond it
#: HiGHS re-solves).
SIMPLEX_SLACK = 24


@register_policy
class CWRMED(CopelandRMED):
    """CW-RMED: 000's Algorithm 1 with the exact LP ``R_{i1}`` of eq. (2) (Theorems 2-3).

    Parameters
    ----------
    K : int
        Number of arms.
    rng : numpy.random.Generator, optional
        Not drawn from: the policy is deterministic.
    **params
        The skeleton's hyperparameters ``alpha``, ``beta`` and ``check_tol``
        (:class:`~boundcalc.policies.copeland_rmed.CopelandRMED`; defaults 3, 0.01 and 1e-12).

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
    plot_style = ("tab:red", "--", "s")
    reference = "Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (CW), eq. (2), Theorems 2-3"
    #: 3: line 11's LP solved with perturbed costs (:attr:`perturb`).
    revision = 3
    #: ``delta`` of line 11's cost perturbation (:mod:`boundcalc.kernels.perturb`).  Line 11 plays
    #: "an optimal solution" of eq. (2) and Theorem 3 holds for any, so the policy fixes the choice;
    #: with 1e-7 cost differences come within HiGHS's 1e-9 dual tolerance.  0: the true costs (the
    #: solve path then picks the vertex; the compiled simplex is off).
    perturb = 1e-6
    State = cr.RMEDState
    stat_names = CopelandRMED.stat_names + ("lp_solves", "theorem6", "warm_answers")
    kernels = (cr.skeleton_select, kcw.copeland_run, kcw.copeland_run)  # the run kernel learns too
    #: Warm models kept by the LP core's cache (per structure and winner).
    cache_size = 64
    #: Pivots the compiled simplex may take from a stored basis that fails the basis test (plain
    #: models) before the LP core re-solves; 0: the LP core re-solves every such basis.
    simplex_pivots = 50

    def __init__(self, K: int, *, rng: np.random.Generator | None = None, **params: Any) -> None:
        # seed=0: the oracle's tie-breaks are fixed, so the pairs depend on the outcomes alone
        arms = int(K) if isinstance(K, (int, np.integer)) and not isinstance(K, bool) else 0  # validated below
        self.solver = CopelandLPSolver(seed=0, cache_size=self.cache_size, perturb=self.perturb, online=arms)
        super().__init__(K, rng=rng, **params)  # validates K

    def initial_state(self) -> cr.RMEDState:
        K = self.K
        base = cr.skeleton_state(K, self.params, len(self.stat_names))
        reg = np.zeros(kcw.N_REG, dtype=np.int64)
        reg[: base["reg"].size] = base["reg"]
        reg[kcw.BAS] = -1
        # plain compiled models with perturbed costs only: otherwise a degenerate LP's vertex is
        # the solve path's choice, and the simplex's path is not HiGHS's
        plain = self.solver.compiled and not self.solver.lift
        reg[kcw.SPX] = self.simplex_pivots if plain and self.solver.perturb > 0 else 0
        reg[cr.VARIANT] = cr.CW
        base["reg"] = reg
        base["fr"] = np.append(base["fr"], [self.solver.tol, self.solver.perturb])  # LP_TOL, PERT
        P2 = K * (K - 1) // 2
        pid = np.zeros((K, K), dtype=np.int64)
        iu = np.triu_indices(K, 1)
        pid[iu] = np.arange(P2)
        pid[(iu[1], iu[0])] = np.arange(P2)
        # the warm bases: per-winner offsets into the buffers (empty here) that _load_bases grows
        offsets = "lp_nb lp_boff lp_moff lp_soff lp_cap lp_nr lp_aoff".split()
        base.update({k: np.zeros(K, dtype=np.int64) for k in offsets})
        base.update({k: np.zeros(P2) for k in ("cvec", "aty", "atyabs")})
        base.update(
            Etmp=np.zeros((K, K)),
            pid=pid,
            lp_valid=np.zeros(K, dtype=np.bool_),
            lp_x=np.zeros((K, P2)),
            lp_status=np.full((K, P2), 3, dtype=np.int8),
            cpert=perturb_weights(P2),  # g_p per pair id, as the LP core's
        )
        return cr.RMEDState(**base)

    def _structure(self) -> Structure:
        a = self._arrays
        return Structure._from_fresh(a.beats.copy(), a.d.copy())  # antisymmetric by construction

    def _serve(self, status: int) -> None:
        if status == kcw.NEED_BASES:
            self._load_bases(self._structure())
        elif status == kcw.NEED_LP:
            self._solve(self._structure())
        elif status == kcw.NEED_SIMPLEX:
            a = self._arrays
            if not kcw.resolve_from_basis(self._s, int(a.reg[kcw.SPXW]), int(a.reg[kcw.SPX])):
                self._solve(self._structure())
        else:
            super()._serve(status)

    def _solve(self, st: Structure) -> None:
        """Line 11 by the LP core: ``Q``, ``i*``, and the new bases."""
        a = self._arrays
        res = self.solver.solve_online(st)
        if res.failures:
            raise SolverError(f"CW-RMED at t = {self.t}: the lower-bound LP failed: {'; '.join(res.failures)}")
        a.stats[kcw.S_LP] += res.lp_solves
        thm6 = res.theorem6
        a.stats[kcw.S_THM6] += int(thm6)
        a.stats[kcw.S_WARM] += int(not thm6 and res.lp_solves == 0)  # every model's basis kept
        a.wval[:] = np.inf
        for w, v in res.per_winner.items():
            a.wval[w] = v
        istar = kcw.istar_from_values(self._s)
        a.Q[:] = res.allocation(istar, st)
        a.reg[cr.HAVE_TARGET] = 1
        a.stats[cr.S_SOLVES] += 1
        self._load_bases(st)

    def _load_bases(self, st: Structure) -> None:
        """Load the last basis of every winner's warm model of ``st`` into the state."""
        a = self._arrays
        a.reg[kcw.BAS] = a.reg[cr.STRUCT]
        P2 = self.K * (self.K - 1) // 2
        a.lp_valid[:] = False
        a.lp_nr[:] = 0
        parts = []
        for w in st.winners.tolist():
            lp = None if self.solver.lift else self.solver.model(st, w)  # the test reads 0/1 rows only
            got = _basis_parts(lp) if lp is not None and lp.n == P2 else None
            if got is not None:
                parts.append((w, got))
        slack = SIMPLEX_SLACK if a.reg[kcw.SPX] > 0 else 0
        caps = [min(P2, p[1][2].size + slack) for p in parts]
        need = {"lp_bvar": 0, "lp_minvT": 0, "lp_rstart": 0, "lp_ridx": 0, "lp_astart": 0, "lp_aidx": 0}
        for cap, (_, (x, status, bv, minvT, rs, ri, trow, ast, aix)) in zip(caps, parts):
            need["lp_bvar"] += cap
            need["lp_minvT"] += cap * cap
            need["lp_rstart"] += cap + 1
            need["lp_ridx"] += max(ri.size, aix.size)
            need["lp_astart"] += ast.size
            need["lp_aidx"] += aix.size
        need["lp_trow"] = need["lp_bvar"]
        nbmax = max(caps, default=0)
        need["yv"] = need["cB"] = need["ymag"] = need["tight"] = nbmax
        need["rval"] = need["lp_ridx"]
        ones = ("tight", "rval")  # every tight row is tested, every coefficient is 1
        grow = {
            k: (np.ones if k in ones else np.zeros)(2 * n, dtype=getattr(a, k).dtype)
            for k, n in need.items()
            if getattr(a, k).size < n
        }
        if grow:  # twice what is needed, written in place from then on
            self._replace(**grow)
            a = self._arrays
        bo = mo = so = ro = ao = io = 0
        for cap, (w, (x, status, bv, minvT, rs, ri, trow, ast, aix)) in zip(caps, parts):
            nb = bv.size
            a.lp_x[w] = x
            a.lp_status[w] = status
            a.lp_nb[w], a.lp_boff[w], a.lp_moff[w], a.lp_soff[w], a.lp_cap[w] = nb, bo, mo, so, cap
            a.lp_bvar[bo : bo + nb] = bv
            a.lp_trow[bo : bo + nb] = trow
            a.lp_minvT[mo : mo + nb * nb] = minvT.ravel()
            a.lp_rstart[so : so + nb + 1] = rs + ro
            a.lp_ridx[ro : ro + ri.size] = ri
            if slack:  # every row of the model, for the compiled simplex
                a.lp_nr[w], a.lp_aoff[w] = ast.size - 1, ao
                a.lp_astart[ao : ao + ast.size] = ast + io
                a.lp_aidx[io : io + aix.size] = aix
                ao += ast.size
                io += aix.size
            ro += max(ri.size, aix.size)
            bo += cap
            mo += cap * cap
            so += cap + 1
            a.lp_valid[w] = True


def _basis_parts(lp: CoveringLP) -> tuple[np.ndarray, ...] | None:
    """``(x, status, basic variables, (M^-1)^T, tight rows' starts, their variables, tight rows, every row's starts
    and variables)`` of the plain model ``lp``'s last basis (``M`` the 0/1 basis matrix on the tight rows; the last
    three for the compiled simplex), or None when ``M`` is not square and well conditioned."""
    x, status, row_basic = lp.basis_status()
    status[(lp._ub <= lp._lb) & (status != 1)] = 3  # a fixed variable (an empirical tie) never moves
    if lp._sx is not None:
        ok, bvar, rs, ri, minvT = _simplex_basis(lp)
    else:
        ok, bvar, rs, ri, minvT = kcw.basis_matrix(status, row_basic, lp._starts, lp._idx)
    if not ok:
        return None
    # status 3 (fixed, in no row, or nonbasic off its bounds) is not tested
    status[status == 3] = SKIP
    return x, status, bvar, minvT, rs, ri, np.flatnonzero(~row_basic), lp._starts, lp._idx


def _simplex_basis(lp: CoveringLP) -> tuple:
    """:func:`~boundcalc.kernels.cw_rmed.basis_matrix`'s answer for ``lp``'s last compiled simplex
    solve, read from the simplex's own checked ``M^-1`` rather than inverting ``M`` again."""
    sb, st, minv, _, _, nb = lp._sx  # type: ignore[misc]
    n = lp.n
    ob = np.argsort(sb[:nb], kind="stable")
    ot = np.argsort(st[:nb], kind="stable")
    bvar = sb[:nb][ob]
    trow = st[:nb][ot]
    Minv = minv.reshape(n, n)[:nb, :nb][np.ix_(ob, ot)]  # [basic variable, tight row]
    starts, idx = lp._starts, lp._idx
    lens = starts[trow + 1] - starts[trow]
    rs = np.zeros(nb + 1, dtype=np.int64)
    np.cumsum(lens, out=rs[1:])
    ri = idx[np.repeat(starts[trow] - rs[:-1], lens) + np.arange(rs[-1])]
    return True, bvar, rs, ri, np.ascontiguousarray(Minv.T).ravel()
