"""The online LP, described once: paper 000's lower-bound LP solved warm between solves (:class:`CopelandLPSolver`).

What it solves: for each Copeland winner ``i1`` of a (possibly empirical) matrix, ``C*_{i1}`` of 000 eq. (2)
(Theorem 2) and an optimal allocation, i.e. the covering LP ``min c.e, 0 <= e <= 1, e in R_{i1}`` in the normalised
variables ``e_p = q_p d(mu_p)`` with costs ``c_p = r_p / d(mu_p)`` (:mod:`~boundcalc.lp.constraints`), by a cutting
plane: solve the model, run the sorting oracle (000 Sec. 4.1.1) over the whole family at its solution, add the
violated rows, until none is violated by more than ``tol``; a certified solve adds the certificate of
:func:`~boundcalc.lp.cutting.certificate_for`.  Where 000 Theorem 6 applies (``C* = C^E*``; see
:meth:`CopelandLPSolver.solve_empirical`), ECW's closed form answers if the oracle finds it feasible.

Which model and backend run when (the one table, with the measured reasons: :mod:`boundcalc.lp.rule`):

* :func:`boundcalc.lower_bound` and the bootstrap's draws solve each matrix once, cold, on the sorted-pool model
  (:class:`~boundcalc.lp.lifted.SortedPoolModel`, the smallest);
* CW-RMED (000 Algorithm 1, line 11) keeps one solver for the run (``online = K``) and solves ``mu_hat(t)``
  thousands of times: below 32 arms on the plain model (:class:`~boundcalc.lp.lifted.CopelandModel`), whose 0/1
  basis its compiled step tests against new costs (the compiled simplex re-solving without Python); from
  32 arms on the sorted-pool model, derived from the last structure's model of the same winner;
* where the sorted-pool model stalls on HiGHS's tolerances or fails its certificate, the plain model answers
  (``sorted_fallbacks``); within one model HiGHS retries by :data:`~boundcalc.lp.highs.FALLBACKS`.

Warm state: an LRU cache keeps the models per ``(Copeland structure, winner)``; an unchanged structure costs new
costs and a warm re-solve, or none when the last basis stays optimal for them.  Ties: ``solve_empirical`` accepts
exact ties (a tied pair lies in no row: :mod:`~boundcalc.lp.structure`).  Pickling: the solver pickles without its
HiGHS models (rebuilt on first use), so it travels to Dask workers.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ..kernels.perturb import perturb_costs, perturbed_cost, weights
from ..matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from ..result import BoundResult, Certificate
from ..units import UNIT_000, UNIT_CUSTOM
from .constraints import CopelandFamily, _as_square
from .cutting import (
    Violation,
    _pair_costs_000,
    _primal_bound,
    _q_matrix,
    certificate_for,
    load_kernels,
    pair_costs,
)
from .ecw import _cost_matrix, closed_form_stats, ecw_allocation
from .highs import CoveringLP, SolverError
from .lifted import PROGRESS, CopelandModel, SortedPoolModel, sorted_rounds
from .rule import plan
from .structure import Structure, as_structure, empirical_structure, structure_d, triu

__all__ = ["CopelandLPSolver", "OnlineAnswer"]


@dataclass
class OnlineAnswer:
    """Line 11's LP per winner without a :class:`~boundcalc.result.BoundResult` around it.

    ``per_winner[w]`` is ``C*_w``; ``values[w]`` the optimal ``e`` of winner ``w`` (a pair vector, or K x K for
    Theorem 6's allocation); ``lp_solves`` the HiGHS runs; ``theorem6`` whether 000 Theorem 6 answered; ``failures``
    why the LP failed (empty when it did not).
    """

    per_winner: dict
    values: dict
    lp_solves: int
    theorem6: bool
    failures: list

    def allocation(self, winner: int, st: Structure) -> np.ndarray:
        """``q = e / d`` of ``winner`` (K x K; 0 where ``d = 0``)."""
        return _q_matrix(structure_d(st), self.values[winner])


def _empirical(mu_hat: ArrayLike | PreferenceMatrix | Structure) -> Structure:
    """The structure of an empirical matrix (ties allowed), or a PreferenceMatrix's own, or ``mu_hat`` itself."""
    if isinstance(mu_hat, Structure):
        return mu_hat
    return mu_hat.structure if isinstance(mu_hat, PreferenceMatrix) else empirical_structure(mu_hat)


class _Entry:
    """The cached models of one ``(structure, winner)``: the plain model (None before its first solve) and the
    sorted-pool model (None before, False once it failed: the plain model answers)."""

    __slots__ = ("family", "model", "sorted")

    def __init__(self, family: CopelandFamily) -> None:
        self.family = family
        self.model: CopelandModel | None = None
        self.sorted: SortedPoolModel | None | bool = None


class _Tally:
    """One solve's counts and shared state: the tie-break generator (drawn on first use), the costs K x K for ECW's
    allocation (gathered once), and what the winners' solves add up to."""

    def __init__(self, solver: CopelandLPSolver, costs: np.ndarray) -> None:
        self.solver, self.costs = solver, costs
        self.rounds = self.added = self.solves = self.iters = self.fallbacks = 0
        self.t_lp = self.t_sep = 0.0
        self.warm_all = True
        self.used: set[str] = set()
        self.failures: list[str] = []
        self._rng: np.random.Generator | None = None
        self._square: np.ndarray | None = None

    def rng(self) -> np.random.Generator:
        if self._rng is None:
            self._rng = self.solver._fresh_rng()
        return self._rng

    def ecw_core(self, st: Structure, winner: int) -> np.ndarray:
        """ECW's allocation ``E`` of ``winner`` (000 Theorem 5; in ``R^E c R``), whose tightest rows start a model."""
        if self._square is None:
            self._square = _as_square(self.costs, st.K).copy()
            np.fill_diagonal(self._square, np.inf)
        return ecw_allocation(st.beats, self._square, winner, compiled=self.solver.compiled)[1]


class CopelandLPSolver:
    """Exact ``C*_{i1}`` for every Copeland winner by cutting planes, warm between calls (the module text).

    Parameters
    ----------
    tol : float
        A row counts as violated when ``1 - row.e > tol``.
    levels : iterable of int, optional
        Restrict the ``l`` of the family (see :class:`~boundcalc.lp.constraints.CopelandFamily`).
    seed : int
        Seeds the oracle's random tie-breaks, anew for every solve (reproducible; the value never depends on it).
    cache_size : int
        ``(structure, winner)`` models kept warm (least recently used dropped first).
    gap_tol : float
        Largest accepted relative duality gap of the certificate.
    max_rounds : int
        Safety limit on separation rounds per winner; hitting it gives ``status = "failed"``.
    perturb : float
        ``delta`` of the cost perturbation (:mod:`boundcalc.kernels.perturb`): the models are solved with the costs
        ``c (1 + delta g) + delta g``, so that a degenerate LP's optimal vertex does not depend on the solve path.
        ``C*_{i1}`` is ``c.e`` with the *true* costs at that vertex, at most ``delta (1 + P / C*)`` above ``C*``
        relatively (``P`` pairs); a certificate is the true LP's.  HiGHS's own is then off.  CW-RMED passes 1e-6.
    online : int
        The number of arms of the online policy the solver serves (000 Algorithm 1's line 11), 0 for offline use.

    Attributes
    ----------
    lift, simplex, compiled, derive, reuse_basis : bool
        The rule's choices (:class:`~boundcalc.lp.rule.Plan`).
    per_i2, warm_rows, sorted_per_i2 : int
        Cuts per violated ``i2`` and round on the plain model, first rows per ``i2`` at ECW's closed-form
        allocation, and cuts per violated ``i2`` and round on the sorted model.  The value never depends on them.
    derived, sorted_fallbacks : int
        Models derived from another structure's; ``(structure, winner)`` the sorted model failed on.

    Examples
    --------
    >>> from boundcalc.datasets import load_example
    >>> solver = CopelandLPSolver()
    >>> res = solver.solve(load_example("table2"))
    >>> round(res.value, 4), res.status
    (27.5487, 'ok')
    >>> res2 = solver.solve(load_example("table2"))   # warm: no new rows needed
    >>> res2.stats["rows_added"], res2.stats["warm_start"]
    (0, True)
    >>> import pickle; round(pickle.loads(pickle.dumps(solver)).solve(load_example("table2")).value, 4)
    27.5487
    """

    def __init__(
        self,
        *,
        tol: float = 1e-9,
        levels: Iterable[int] | None = None,
        seed: int = 0,
        cache_size: int = 8,
        gap_tol: float = 1e-7,
        max_rounds: int = 10_000,
        perturb: float = 0.0,
        online: int = 0,
    ):
        self.perturb = float(perturb)
        if not (np.isfinite(self.perturb) and self.perturb >= 0):
            raise ValueError(f"perturb must be finite and >= 0, not {perturb}")
        self.tol = float(tol)
        self.max_rounds = int(max_rounds)
        if self.max_rounds < 1 or not self.tol >= 0:
            raise ValueError("max_rounds must be >= 1 and tol >= 0")
        p = plan(int(online), self.perturb)
        self.lift, self.simplex, self.compiled = p.lift, p.simplex, p.compiled
        self.derive, self.reuse_basis = p.derive, p.reuse_basis
        self.per_i2, self.warm_rows, self.sorted_per_i2 = 1, 3, 3
        self.derived = self.sorted_fallbacks = 0
        self._levels = None if levels is None else tuple(sorted(set(int(l) for l in levels)))
        self.seed = int(seed)
        self.cache_size = max(1, int(cache_size))
        self.gap_tol = float(gap_tol)
        self._cache: OrderedDict[tuple, _Entry] = OrderedDict()
        self._last_key: bytes | None = None
        self.highs_options = None if p.highs_options is None else dict(p.highs_options)
        if self.perturb > 0:
            # HiGHS's own cost perturbation, once removed, may leave a basis dual infeasible by ~1e-8 that it calls
            # optimal; off, every solve ends dual feasible for the perturbed costs
            self.highs_options = {"dual_simplex_cost_perturbation_multiplier": 0.0, **(self.highs_options or {})}

    # ------------------------------------------------------------------ state
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_cache"] = OrderedDict()  # HiGHS objects do not pickle; rebuilt on first use
        state["_last_key"] = None
        return state

    def _entry(self, st: Structure, winner: int) -> _Entry:
        key = (st.key, int(winner))
        e = self._cache.get(key)
        if e is not None:
            self._cache.move_to_end(key)
            return e
        e = _Entry(CopelandFamily(st, winner, self.levels, compiled=self.compiled))
        self._cache[key] = e
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return e

    def family(self, winner: int, matrix: MatrixLike | Structure | None = None) -> CopelandFamily:
        """The (cached) family ``R_{winner}`` of ``matrix`` (default: of the last solve)."""
        if matrix is None:
            for (k, w), e in reversed(self._cache.items()):
                if w == winner and (self._last_key is None or k == self._last_key):
                    return e.family
            raise KeyError(f"no cached family for winner {winner}")
        return self._entry(as_structure(matrix), winner).family

    def model(self, structure: Structure, winner: int) -> CoveringLP | None:
        """The warm HiGHS model kept for ``(structure, winner)`` (the plain model's where it answers, else the sorted
        model's), or None (never solved, or dropped from the cache)."""
        m = self._answering(structure, winner)
        return None if m is None else m.lp

    def _answering(self, st: Structure, winner: int) -> CopelandModel | SortedPoolModel | None:
        """The kept model that answers ``(st, winner)``: the plain model once solved, else the sorted-pool model."""
        e = self._cache.get((st.key, int(winner)))
        if e is None:
            return None
        return e.model if e.model is not None else (e.sorted if isinstance(e.sorted, SortedPoolModel) else None)

    # ------------------------------------------------------------------ check (3)
    def violation(
        self,
        mu_hat: ArrayLike | PreferenceMatrix | Structure,
        q: ArrayLike,
        winner: int,
        *,
        tol: float = 1e-9,
        rows: bool = True,
        per_i2: int = 1,
    ) -> Violation:
        """Algorithm 1's check (3) on ``q`` (e.g. ``N / log t``): by how much, and where, it fails.

        ``mu_hat`` is an empirical matrix (ties allowed), a PreferenceMatrix or a Structure with ``d``; ``q`` a K x K
        rate matrix (or pair vector), tested against the covering rows only (check (3) compares ``N_ij / ln t`` with
        the set's rows, not with its box ``q <= 1/d``).
        """
        st = _empirical(mu_hat)
        fam = self._entry(st, winner).family
        Q = _as_square(q, st.K)
        if not (np.all(Q >= 0) and np.all(np.isfinite(Q))):
            raise ValueError("q must be finite and non-negative (observed rates N / log t)")
        if Q.shape == (st.K, st.K) and not np.array_equal(Q, Q.T):
            raise ValueError("q must be symmetric: q[i, j] is the rate of the unordered pair {i, j}")
        E = Q * structure_d(st)
        if not fam._has_rows:
            return Violation(-np.inf, [], int(winner), tol)
        S = fam._sums(E)
        amount = float(1.0 - S.min())
        out: list = []
        if rows and amount > tol:
            block = fam.separate_csr(E, tol, per_i2, None, S)
            pairs = np.stack(triu(st.K), axis=1)
            order = np.argsort(-block.violation, kind="stable")
            s = block.starts
            out = [pairs[block.idx[s[r] : s[r + 1]]] for r in order.tolist()]
        return Violation(amount, out, int(winner), tol)

    def contains(
        self, matrix: ArrayLike | PreferenceMatrix | Structure, q: ArrayLike, winner: int, tol: float = 1e-9
    ) -> bool:
        """Algorithm 1's check (3): is the rate matrix ``q`` (K x K) in ``R_{winner}(matrix)``?"""
        return self.violation(matrix, q, winner, tol=tol, rows=False).amount <= tol

    # ------------------------------------------------------------------ solves
    def solve(
        self,
        matrix: MatrixLike,
        *,
        regret: np.ndarray | None = None,
        winners: Iterable[int] | None = None,
        certify: bool = True,
    ) -> BoundResult:
        """Solve the lower-bound LP on a (validated) preference matrix for its Copeland winners.

        Parameters
        ----------
        matrix : PreferenceMatrix or array_like
            Validated (:func:`~boundcalc.as_preference_matrix`: exact ties refused).
        regret : ndarray (K, K), optional
            A custom pair regret (symmetric, finite, >= 0) instead of 000's.
        winners : iterable of int, optional
            Solve only for these Copeland winners (default: all).
        certify : bool
            Compute the dual bound of the certificate (the oracle's violation is always known).

        Returns
        -------
        BoundResult
            ``status == "ok"``: value, winner, per-winner values, allocations, certificate,
            ``stats`` (:data:`boundcalc.result.STATS_KEYS`).  ``status == "failed"`` (``message`` says why): the
            loop did not converge, stalled, or the certificate's gap exceeded ``gap_tol``.

        Raises
        ------
        SolverError
            HiGHS reported no optimum (gaps ``|mu_ij - 1/2|`` below about 1e-9 push costs past 1e18).
        """
        return cast(BoundResult, self._solve(as_structure(as_preference_matrix(matrix)), regret, winners, certify))

    def solve_empirical(
        self,
        mu_hat: ArrayLike | PreferenceMatrix | Structure,
        *,
        regret: np.ndarray | None = None,
        winners: Iterable[int] | None = None,
        certify: bool = False,
    ) -> BoundResult:
        """Solve on an empirical matrix ``mu_hat`` (exact ties allowed: a tied pair is in no row).

        ``mu_hat`` may also be a :class:`~boundcalc.lp.structure.Structure` with ``d``.  With ``certify=False``, two
        or more Copeland winners, no ties, 000's regret and no ``levels``, 000 Theorem 6 answers (``C* = C^E*``;
        :meth:`_theorem6`); ``stats["method"]`` says which.
        """
        st = _empirical(mu_hat)
        return cast(BoundResult, self._solve(st, regret, winners, certify, theorem6=not certify))

    @property
    def levels(self) -> tuple | None:
        """The ``l`` restriction of every family (read-only: cached families depend on it)."""
        return self._levels

    def solve_online(self, st: Structure) -> OnlineAnswer:
        """:meth:`solve_empirical` on a structure with ``d`` (000's regret, no certificate) as an
        :class:`OnlineAnswer`: the same solves and numbers without the result object."""
        return cast(OnlineAnswer, self._solve(st, None, None, False, theorem6=True, raw=True))

    def _theorem6(
        self, st: Structure, winners: list[int], t0: float, raw: bool, load: float
    ) -> BoundResult | OnlineAnswer | None:
        """ECW's closed-form allocation (in ``R^E_{i1} c R_{i1}``), optimal where 000 Theorem 6 gives ``C* = C^E*``
        (two or more Copeland winners, no ties), if the oracle finds it feasible; else None (the LP answers)."""
        C = _cost_matrix(st)
        per, allocs, viols = {}, {}, {}
        for w in winners:
            v, E = ecw_allocation(st.beats, C, w, compiled=self.compiled)
            fam = self._entry(st, w).family
            viol = float(1.0 - fam._sums(E).min()) if fam._has_rows else -np.inf
            if viol > self.tol:
                return None
            per[w] = v
            allocs[w] = E if raw else _q_matrix(structure_d(st), E)
            viols[w] = viol
        self._last_key = st.key
        if raw:
            return OnlineAnswer(per, allocs, 0, True, [])
        method = "closed-form (000 Theorem 6)"
        stats = {**closed_form_stats(method, t0), "max_violation": float(max(viols.values())), "load_seconds": load}
        msg = "C >= 2: ECW's allocation is optimal (000 Theorem 6)"
        return BoundResult.from_winners("lower_bound", per, allocs, {}, method=method, stats=stats, message=msg)

    def _fresh_rng(self) -> np.random.Generator:
        """A kept generator reset to ``np.random.default_rng(self.seed)``'s state (a tenth of a new one's cost)."""
        kept = self.__dict__.get("_rng_kept")
        if kept is None or kept[0] != self.seed:
            g = np.random.default_rng(self.seed)
            kept = (self.seed, g, g.bit_generator.state)
            self._rng_kept = kept
        kept[1].bit_generator.state = kept[2]
        return kept[1]

    def _perturbed(self, true_costs: np.ndarray) -> np.ndarray:
        """:func:`~boundcalc.kernels.perturb.perturb_costs` of ``true_costs`` bit for bit (``delta g`` kept)."""
        if self.perturb == 0:
            return perturb_costs(true_costs, 0.0)
        kept = self.__dict__.get("_pert_h")
        if kept is None or kept[0] != self.perturb or kept[1].size != true_costs.size:
            kept = (self.perturb, self.perturb * weights(true_costs.size))
            self._pert_h = kept
        return perturbed_cost(true_costs, kept[1])

    def _sorted_certificate(
        self, model: SortedPoolModel, true_costs: np.ndarray, costs: np.ndarray, e: np.ndarray, v: float
    ) -> Certificate:
        """The certificate of the sorted model's optimum ``e``: the oracle's violation ``v``, the primal bound ``c.e``
        and the Lagrangian bound of the sorted model at its row duals (valid for ``C*_{i1}``: some optimum is a point
        of the sorted model of the same cost); with perturbed costs, the duals of a warm re-solve with the true ones."""
        sol = model.last_solution
        if costs is not true_costs or sol is None:
            model.set_pair_costs(true_costs)
            sol = model.lp.solve()
        dual = model.lp.lagrangian_bound(sol.row_duals)
        model.set_pair_costs(costs)  # the model's own costs again (nothing to do when they are the true ones)
        return Certificate(max_violation=float(v), primal_bound=_primal_bound(true_costs, e, v), dual_bound=dual)

    def _sorted_answer(
        self, ent: _Entry, st: Structure, w: int, true_costs: np.ndarray, upper: np.ndarray, certify: bool, run: _Tally
    ) -> tuple[np.ndarray, float, Certificate | None] | None:
        """Winner ``w``'s ``(e, violation, certificate)`` on the kept (or derived, or new) sorted-pool model, or None
        where it fails (``ent.sorted`` is then False: the plain model answers)."""
        fam, costs = ent.family, run.costs
        model = ent.sorted if isinstance(ent.sorted, SortedPoolModel) else None
        kept = model is not None
        s0 = i0 = a0 = 0
        if model is not None:
            s0, i0, a0 = model.lp.solves, model.lp.iterations, model.lp.rows_added
            model.set_pair_costs(costs)
        elif self.derive:  # from the most recently used sorted model of the same winner
            for (k, w2), e2 in reversed(self._cache.items()):
                if w2 == w and e2 is not ent and isinstance(e2.sorted, SortedPoolModel):
                    model = e2.sorted.for_structure(fam, costs, upper)
                    self.derived += model is not None
                    break
        fresh = model is None
        if model is None:
            model = SortedPoolModel(fam, costs, upper, reuse_basis=self.reuse_basis, highs_options=self.highs_options)
        if self.warm_rows and not kept:
            # the first rows: the tightest at ECW's allocation (for a derived model, of the i2 whose rows it dropped)
            core = run.ecw_core(st, w)
            S = None
            if not fresh:
                S = fam._sums(core).copy()
                S[~model.changed_i2] = np.inf
            model.add_cuts(core, -np.inf, self.warm_rows, None, S)
        ent.sorted = model
        try:
            e, v, _ = sorted_rounds(model, self.tol, self.sorted_per_i2, self.max_rounds)
        except SolverError:
            e, v = None, np.inf
        n = model.lp.solves - s0
        run.solves += n
        run.rounds += n
        run.iters += model.lp.iterations - i0
        cert = None
        if e is not None:
            run.added += model.lp.rows_added - a0
            if certify:
                cert = self._sorted_certificate(model, true_costs, costs, e, v)
                if cert.problems(gap_rtol=self.gap_tol):
                    e = None
        if e is None:
            ent.sorted = False
            self.sorted_fallbacks += 1
            return None
        run.used.add("sorted pools")
        return e, v, cert

    def _plain_answer(
        self, ent: _Entry, st: Structure, w: int, true_costs: np.ndarray, upper: np.ndarray, certify: bool, run: _Tally
    ) -> tuple[np.ndarray, float, Certificate | None]:
        """Winner ``w``'s ``(e, violation, certificate)`` on the plain model, warm where it is kept; a loop that does
        not converge adds to ``run.failures``."""
        fam, costs = ent.family, run.costs
        model = ent.model
        s0 = i0 = a0 = f0 = 0  # a new model's counts start at 0 (its first rows are counted)
        if model is None:
            run.warm_all = False
            model = CopelandModel(fam, costs, upper, reuse_basis=self.reuse_basis, highs_options=self.highs_options)
            ent.model = model
            model.lp.simplex = self.simplex and not self.lift  # before its first rows (CoveringLP.h)
            if self.warm_rows and fam._has_rows:
                # ECW's allocation's zeros sit on the expensive pairs the optimum also leaves out
                t1 = time.perf_counter()
                core = run.ecw_core(st, w)
                model.add_cuts(core, -np.inf, self.warm_rows, run.rng())
                run.t_sep += time.perf_counter() - t1
        else:
            lp = model.lp
            s0, i0, a0, f0 = lp.solves, lp.iterations, lp.rows_added, lp.fallbacks
            lp.set_costs(costs)
            if not np.array_equal(lp.upper, upper):
                lp.set_bounds(np.zeros(lp.n), upper)
        lp = model.lp
        run.used.add("plain")
        lp.simplex = self.simplex and not self.lift
        v = np.inf
        for rnd in range(self.max_rounds):
            t1 = time.perf_counter()
            sol = model.solve()
            t2 = time.perf_counter()
            run.t_lp += t2 - t1
            run.rounds += 1
            checked = model._checked
            if checked is not None and checked[0] is sol.x:  # the basis kept: the solution passed before
                v = checked[1]
                break
            E = _as_square(sol.x, st.K)
            S = fam._sums(E) if fam._has_rows else None
            v = float(1.0 - S.min()) if S is not None else -np.inf
            PROGRESS.round(w, lp.n_rows, v)
            if v <= self.tol:
                model._checked = (sol.x, v)
                run.t_sep += time.perf_counter() - t2
                break
            if rnd == self.max_rounds - 1:
                run.failures.append(f"winner {w}: no convergence in {self.max_rounds} rounds (max violation {v:.3g})")
                break
            n_new = model.add_cuts(E, self.tol, self.per_i2, run.rng(), S)
            run.t_sep += time.perf_counter() - t2
            if n_new == 0:
                run.failures.append(
                    f"winner {w}: the oracle's violated rows (max violation {v:.3g}) are all in the"
                    " model already (numerical trouble)"
                )
                break
        run.solves += lp.solves - s0
        run.iters += lp.iterations - i0
        run.added += lp.rows_added - a0
        run.fallbacks += lp.fallbacks - f0
        cert = None
        if certify:
            duals = sol.row_duals
            if costs is not true_costs:
                # the true LP's duals: a warm re-solve with the true costs from the perturbed optimum's basis; the
                # certificate is that of c.x at the perturbed vertex
                lp.set_costs(true_costs)
                duals = model.solve().row_duals
                lp.set_costs(costs)
            cert = certificate_for(fam, true_costs, sol.x, model, duals, max_violation=v)
            run.failures += [f"winner {w}: {p}" for p in cert.problems(gap_rtol=self.gap_tol)]
        return sol.x, v, cert

    def _solve(
        self,
        st: Structure,
        regret: ArrayLike | None,
        winners: Iterable[int] | None,
        certify: bool,
        theorem6: bool = False,
        raw: bool = False,
    ) -> BoundResult | OnlineAnswer:
        load = load_kernels() if self.compiled else 0.0  # one-time, kept out of the solve's seconds
        t0 = time.perf_counter()
        PROGRESS.rounds = 0
        d = structure_d(st)  # ValueError without d
        winners = st.winners.tolist() if winners is None else [int(w) for w in winners]
        if theorem6 and regret is None and self.levels is None and st.winners.size >= 2 and st.ties == 0:
            res = self._theorem6(st, winners, t0, raw, load)
            if res is not None:
                return res
        # C*_{i1} and the certificate use the true costs; the models are solved with the perturbed ones
        true_costs = pair_costs(st, regret) if regret is not None else _pair_costs_000(st)
        run = _Tally(self, self._perturbed(true_costs))
        upper = np.where(d[triu(st.K)] > 0, 1.0, 0.0)
        warm = st.key == self._last_key
        self._last_key = st.key
        per, allocs, certs, viols = {}, {}, {}, {}
        for w in winners:
            ent = self._entry(st, w)
            got = None
            if self.lift and ent.family._has_rows and ent.sorted is not False:
                got = self._sorted_answer(ent, st, w, true_costs, upper, certify, run)
            if got is None:
                got = self._plain_answer(ent, st, w, true_costs, upper, certify, run)
            e, viols[w], cert = got
            per[w] = float(true_costs @ e)
            allocs[w] = e if raw else _q_matrix(d, e)
            if cert is not None:
                certs[w] = cert
        if raw:
            return OnlineAnswer(per, allocs, run.solves, False, run.failures)
        return BoundResult.from_winners(
            "lower_bound",
            per,
            allocs,
            certs,
            method="cutting-plane",
            unit=UNIT_000 if regret is None else UNIT_CUSTOM,
            stats=self._stats(st, winners, run, viols, warm, t0, load),
            failures=run.failures,
            message="optimal: no row of the family violated by more than tol",
        )

    def _stats(
        self, st: Structure, winners: list, run: _Tally, viols: dict, warm: bool, t0: float, load: float
    ) -> dict[str, Any]:
        """A cutting-plane solve's ``stats``: :data:`boundcalc.result.STATS_KEYS` and the answering models' sizes."""
        sizes = [m.sizes() for m in (self._answering(st, w) for w in winners) if m is not None]
        size = {k: int(sum(z[k] for z in sizes)) for k in sizes[0]} if sizes else {}
        return {
            "method": "cutting-plane",
            "model": ", ".join(sorted(run.used)),
            "seconds": time.perf_counter() - t0,
            "rounds": run.rounds,
            "lp_solves": run.solves,
            "simplex_iterations": run.iters,
            "rows": size.pop("rows", 0),
            "rows_added": run.added,
            "rows_removed": 0,
            "warm_start": bool(warm and run.warm_all),
            "solver": "highs",
            "max_violation": float(max(viols.values())),
            "rows_readded": 0,
            **size,
            "fallbacks": run.fallbacks,
            "lp_seconds": run.t_lp,
            "separation_seconds": run.t_sep,
            "load_seconds": load,
        }
