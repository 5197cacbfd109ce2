"""The solver of paper 000's lower-bound LP, kept between solves: :class:`CopelandLPSolver`.

What it solves: for each Copeland winner ``i1`` of a (possibly empirical) matrix, ``C*_{i1}`` of
000, eq. (2), with an optimal allocation, by the cutting plane of :mod:`boundcalc.lp.cutting`; a
certified solve adds the certificate of :func:`~boundcalc.lp.cutting.certificate_for`.

When each model is used, and why (:mod:`boundcalc.lp.rule` holds the table and the measurements):
:func:`boundcalc.lower_bound` and the bootstrap's draws solve each matrix once, cold, on the
sorted-pool model (:class:`~boundcalc.lp.lifted.SortedPoolModel`: the smallest model), with the
pool-block model (:class:`~boundcalc.lp.lifted.CopelandModel`) where it stalls or fails its
certificate.  CW-RMED (000 Algorithm 1, line 11) keeps one solver for the whole run
(``online = K``) and solves ``mu_hat(t)`` thousands of times: below 32 arms on the plain model,
whose 0/1 basis its compiled step tests and re-solves without Python; from 32 arms on the
sorted-pool model, a new structure's model derived from the last one of the same winner.  A small
LRU cache keeps ``(family, model)`` per ``(Copeland structure, winner)``: an unchanged structure
costs new costs and a warm re-solve, or none when the last basis stays optimal for them.

:meth:`CopelandLPSolver.solve_empirical` accepts exact ties (a tied pair lies in no row: 000
Algorithm 1 reads an undrawn or tied pair as in neither ``S`` nor ``I``);
:meth:`CopelandLPSolver.violation` answers check (3) with the amount and the most violated rows;
:meth:`CopelandLPSolver.solve_online` answers line 11 without a result object.  The solver pickles
(its HiGHS models are rebuilt on first use), so it can travel to Dask workers.
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
    """What :meth:`CopelandLPSolver.solve_online` answers: line 11's LP per winner without a
    :class:`~boundcalc.result.BoundResult` around it (CW-RMED asks thousands of times a run).

    ``per_winner[w]`` is ``C*_w``; ``values[w]`` the optimal ``e`` of winner ``w`` (a pair vector,
    or K x K for Theorem 6's allocation), :meth:`allocation` its rates ``q = e / d``;
    ``lp_solves`` the HiGHS runs it took; ``theorem6`` whether 000 Theorem 6 answered;
    ``failures`` why the LP failed (empty when it did not).
    """

    per_winner: dict
    values: dict
    lp_solves: int
    theorem6: bool
    failures: list

    def allocation(self, winner: int, st: Structure) -> np.ndarray:
        """``q = e / d`` of ``winner`` (K x K; 0 where ``d = 0``), as :meth:`CopelandLPSolver.solve_empirical`'s
        ``allocations[winner]``."""
        return _q_matrix(structure_d(st), self.values[winner])


class _Entry:
    __slots__ = ("family", "model", "sorted")

    def __init__(self, family: CopelandFamily, model: CopelandModel | None) -> None:
        self.family = family
        self.model = model
        #: the kept sorted-pools model (``lifted_model="sorted"``), None before the first solve,
        #: False once it failed for this ``(structure, winner)`` (:class:`CopelandModel` answers)
        self.sorted: SortedPoolModel | None | bool = None


class CopelandLPSolver:
    """Exact ``C*_{i1}`` for every Copeland winner by cutting planes; warm between calls.

    The model and backend come from :func:`boundcalc.lp.rule.plan` (the module text).

    Parameters
    ----------
    tol : float
        A row counts as violated when ``1 - row.e > tol``.
    levels : iterable of int, optional
        Restrict the ``l`` of the family (see :class:`~boundcalc.lp.constraints.CopelandFamily`).
    seed : int
        Seeds the random tie-breaks of the oracle; every solve starts from this seed, so a
        solve is reproducible (the value never depends on it).
    cache_size : int
        ``(structure, winner)`` models kept warm (least recently used dropped first).
    gap_tol : float
        Largest accepted relative duality gap of the certificate.
    max_rounds : int
        Safety limit on separation rounds per winner; hitting it gives ``status = "failed"``.
    perturb : float
        ``delta`` of the cost perturbation (:mod:`boundcalc.kernels.perturb`): every model is
        solved with the costs ``c (1 + delta g) + delta g``, so that a degenerate LP's optimal
        vertex does not depend on the solve path.  ``C*_{i1}`` is ``c.e`` with the *true* costs at
        that vertex, at most ``delta (1 + P / C*)`` above ``C*`` relatively (``P`` pairs); a
        certificate is the true LP's.  HiGHS's own cost perturbation is then off.  0: the costs
        themselves.  CW-RMED passes 1e-6.
    online : int
        The number of arms of the online policy the solver serves (000 Algorithm 1's line 11:
        compiled kernels, derived models, the compiled simplex by the rule), 0 for offline use.

    Attributes
    ----------
    lift, simplex, compiled, derive, reuse_basis : bool
        The rule's choices (:class:`~boundcalc.lp.rule.Plan`).
    lifted_model : {"sorted", "blocks"}
        "sorted": a lifted solve tries the sorted-pool model first, kept per ``(structure,
        winner)``, its pools' cost order only new costs of the kept model
        (:meth:`~boundcalc.lp.lifted.SortedPoolModel.set_pair_costs`); "blocks": the pool-block
        model only (what the fallback uses).
    promote, per_i2, warm_rows, sorted_per_i2 : int
        The cutting plane's constants: explicit rows of an ``(i2, k)`` before its pool block,
        cuts per violated ``i2`` and round on the block and plain models and on the sorted model,
        and the first rows per ``i2`` at ECW's closed-form allocation.  The value never depends on
        them (tests/test_lp_lifted.py, tests/test_cw_perturb.py).
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
        self.lifted_model = "sorted"
        self.promote, self.per_i2, self.warm_rows, self.sorted_per_i2 = 2, 1, 3, 3
        self.derived = 0  # sorted models derived from another structure's (:meth:`_sorted_answer`)
        self.sorted_fallbacks = 0  # (structure, winner) the sorted model failed on (:meth:`_sorted_answer`)
        self._levels = None if levels is None else tuple(sorted(set(int(l) for l in levels)))
        self.seed = int(seed)
        self.cache_size = max(1, int(cache_size))
        self.gap_tol = float(gap_tol)
        self._cache: OrderedDict[tuple, _Entry] = OrderedDict()
        self._last_key: bytes | None = None
        self.highs_options = None if p.highs_options is None else dict(p.highs_options)
        if self.perturb > 0:
            # HiGHS's own cost perturbation, once removed, may leave a basis dual infeasible by ~1e-8
            # that it calls optimal: a vertex chosen by its path again.  Off, every solve ends dual
            # feasible for our perturbed costs.
            self.highs_options = {"dual_simplex_cost_perturbation_multiplier": 0.0, **(self.highs_options or {})}

    # ------------------------------------------------------------------ state
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_cache"] = OrderedDict()  # HiGHS objects do not pickle; rebuilt on first use
        state["_last_key"] = None
        return state

    def _empirical(self, mu_hat: ArrayLike | PreferenceMatrix) -> Structure:
        """The structure of an empirical matrix (or a PreferenceMatrix's own), on the chosen path."""
        if isinstance(mu_hat, PreferenceMatrix):
            return mu_hat.structure
        mu = np.asarray(mu_hat, dtype=float)
        return empirical_structure(mu, compiled=self.compiled)

    def reset(self) -> None:
        """Forget every model (the next solve starts cold)."""
        self._cache = OrderedDict()
        self._last_key = None

    def _entry(self, st: Structure, winner: int) -> _Entry:
        key = (st.key, int(winner))
        e = self._cache.get(key)
        if e is not None:
            self._cache.move_to_end(key)
            return e
        e = _Entry(CopelandFamily(st, winner, self.levels, compiled=self.compiled), None)
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
        """The warm HiGHS model kept for ``(structure, winner)``, or None (never solved, or dropped
        from the cache).  Its :meth:`~boundcalc.lp.highs.CoveringLP.basis` is that of its last solve."""
        e = self._cache.get((structure.key, int(winner)))
        return None if e is None or e.model is None else e.model.lp

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

        ``mu_hat`` is an empirical matrix (ties allowed), a PreferenceMatrix or a Structure with
        ``d``; ``q`` a K x K rate matrix (or pair vector).  Observed counts are tested against the
        covering rows only: the box ``q <= 1/d`` does not apply to them (000 Algorithm 1, check (3)
        compares ``N_ij / ln t`` with the set's rows, not with its box).
        """
        st = mu_hat if isinstance(mu_hat, Structure) else self._empirical(mu_hat)
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
            iu = np.triu_indices(st.K, 1)
            pairs = np.stack(iu, axis=1)
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
            ``stats`` (:data:`boundcalc.result.STATS_KEYS`).  ``status == "failed"`` (no value,
            ``message`` says why): the loop did not converge, stalled, or the certificate's gap
            exceeded ``gap_tol``.

        Raises
        ------
        SolverError
            HiGHS reported a status other than optimal.  This happens, reported and never as a
            wrong value, when gaps ``|mu_ij - 1/2|`` below about 1e-9 push costs past 1e18.
        """
        pm = matrix if isinstance(matrix, PreferenceMatrix) else as_preference_matrix(matrix)
        return cast(BoundResult, self._solve(as_structure(pm), regret, winners, certify))

    def solve_empirical(
        self,
        mu_hat: ArrayLike | PreferenceMatrix | Structure,
        *,
        regret: np.ndarray | None = None,
        winners: Iterable[int] | None = None,
        certify: bool = False,
    ) -> BoundResult:
        """Solve on an empirical matrix ``mu_hat`` (exact ties allowed: a tied pair is in no row).

        ``mu_hat`` may also be a :class:`~boundcalc.lp.structure.Structure` with ``d``.  With
        ``certify=False`` (the online default), two or more Copeland winners, no ties, 000's
        regret and the whole family (no ``levels``), the answer comes from Theorem 6 (``C* = C^E*``; ECW's allocation, checked
        feasible by the oracle) instead of the LP; ``stats["method"]`` says which.
        """
        st = mu_hat if isinstance(mu_hat, Structure) else self._empirical(mu_hat)
        return cast(BoundResult, self._solve(st, regret, winners, certify, theorem6=not certify))

    @property
    def levels(self) -> tuple | None:
        """The ``l`` restriction of every family (read-only: cached families depend on it)."""
        return self._levels

    def solve_online(self, st: Structure) -> OnlineAnswer:
        """:meth:`solve_empirical` on a structure with ``d`` for every winner, 000's regret and no
        certificate, answered as an :class:`OnlineAnswer`: the same solves (HiGHS calls, rows and
        tie-breaks) and numbers, without the result object, the solve statistics and the
        allocations of the winners the caller does not ask for."""
        return cast(OnlineAnswer, self._solve(st, None, None, False, theorem6=True, raw=True))

    def _theorem6(
        self, st: Structure, winners: Iterable[int] | None, t0: float, raw: bool = False
    ) -> BoundResult | OnlineAnswer | None:
        """With two or more Copeland winners (and no ties), ``C*_{i1} = C^E*_{i1}`` (000 Theorem 6)
        and ECW's closed-form allocation, which lies in ``R^E_{i1} c R_{i1}``, is optimal for the
        LP.  Its feasibility is checked by the oracle; None (use the LP) if that ever fails."""
        C = _cost_matrix(st)
        winners = st.winners.tolist() if winners is None else [int(w) for w in winners]
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
        stats = closed_form_stats("closed-form (000 Theorem 6)", t0)
        stats["max_violation"] = float(max(viols.values()))
        return BoundResult.from_winners(
            "lower_bound",
            per,
            allocs,
            {},
            method="closed-form (000 Theorem 6)",
            stats=stats,
            message="C >= 2: ECW's allocation is optimal (000 Theorem 6)",
        )

    def _fresh_rng(self) -> np.random.Generator:
        """A generator in the state of ``np.random.default_rng(self.seed)`` (every solve starts
        there): one generator kept and reset, a tenth of the cost of seeding a new one."""
        kept = self.__dict__.get("_rng_kept")
        if kept is None or kept[0] != self.seed:
            g = np.random.default_rng(self.seed)
            kept = (self.seed, g, g.bit_generator.state)
            self._rng_kept = kept
        kept[1].bit_generator.state = kept[2]
        return kept[1]

    def _perturbed(self, true_costs: np.ndarray) -> np.ndarray:
        """:func:`~boundcalc.kernels.perturb.perturb_costs` of ``true_costs`` with ``delta g`` kept
        between solves (the same two operations per entry on the same numbers: equal bit for bit)."""
        if self.perturb == 0:
            return perturb_costs(true_costs, 0.0)
        kept = self.__dict__.get("_pert_h")
        if kept is None or kept[0] != self.perturb or kept[1].size != true_costs.size:
            kept = (self.perturb, self.perturb * weights(true_costs.size))
            self._pert_h = kept
        return perturbed_cost(true_costs, kept[1])

    def _sorted_first(self) -> bool:
        """Whether a lifted solve tries the sorted-pool model first (:attr:`lifted_model`)."""
        return self.lift and self.lifted_model == "sorted"

    def _sorted_certificate(
        self, model: SortedPoolModel, true_costs: np.ndarray, costs: np.ndarray, e: np.ndarray, v: float
    ) -> Certificate:
        """The certificate of the sorted model's optimum ``e``: the oracle's violation ``v`` over the
        whole family, the primal bound ``c.e`` and the Lagrangian bound of the sorted model at its
        row duals (:meth:`~boundcalc.lp.highs.CoveringLP.lagrangian_bound`).  The bound is valid
        for ``C*_{i1}``: an optimum with every pool in reverse cost order is a point of the sorted
        model of the same cost (:class:`~boundcalc.lp.lifted.SortedPoolModel`), so the model's
        optimum, and any Lagrangian bound of it, is at most ``C*_{i1}``.  With perturbed costs
        the duals are those of a warm re-solve with the true costs."""
        sol = model.last_solution
        if costs is not true_costs or sol is None:
            model.set_pair_costs(true_costs)
            sol = model.lp.solve()
            dual = model.lp.lagrangian_bound(sol.row_duals)
            model.set_pair_costs(costs)
        else:
            dual = model.lp.lagrangian_bound(sol.row_duals)
        xf = np.minimum(1.0, e / (1.0 - v)) if 0 < v < 1 else (np.ones_like(e) if v >= 1 else e)
        return Certificate(max_violation=float(v), primal_bound=float(true_costs @ xf), dual_bound=dual)

    def _sorted_answer(
        self, ent: _Entry, st: Structure, w: int, costs: np.ndarray, upper: np.ndarray
    ) -> tuple[np.ndarray | None, float, int, int]:
        """Winner ``w``'s optimum on the kept :class:`~boundcalc.lp.lifted.SortedPoolModel` of
        ``ent`` (``lifted_model="sorted"``): ``(e, violation, HiGHS runs, simplex iterations)``,
        ``e`` None where it failed (``ent.sorted`` is then False: :class:`CopelandModel` answers)."""
        fam = ent.family
        model = ent.sorted if isinstance(ent.sorted, SortedPoolModel) else None
        s0 = i0 = 0
        derived_now = False
        if model is not None:
            s0, i0 = model.lp.solves, model.lp.iterations
            model.set_pair_costs(costs)
        elif self.derive:
            # from the most recently used sorted model of the same winner (its rows that still hold
            # and its basis: SortedPoolModel.for_structure)
            for (k, w2), e2 in reversed(self._cache.items()):
                if w2 == w and e2 is not ent and isinstance(e2.sorted, SortedPoolModel):
                    model = e2.sorted.for_structure(fam, costs, upper)
                    derived_now = model is not None
                    self.derived += derived_now
                    break
        fresh = model is None
        if fresh:
            model = SortedPoolModel(fam, costs, upper, reuse_basis=self.reuse_basis, highs_options=self.highs_options)
        assert model is not None
        if self.warm_rows and (fresh or derived_now):
            # the first rows: the tightest at ECW's allocation, as a new CopelandModel's (a derived
            # model: for the i2 whose rows it dropped)
            C = _as_square(costs, st.K).copy()
            np.fill_diagonal(C, np.inf)
            core = ecw_allocation(st.beats, C, w, compiled=self.compiled)[1]
            S = None
            if not fresh:
                S = fam._sums(core).copy()
                S[~model.changed_i2] = np.inf  # no first rows for the kept i2
            model.add_cuts(core, -np.inf, self.warm_rows, None, S)
        ent.sorted = model
        try:
            e, v, why = sorted_rounds(model, self.tol, self.sorted_per_i2, self.max_rounds)
        except SolverError:
            e, v = None, np.inf
        n, its = model.lp.solves - s0, model.lp.iterations - i0
        if e is None:
            ent.sorted = False
            self.sorted_fallbacks += 1
        return e, v, n, its

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
        structure_d(st)  # ValueError without d
        if theorem6 and regret is None and self.levels is None and st.winners.size >= 2 and st.ties == 0:
            res = self._theorem6(st, winners, t0, raw)
            if res is not None:
                if not raw:
                    cast(BoundResult, res).stats["load_seconds"] = load
                return res
        # what C*_{i1} and the certificate are computed with
        true_costs = pair_costs(st, regret) if regret is not None else _pair_costs_000(st)
        costs = self._perturbed(true_costs)  # what the models are solved with (kernels.perturb)
        upper = np.where(structure_d(st)[triu(st.K)] > 0, 1.0, 0.0)
        warm = st.key == self._last_key
        self._last_key = st.key
        if winners is None:
            winners = st.winners.tolist()
        else:
            winners = [int(w) for w in winners]
        rng = None  # reset to the seed's state on first use in this solve (:meth:`_fresh_rng`)
        per, allocs, certs, viols = {}, {}, {}, {}
        rounds = added = solves = iters = fallbacks = 0
        C_square = None  # the costs K x K, gathered once for ECW's allocation
        t_lp = t_sep = 0.0
        warm_all = True
        failures: list[str] = []
        used: set[str] = set()  # the models that answered
        for w in winners:
            ent = self._entry(st, w)
            fam = ent.family
            if self._sorted_first() and fam._has_rows and ent.sorted is not False:
                a0 = ent.sorted.lp.rows_added if isinstance(ent.sorted, SortedPoolModel) else 0
                e_s, v_s, n, its = self._sorted_answer(ent, st, w, costs, upper)
                if isinstance(ent.sorted, SortedPoolModel):
                    added += ent.sorted.lp.rows_added - a0
                solves += n
                rounds += n
                iters += its
                cert = None
                if e_s is not None and certify:
                    cert = self._sorted_certificate(cast(SortedPoolModel, ent.sorted), true_costs, costs, e_s, v_s)
                    if cert.problems(gap_rtol=self.gap_tol):  # the pool-block model answers instead
                        e_s, ent.sorted = None, False
                        self.sorted_fallbacks += 1
                if e_s is not None:
                    used.add("sorted pools")
                    per[w] = float(true_costs @ e_s)
                    allocs[w] = e_s if raw else _q_matrix(structure_d(st), e_s)
                    viols[w] = v_s
                    if cert is not None:
                        certs[w] = cert
                    continue
            model = ent.model
            s0 = i0 = a0 = f0 = 0  # a new model's counts start at 0 (its warm rows are counted)
            if model is None:
                warm_all = False
                model = CopelandModel(
                    fam,
                    costs,
                    upper,
                    promote=self.promote,
                    lift=self.lift,
                    reuse_basis=self.reuse_basis,
                    highs_options=self.highs_options,
                )
                ent.model = model
                model.lp.simplex = self.simplex and not self.lift  # before its first rows (CoveringLP.h)
                if self.warm_rows and fam._has_rows:
                    # first rows: the tightest at ECW's allocation (feasible, R^E c R: 000 Theorem 6),
                    # whose zeros sit on the expensive pairs the optimum also leaves out
                    t1 = time.perf_counter()
                    if C_square is None:
                        C_square = _as_square(costs, st.K).copy()
                        np.fill_diagonal(C_square, np.inf)
                    core = ecw_allocation(st.beats, C_square, w, compiled=self.compiled)[1]
                    if rng is None:
                        rng = self._fresh_rng()
                    model.add_cuts(core, -np.inf, self.warm_rows, rng)
                    t_sep += time.perf_counter() - t1
            else:
                lp = model.lp
                s0, i0, a0, f0 = lp.solves, lp.iterations, lp.rows_added, lp.fallbacks
                lp.set_costs(costs)
                if not np.array_equal(lp.upper, upper):
                    lp.set_bounds(np.zeros(lp.n), upper)
            lp = model.lp
            used.add("pool blocks" if self.lift else "plain")
            lp.simplex = self.simplex and not self.lift  # plain models only (CoveringLP._solve_simplex)
            v = np.inf
            for rnd in range(self.max_rounds):
                t1 = time.perf_counter()
                sol = model.solve()
                t2 = time.perf_counter()
                t_lp += t2 - t1
                rounds += 1
                checked = model._checked
                if checked is not None and checked[0] is sol.x:
                    # the last basis kept for new costs (:meth:`CoveringLP.solve`): the solution the
                    # oracle passed over this family before, unchanged (the same array)
                    v = checked[1]
                    break
                E = _as_square(sol.x, st.K)  # the oracle reads the LP solution K x K
                S = fam._sums(E) if fam._has_rows else None
                v = float(1.0 - S.min()) if S is not None else -np.inf
                PROGRESS.round(w, lp.n_rows, v)
                if v <= self.tol:
                    model._checked = (sol.x, v)
                    t_sep += time.perf_counter() - t2
                    break
                if rnd == self.max_rounds - 1:
                    failures.append(f"winner {w}: no convergence in {self.max_rounds} rounds (max violation {v:.3g})")
                    break
                if rng is None:
                    rng = self._fresh_rng()
                n_new = model.add_cuts(E, self.tol, self.per_i2, rng, S)
                t_sep += time.perf_counter() - t2
                if n_new == 0:
                    failures.append(
                        f"winner {w}: the oracle's violated rows (max violation {v:.3g}) are all in the"
                        " model already (numerical trouble)"
                    )
                    break
            solves += lp.solves - s0
            iters += lp.iterations - i0
            added += lp.rows_added - a0
            fallbacks += lp.fallbacks - f0
            x = sol.x
            per[w] = float(true_costs @ x)
            allocs[w] = x if raw else _q_matrix(structure_d(st), x)
            viols[w] = v
            if certify:
                duals = sol.row_duals
                if costs is not true_costs:
                    # the true LP's duals: the model re-solved warm with the true costs (from the
                    # perturbed optimum's basis: few or no simplex iterations), then given its
                    # perturbed costs back; the certificate is that of c.x at the perturbed vertex
                    lp.set_costs(true_costs)
                    duals = model.solve().row_duals
                    lp.set_costs(costs)
                c = certificate_for(fam, true_costs, x, model, duals, max_violation=v)
                certs[w] = c
                failures += [f"winner {w}: {p}" for p in c.problems(gap_rtol=self.gap_tol)]
        if raw:
            return OnlineAnswer(per, allocs, solves, False, failures)
        sizes = [
            m.sizes()
            for w in winners
            if (e := self._cache.get((st.key, w))) is not None
            and (m := e.model if e.model is not None else e.sorted) is not None
            and not isinstance(m, bool)
        ]
        size = {k: int(sum(z[k] for z in sizes)) for k in sizes[0]} if sizes else {}
        stats = {
            "method": "cutting-plane",
            "model": ", ".join(sorted(used)),
            "seconds": time.perf_counter() - t0,
            "rounds": rounds,
            "lp_solves": solves,
            "simplex_iterations": iters,
            "rows": size.pop("rows", 0),
            "rows_added": added,
            "rows_removed": 0,
            "warm_start": bool(warm and warm_all),
            "solver": "highs",
            "max_violation": float(max(viols.values())),
            "rows_readded": 0,
            **size,
            "fallbacks": fallbacks,
            "lp_seconds": t_lp,
            "separation_seconds": t_sep,
            "load_seconds": load,
        }
        return BoundResult.from_winners(
            "lower_bound",
            per,
            allocs,
            certs,
            method="cutting-plane",
            unit=UNIT_000 if regret is None else UNIT_CUSTOM,
            stats=stats,
            failures=failures,
            message="optimal: no row of the family violated by more than tol",
        )
