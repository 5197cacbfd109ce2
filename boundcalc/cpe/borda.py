"""Borda-winner constants of combinatorial pure exploration for dueling bandits (paper 004).

Chen, Du, Huang & Zhao, ICML 2020, Sec. 2-3.  With ``f(M1, M2) = (1/l) sum_j
p_{e(M1,j), e(M2,j)}`` (eq. (1)):

* Borda score ``B(M) = (1/|M|) sum_{M'} f(M, M')`` (eq. (2)); Borda winner ``M^B_* = argmax B``
  (eq. (3), assumed unique).
* Edge reward (eq. (4)): ``w(e) = (1/|M|) sum_{M in \\mathcal{M}} p_{e, e(M, s(e))}`` -- the
  average over **all** maximum matchings ``M`` of the preference of ``e`` over the edge that
  ``M`` puts on ``e``'s position (``e`` itself when ``e in M``, contributing 1/2).  Hence
  ``w(e) = sum_{e' in E_{s(e)}} p_{e,e'} |M_{e'}| / |M|`` with ``|M_{e'}|`` the number of
  maximum matchings through ``e'``.  Matching reward ``w(M) = sum_{e in M} w(e) = l B(M)``.
* Borda gap (Definition 3): ``Delta^B_e = w(M^B_*) - max_{M: e in M} w(M)`` for ``e`` not in
  ``M^B_*`` and ``w(M^B_*) - max_{M: e not in M} w(M)`` for ``e`` in it (max of an empty set
  = -inf, so such gaps are +inf and contribute 0 below).  Gaps are in the unit of ``w(M)``
  (a sum over positions), as in Definition 3.
* Borda hardness (Definition 4): ``H^B = sum_e 1/(Delta^B_e)^2``.
* ``H^B_eps = sum_e min(width(G)^2/(Delta^B_e)^2, 1/eps^2)`` (Theorem 1).
* Theorem 3's explicit constant (App. B.6): ``0.2 gamma (1-gamma) (4 gamma l/(1-4 gamma))^2
  ln(1/delta) H^B``.

On 004's own example (Figures 1-4): ``B = 0.64`` for the Borda winner ``{e1, e5}`` and
``0.615`` for the Condorcet winner ``{e2, e5}`` (reproduced in the tests).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .instance import BORDA_TIE_TOL, CPEInstance, NoWinnerError, as_instance
from .matchings import (
    best_matching,
    constrained_best_values,
    matching_counts,
    maximum_matchings,
    sample_matchings,
    width,
)

__all__ = [
    "EdgeRewardEstimate",
    "edge_rewards",
    "estimate_edge_rewards",
    "estimate_edge_rewards_bytes",
    "check_sample_memory",
    "matching_reward",
    "borda_score",
    "borda_winner",
    "borda_gaps",
    "borda_hardness",
    "borda_pac_hardness",
    "borda_lower_bound",
]


def _check_w(inst: CPEInstance, w: ArrayLike | None) -> np.ndarray:
    if w is None:
        return edge_rewards(inst)
    w = np.asarray(getattr(w, "values", w), dtype=float)
    if w.shape != (inst.n_edges,):
        raise ValueError(f"edge rewards must have shape ({inst.n_edges},); got {w.shape}")
    return w


def edge_rewards(inst: CPEInstance, **limits: Any) -> np.ndarray:
    """Exact edge rewards ``w(e)`` of 004 eq. (4), indexed by edge.

    ``w(e) = (1/|M|) sum_{M} p_{e, e(M, s(e))} = sum_{e' in E_{s(e)}} p_{e,e'} |M_{e'}|/|M|``,
    with the counts from :func:`boundcalc.cpe.matching_counts` (exact subset DP; ``limits``
    are passed to it and it raises :class:`CPETooLargeError` past them -- then use
    :func:`estimate_edge_rewards`).  Vectorised per position.  For one position,
    ``w(i) = (1/K) sum_j p_ij`` (diagonal included).

    >>> from boundcalc.cpe import CPEInstance
    >>> edge_rewards(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]])).tolist()
    [0.6, 0.4]
    """
    inst = as_instance(inst)
    if "edge_rewards" in inst._cache:
        return inst._cache["edge_rewards"]
    frac = matching_counts(inst, **limits).fraction()
    w = np.empty(inst.n_edges)
    for ix, p in zip(inst.position_edges, inst.position_matrices):
        w[ix] = p @ frac[ix]
    w.setflags(write=False)
    inst._cache["edge_rewards"] = w
    return w


@dataclass(frozen=True)
class EdgeRewardEstimate:
    """Monte-Carlo edge rewards (see :func:`estimate_edge_rewards`).

    Attributes
    ----------
    values : ndarray (m,)
        Self-normalised importance-sampling estimates of ``w(e)``.
    stderr : ndarray (m,)
        Delta-method standard errors of ``values``.
    n_samples : int
        Samples drawn (dead ones included).
    effective_sample_size : float
        ``(sum W)^2 / sum W^2`` of the importance weights.
    log_count : float
        Natural log of the unbiased estimate ``mean(W)`` of ``|M|``.
    """

    values: np.ndarray
    stderr: np.ndarray
    n_samples: int
    effective_sample_size: float
    log_count: float


#: The most memory :func:`estimate_edge_rewards` may hold; more samples are refused before any is
#: drawn (:func:`estimate_edge_rewards_bytes`).
MAX_SAMPLE_BYTES = 2**32


def estimate_edge_rewards_bytes(inst: CPEInstance, n_samples: int) -> int:
    """The memory :func:`estimate_edge_rewards` holds at its peak, in bytes: per sample the
    candidates used (1 byte each), the matching (8 bytes a position), its weight, and a position's
    rewards and their squared deviations (24 bytes an edge of the position with the most edges).
    tracemalloc measured 0.85-0.90 of this at 21-40 positions, 25-60 candidates and 20,000 samples
    (``benchmarks/cpe_sampling_cost.py``, ``benchmarks/results/cpe_sampling_cost.json``)."""
    inst = as_instance(inst)
    widest = max((len(ix) for ix in inst.position_edges), default=0)
    return int(n_samples) * (inst.n_candidates + 8 * inst.n_positions + 8 + 24 * widest)


def check_sample_memory(inst: CPEInstance, n_samples: int) -> None:
    """Refuse (``ValueError``, one line with the size and the most samples that fit) a Monte-Carlo
    estimate whose memory (:func:`estimate_edge_rewards_bytes`) exceeds :data:`MAX_SAMPLE_BYTES`."""
    need = estimate_edge_rewards_bytes(inst, n_samples)
    if need > MAX_SAMPLE_BYTES:
        fits = n_samples * MAX_SAMPLE_BYTES // need
        raise ValueError(
            f"{n_samples:,} Monte-Carlo samples of this instance ({inst.n_positions} positions,"
            f" {inst.n_candidates} candidates) hold about {need / 2**30:.3g} GiB, more than the"
            f" {MAX_SAMPLE_BYTES / 2**30:g} GiB limit; ask for at most {fits:,} samples (--monte-carlo)"
        )


def estimate_edge_rewards(
    inst: CPEInstance, n_samples: int = 20_000, rng: np.random.Generator | int | None = None
) -> EdgeRewardEstimate:
    """Monte-Carlo ``w(e)`` (004 eq. (4)) for instances too large for the exact subset DP.

    Draws maximum matchings by sequential importance sampling
    (:func:`boundcalc.cpe.sample_matchings`) and returns, for each edge, the self-normalised
    estimate ``sum_k W_k p_{e, e(M_k, s(e))} / sum_k W_k`` with the delta-method standard error
    ``sqrt(sum_k W_k^2 (X_k - w_hat)^2) / sum_k W_k``.  Consistent as ``n_samples -> inf``
    (bias O(1/n)); the error shrinks like ``1/sqrt(effective_sample_size)``.  004 itself
    estimates ``w(e)`` online with an almost-uniform sampler (Sec. 3.1); this estimator is
    boundcalc's offline substitute.  The result can be passed as ``w=`` to the Borda functions.

    >>> from boundcalc.cpe import CPEInstance
    >>> est = estimate_edge_rewards(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), 2000, rng=1)
    >>> bool(abs(est.values[0] - 0.6) < 5 * est.stderr[0] + 1e-12)
    True
    """
    inst = as_instance(inst)
    check_sample_memory(inst, n_samples)
    M, logw = sample_matchings(inst, n_samples, rng)
    if not np.isfinite(logw).any():
        raise RuntimeError(
            f"all {n_samples} importance samples died (no free candidate at some position); increase n_samples"
        )
    mx = logw[np.isfinite(logw)].max()
    W = np.where(np.isfinite(logw), np.exp(logw - mx), 0.0)
    sW = W.sum()
    Wn = W / sW
    values = np.empty(inst.n_edges)
    se = np.empty(inst.n_edges)
    live = W > 0
    for j, (ix, p) in enumerate(zip(inst.position_edges, inst.position_matrices)):
        loc = np.where(live, M[:, j] - ix[0], 0)
        X = p[:, loc]  # (d, S): p_{e, e(M_k, j)}
        v = X @ Wn
        values[ix] = v
        se[ix] = np.sqrt(((X - v[:, None]) ** 2) @ (Wn**2))
    ess = float(sW**2 / (W**2).sum())
    log_count = float(mx + math.log(sW / len(W)))
    return EdgeRewardEstimate(values, se, int(n_samples), ess, log_count)


def matching_reward(inst: CPEInstance, matching: Iterable, w: ArrayLike | None = None) -> float:
    """``w(M) = sum_{e in M} w(e)`` (004 eq. (4)), which equals ``l B(M)``.

    >>> from boundcalc.cpe import CPEInstance
    >>> matching_reward(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), [0])
    0.6
    """
    inst = as_instance(inst)
    M = inst.as_matching(matching)
    w = _check_w(inst, w)
    return float(sum(w[e] for e in M))


def borda_score(inst: CPEInstance, matching: Iterable, w: ArrayLike | None = None) -> float:
    """Borda score ``B(M) = (1/|M|) sum_{M'} f(M, M') = w(M)/l`` (004 eqs. (2) and (4)).

    >>> from boundcalc.cpe import CPEInstance
    >>> borda_score(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), [1])
    0.4
    """
    inst = as_instance(inst)
    return matching_reward(inst, matching, w) / inst.n_positions


def _winner_and_gaps(inst: CPEInstance, w: ArrayLike | None) -> tuple[tuple, np.ndarray]:
    key = "borda" if w is None else None
    if key and key in inst._cache:
        return inst._cache[key]
    w = _check_w(inst, w)
    best, M = best_matching(inst, w)
    others = constrained_best_values(inst, w, M)
    gaps = best - others  # +inf where the constrained set is empty
    tol = BORDA_TIE_TOL * inst.n_positions
    inM = np.zeros(inst.n_edges, dtype=bool)
    inM[list(M)] = True
    tied = np.flatnonzero(gaps <= tol)
    if tied.size:
        e = int(tied[0])
        _, rival = best_matching(inst, w, exclude=e) if inM[e] else best_matching(inst, w, include=e)
        assert rival is not None  # a finite gap: the constrained maximum exists
        raise NoWinnerError(
            f"no unique Borda winner: {inst.matching_edges(M)} and {inst.matching_edges(rival)} both "
            f"have reward w(M) = {best!r} (within {tol:g}); 004 (Sec. 2) assumes a unique Borda winner"
        )
    gaps.setflags(write=False)
    out = (M, gaps)
    if key:
        inst._cache[key] = out
    return out


def borda_winner(inst: CPEInstance, w: ArrayLike | None = None) -> tuple:
    """The Borda winner ``M^B_* = argmax_M B(M) = argmax_M w(M)`` (004 eqs. (3)-(4)), as edge indices.

    Found with the MWMC oracle (maximum-weight maximum matching).  ``w`` defaults to the exact
    :func:`edge_rewards`; pass an estimate to use it instead.  Raises :class:`NoWinnerError`
    when another matching ties (004 assumes uniqueness).

    >>> from boundcalc.cpe import CPEInstance
    >>> borda_winner(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]))
    (0,)
    """
    inst = as_instance(inst)
    return _winner_and_gaps(inst, w)[0]


def borda_gaps(inst: CPEInstance, w: ArrayLike | None = None) -> np.ndarray:
    """Borda gaps ``Delta^B_e`` of 004 Definition 3, indexed by edge (``inf`` for an empty constraint set).

    For ``e`` outside ``M^B_*``: ``w(M^B_*) - max_{M: e in M} w(M)``; for ``e`` in it:
    ``w(M^B_*) - max_{M: e not in M} w(M)`` -- one constrained max-weight matching per edge.
    One position: ``Delta^B_i = w(i*) - w(i)``, and ``w(i*) - max_{j != i*} w(j)`` for the winner.

    >>> from boundcalc.cpe import CPEInstance
    >>> [round(float(g), 12) for g in borda_gaps(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]))]
    [0.2, 0.2]
    """
    inst = as_instance(inst)
    return _winner_and_gaps(inst, w)[1]


def borda_hardness(inst: CPEInstance, w: ArrayLike | None = None) -> float:
    """Borda hardness ``H^B = sum_e 1/(Delta^B_e)^2`` (004 Definition 4; infinite gaps add 0).

    >>> from boundcalc.cpe import CPEInstance
    >>> round(borda_hardness(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]])), 9)
    50.0
    """
    g = borda_gaps(inst, w)
    return float(np.sum(1.0 / g**2))


def borda_pac_hardness(
    inst: CPEInstance, eps: float, w: ArrayLike | None = None, *, width_value: int | None = None
) -> float:
    """``H^B_eps = sum_e min(width(G)^2/(Delta^B_e)^2, 1/eps^2)`` of 004 Theorem 1.

    Theorem 1 bounds CLUCB-Borda-PAC's sample complexity by ``O(H^B_eps ln(H^B_eps/delta))``.
    ``width_value`` overrides :func:`boundcalc.cpe.width` (exponential search).  Read literally,
    as Theorem 1 writes it: the gaps ``Delta^B_e`` are in reward units (``w = l B``, Definition 4)
    while ``eps`` is an accuracy on the Borda score ``B`` (as in CLUCB-Borda-PAC's ``l eps`` stop);
    with one position (``l = 1``) the two units agree.

    >>> from boundcalc.cpe import CPEInstance
    >>> round(borda_pac_hardness(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), 0.1), 9)
    200.0
    """
    if not eps > 0:
        raise ValueError(f"eps must be > 0; got {eps}")
    inst = as_instance(inst)
    g = borda_gaps(inst, w)
    wd = width(inst) if width_value is None else int(width_value)
    with np.errstate(over="ignore", divide="ignore"):  # eps**2 may underflow: the cap is then infinite
        cap = np.float64(1.0) / np.square(np.float64(eps))
    return float(np.sum(np.minimum(wd**2 / g**2, cap)))


def borda_lower_bound(
    inst: CPEInstance, gamma: float, delta: float, w: ArrayLike | None = None, *, check: bool = True
) -> float:
    """Theorem 3's explicit lower bound (004 App. B.6) on the expected number of duels.

    ``0.2 gamma (1 - gamma) (4 gamma l / (1 - 4 gamma))^2 ln(1/delta) H^B``, valid for any
    delta-correct algorithm when ``delta in (0, 0.1)``, ``gamma in (0, 1/4)``,
    ``|p_{e,e'} - 1/2| <= gamma`` for every comparable pair (004 writes "all e_i, e_j in E";
    incomparable entries are 0 by convention, so the condition is read on comparable pairs),
    and ``|M| / (|M| - |M_e|) <= (1 - 4 gamma)/(4 gamma l)`` for every edge.  With
    ``check=True`` (default) violated conditions raise ``ValueError``; ``check=False``
    evaluates the expression regardless (then it is not a proven bound).

    >>> from boundcalc.cpe import CPEInstance
    >>> inst = CPEInstance.from_matrix([[0.5, 0.52, 0.53], [0.48, 0.5, 0.51], [0.47, 0.49, 0.5]])
    >>> round(borda_lower_bound(inst, gamma=0.05, delta=0.05), 6)
    10.869931
    """
    inst = as_instance(inst)
    if check:
        if not 0 < delta < 0.1:
            raise ValueError(f"Theorem 3 needs delta in (0, 0.1); got {delta}")
        if not 0 < gamma < 0.25:
            raise ValueError(f"Theorem 3 needs gamma in (0, 1/4); got {gamma}")
        dev = max(float(np.max(np.abs(p - 0.5))) for p in inst.position_matrices)
        if dev > gamma + 1e-15:
            raise ValueError(
                f"Theorem 3 needs |p - 1/2| <= gamma = {gamma} on comparable pairs; the instance has {dev}"
            )
        counts = matching_counts(inst)
        lim = (1 - 4 * gamma) / (4 * gamma * inst.n_positions)
        for e, me in enumerate(counts.per_edge):
            ratio = math.inf if me == counts.total else counts.total / (counts.total - me)
            if ratio > lim:
                raise ValueError(
                    f"Theorem 3 needs |M|/(|M| - |M_e|) <= (1 - 4 gamma)/(4 gamma l) = {lim:.6g}; edge "
                    f"{inst.edges[e]} has {ratio:.6g}"
                )
    elif not (0 < gamma < 0.25 and 0 < delta < 1):
        raise ValueError("the expression needs gamma in (0, 1/4) and delta in (0, 1)")
    l = inst.n_positions
    H = borda_hardness(inst, w)
    return float(0.2 * gamma * (1 - gamma) * (4 * gamma * l / (1 - 4 * gamma)) ** 2 * -math.log(delta) * H)


def borda_scores_by_enumeration(inst: CPEInstance) -> tuple[np.ndarray, np.ndarray]:
    """``(matchings, B)``: every maximum matching and its Borda score from the definition, eq. (2).

    Brute force (``O(|M|^2 l)``), independent of the counting DP; for checks on small instances.
    """
    inst = as_instance(inst)
    Ms = maximum_matchings(inst)
    F = pairwise_preferences(inst, Ms)
    return Ms, F.mean(axis=1)


def pairwise_preferences(inst: CPEInstance, Ms: np.ndarray) -> np.ndarray:
    """``F[a, b] = f(M_a, M_b, P)`` (004 eq. (1)) for the rows of ``Ms`` (vectorised)."""
    inst = as_instance(inst)
    Ms = np.asarray(Ms, dtype=np.intp)
    F = np.zeros((len(Ms), len(Ms)))
    for j, (ix, p) in enumerate(zip(inst.position_edges, inst.position_matrices)):
        loc = Ms[:, j] - ix[0]
        F += p[np.ix_(loc, loc)]
    return F / inst.n_positions
