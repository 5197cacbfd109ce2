"""Maximum matchings of a candidate-position graph: enumeration, exact counting, sampling,
the max-weight oracle, and the width of Definition 2 (paper 004, Chen et al., ICML 2020).

Under 004's standing assumption (Sec. 2) every maximum matching fills all ``l`` positions, so
the decision class ``\\mathcal{M}`` is the set of injective position -> candidate assignments
along edges.  A matching is a tuple of ``l`` edge indices in position order.

* :func:`iter_maximum_matchings` -- plain enumeration (small instances, tests).
* :func:`matching_counts` -- ``|M|`` and ``|M_e| = #{M : e in M}`` for every edge, exactly, by
  dynamic programming over subsets of positions (a permanent-type count; 004 Sec. 3.1 samples
  instead).  Refuses past ``max_positions`` (20) or a memory budget.
* :func:`sample_matchings` -- sequential importance sampling (Knuth's estimator) of maximum
  matchings with importance weights, the Monte-Carlo alternative for large instances.
* :func:`best_matching` -- 004's MWMC oracle (maximum-weight maximum-cardinality matching,
  Algorithm 1), with edge sets forced in or out, by ``scipy.optimize.linear_sum_assignment``
  (:func:`boundcalc.cpe.oracle.mwmc` is the same oracle under 004's name).
* :func:`width` -- Definition 2, by exhaustive search over alternating paths and cycles.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import linear_sum_assignment

from .instance import CPEInstance, CPETooLargeError, as_instance

__all__ = [
    "MatchingCounts",
    "iter_maximum_matchings",
    "maximum_matchings",
    "matching_counts",
    "count_maximum_matchings",
    "sample_matchings",
    "best_matching",
    "constrained_best_values",
    "width",
]

#: Default limits of the exact subset DP.
MAX_POSITIONS = 20
MAX_DP_ENTRIES = 2**25


# ---------------------------------------------------------------------------- enumeration
def iter_maximum_matchings(inst: CPEInstance) -> Iterator[tuple]:
    """Yield every maximum matching (a tuple of edge indices in position order), by depth-first search.

    Exponential in general; meant for small instances and for checking the exact counts.

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_matrix([[0.5, 0.6, 0.9], [0.4, 0.5, 0.8], [0.1, 0.2, 0.5]])
    >>> list(iter_maximum_matchings(inst))
    [(0,), (1,), (2,)]
    """
    inst = as_instance(inst)
    l = inst.n_positions
    pe = [list(map(int, ix)) for ix in inst.position_edges]
    ec = inst.edge_candidate.tolist()
    used = [False] * inst.n_candidates
    cur: list = []

    def rec(j: int) -> Iterator[tuple[int, ...]]:
        if j == l:
            yield tuple(cur)
            return
        for e in pe[j]:
            c = ec[e]
            if not used[c]:
                used[c] = True
                cur.append(e)
                yield from rec(j + 1)
                cur.pop()
                used[c] = False

    yield from rec(0)


def maximum_matchings(inst: CPEInstance, *, limit: int = 200_000) -> np.ndarray:
    """All maximum matchings as an int array ``(|M|, l)`` of edge indices; refuses more than ``limit``."""
    inst = as_instance(inst)
    out = []
    for k, M in enumerate(iter_maximum_matchings(inst)):
        if k >= limit:
            raise CPETooLargeError(
                f"more than limit={limit} maximum matchings; enumeration refused "
                "(use matching_counts / sample_matchings)"
            )
        out.append(M)
    return np.asarray(out, dtype=np.intp).reshape(len(out), inst.n_positions)


# ---------------------------------------------------------------------------- exact counting
@dataclass(frozen=True)
class MatchingCounts:
    """Exact counts of maximum matchings.

    Attributes
    ----------
    total : int
        ``|M|``, the number of maximum matchings.
    per_edge : tuple of int
        ``|M_e|`` for every edge index ``e`` (004 Theorem 3's ``M_e = {M : e in M}``).
    """

    total: int
    per_edge: tuple

    def fraction(self) -> np.ndarray:
        """``|M_e| / |M|`` per edge, as correctly rounded floats."""
        return np.array([x / self.total for x in self.per_edge], dtype=float)


def _apply_candidate(dp: np.ndarray, positions: list) -> np.ndarray:
    """One candidate's DP step: stay unused, or fill one free adjacent position (vectorised by reshapes)."""
    new = dp.copy()
    for p in positions:
        src = dp.reshape(-1, 2, 1 << p)
        dst = new.reshape(-1, 2, 1 << p)
        dst[:, 1, :] += src[:, 0, :]
    return new


def matching_counts(
    inst: CPEInstance,
    *,
    max_positions: int = MAX_POSITIONS,
    max_dp_entries: int = MAX_DP_ENTRIES,
) -> MatchingCounts:
    """Exact ``|M|`` and ``|M_e|`` for every edge by dynamic programming over subsets of positions.

    Candidates are processed one at a time; ``f_i[A]`` counts the ways the first ``i``
    candidates fill exactly the position set ``A`` (each used at most once), ``g_i`` the same
    for the candidates after ``i``.  Then ``|M| = f_n[S]`` and, for ``e = (c_i, s)``,
    ``|M_e| = sum_{A not containing s} f_i[A] g_i[S \\ A \\ {s}]``.  Cost
    ``O(n l 2^l)`` time and ``O(n 2^l)`` memory.  Counts are exact integers (int64 when
    ``prod_s deg(s) < 2^62`` bounds every entry, Python integers otherwise).

    Raises :class:`CPETooLargeError` when ``l > max_positions`` or
    ``(#candidates with an edge) * 2^l > max_dp_entries``; then use
    :func:`boundcalc.cpe.estimate_edge_rewards` (Monte Carlo) instead.

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_edge_matrix(
    ...     [("c1", "s1"), ("c2", "s1"), ("c3", "s1"), ("c3", "s2"), ("c4", "s2")],
    ...     [[.5, .45, 1, 0, 0], [.55, .5, .55, 0, 0], [0, .45, .5, 0, 0],
    ...      [0, 0, 0, .5, 0], [0, 0, 0, 1, .5]])
    >>> c = matching_counts(inst)
    >>> c.total, c.per_edge
    (5, (2, 2, 1, 2, 3))
    """
    inst = as_instance(inst)
    cached = inst._cache.get("matching_counts")
    if cached is not None:
        return cached
    l = inst.n_positions
    if l > max_positions:
        raise CPETooLargeError(
            f"exact matching counts need a table over 2^l position subsets; l = {l} > max_positions = "
            f"{max_positions}. Use estimate_edge_rewards(...) (Monte Carlo with standard errors) or "
            "raise max_positions if memory allows."
        )
    by_cand: dict = {}
    for e in range(inst.n_edges):
        by_cand.setdefault(int(inst.edge_candidate[e]), []).append((int(inst.edge_position[e]), e))
    order = sorted(by_cand)
    size = 1 << l
    if len(order) * size > max_dp_entries:
        raise CPETooLargeError(
            f"exact matching counts need {len(order)} x 2^{l} = {len(order) * size} table entries > "
            f"max_dp_entries = {max_dp_entries}. Use estimate_edge_rewards(...) (Monte Carlo) or raise "
            "max_dp_entries."
        )
    bound = 1
    for ix in inst.position_edges:
        bound *= len(ix)
    dtype = np.int64 if bound < 2**62 else object
    start = np.zeros(size, dtype=dtype)
    start[0] = 1
    prefix = []
    f = start
    for c in order:
        prefix.append(f)
        f = _apply_candidate(f, [p for p, _ in by_cand[c]])
    full = size - 1
    total = int(f[full])
    per_edge = [0] * inst.n_edges
    g = start.copy()
    for i in range(len(order) - 1, -1, -1):
        c = order[i]
        fi = prefix[i]
        grev = g[::-1].copy()  # grev[X] = g[full ^ X]
        for p, e in by_cand[c]:
            fv = fi.reshape(-1, 2, 1 << p)[:, 0, :]
            gv = grev.reshape(-1, 2, 1 << p)[:, 1, :]
            per_edge[e] = int((fv * gv).sum())
        g = _apply_candidate(g, [p for p, _ in by_cand[c]])
    out = MatchingCounts(total=total, per_edge=tuple(per_edge))
    inst._cache["matching_counts"] = out
    return out


def count_maximum_matchings(inst: CPEInstance, **limits: Any) -> int:
    """``|M|``, the number of maximum matchings (exact; see :func:`matching_counts`).

    >>> from boundcalc.cpe import CPEInstance
    >>> count_maximum_matchings(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]))
    2
    """
    return matching_counts(inst, **limits).total


# ---------------------------------------------------------------------------- sampling
def sample_matchings(
    inst: CPEInstance, n_samples: int, rng: np.random.Generator | int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Sequential importance sampling of maximum matchings (Knuth's estimator for permanents).

    Positions are filled one at a time (fewest neighbours first), each with a candidate drawn
    uniformly among its still-free neighbours; a sample that reaches a position with no free
    neighbour is dead.  The importance weight of a live sample is the product of the numbers
    of choices, so ``E[W g(M)] = sum_{M in \\mathcal{M}} g(M)`` for any ``g``: weighted averages
    estimate uniform averages over the maximum matchings without counting them (004 uses an
    almost-uniform MCMC sampler instead, Sec. 3.1 and Definition 1).

    Returns ``(matchings, log_weights)``: an int array ``(n_samples, l)`` of edge indices in
    position order (``-1`` rows for dead samples) and the natural-log weights (``-inf`` when
    dead).  Vectorised over samples.

    >>> from boundcalc.cpe import CPEInstance
    >>> M, lw = sample_matchings(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), 3, rng=0)
    >>> M.shape, [round(float(x), 6) for x in lw]
    ((3, 1), [0.693147, 0.693147, 0.693147])
    """
    inst = as_instance(inst)
    rng = np.random.default_rng(rng)
    S = int(n_samples)
    if S < 1:
        raise ValueError(f"n_samples must be >= 1; got {n_samples}")
    l = inst.n_positions
    used = np.zeros((S, inst.n_candidates), dtype=bool)
    out = np.full((S, l), -1, dtype=np.intp)
    logw = np.zeros(S)
    alive = np.ones(S, dtype=bool)
    order = sorted(range(l), key=lambda j: len(inst.position_edges[j]))
    for j in order:
        ix = inst.position_edges[j]
        adj = inst.edge_candidate[ix]
        avail = ~used[:, adj] & alive[:, None]
        cnt = avail.sum(axis=1)
        alive &= cnt > 0
        with np.errstate(divide="ignore"):
            logw += np.log(cnt)
        rows = np.flatnonzero(alive)
        if rows.size == 0:
            break
        r = np.floor(rng.random(rows.size) * cnt[rows]).astype(np.intp)
        pick = np.argmax(np.cumsum(avail[rows], axis=1) > r[:, None], axis=1)
        out[rows, j] = ix[pick]
        used[rows, adj[pick]] = True
    logw[~alive] = -np.inf
    out[~alive] = -1
    return out, logw


# ---------------------------------------------------------------------------- max-weight oracle
def _edge_table(inst: CPEInstance) -> np.ndarray:
    """``l x n`` int table: the edge index joining position ``j`` and candidate ``c``, ``-1`` if none (cached)."""
    T = inst._cache.get("edge_table")
    if T is None:
        T = np.full((inst.n_positions, inst.n_candidates), -1, dtype=np.intp)
        T[inst.edge_position, inst.edge_candidate] = np.arange(inst.n_edges)
        T.setflags(write=False)
        inst._cache["edge_table"] = T
    return T


def _edge_set(inst: CPEInstance, edges: int | Iterable[int] | None, what: str) -> np.ndarray:
    """Normalise ``None`` / one edge index / an iterable of edge indices to a sorted unique int array."""
    if edges is None:
        return np.zeros(0, dtype=np.intp)
    if isinstance(edges, bool):  # an int to Python, not an edge index
        raise TypeError(f"{what}: edge indices must be integers; got {edges!r}")
    if isinstance(edges, (int, np.integer)):
        edges = (int(edges),)
    out = []
    for e in edges:
        if isinstance(e, bool) or not isinstance(e, (int, np.integer)):
            raise TypeError(f"{what}: edge indices must be integers; got {e!r}")
        k = int(e)
        if not 0 <= k < inst.n_edges:
            raise ValueError(f"{what}: edge index {k} out of range 0..{inst.n_edges - 1}")
        out.append(k)
    return np.array(sorted(set(out)), dtype=np.intp)


def forced_sets_consistent(inst: CPEInstance, include: np.ndarray, exclude: np.ndarray) -> bool:
    """Necessary condition for ``P(M, A, R)`` to be non-empty: ``A`` is itself a matching
    (distinct positions, distinct candidates) and ``A`` and ``R`` are disjoint."""
    if include.size == 0:
        return True
    if np.intersect1d(include, exclude).size:
        return False
    return (
        np.unique(inst.edge_position[include]).size == include.size
        and np.unique(inst.edge_candidate[include]).size == include.size
    )


@overload
def best_matching(
    inst: CPEInstance, weights: ArrayLike, *, include: None = None, exclude: None = None, minimize: bool = False
) -> tuple[float, tuple[int, ...]]: ...


@overload
def best_matching(
    inst: CPEInstance,
    weights: ArrayLike,
    *,
    include: int | Iterable[int] | None = None,
    exclude: int | Iterable[int] | None = None,
    minimize: bool = False,
) -> tuple[float, tuple[int, ...] | None]: ...


def best_matching(
    inst: CPEInstance,
    weights: ArrayLike,
    *,
    include: int | Iterable[int] | None = None,
    exclude: int | Iterable[int] | None = None,
    minimize: bool = False,
) -> tuple[float, tuple[int, ...] | None]:
    """004's MWMC oracle: the maximum matching of largest total edge weight (Algorithm 1).

    ``include``/``exclude`` force edges into / out of the matching: each is ``None``, one edge
    index (the constrained maxima of Definitions 3 and 5) or an iterable of edge indices
    (004's accepted / rejected sets ``A``, ``R`` of Algorithms 1-5).  ``minimize=True`` returns
    the lightest one instead.  Returns ``(value, matching)``; ``(-inf, None)`` (``(+inf, None)``
    when minimising) if no maximum matching meets the constraints -- 004's convention that the
    maximum of an empty set is ``-inf`` (Definition 3).

    Maximum cardinality comes first: under 004's standing assumption (checked by
    :class:`CPEInstance`) every maximum matching fills all ``l`` positions, and the solver,
    ``scipy.optimize.linear_sum_assignment`` on the ``l x n`` position-candidate table with
    ``-inf`` at non-edges and forbidden edges, assigns *every* position (``l <= n`` rows) or
    reports the table infeasible; an assignment through a ``-inf`` entry is also read as
    infeasible.  So a heavier smaller matching is never returned.  ``include`` is applied by
    blocking the rest of the forced edges' rows and columns; a forced set that is not itself a
    matching, or meets ``exclude``, is infeasible.

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]])
    >>> best_matching(inst, [0.6, 0.4]), best_matching(inst, [0.6, 0.4], exclude=0)
    ((0.6, (0,)), (0.4, (1,)))
    >>> best_matching(inst, [0.6, 0.4], include=[0, 1])
    (-inf, None)
    """
    inst = as_instance(inst)
    w = np.asarray(weights, dtype=float)
    if w.shape != (inst.n_edges,):
        raise ValueError(f"weights must have shape ({inst.n_edges},); got {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError("weights must be finite")
    A = _edge_set(inst, include, "include")
    R = _edge_set(inst, exclude, "exclude")
    sgn = -1.0 if minimize else 1.0
    empty = (-np.inf if not minimize else np.inf, None)
    if not forced_sets_consistent(inst, A, R):
        return empty
    ep, ec = inst.edge_position, inst.edge_candidate
    T = np.full((inst.n_positions, inst.n_candidates), -np.inf)
    T[ep, ec] = sgn * w
    if A.size:
        keep = T[ep[A], ec[A]]
        T[ep[A], :] = -np.inf
        T[:, ec[A]] = -np.inf
        T[ep[A], ec[A]] = keep
    if R.size:
        T[ep[R], ec[R]] = -np.inf
    try:
        rows, cols = linear_sum_assignment(T, maximize=True)
    except ValueError:  # infeasible: no maximum matching satisfies the constraints
        return empty
    if rows.size != inst.n_positions or np.isneginf(T[rows, cols]).any():
        return empty
    E = _edge_table(inst)[rows, cols]  # rows come back sorted: position order
    M = tuple(int(e) for e in E)
    return float(w[E].sum()), M


def constrained_best_values(
    inst: CPEInstance, weights: ArrayLike, reference: tuple, *, minimize: bool = False
) -> np.ndarray:
    """For every edge ``e``: the best total weight over maximum matchings with ``e`` forced *in*
    when ``e`` is not in ``reference``, and forced *out* when it is (the case split of 004
    Definitions 3 and 5).  ``-inf`` (``+inf`` when minimising) marks an empty set."""
    inst = as_instance(inst)
    inref = np.zeros(inst.n_edges, dtype=bool)
    inref[list(reference)] = True
    out = np.empty(inst.n_edges)
    for e in range(inst.n_edges):
        if inref[e]:
            out[e] = best_matching(inst, weights, exclude=e, minimize=minimize)[0]
        else:
            out[e] = best_matching(inst, weights, include=e, minimize=minimize)[0]
    return out


# ---------------------------------------------------------------------------- width (Definition 2)
def width(inst: CPEInstance, *, max_states: int = 2_000_000) -> int:
    """``width(G)`` of 004 Definition 2: the largest number of edges in a connected component
    of ``M1 ∪ M2`` over pairs of distinct maximum matchings.

    Because every maximum matching fills all positions, a component of ``M1 ∪ M2`` with more
    than one edge is an alternating path ``c0 - s1 - c1 - ... - sk - ck`` (ends at candidates)
    or an alternating cycle through ``k >= 2`` positions, with ``2k`` edges; and any such path
    or cycle is realised by a pair that agrees elsewhere iff the positions off it can be filled
    by candidates off it.  So ``width(G) = 2 max k`` over those paths and cycles, found here by
    exhaustive depth-first search (exponential in the worst case; refuses after
    ``max_states`` search states with :class:`CPETooLargeError`).  A one-position instance with
    ``K >= 2`` candidates has width 2.  With a single maximum matching the maximum in
    Definition 2 is over an empty set; this function then returns 0.

    >>> from boundcalc.cpe import CPEInstance
    >>> width(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]))
    2
    """
    inst = as_instance(inst)
    if "width" in inst._cache:
        return inst._cache["width"]
    l, n = inst.n_positions, inst.n_candidates
    cand_adj: list = [[] for _ in range(n)]  # candidate -> positions
    pos_adj: list = [[] for _ in range(l)]  # position -> candidates
    for e in range(inst.n_edges):
        c, j = int(inst.edge_candidate[e]), int(inst.edge_position[e])
        cand_adj[c].append(j)
        pos_adj[j].append(c)
    memo: dict = {}

    def saturable(pmask: int, cmask: int) -> bool:
        """Can positions outside pmask be filled by candidates outside cmask? (Kuhn's algorithm)"""
        key = (pmask, cmask)
        if key in memo:
            return memo[key]
        owner: dict = {}

        def augment(j: int, seen: set) -> bool:
            for c in pos_adj[j]:
                if (cmask >> c) & 1 or c in seen:
                    continue
                seen.add(c)
                if c not in owner or augment(owner[c], seen):
                    owner[c] = j
                    return True
            return False

        ok = all(augment(j, set()) for j in range(l) if not (pmask >> j) & 1)
        memo[key] = ok
        return ok

    best = 0
    states = 0

    class _Done(Exception):
        pass

    def dfs(start: int, end: int, pmask: int, cmask: int, k: int) -> None:
        nonlocal best, states
        states += 1
        if states > max_states:
            raise CPETooLargeError(
                f"width(G) search exceeded max_states={max_states}; the exact width is exponential to "
                "compute on large graphs (004 only uses it inside O(.) bounds)"
            )
        for j in cand_adj[end]:
            if (pmask >> j) & 1:
                continue
            pm = pmask | (1 << j)
            # close an alternating cycle start - ... - end - j - start (k + 1 >= 2 positions)
            if k >= 1 and start in pos_adj[j] and k + 1 > best and saturable(pm, cmask):
                best = k + 1
                if best == l:
                    raise _Done
            for c in pos_adj[j]:
                if (cmask >> c) & 1:
                    continue
                cm = cmask | (1 << c)
                if k + 1 > best and saturable(pm, cm):
                    best = k + 1
                    if best == l:
                        raise _Done
                dfs(start, c, pm, cm, k + 1)

    try:
        for c0 in range(n):
            if cand_adj[c0]:
                dfs(c0, c0, 0, 1 << c0, 0)
    except _Done:
        pass
    inst._cache["width"] = 2 * best
    return 2 * best
