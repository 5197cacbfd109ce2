"""Uniform sampling of maximum matchings: 004's sampler ``S(eta)`` (Sec. 3.1, Definition 1, App. B.2).

004 (Chen, Du, Huang & Zhao, ICML 2020) needs a matching ``M'`` drawn (almost) uniformly from
the maximum matchings ``\\mathcal{M}`` to turn Borda scores into CPE-MAB rewards (eq. (4)):
Definition 1 asks for a distribution within total variation ``eta`` of uniform, and App. B.2
obtains one from the Jerrum-Sinclair-Vigoda perfect-matching sampler.
:class:`MatchingSampler` offers two samplers, optionally conditioned on an accepted set ``A``
(every edge in the matching) and a rejected set ``R`` (no edge in it):

* ``"exact"`` -- exactly uniform (``eta = 0``), by sequential conditional sampling from the
  subset dynamic program of :func:`boundcalc.cpe.matching_counts`: candidates are decided
  last to first, each staying unused or taking one free adjacent position with probability
  proportional to the number of completions.  Costs ``O(n 2^l)`` memory once and ``O(n deg)``
  per sample (compiled: :func:`boundcalc.kernels.cpe.exact_draws`, reading the generator as
  ``Generator.integers`` on an array of bounds would); refused above ``max_exact`` table entries.
* ``"mcmc"`` -- a Markov chain (Broder's chain on perfect and near-perfect matchings, as
  analysed by Jerrum & Sinclair 1989, adapted to "every position filled"); see
  :class:`MatchingSampler` for what is proven and what is heuristic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from types import ModuleType

import numpy as np

from .instance import CPEInstance, CPETooLargeError, as_instance
from .matchings import _apply_candidate, _edge_set, best_matching, forced_sets_consistent

__all__ = ["MatchingSampler", "MAX_EXACT_ENTRIES", "mcmc_steps"]

#: Default size limit of the exact sampler's tables (candidates x 2^positions entries).
MAX_EXACT_ENTRIES = 2**22


def _kern() -> ModuleType:
    """The compiled loops (:mod:`boundcalc.kernels.cpe`), imported where they run (numba with them)."""
    from ..kernels import compile_notice, cpe

    compile_notice(["cpe"], "the pure-exploration algorithms")
    return cpe


def mcmc_steps(n_edges: int, n_positions: int, log_states: float, eta: float, factor: float = 1.0) -> int:
    """Steps of the lazy chain per sample for bias ``eta`` (a heuristic rule, not a proven bound).

    ``ceil(factor * m * l * (log_states + ln(1/eta)))`` with ``m`` the free edges, ``l`` the free
    positions and ``log_states`` an upper bound on ``ln |Omega|`` (``ln |Omega_l| + ln(l + 1)``).
    It has the ``ln(|Omega| / eta)`` form of every conductance / canonical-path bound
    (``tau(eta) <= (1/Phi^2) (ln |Omega| + ln(1/eta))``) with ``1/Phi^2`` replaced by ``m l``;
    Jerrum & Sinclair's proven bound for this chain is polynomial only when
    ``|Omega_{l-1}| / |Omega_l|`` is, and its constants are too large to use.
    """
    if not 0 < eta < 1:
        raise ValueError(f"eta must lie in (0, 1); got {eta}")
    return max(1, math.ceil(factor * max(n_edges, 1) * max(n_positions, 1) * (log_states + -math.log(eta))))


class MatchingSampler:
    """Uniform maximum matchings (all positions filled) containing ``A`` and avoiding ``R``.

    Parameters
    ----------
    inst : CPEInstance or K x K matrix
    method : {"auto", "exact", "mcmc"}
        ``"auto"`` uses ``"exact"`` when its tables fit ``max_exact`` entries, else ``"mcmc"``.
    eta : float, optional
        Bias parameter of 004's ``S(eta)`` (Definition 1) for ``"mcmc"``: the target total
        variation from uniform, which sets the chain's steps per sample through
        :func:`mcmc_steps` (default ``eta = 0.01``).  Ignored by ``"exact"`` (bias 0).
    A, R : iterables of edge indices
        Accepted / rejected edges.  Raises ``ValueError`` when no maximum matching meets them.
    max_exact : int
        Table-size limit of the exact sampler (``#candidates x 2^#positions`` after removing
        ``A``); ``method="exact"`` beyond it raises :class:`CPETooLargeError`.
    steps : int, optional
        Override the chain's steps per sample (``"mcmc"`` only).
    mix_factor : float
        ``factor`` of :func:`mcmc_steps`.

    Notes
    -----
    **Exact sampler.**  With ``f_i[S]`` the number of ways candidates ``1..i`` fill exactly the
    position set ``S`` (each at most once), ``f_i[S] = f_{i-1}[S] + sum_{p in S, p ~ c_i}
    f_{i-1}[S - p]``; walking ``i = n .. 1`` from ``S = all positions`` and choosing each term
    with probability term / ``f_i[S]`` picks every maximum matching with probability
    ``1 / f_n[all]``, exactly (integer draws; when a count exceeds ``2^62`` the draws use
    float64 ratios, off from uniform by at most ~1e-15 relative per step).

    **Markov chain.**  States: matchings of the free edges that fill every free position
    (``Omega_l``) or all but one (``Omega_{l-1}``).  A step: with probability 1/2 stay (lazy);
    else pick a free edge ``e = (c, j)`` uniformly and (a) if the state is full and ``e`` in it,
    delete ``e``; (b) if ``j`` is the hole and ``c`` is free, add ``e``; (c) if ``j`` is the hole
    and ``c`` sits at ``j2``, move ``c`` to ``j`` (the hole moves to ``j2``); (d) if ``j`` holds
    ``c' != c`` and ``c`` is free, replace ``c'`` by ``c``; otherwise stay.  Each move and its
    reverse are triggered by exactly one edge each, so the chain is symmetric; it is lazy, hence
    aperiodic; and it is irreducible (a hole travels along an augmenting path, which exists by
    Hall's condition since a filling matching exists, and any two filling matchings are joined
    by deleting one edge of their symmetric difference and shifting along it).  So its
    stationary law is uniform on ``Omega_l u Omega_{l-1}`` and, conditioned on ``Omega_l``,
    uniform on the maximum matchings -- **proven**.  Each sample is one independent chain from
    a feasible matching, run in blocks of ``steps`` steps until a block ends in ``Omega_l``.
    **Heuristic**: that ``steps = mcmc_steps(...)`` achieves total variation ``<= eta`` (no
    usable proven bound; Jerrum & Sinclair's canonical paths give a polynomial one only when
    ``|Omega_{l-1}| / |Omega_l|`` is polynomial).  The tests measure the total variation on
    small instances instead.

    >>> from boundcalc.cpe import CPEInstance
    >>> s = MatchingSampler(CPEInstance.from_matrix([[0.5, 0.7, 0.6], [0.3, 0.5, 0.4], [0.4, 0.6, 0.5]]))
    >>> s.method, s.count, s.sample(0) in {(0,), (1,), (2,)}
    ('exact', 3, True)
    >>> s.sample_many(4, 1).shape
    (4, 1)
    """

    def __init__(
        self,
        inst: CPEInstance,
        *,
        method: str = "auto",
        eta: float | None = None,
        A: Iterable[int] = (),
        R: Iterable[int] = (),
        max_exact: int = MAX_EXACT_ENTRIES,
        steps: int | None = None,
        mix_factor: float = 1.0,
    ):
        inst = as_instance(inst)
        if method not in ("auto", "exact", "mcmc"):
            raise ValueError(f"method must be 'auto', 'exact' or 'mcmc'; got {method!r}")
        if eta is not None and not (0 < eta < 1):
            raise ValueError(f"eta must lie in (0, 1); got {eta}")
        if not (isinstance(max_exact, (int, np.integer)) and max_exact >= 1):
            raise ValueError(f"max_exact must be a positive integer; got {max_exact!r}")
        if steps is not None and not (isinstance(steps, (int, np.integer)) and steps >= 1):
            raise ValueError(f"steps must be a positive integer; got {steps!r}")
        if not mix_factor > 0:
            raise ValueError(f"mix_factor must be positive; got {mix_factor}")
        self.inst = inst
        self.A = _edge_set(inst, A, "A")
        self.R = _edge_set(inst, R, "R")
        M0 = (
            best_matching(inst, np.zeros(inst.n_edges), include=self.A, exclude=self.R)[1]
            if forced_sets_consistent(inst, self.A, self.R)
            else None
        )
        if M0 is None:
            raise ValueError(
                f"no maximum matching contains A = {[inst.edges[e] for e in self.A]} and avoids "
                f"R = {[inst.edges[e] for e in self.R]}; nothing to sample"
            )
        self.M0 = M0
        ep, ec = inst.edge_position, inst.edge_candidate
        l, n = inst.n_positions, inst.n_candidates
        pcov = np.zeros(l, dtype=bool)
        ccov = np.zeros(n, dtype=bool)
        pcov[ep[self.A]] = True
        ccov[ec[self.A]] = True
        blocked = pcov[ep] | ccov[ec]
        blocked[self.R] = True
        self.free = np.flatnonzero(~blocked)  # free edges
        self.J = np.flatnonzero(~pcov)  # free positions
        self.C = np.unique(ec[self.free])  # candidates with a free edge
        self._jloc = np.searchsorted(self.J, ep[self.free])
        self._edge_pos = np.asarray(ep, dtype=np.int64)
        self._cloc = np.searchsorted(self.C, ec[self.free])
        nJ = self.J.size
        entries = max(self.C.size, 1) * (1 << nJ)
        fits = nJ <= 40 and entries <= max_exact
        if method == "auto":
            method = "exact" if fits else "mcmc"
        if method == "exact" and not fits:
            raise CPETooLargeError(
                f"the exact sampler needs {self.C.size} x 2^{nJ} table entries > max_exact = {max_exact}; "
                "use method='mcmc' (or raise max_exact if memory allows)"
            )
        self.method = method
        self.eta = 0.0 if method == "exact" else (0.01 if eta is None else float(eta))
        self._count: int | float | None = None  # float when the count exceeds int64 (see _build_tables)
        if method == "exact":
            self._build_tables()
            self.steps = 0
        else:
            # ln |Omega| <= ln(prod_j deg(j)) + ln(l + 1)
            deg = np.bincount(self._jloc, minlength=nJ)
            self._log_states = float(np.log(np.maximum(deg, 1)).sum()) + math.log(nJ + 1)
            self.steps = (
                int(steps)
                if steps is not None
                else mcmc_steps(self.free.size, nJ, self._log_states, self.eta, mix_factor)
            )

    # ------------------------------------------------------------------ exact
    def _build_tables(self) -> None:
        nJ = self.J.size
        size = 1 << nJ
        bound = 1
        for d in np.bincount(self._jloc, minlength=nJ):
            bound *= int(d)
        self._int = bound < 2**62
        dtype = np.int64 if self._int else float
        # per candidate (in C order) its free adjacent positions and edges, in edge order, as CSR
        order = np.argsort(self._cloc, kind="stable")
        self._adj_start = np.searchsorted(self._cloc[order], np.arange(self.C.size + 1)).astype(np.int64)
        self._adj_pos = self._jloc[order].astype(np.int64)
        self._adj_edge = self.free[order].astype(np.int64)
        tables = np.zeros((self.C.size + 1, size), dtype=dtype)  # row i: f_i
        tables[0, 0] = 1
        for k in range(self.C.size):
            a, b = self._adj_start[k], self._adj_start[k + 1]
            tables[k + 1] = _apply_candidate(tables[k], [int(p) for p in self._adj_pos[a:b]])
        self._tables = tables
        self._count = int(tables[-1, size - 1]) if self._int else float(tables[-1, size - 1])

    @property
    def count(self) -> int | float | None:
        """Number of maximum matchings containing ``A`` and avoiding ``R`` (exact sampler only)."""
        return self._count

    def _exact_many(self, n: int, rng: np.random.Generator) -> np.ndarray:

        chosen = np.full((n, self.inst.n_positions), -1, dtype=np.intp)
        chosen[:, self.inst.edge_position[self.A]] = self.A
        _kern().exact_draws(
            rng, self._tables, self._adj_start, self._adj_pos, self._adj_edge, self._edge_pos, chosen, self._int
        )
        return chosen

    # ------------------------------------------------------------------ Markov chain
    def _mcmc_many(self, n: int, rng: np.random.Generator) -> np.ndarray:
        inst = self.inst
        nJ, nC = self.J.size, self.C.size
        out = np.full((n, inst.n_positions), -1, dtype=np.intp)
        out[:, inst.edge_position[self.A]] = self.A
        if nJ == 0:
            return out
        # state: P[b, j] = local candidate at free position j (-1: hole); Cp[b, c] = its position (-1: free)
        start_c = np.full(nJ, -1, dtype=np.intp)
        M0 = np.asarray(self.M0)
        on_free = ~np.isin(M0, self.A)
        jj = np.searchsorted(self.J, inst.edge_position[M0[on_free]])
        start_c[jj] = np.searchsorted(self.C, inst.edge_candidate[M0[on_free]])
        P = np.tile(start_c, (n, 1))
        Cp = np.full((n, nC), -1, dtype=np.intp)
        Cp[:, start_c] = np.arange(nJ)
        hole = np.full(n, -1, dtype=np.intp)
        todo = np.arange(n)
        ej, ecand = self._jloc, self._cloc
        mF = self.free.size
        rounds = 0
        while todo.size:
            rounds += 1
            if rounds > 10_000:
                raise RuntimeError("the matching chain did not reach a full matching in 10,000 blocks")
            b = todo
            for _ in range(self.steps):
                move = rng.random(b.size) < 0.5
                bb = b[move]
                if bb.size == 0:
                    continue
                k = rng.integers(0, mF, bb.size)
                j, c = ej[k], ecand[k]
                at = P[bb, j]  # candidate at j (-1 hole)
                cpos = Cp[bb, c]  # position of c (-1 free)
                h = hole[bb]
                full = h < 0
                # (a) delete e from a full matching
                ma = full & (at == c)
                if ma.any():
                    s = bb[ma]
                    P[s, j[ma]] = -1
                    Cp[s, c[ma]] = -1
                    hole[s] = j[ma]
                # (d) j holds c' != c and c is free: replace
                md = (at >= 0) & (at != c) & (cpos < 0)
                if md.any():
                    s = bb[md]
                    Cp[s, at[md]] = -1
                    P[s, j[md]] = c[md]
                    Cp[s, c[md]] = j[md]
                # (b) j is the hole and c is free: add
                mb = (h == j) & (cpos < 0)
                if mb.any():
                    s = bb[mb]
                    P[s, j[mb]] = c[mb]
                    Cp[s, c[mb]] = j[mb]
                    hole[s] = -1
                # (c) j is the hole and c sits at j2: move c to j, hole to j2
                mc = (h == j) & (cpos >= 0)
                if mc.any():
                    s = bb[mc]
                    P[s, cpos[mc]] = -1
                    P[s, j[mc]] = c[mc]
                    Cp[s, c[mc]] = j[mc]
                    hole[s] = cpos[mc]
            done = hole[b] < 0
            fin = b[done]
            if fin.size:
                table = self._edge_lookup()
                out[np.ix_(fin, self.J)] = table[np.arange(nJ)[None, :], P[fin]]
            todo = b[~done]
        return out

    def _edge_lookup(self) -> np.ndarray:
        t = getattr(self, "_lookup", None)
        if t is None:
            t = np.full((self.J.size, self.C.size), -1, dtype=np.intp)
            t[self._jloc, self._cloc] = self.free
            self._lookup = t
        return t

    # ------------------------------------------------------------------ public
    def sample_many(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """``n`` independent samples: an int array ``(n, l)`` of edge indices in position order."""
        if not (isinstance(n, (int, np.integer)) and n >= 1):
            raise ValueError(f"n must be a positive integer; got {n!r}")
        rng = np.random.default_rng(rng)
        if self.method == "exact":
            return self._exact_many(int(n), rng)
        return self._mcmc_many(int(n), rng)

    def sample(self, rng: np.random.Generator | int | None = None) -> tuple:
        """One maximum matching: a tuple of ``l`` edge indices in position order."""
        return tuple(int(e) for e in self.sample_many(1, rng)[0])

    def __repr__(self) -> str:
        extra = f"count={self._count}" if self.method == "exact" else f"eta={self.eta}, steps={self.steps}"
        return f"<MatchingSampler {self.method}: {extra}, |A|={self.A.size}, |R|={self.R.size}>"
