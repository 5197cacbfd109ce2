"""Condorcet-winner constants of combinatorial pure exploration for dueling bandits (paper 004).

Chen, Du, Huang & Zhao, ICML 2020, Sec. 2 and 4, App. C.  With ``f(M1, M2) = (1/l) sum_j
p_{e(M1,j), e(M2,j)}`` (eq. (1)):

* Condorcet winner (Sec. 2): the matching ``M^C_*`` with ``f(M^C_*, M) > 1/2`` for every other
  maximum matching ``M``.  This is a statement about *averages over positions*: an edge of
  ``M^C_*`` need not beat every comparable edge (a loss on one position can be outweighed by
  wins on the others in every rival matching).  It may not exist.
* Condorcet gap (Definition 5): ``Delta^C_e = 1/2 - max_{M: e in M} f(M, M^C_*)`` for ``e``
  not in ``M^C_*`` and ``1/2 - max_{M: e not in M} f(M, M^C_*)`` for ``e`` in it (an empty
  max is ``-inf``, giving ``+inf``); ``Delta^C_{e,e'} = max(Delta^C_e, Delta^C_{e'})`` for
  comparable ``e != e'``.
* Condorcet hardness (Theorem 4 without its logarithm): ``sum_j sum_{e != e' in E_j}
  1/(Delta^C_{e,e'})^2``, read over **unordered** pairs ``{e, e'}`` (each duel once; Sec. 4.1:
  "summing over all comparable pairs of edges").  ``ordered=True`` doubles it.
* Verification gap (Sec. 4.3): for ``e`` not in ``M^C_*``, ``tilde Delta^C_e = min_{M != M^C_*,
  e in M} (l / d(M^C_*, M)) (1/2 - f(M, M^C_*))``, with ``d`` the number of positions where the
  two matchings differ -- i.e. the smallest *average margin per changed position*;
  ``H^C_ver = sum_{e not in M^C_*} 1/(tilde Delta^C_e)^2``.
* Theorem 6 (App. C.4): ``T >= sum_{e not in M^C_*} 0.4 gamma (1 - gamma) / (l^2 (Delta^C_e)^2)
  ln(1/delta)``.

For one position (a K x K dueling matrix with Condorcet winner ``i*``):
``Delta^C_i = p_{i*,i} - 1/2`` (``i != i*``), ``Delta^C_{i*} = min_{i != i*} Delta^C_i`` and
``tilde Delta^C_i = Delta^C_i``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from ..lp.highs import SolverError
from .borda import pairwise_preferences
from .instance import CONDORCET_TOL, CPEInstance, CPETooLargeError, NoWinnerError, as_instance
from .matchings import best_matching, constrained_best_values, matching_counts, maximum_matchings

__all__ = [
    "condorcet_margin",
    "is_condorcet_winner",
    "condorcet_winner",
    "condorcet_gaps",
    "condorcet_pair_gaps",
    "condorcet_hardness",
    "verification_gaps",
    "condorcet_ver_hardness",
    "condorcet_lower_bound",
    "theorem6_assumption_holds",
]

#: The automatic method falls back to enumeration up to this many maximum matchings.
ENUMERATION_FALLBACK = 5000


def _against(inst: CPEInstance, M: tuple, *, rows: bool) -> np.ndarray:
    """Per-edge weights: ``p_{M(s(e)), e}`` (rows=True, for f(M, .)) or ``p_{e, M(s(e))}`` (for f(., M))."""
    a = np.empty(inst.n_edges)
    for j, (ix, p) in enumerate(zip(inst.position_edges, inst.position_matrices)):
        r = inst.local_index(M[j])
        a[ix] = p[r, :] if rows else p[:, r]
    return a


def condorcet_margin(inst: CPEInstance, matching: Iterable) -> float:
    """``min_{M != M0} f(M0, M) - 1/2`` for a maximum matching ``M0`` (+inf if it is the only one).

    Positive exactly when ``M0`` is 004's Condorcet winner (Sec. 2).  Since every ``M != M0``
    misses some edge of ``M0``, this is a minimum of ``l`` constrained min-weight matchings.

    >>> from boundcalc.cpe import CPEInstance
    >>> round(condorcet_margin(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), [0]), 12)
    0.2
    """
    inst = as_instance(inst)
    M = inst.as_matching(matching)
    b = _against(inst, M, rows=True)
    worst = min(best_matching(inst, b, exclude=e, minimize=True)[0] for e in M)
    return float(worst / inst.n_positions - 0.5)


def is_condorcet_winner(inst: CPEInstance, matching: Iterable) -> bool:
    """True when ``f(M, M') > 1/2`` for every other maximum matching ``M'`` (004 Sec. 2)."""
    return condorcet_margin(inst, matching) > CONDORCET_TOL


def _lp_candidate(inst: CPEInstance) -> tuple | None:
    """Solve ``max_x min_y x^T P y`` over the bipartite matching polytope (004 eq. (5)) as one LP.

    Inner minimum by LP duality: ``min_y (P^T x) . y`` s.t. ``sum_{e in E_j} y_e = 1``,
    ``sum_{e at c} y_e <= 1``, ``y >= 0`` equals ``max sum_j u_j + sum_c v_c`` s.t.
    ``u_{s(e)} + v_{c(e)} <= (P^T x)_e``, ``v <= 0``.  The game is symmetric (value ``l/2``); a
    Condorcet winner is then its unique optimal strategy, so a 0/1 optimum is the candidate.

    Returns None when the optimum is not a 0/1 matching (no candidate).  The LP is always
    feasible and bounded, so any HiGHS status but optimal is a solver failure: it raises
    :class:`~boundcalc.lp.highs.SolverError` and is never read as "no Condorcet winner".
    """
    m, l, n = inst.n_edges, inst.n_positions, inst.n_candidates
    P = inst.edge_matrix
    nv = m + l + n
    c = np.zeros(nv)
    c[m:] = -1.0
    ep, ec = inst.edge_position, inst.edge_candidate
    ar = np.arange(m)
    A1 = sparse.hstack(
        [
            sparse.csr_matrix(-P.T),
            sparse.csr_matrix((np.ones(m), (ar, ep)), shape=(m, l)),
            sparse.csr_matrix((np.ones(m), (ar, ec)), shape=(m, n)),
        ]
    )
    A2 = sparse.hstack([sparse.csr_matrix((np.ones(m), (ec, ar)), shape=(n, m)), sparse.csr_matrix((n, l + n))])
    A_ub = sparse.vstack([A1, A2]).tocsr()
    b_ub = np.concatenate([np.zeros(m), np.ones(n)])
    A_eq = sparse.hstack(
        [sparse.csr_matrix((np.ones(m), (ep, ar)), shape=(l, m)), sparse.csr_matrix((l, l + n))]
    ).tocsr()
    b_eq = np.ones(l)
    bounds = [(0, 1)] * m + [(None, None)] * l + [(None, 0)] * n
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        raise SolverError(
            f"HiGHS failed on 004's Condorcet max-min LP (eq. (5); {m} edges, {l} positions): "
            f"status {res.status}, {res.message}"
        )
    x = res.x[:m]
    M = []
    for ix in inst.position_edges:
        k = int(np.argmax(x[ix]))
        if x[ix][k] < 1 - 1e-6:
            return None
        M.append(int(ix[k]))
    if len({int(inst.edge_candidate[e]) for e in M}) < l:
        return None
    return tuple(M)


def _enumerated_winner(inst: CPEInstance) -> tuple | None:
    Ms = maximum_matchings(inst)
    if len(Ms) == 1:
        return tuple(int(e) for e in Ms[0])
    F = pairwise_preferences(inst, Ms)
    np.fill_diagonal(F, np.inf)
    ok = np.flatnonzero(F.min(axis=1) - 0.5 > CONDORCET_TOL)
    return tuple(int(e) for e in Ms[ok[0]]) if ok.size else None


def condorcet_winner(inst: CPEInstance, *, method: str = "auto") -> tuple | None:
    """004's Condorcet winning matching (Sec. 2) as edge indices, or ``None`` if there is none.

    ``method="lp"`` solves the relaxed max-min problem of 004 eq. (5) as a single linear
    program (HiGHS) and verifies the rounded optimum exactly with :func:`condorcet_margin`;
    ``"enumerate"`` compares all pairs of maximum matchings; ``"auto"`` (default) uses the LP
    and, when it finds no verified winner on an instance with at most 5000 maximum matchings,
    confirms by enumeration.  A returned matching is always verified exactly; the LP itself
    works to HiGHS's tolerances (about 1e-7), so on a large instance whose winner wins by less
    than that it may report ``None`` (use ``"enumerate"`` when feasible).  A HiGHS failure on
    the LP raises :class:`~boundcalc.lp.highs.SolverError` (it is not an answer).

    >>> from boundcalc.cpe import CPEInstance
    >>> condorcet_winner(CPEInstance.from_matrix([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]]))
    (1,)
    >>> condorcet_winner(CPEInstance.from_matrix([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])) is None
    True
    """
    inst = as_instance(inst)
    if method not in ("auto", "lp", "enumerate"):
        raise ValueError(f"method must be 'auto', 'lp' or 'enumerate'; got {method!r}")
    key = ("condorcet_winner", method)
    if key in inst._cache:
        return inst._cache[key]
    if method == "enumerate":
        out = _enumerated_winner(inst)
    else:
        M = _lp_candidate(inst)
        out = M if (M is not None and is_condorcet_winner(inst, M)) else None
        if out is None and method == "auto":
            try:
                small = matching_counts(inst).total <= ENUMERATION_FALLBACK
            except CPETooLargeError:
                small = False
            if small:
                out = _enumerated_winner(inst)
    inst._cache[key] = out
    return out


def _require_winner(inst: CPEInstance, winner: Iterable | None) -> tuple:
    if winner is not None:
        M = inst.as_matching(winner)
        if not is_condorcet_winner(inst, M):
            raise NoWinnerError(f"{inst.matching_edges(M)} is not a Condorcet winner of this instance")
        return M
    found = condorcet_winner(inst)
    if found is None:
        raise NoWinnerError(
            "the instance has no Condorcet winning matching (no M* with f(M*, M) > 1/2 for all M != M*); "
            "004's Condorcet gaps (Definition 5) and H^C_ver (Sec. 4.3) are undefined"
        )
    return found


def condorcet_gaps(inst: CPEInstance, winner: Sequence[int] | None = None) -> np.ndarray:
    """Condorcet gaps ``Delta^C_e`` of 004 Definition 5, indexed by edge (``inf`` for an empty set).

    ``1/2 - max_{M: e in M} f(M, M^C_*)`` for ``e`` outside the winner and
    ``1/2 - max_{M: e not in M} f(M, M^C_*)`` for ``e`` in it; each maximum is one constrained
    max-weight matching with weights ``p_{e, e*(s(e))}``.  Raises :class:`NoWinnerError` when
    there is no Condorcet winner.

    >>> from boundcalc.cpe import CPEInstance
    >>> [round(float(g), 12) for g in condorcet_gaps(CPEInstance.from_matrix(
    ...     [[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]]))]
    [0.1, 0.1, 0.2]
    """
    inst = as_instance(inst)
    M = _require_winner(inst, winner)
    key = ("condorcet_gaps", M)
    if key in inst._cache:
        return inst._cache[key]
    a = _against(inst, M, rows=False)  # f(M', M*) = (1/l) sum_j a(e(M', j))
    best = constrained_best_values(inst, a, M)
    gaps = 0.5 - best / inst.n_positions
    gaps.setflags(write=False)
    inst._cache[key] = gaps
    return gaps


def condorcet_pair_gaps(inst: CPEInstance, winner: Sequence[int] | None = None) -> np.ndarray:
    """``m x m`` array of ``Delta^C_{e,e'} = max(Delta^C_e, Delta^C_{e'})`` (004 Definition 5)
    for comparable ``e != e'``; NaN elsewhere (incomparable pairs and the diagonal)."""
    inst = as_instance(inst)
    g = condorcet_gaps(inst, winner)
    D = np.maximum(g[:, None], g[None, :])
    mask = inst.comparable & ~np.eye(inst.n_edges, dtype=bool)
    return np.where(mask, D, np.nan)


def condorcet_hardness(inst: CPEInstance, winner: Sequence[int] | None = None, *, ordered: bool = False) -> float:
    """``sum_j sum_{{e, e'} in E_j, e != e'} 1/(Delta^C_{e,e'})^2`` -- 004 Theorem 4's sum without its log.

    Unordered pairs by default (each comparable duel once); ``ordered=True`` counts ``(e, e')``
    and ``(e', e)`` separately (twice the value).  Infinite pair gaps add 0.

    >>> from boundcalc.cpe import CPEInstance
    >>> round(condorcet_hardness(CPEInstance.from_matrix(
    ...     [[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]])), 6)
    150.0
    """
    inst = as_instance(inst)
    D = condorcet_pair_gaps(inst, winner)
    iu = np.triu_indices(inst.n_edges, 1)
    d = D[iu]
    d = d[~np.isnan(d)]
    total = float(np.sum(1.0 / d**2))
    return 2 * total if ordered else total


def verification_gaps(inst: CPEInstance, winner: Sequence[int] | None = None, *, max_iter: int = 100) -> np.ndarray:
    """Verification gaps ``tilde Delta^C_e`` of 004 Sec. 4.3, indexed by edge.

    For ``e`` outside ``M^C_*``: ``min_{M != M^C_*, e in M} (l/d(M^C_*, M)) (1/2 - f(M, M^C_*))
    = min_{M: e in M} [sum_{j: M differs} (1/2 - p_{e(M,j), e*(j)})] / d(M^C_*, M)``, a
    minimum-ratio matching problem solved exactly by Dinkelbach's iteration (each step a
    constrained min-weight matching; it stops at the optimal ratio after finitely many steps).
    ``NaN`` for edges of ``M^C_*`` (not defined there), ``inf`` for an edge in no maximum matching.

    >>> from boundcalc.cpe import CPEInstance
    >>> [round(float(g), 12) for g in verification_gaps(CPEInstance.from_matrix(
    ...     [[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]]))]
    [0.1, nan, 0.2]
    """
    inst = as_instance(inst)
    M = _require_winner(inst, winner)
    key = ("verification_gaps", M)
    if key in inst._cache:
        return inst._cache[key]
    inM = np.zeros(inst.n_edges, dtype=bool)
    inM[list(M)] = True
    a = 0.5 - _against(inst, M, rows=False)  # a(e) = 1/2 - p_{e, e*}; 0 on M* itself
    a[inM] = 0.0
    ind = (~inM).astype(float)
    out = np.full(inst.n_edges, np.nan)
    for e in np.flatnonzero(~inM):
        val, Mk = best_matching(inst, a, include=int(e), minimize=True)
        if Mk is None:
            out[e] = np.inf
            continue
        lam = val / sum(ind[k] for k in Mk)
        for _ in range(max_iter):
            val, Mk = best_matching(inst, a - lam * ind, include=int(e), minimize=True)
            assert Mk is not None  # the same constraint as the first call, which met it
            if val >= -1e-13:
                break
            lam = sum(a[k] for k in Mk) / sum(ind[k] for k in Mk)
        else:
            raise RuntimeError(f"Dinkelbach iteration did not converge for edge {inst.edges[e]}")
        out[e] = lam
    out.setflags(write=False)
    inst._cache[key] = out
    return out


def condorcet_ver_hardness(inst: CPEInstance, winner: Sequence[int] | None = None) -> float:
    """``H^C_ver = sum_{e not in M^C_*} 1/(tilde Delta^C_e)^2`` (004 Sec. 4.3, Theorem 5).

    One position: ``sum_{i != i*} 1/(p_{i*,i} - 1/2)^2``.

    >>> from boundcalc.cpe import CPEInstance
    >>> round(condorcet_ver_hardness(CPEInstance.from_matrix(
    ...     [[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]])), 6)
    125.0
    """
    g = verification_gaps(inst, winner)
    g = g[~np.isnan(g)]
    return float(np.sum(1.0 / g**2))


def theorem6_assumption_holds(inst: CPEInstance, winner: Sequence[int] | None = None, *, limit: int = 5000) -> bool:
    """Check the structural supposition of 004 Theorem 6 by enumeration (at most ``limit`` matchings).

    For every ``M != M^C_*`` and every ``M_x != M`` with ``f(M_x, M) >= 1/2`` (the set
    ``O(M)``): ``f(M, M^C_*) <= f(M, M_x)`` and ``M^C_* \\ M ⊆ M_x \\ M``.
    """
    inst = as_instance(inst)
    Mstar = _require_winner(inst, winner)
    Ms = maximum_matchings(inst, limit=limit)
    F = pairwise_preferences(inst, Ms)
    star = int(np.flatnonzero((Ms == np.asarray(Mstar)).all(axis=1))[0])
    # M* \ M is contained in Mx \ M  <=>  for every position where M differs from M*, Mx uses M*'s edge.
    diff_star = Ms != Ms[star]  # (N, l): positions where M differs from M*
    same_as_star = Ms == Ms[star]  # (N, l): positions where Mx uses M*'s edge
    tol = 1e-12
    for a in range(len(Ms)):
        if a == star:
            continue
        beaters = np.flatnonzero(F[:, a] >= 0.5 - tol)
        beaters = beaters[beaters != a]
        if (F[a, star] > F[a, beaters] + tol).any():
            return False
        need = diff_star[a]
        if not same_as_star[np.ix_(beaters, np.flatnonzero(need))].all():
            return False
    return True


def condorcet_lower_bound(
    inst: CPEInstance, gamma: float, delta: float, winner: Sequence[int] | None = None, *, check: bool = True
) -> float:
    """004 Theorem 6's explicit lower bound (App. C.4) on the expected number of duels.

    ``sum_{e not in M^C_*} 0.4 gamma (1 - gamma) / (l^2 (Delta^C_e)^2) * ln(1/delta)``, valid
    for any delta-correct algorithm when ``delta in (0, 0.1)``, ``0 < gamma < 1/(2(2 + l))``,
    ``|p_{e,e'} - 1/2| <= gamma`` on comparable pairs, and the structural supposition of
    :func:`theorem6_assumption_holds`.  The bound grows with ``gamma``, so the best valid
    choice is the largest ``gamma`` allowed.  With ``check=True`` (default) the conditions
    are verified (the structural one by enumeration) and a violation raises ``ValueError``;
    ``check=False`` evaluates the expression regardless (then it is not a proven bound).

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_matrix([[0.5, 0.55], [0.45, 0.5]])
    >>> round(condorcet_lower_bound(inst, gamma=0.1, delta=0.05), 6)
    43.138545
    """
    inst = as_instance(inst)
    M = _require_winner(inst, winner)
    l = inst.n_positions
    if check:
        if not 0 < delta < 0.1:
            raise ValueError(f"Theorem 6 needs delta in (0, 0.1); got {delta}")
        glim = 1.0 / (2 * (2 + l))
        if not 0 < gamma < glim:
            raise ValueError(f"Theorem 6 needs 0 < gamma < 1/(2(2 + l)) = {glim:.6g}; got {gamma}")
        dev = max(float(np.max(np.abs(p - 0.5))) for p in inst.position_matrices)
        if dev > gamma + 1e-15:
            raise ValueError(
                f"Theorem 6 needs |p - 1/2| <= gamma = {gamma} on comparable pairs; the instance has {dev}"
            )
        if not theorem6_assumption_holds(inst, M):
            raise ValueError(
                "Theorem 6's structural supposition fails (some M_x that beats M is closer to M than M^C_* "
                "or lacks an edge of M^C_* \\ M)"
            )
    elif not (0 < gamma < 0.5 and 0 < delta < 1):
        raise ValueError("the expression needs gamma in (0, 1/2) and delta in (0, 1)")
    g = condorcet_gaps(inst, M)
    inM = np.zeros(inst.n_edges, dtype=bool)
    inM[list(M)] = True
    s = float(np.sum(1.0 / g[~inM] ** 2))
    return float(0.4 * gamma * (1 - gamma) / l**2 * s * -math.log(delta))
