"""CW-RMED: paper 000's Algorithm 1 with the exact lower-bound LP (Komiyama, Honda & Nakagawa, ICML 2016).

000 proves CW-RMED optimal (Theorem 3); its check (3) and line 11 need the LP of eq. (2), whose
rows are exponentially many, on the empirical matrix at every step.  The skeleton shared with
ECW-RMED (:mod:`boundcalc.policies.copeland_rmed`: line 4, ``L_C``, ``L_R``, ``L_N``, the empirical
structure, check (3) by the LP core's sorting oracle on ``E = (N / log t) d``) runs compiled, and
so does every line-11 answer that needs no LP solve:

* two or more empirical Copeland winners and no tie: 000 Theorem 6 (``C* = C^E*``), ECW's
  closed-form allocation checked feasible by the oracle;
* the structure unchanged since the last solve: the rows and bounds are the same and only the costs
  ``c = r / d`` move, so the last basis stays primal feasible; it is kept while its reduced costs
  keep their signs (:func:`boundcalc.kernels.basis.duals_keep_signs`, the LP core's own test, with
  ``M^-1`` kept per basis); on plain models a basis that fails it is re-solved by the compiled
  bounded simplex (:func:`~boundcalc.kernels.cw_rmed.resolve_from_basis`, at most
  :attr:`CWRMED.simplex_pivots` pivots).

Otherwise line 11 is :meth:`boundcalc.lp.CopelandLPSolver.solve_online`, the LP core's solver kept
on the policy; its model and backend are :mod:`boundcalc.lp.rule`'s, and :mod:`boundcalc.lp.online`
says what it solves.  Every model is solved with the costs perturbed by :attr:`CWRMED.perturb`
(:mod:`boundcalc.kernels.perturb`), so that a degenerate LP's optimal vertex, hence the pairs, does
not depend on the solve path (tests/test_cw_perturb.py, tests/test_cw_rmed_simplex.py,
tests/test_cw_pools.py); ``C*_{i1}`` and ``i*`` are computed from the true costs at that vertex.
Each answer's allocation passes the oracle over the whole family ``R_{i1}``; a failed LP raises
:class:`boundcalc.SolverError`: the policy never acts on an unverified allocation.

The whole-run kernel :func:`~boundcalc.kernels.cw_rmed.copeland_run` returns to Python only to
read a new structure's warm bases, to solve the LP, and to grow its tables.  ``stats`` adds
``lp_solves`` (HiGHS solves), ``theorem6`` and ``warm_answers`` (no HiGHS run) to the skeleton's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels.basis import SKIP
from ..kernels.copeland_rmed import (
    CW,
    HAVE_TARGET,
    S_SOLVES,
    STRUCT,
    VARIANT,
    skeleton_select,
    skeleton_state,
)
from ..kernels.cw_rmed import (
    BAS,
    N_REG,
    NEED_BASES,
    NEED_LP,
    NEED_SIMPLEX,
    S_LP,
    S_THM6,
    S_WARM,
    SPX,
    SPXW,
    CWState,
    basis_matrix,
    copeland_run,
    copeland_update,
    istar_from_values,
    resolve_from_basis,
)
from ..kernels.perturb import weights as perturb_weights
from ..lp.highs import CoveringLP, SolverError
from ..lp.online import CopelandLPSolver
from ..lp.structure import Structure
from .copeland_rmed import CopelandRMED
from .registry import register_policy

__all__ = ["CWRMED", "CWState", "copeland_update", "copeland_run"]

#: Basic variables a stored basis may gain in the compiled simplex beyond those it was read with
#: (its buffers' slack; more: HiGHS re-solves).
SIMPLEX_SLACK = 24


# ----------------------------------------------------------------------------- the class
@register_policy
class CWRMED(CopelandRMED):
    """CW-RMED: 000's Algorithm 1 with the exact LP ``R_{i1}`` of eq. (2) (Theorems 2-3).

    Hyperparameters ``alpha = 3``, ``beta = 0.01`` (000's experiments; ``beta = 0`` allowed) and
    ``check_tol`` (check (3) passes when the largest row violation of ``N / log t`` is at most
    this; default 1e-12, i.e. exact up to rounding).  See the module text for how the LP is kept
    out of most steps; :attr:`solver` is the LP core's solver it keeps between steps.

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
    #: 3: line 11's LP solved with perturbed costs (:attr:`perturb`; tests/policy_decisions.py).
    revision = 3
    #: ``delta`` of line 11's cost perturbation (:mod:`boundcalc.kernels.perturb`), the same in the
    #: LP core's models and the compiled basis test.  000's Algorithm 1, line 11 plays "an optimal
    #: solution" of eq. (2) and Theorem 3's proof holds for any choice among optimal ones, so the
    #: policy may fix the choice.  With 1e-6 the allocations agree across solve paths to 1.3e-13 on
    #: Figure 1 (a); with 1e-7 cost differences come within HiGHS's 1e-9 dual tolerance.  0: the
    #: costs themselves (the solve path then picks the vertex; the compiled simplex is off).
    perturb = 1e-6
    State = CWState
    stat_names = CopelandRMED.stat_names + ("lp_solves", "theorem6", "warm_answers")
    kernels = (skeleton_select, copeland_update, copeland_run)
    #: Warm models kept by the LP core's cache (per structure and winner).
    cache_size = 64
    #: Pivots the compiled primal simplex may take from a stored basis that fails the basis test
    #: (plain models) before the LP core is asked; 0: the LP core re-solves every such basis.
    simplex_pivots = 50
    #: Changes of the LP core's rule-chosen solve path (attributes of
    #: :class:`~boundcalc.lp.CopelandLPSolver`, e.g. ``derive``, ``promote``, ``lifted_model``,
    #: ``simplex``), for tests that check the pairs do not depend on the path; empty in use.
    _solve_path: dict = {}

    def __init__(self, K: int, *, rng: np.random.Generator | None = None, **params: Any) -> None:
        # the oracle's random tie-breaks have a fixed seed: the policy stays deterministic (its
        # pairs are a function of the outcomes alone) and never draws from ``rng``
        arms = int(K) if isinstance(K, (int, np.integer)) and not isinstance(K, bool) else 0  # validated below
        self.solver = CopelandLPSolver(seed=0, cache_size=self.cache_size, perturb=self.perturb, online=arms)
        for name, value in self._solve_path.items():
            if not hasattr(self.solver, name):
                raise AttributeError(f"CopelandLPSolver has no attribute {name!r}")
            setattr(self.solver, name, value)
        super().__init__(K, rng=rng, **params)  # validates K

    def initial_state(self) -> CWState:
        K = self.K
        base = skeleton_state(K, self.params, len(self.stat_names))
        reg = np.zeros(N_REG, dtype=np.int64)
        reg[: base["reg"].size] = base["reg"]
        reg[BAS] = -1
        # plain compiled models only (Table 2's size: HiGHS's few runs), and only with the
        # perturbation: without it a degenerate LP's vertex is the solve path's choice, and the
        # simplex's path is not HiGHS's
        plain = self.solver.compiled and not self.solver.lift
        reg[SPX] = self.simplex_pivots if plain and self.solver.perturb > 0 else 0
        reg[VARIANT] = CW  # line 11 by the LP (the run kernel is ECW-RMED's too)
        base["reg"] = reg
        base["fr"] = np.append(base["fr"], [self.solver.tol, self.solver.perturb])  # LP_TOL, PERT
        P2 = K * (K - 1) // 2
        pid = np.zeros((K, K), dtype=np.int64)
        iu = np.triu_indices(K, 1)
        pid[iu] = np.arange(P2)
        pid[(iu[1], iu[0])] = np.arange(P2)
        z = lambda n, dt=np.int64: np.zeros(n, dtype=dt)  # noqa: E731
        base.update(
            Etmp=np.zeros((K, K)),
            pid=pid,
            lp_valid=z(K, np.bool_),
            lp_x=np.zeros((K, P2)),
            lp_status=np.full((K, P2), 3, dtype=np.int8),
            lp_nb=z(K),
            lp_boff=z(K),
            lp_moff=z(K),
            lp_soff=z(K),
            lp_bvar=z(0),
            lp_minvT=np.zeros(0),
            lp_rstart=z(0),
            lp_ridx=z(0),
            cvec=np.zeros(P2),
            aty=np.zeros(P2),
            atyabs=np.zeros(P2),
            yv=np.zeros(0),
            cB=np.zeros(0),
            ymag=np.zeros(0),
            tight=np.ones(0, dtype=np.bool_),
            rval=np.ones(0),
            cpert=perturb_weights(P2),  # g_p per pair id, as the LP core's (one definition)
            lp_cap=z(K),
            lp_trow=z(0),
            lp_nr=z(K),
            lp_aoff=z(K),
            lp_astart=z(0),
            lp_aidx=z(0),
        )
        return CWState(**base)  # by name (CWState's fields are not literal to a type checker)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_parts_memo", None)  # it holds live HiGHS models (the solver drops its own too)
        return state

    # -- what the compiled steps ask of Python ------------------------------------------------
    def _structure(self) -> Structure:
        a = self._arrays
        return Structure._from_fresh(a.beats.copy(), a.d.copy())  # antisymmetric by construction

    def _serve(self, status: int) -> None:
        """Provide what the compiled decision asked for (module text)."""
        if status == NEED_BASES:
            self._load_bases(self._structure())
        elif status == NEED_LP:
            self._solve(self._structure())
        elif status == NEED_SIMPLEX:  # the compiled simplex from the stored basis, else the LP
            a = self._arrays
            if not resolve_from_basis(self._s, int(a.reg[SPXW]), int(a.reg[SPX])):
                self._solve(self._structure())
        else:
            super()._serve(status)

    def _solve(self, st: Structure) -> None:
        """Line 11 by the LP core (HiGHS, warm per structure): ``Q``, ``i*``, and the new bases."""
        a = self._arrays
        # solve_empirical's solves and numbers, without its result object (CopelandLPSolver.solve_online)
        res = self.solver.solve_online(st)
        if res.failures:
            raise SolverError(f"CW-RMED at t = {self.t}: the lower-bound LP failed: {'; '.join(res.failures)}")
        a.stats[S_LP] += res.lp_solves
        thm6 = res.theorem6
        a.stats[S_THM6] += int(thm6)
        a.stats[S_WARM] += int(not thm6 and res.lp_solves == 0)  # every model's basis kept
        a.wval[:] = np.inf
        for w, v in res.per_winner.items():
            a.wval[w] = v
        istar = istar_from_values(self._s)
        a.Q[:] = res.allocation(istar, st)
        a.reg[HAVE_TARGET] = 1
        a.stats[S_SOLVES] += 1
        self._load_bases(st)

    def _parts_of(self, lp: CoveringLP) -> tuple[np.ndarray, ...] | None:
        """:func:`_basis_parts` of ``lp``, read again only when HiGHS has run on it since (a model
        met again after other structures, or answered by Theorem 6, keeps its basis)."""
        memo = self.__dict__.setdefault("_parts_memo", {})
        key = id(lp)
        got = memo.get(key)
        done = (lp.solves, lp.simplex_solves)  # HiGHS's runs and the compiled simplex's answers
        if got is not None and got[0] is lp and got[1] == done and got[2] == lp.n_rows:
            return got[3]
        parts = _basis_parts(lp, self.solver.compiled, rows=True)
        memo.pop(key, None)
        memo[key] = (lp, done, lp.n_rows, parts)
        while len(memo) > 2 * self.cache_size:  # the models the LP core may still hold, and a few more
            del memo[next(iter(memo))]
        return parts

    def _load_bases(self, st: Structure) -> None:
        """The last basis of every winner's warm model of ``st`` (where the LP core keeps one)."""
        a = self._arrays
        a.reg[BAS] = a.reg[STRUCT]
        K = self.K
        P2 = K * (K - 1) // 2
        a.lp_valid[:] = False
        a.lp_nr[:] = 0
        parts = []
        for w in st.winners.tolist():
            lp = None if self.solver.lift else self.solver.model(st, w)  # the test reads 0/1 rows only
            got = self._parts_of(lp) if lp is not None and lp.n == P2 else None
            if got is not None:
                parts.append((w, got))
        slack = SIMPLEX_SLACK if a.reg[SPX] > 0 else 0
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
        if grow:  # larger arrays (twice what is needed), written in place from then on
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


def _basis_parts(lp: CoveringLP, compiled: bool = True, rows: bool = False) -> tuple[np.ndarray, ...] | None:
    """``(x, status, basic variables, (M^-1)^T, tight rows' starts, their variables)`` of ``lp``'s
    last basis, ``M`` the basis matrix restricted to the tight rows; None when it cannot serve
    (no rows, or ``M`` not square and well conditioned); ``compiled`` as the LP's: False runs
    :func:`~boundcalc.kernels.cw_rmed.basis_matrix`'s own source interpreted (``py_func``: no
    compilation, the same operations in the same order, so the same arrays bit for bit).
    ``rows``: followed by what the compiled simplex reads (the tight rows' numbers, and every row
    of the model in CSR; no rows where the model is not plain)."""
    # lp.basis()'s x, status and row_basic, with the rows and bounds read in place (not copied)
    x, status, row_basic = lp._basis_status()
    status[(lp._ub <= lp._lb) & (status != 1)] = 3  # a fixed variable (an empirical tie) never moves
    if lp._sx is not None:  # the compiled simplex's basis: its M^-1 (checked there), in basis_matrix's order
        ok, bvar, rs, ri, minvT = _simplex_basis(lp)
    else:
        ok, bvar, rs, ri, minvT = (basis_matrix if compiled else basis_matrix.py_func)(
            status, row_basic, lp._starts, lp._idx
        )
    if not ok:
        return None
    # the shared test's codes: LPBasis's 3 (fixed, in no row, or nonbasic off its bounds) is not tested
    status[status == 3] = SKIP
    if not rows:
        return x, status, bvar, minvT, rs, ri
    # the tight rows' numbers and every row (the compiled simplex's view; covering rows >= 1 only)
    plain = bool(np.all(lp._val == 1.0) and np.all(lp._lo == 1.0))
    trow = np.flatnonzero(~row_basic)
    starts = lp._starts if plain else np.zeros(1, dtype=np.int64)
    return x, status, bvar, minvT, rs, ri, trow, starts, lp._idx if plain else np.zeros(0, dtype=np.int64)


def _simplex_basis(lp: CoveringLP) -> tuple:
    """:func:`~boundcalc.kernels.cw_rmed.basis_matrix`'s answer for the basis of ``lp``'s last compiled
    simplex solve (:meth:`~boundcalc.lp.highs.CoveringLP._solve_simplex`), from the simplex's own
    ``M^-1`` (updated per pivot and checked, ``|M M^-1 - I| <= 1e-9``, before that solve returned):
    the basic variables ascending, the tight rows in row order, ``(M^-1)^T`` in that order."""
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
