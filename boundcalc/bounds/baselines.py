"""The regret bounds of the classical baselines that state only an order.

* ``if2_hardness`` -- Interleaved Filter 2 (Yue, Broder, Kleinberg & Joachims, JCSS 2012, the IF2
  regret theorem): under a total order with strong stochastic transitivity and the stochastic
  triangle inequality, ``E[R_T] = O((K / eps_{1,2}) log T)`` with ``eps_{1,2} = P(b_1 > b_2) - 1/2``,
  ``b_1`` the best and ``b_2`` the second-best arm.  boundcalc reports ``K / eps_{1,2}``, reading
  ``eps_{1,2}`` as the Condorcet winner's smallest margin ``min_{j != w} (mu_wj - 1/2)`` (under
  strong stochastic transitivity the second-best arm is the one the winner beats by least); no
  Condorcet winner: not applicable.  Zoghi, Whiteson, Munos & de Rijke (ICML 2014, PMLR v32
  ``zoghi14.pdf``, Sec. 3) restate it as ``E[R_T^{IF_T}] <= C K log T / Delta_min``, ``C`` a
  universal constant and ``Delta_min`` the best arm's smallest gap ``p_1j - 1/2`` -- the same
  reading of ``eps_{1,2}``.
* ``ws_s_hardness`` -- Winner Stays for strong regret (Chen & Frazier, ICML 2017; its abstract:
  "WS for strong regret (WS-S) has expected cumulative strong regret of O(N^2 + N log(T))"): the
  coefficient of ``log T`` is of order ``N = K``, which is what the row reports, with the
  paper's assumption (a Condorcet winner) checked.

* ``versatile_db_hardness`` -- Versatile-DB (Saha & Gaillard, ICML 2022; its abstract, as the
  ICML 2022 virtual page ``icml.cc/virtual/2022/spotlight/18326`` prints it: "an optimal
  O(sum_{i=1}^K log T / Delta_i) regret bound against the Condorcet-winner benchmark"): boundcalc
  reports ``sum_{i != w} 1 / Delta_i``, reading ``Delta_i`` as the Condorcet winner's margin over
  ``i``, ``mu_wi - 1/2`` (the winner's own term, ``Delta_w = 0``, is left out of the sum); no
  Condorcet winner: not applicable.
* ``merge_rucb_order`` -- MergeRUCB (Zoghi, Whiteson & de Rijke, WSDM 2015): its theorem is not
  in the text available here (the abstract states none); ``bengsV/duelpy``'s MergeRUCB
  docstring (``duelpy/algorithms/merge_rucb.py``) states "The regret is bounded
  by O(N log T)", which is what the row reports (``N = K``), with the Condorcet assumption checked.

* ``btm_order`` -- Beat-the-Mean (Yue & Joachims, ICML 2011), online setting.  The bound is
  taken as Zoghi,
  Whiteson, Munos & de Rijke restate it (ICML 2014, "Relative Upper Confidence Bound for the K-Armed
  Dueling Bandit Problem", PMLR v32 ``zoghi14.pdf``, Sec. 3 "Related Work", second display):
  "R_T^{BTM_T} <= C' gamma^7 K log T / Delta_min with high probability", ``C'`` a universal
  constant, ``Delta_min`` the smallest gap ``Delta_j := p_1j - 1/2`` of the best arm ``a_1``, the
  bound holding "for gamma >= 1" and sharp at ``gamma = 1``; with a total order of the arms, the
  stochastic triangle inequality and relaxed stochastic transitivity (RST) assumed.  RST is read
  from the same paper's supplement (``zoghi14-supp.pdf``, Sec. 8.1): "there exists a number
  gamma >= 1 such that for all pairs (j, k) with 1 < j < k, we have gamma p_1k >= max{p_1j, p_jk}".
  Reading: the ``p`` there are the margins ``mu - 1/2`` (with probabilities ``gamma = 2`` would
  always do, yet the supplement reports ``gamma`` = 4.85, 11.6 and 47.3 for its 16-, 32- and 64-arm
  rankers), so boundcalc computes the matrix's smallest ``gamma``,
  ``max(1, max_{1<j<k} max(Delta_1j, Delta_jk) / Delta_1k)`` with the arms in their total order,
  and reports ``gamma^7 K / Delta_min``.  A matrix with no total order is not applicable (the
  stochastic triangle inequality, also assumed, is not checked: its definition was not read).
  (``bengsV/duelpy``'s docstring, which this row followed before, writes ``gamma^7`` for a
  ``gamma`` in ``(0, 1]``, the inverse convention, under which the bound would shrink as the
  problem gets harder: not the paper's statement.)
* ``doubler_order`` -- Doubler (Ailon, Karnin & Joachims, ICML 2014, "Reducing Dueling Bandits to
  Cardinal Bandits", PMLR v32 ``ailon14.pdf``), read in the paper: Corollary 3.3 (Sec. 3), "Consider
  a UBDB game over a finite set X of cardinality K. Let Delta_i be the difference between the reward
  of the best arm and the i'th best arm.  Assume the SBM S in Line 1 of Doubler is UCB.  Then the
  expected regret of Doubler is at most O(H log^2(T)) where H := sum_{i=2}^K Delta_i^{-1}".  Its
  Theorem 3.1 states a constant only relative to the SBM's (an SBM with expected regret
  ``c log^alpha T`` for all ``T`` gives Doubler at most ``2c alpha/(alpha+1) log^{alpha+1} T``), and
  Lemma 2.2's UCB bound ``2(alpha+2) H ln T + K (alpha+2)/alpha`` is not of that form (its additive
  term), so the corollary states an order only: the row reports ``H``, and says that the rate is
  ``log^2 T``, not ``log T``.  The game's regret is measured in utilities with the linear link of
  Sec. 2 (``P(y beats x) = (1 + u_y - u_x) / 2``), so the utility gap of arm ``i`` below the winner
  ``w`` is ``Delta_i = 2 (mu_wi - 1/2)``, exactly where the matrix follows the linear link; the row
  reads ``Delta_i`` so on any matrix with a Condorcet winner and reports in ``extra`` how far the
  matrix is from the linear link (``linear_link_max_error``: 0 where the corollary's model holds).

All six are hardnesses in the sense of :mod:`boundcalc.bounds.savage`: numbers inside an ``O(.)``
with no published constant, so no unit and no conversion to 000's.  The other baselines' papers
state no regret bound for the policy as run here (RCS, Self-Sparring's dueling case, Sparring
with UCB1), or state none that boundcalc can cite (MergeDTS's, Li, Markov, de Rijke & Zoghi, TOIS
2020, arXiv 1812.04412: neither its abstract nor its authors' code ``chang-li/MergeDTS`` states an
order -- so there is no row rather than a guessed order), or their constant is already a row (RMED2FH's is the
Condorcet lower bound, ``rmed_lb``): they have no row.

>>> r = if2_hardness([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
>>> round(r.value, 6), r.unit                # K / eps_12 = 3 / 0.1
(30.0, 'hardness (no unit)')
>>> ws_s_hardness([[0.5, 0.6], [0.4, 0.5]]).value
2.0
>>> round(versatile_db_hardness([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]).value, 6)   # 1/.1 + 1/.2
15.0
>>> b = btm_order([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])   # gamma = max(.1, .3) / .2
>>> round(b.extra["gamma"], 12), round(b.value, 6)                           # 1.5^7 3 / .1
(1.5, 512.578125)
>>> round(doubler_order([[0.5, 0.7, 0.9], [0.3, 0.5, 0.7], [0.1, 0.3, 0.5]]).value, 6)  # 1/.4 + 1/.8
3.75
"""

from __future__ import annotations

import numpy as np

from ..matrix import MatrixLike, as_preference_matrix
from ..registry import Context, register_constant
from ..result import Result
from ..units import UNIT_HARDNESS

__all__ = [
    "if2_hardness",
    "ws_s_hardness",
    "versatile_db_hardness",
    "merge_rucb_order",
    "btm_order",
    "doubler_order",
    "total_order",
    "rst_gamma",
]

IF2 = register_constant(
    "if2_hardness",
    unit=UNIT_HARDNESS,
    source="Yue, Broder, Kleinberg & Joachims 2012 (JCSS), IF2's regret O((K / eps_12) log T) (order only)",
    order=170,
)
WSS = register_constant(
    "ws_s_hardness",
    unit=UNIT_HARDNESS,
    source="Chen & Frazier 2017 (ICML), WS-S's strong regret O(N^2 + N log T) (order only)",
    order=180,
)

VDB = register_constant(
    "versatile_db_hardness",
    unit=UNIT_HARDNESS,
    source="Saha & Gaillard 2022 (ICML), Versatile-DB's regret O(sum_i log T / Delta_i) (order only)",
    order=190,
)
MRUCB = register_constant(
    "merge_rucb_order",
    unit=UNIT_HARDNESS,
    source="Zoghi, Whiteson & de Rijke 2015 (WSDM), MergeRUCB's regret O(K log T) as duelpy states it (order only)",
    order=200,
)

BTM = register_constant(
    "btm_order",
    unit=UNIT_HARDNESS,
    source=(
        "Yue & Joachims 2011 (ICML), Beat-the-Mean's regret O(gamma^7 K log T / Delta_min) w.h.p. as Zoghi et al."
        " 2014 (ICML, Sec. 3) restate it, gamma the matrix's RST parameter (order only)"
    ),
    order=210,
)

DOUBLER = register_constant(
    "doubler_order",
    unit=UNIT_HARDNESS,
    source=(
        "Ailon, Karnin & Joachims 2014 (ICML), Doubler with UCB: regret O(H log^2 T), H = sum_i 1/Delta_i"
        " (Corollary 3.3; order only, log^2 T)"
    ),
    order=220,
)

_NO_CW = "no Condorcet winner (the paper assumes one)"


def if2_hardness(matrix: MatrixLike) -> Result:
    """``K / eps_{1,2}``, ``eps_{1,2} = min_{j != w} (mu_wj - 1/2)`` for the Condorcet winner ``w``:
    IF2's regret ``O((K / eps_{1,2}) log T)`` (Yue et al. 2012), a hardness with no constant.

    >>> if2_hardness([[0.5, 0.4, 0.6], [0.6, 0.5, 0.4], [0.4, 0.6, 0.5]]).status   # a 3-cycle
    'not-applicable'
    """
    pm = as_preference_matrix(matrix)
    w = pm.condorcet_winner
    if w is None:
        return IF2.not_applicable(_NO_CW)
    margins = np.delete(pm.mu[w] - 0.5, w)
    eps = float(margins.min())
    return IF2.result(
        pm.K / eps,
        extra={
            "label": "K / eps_12",
            "winner": int(w),
            "eps_12": eps,
            "note": "O(.) only: the theorem's constant is not reproduced here; eps_12 read as the winner's smallest margin",
        },
    )


def ws_s_hardness(matrix: MatrixLike) -> Result:
    """``N = K``: the order of the ``log T`` coefficient of WS-S's strong regret ``O(N^2 + N log T)``
    (Chen & Frazier 2017), with its Condorcet assumption checked; a hardness with no constant."""
    pm = as_preference_matrix(matrix)
    w = pm.condorcet_winner
    if w is None:
        return WSS.not_applicable(_NO_CW)
    return WSS.result(
        float(pm.K),
        extra={
            "label": "N (the log T term of O(N^2 + N log T))",
            "winner": int(w),
            "note": "O(.) only: the paper's abstract states the order, no constant",
        },
    )


@IF2
def _if2_row(ctx: Context) -> Result:
    return if2_hardness(ctx.pm)


@WSS
def _wss_row(ctx: Context) -> Result:
    return ws_s_hardness(ctx.pm)


def versatile_db_hardness(matrix: MatrixLike) -> Result:
    """``sum_{i != w} 1 / (mu_wi - 1/2)`` for the Condorcet winner ``w``: Versatile-DB's regret
    ``O(sum_i log T / Delta_i)`` (Saha & Gaillard 2022), a hardness with no constant."""
    pm = as_preference_matrix(matrix)
    w = pm.condorcet_winner
    if w is None:
        return VDB.not_applicable(_NO_CW)
    gaps = np.delete(pm.mu[w] - 0.5, w)
    return VDB.result(
        float(np.sum(1.0 / gaps)),
        extra={
            "label": "sum_i 1 / Delta_i",
            "winner": int(w),
            "gaps": gaps.tolist(),
            "note": "O(.) only: the abstract states the order; Delta_i read as the winner's margin over i",
        },
    )


def merge_rucb_order(matrix: MatrixLike) -> Result:
    """``K``: the order of the ``log T`` coefficient of MergeRUCB's regret ``O(K log T)`` as
    ``bengsV/duelpy`` states it, with the Condorcet assumption checked; a hardness with no constant."""
    pm = as_preference_matrix(matrix)
    w = pm.condorcet_winner
    if w is None:
        return MRUCB.not_applicable(_NO_CW)
    return MRUCB.result(
        float(pm.K),
        extra={
            "label": "K (the log T term of O(K log T))",
            "winner": int(w),
            "note": "O(.) only: the paper's theorem was not read; duelpy's docstring states the order",
        },
    )


@VDB
def _vdb_row(ctx: Context) -> Result:
    return versatile_db_hardness(ctx.pm)


@MRUCB
def _mrucb_row(ctx: Context) -> Result:
    return merge_rucb_order(ctx.pm)


def total_order(matrix: MatrixLike) -> np.ndarray | None:
    """The arms from best to worst when the matrix is a total order (every arm beats every arm after
    it: the Copeland losses are ``0, 1, ..., K - 1``), else None.

    >>> total_order([[0.5, 0.4, 0.7], [0.6, 0.5, 0.8], [0.3, 0.2, 0.5]]).tolist()
    [1, 0, 2]
    >>> total_order([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]]) is None   # a 3-cycle
    True
    """
    pm = as_preference_matrix(matrix)
    if not np.array_equal(pm.L_sorted, np.arange(pm.K)):
        return None
    return np.argsort(pm.L, kind="stable")


def rst_gamma(matrix: MatrixLike) -> float | None:
    """The smallest relaxed-stochastic-transitivity parameter ``gamma >= 1`` of a totally ordered
    matrix, ``max(1, max_{1<j<k} max(Delta_1j, Delta_jk) / Delta_1k)`` with the arms ranked
    ``1, ..., K`` and ``Delta_ab = mu_ab - 1/2`` (Zoghi et al., ICML 2014, supplement Sec. 8.1:
    "gamma p_1k >= max{p_1j, p_jk}", its ``p`` read as margins: see the module text); None without
    a total order.

    >>> round(rst_gamma([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]), 12)   # max(.1, .3) / .2
    1.5
    """
    order = total_order(matrix)
    if order is None:
        return None
    pm = as_preference_matrix(matrix)
    d = pm.mu[np.ix_(order, order)] - 0.5  # margins with the arms ranked best to worst
    gamma = 1.0
    for j in range(1, pm.K - 1):
        for k in range(j + 1, pm.K):
            gamma = max(gamma, max(float(d[0, j]), float(d[j, k])) / float(d[0, k]))
    return gamma


def btm_order(matrix: MatrixLike, gamma: float | None = None) -> Result:
    """``gamma^7 K / Delta_min``: Beat-the-Mean's regret ``R_T <= C' gamma^7 K log T / Delta_min``
    with high probability (Yue & Joachims 2011, as Zoghi et al., ICML 2014, Sec. 3 restate it; ``C'``
    a universal constant, so an order), ``Delta_min = min_{j != 1} (mu_1j - 1/2)`` for the best arm.

    ``gamma`` (``>= 1``) is the relaxed stochastic transitivity the bound assumes; by default (and in
    ``compare``) the matrix's own smallest one, :func:`rst_gamma`; a ``gamma`` below it is refused
    (the assumption would not hold).  The bound assumes a total order of the arms: without one, not
    applicable.

    >>> btm_order([[0.5, 0.6], [0.4, 0.5]], gamma=0.5)
    Traceback (most recent call last):
    ...
    ValueError: btm_order: gamma must be >= 1 (relaxed stochastic transitivity, gamma = 1 being strong stochastic transitivity; Zoghi et al. 2014 Sec. 3); got 0.5
    """
    if gamma is not None:
        g = float(gamma)
        if not g >= 1.0 or not np.isfinite(g):  # also refuses NaN
            raise ValueError(
                "btm_order: gamma must be >= 1 (relaxed stochastic transitivity, gamma = 1 being strong stochastic"
                f" transitivity; Zoghi et al. 2014 Sec. 3); got {gamma}"
            )
    pm = as_preference_matrix(matrix)
    order = total_order(pm)
    if order is None:
        return BTM.not_applicable("no total order of the arms (Beat-the-Mean's bound assumes one)")
    g_min = rst_gamma(pm)
    assert g_min is not None
    if gamma is None:
        g = g_min
    elif g < g_min:
        raise ValueError(
            f"btm_order: relaxed stochastic transitivity does not hold with gamma = {gamma}: this matrix needs"
            f" gamma >= {g_min:.6g}"
        )
    w = int(order[0])
    eps = float(np.delete(pm.mu[w] - 0.5, w).min())
    return BTM.result(
        g**7 * pm.K / eps,
        extra={
            "label": "gamma^7 K / Delta_min",
            "winner": w,
            "delta_min": eps,
            "gamma": g,
            "gamma_of_matrix": g_min,
            "note": (
                "O(.) only (C' a universal constant): Zoghi et al. 2014's restatement; gamma the matrix's smallest"
                " relaxed stochastic transitivity unless given; the stochastic triangle inequality is not checked"
            ),
        },
    )


def doubler_order(matrix: MatrixLike) -> Result:
    """``H = sum_{i != w} 1 / Delta_i`` with the utility gaps ``Delta_i = 2 (mu_wi - 1/2)``: Doubler's
    expected regret ``O(H log^2 T)`` with UCB as its SBM (Ailon, Karnin & Joachims 2014, Corollary
    3.3), an order whose rate is ``log^2 T``.  ``Delta_i`` is the utility gap exactly under the
    paper's linear link (Sec. 2); ``extra["linear_link_max_error"]`` is the largest
    ``|mu_ij - (1/2 + (mu_wj - mu_wi))|``, 0 where the matrix follows it.  No Condorcet winner: not
    applicable.

    >>> r = doubler_order([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])  # 1/.2 + 1/.4
    >>> round(r.value, 12), round(r.extra["linear_link_max_error"], 12)           # mu_12: .8, linear .6
    (7.5, 0.2)
    """
    pm = as_preference_matrix(matrix)
    w = pm.condorcet_winner
    if w is None:
        return DOUBLER.not_applicable(_NO_CW)
    margin = pm.mu[w] - 0.5  # mu_wi - 1/2; 0 for the winner itself
    gaps = 2.0 * np.delete(margin, w)
    linear = 0.5 + margin[None, :] - margin[:, None]  # 1/2 + (u_i - u_j)/2 with u_i = -2 (mu_wi - 1/2)
    return DOUBLER.result(
        float(np.sum(1.0 / gaps)),
        extra={
            "label": "H = sum_i 1 / Delta_i (O(H log^2 T))",
            "winner": int(w),
            "utility_gaps": gaps.tolist(),
            "log_power": 2,
            "linear_link_max_error": float(np.max(np.abs(pm.mu - linear))),
            "note": (
                "O(.) only, and of H log^2 T (not log T); Delta_i = 2 (mu_wi - 1/2), the utility gap under the"
                " paper's linear link"
            ),
        },
    )


@BTM
def _btm_row(ctx: Context) -> Result:
    return btm_order(ctx.pm)


@DOUBLER
def _doubler_row(ctx: Context) -> Result:
    return doubler_order(ctx.pm)
