"""The regret bounds of the classical baselines (issue 34) that state only an order.

* ``if2_hardness`` -- Interleaved Filter 2 (Yue, Broder, Kleinberg & Joachims, JCSS 2012, the IF2
  regret theorem): under a total order with strong stochastic transitivity and the stochastic
  triangle inequality, ``E[R_T] = O((K / eps_{1,2}) log T)`` with ``eps_{1,2} = P(b_1 > b_2) - 1/2``,
  ``b_1`` the best and ``b_2`` the second-best arm.  boundcalc reports ``K / eps_{1,2}``, reading
  ``eps_{1,2}`` as the Condorcet winner's smallest margin ``min_{j != w} (mu_wj - 1/2)`` (under
  strong stochastic transitivity the second-best arm is the one the winner beats by least); no
  Condorcet winner: not applicable.
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
* ``merge_rucb_order`` -- MergeRUCB (Zoghi, Whiteson & de Rijke, WSDM 2015): its theorem was not
  read (the ``search`` tool returns the abstract, which states none); ``bengsV/duelpy``'s MergeRUCB
  docstring (``duelpy/algorithms/merge_rucb.py``, commit ``2e6b37eb``) states "The regret is bounded
  by O(N log T)", which is what the row reports (``N = K``), with the Condorcet assumption checked.

* ``btm_order`` -- Beat-the-Mean (Yue & Joachims, ICML 2011), online setting: the paper's regret
  theorem was not read -- the ``search`` tool returns the openings of the paper's pages
  (``studylib.net/doc/7967687``, ``mafiadoc.com``: abstract and introduction), not its Sec. 5 --
  so its constants are not reproduced.  ``bengsV/duelpy``'s Beat-the-Mean docstring
  (``duelpy/algorithms/beat_the_mean.py``, commit ``adf355b8``) states "a high probability
  cumulative regret bound of O(gamma^7 N / eps_* log T)", ``eps_*`` the best arm's winning
  probability against the second best minus 1/2, ``gamma`` the relaxed stochastic transitivity
  assumed; boundcalc reports ``gamma^7 K / eps_*`` with ``gamma = 1`` (strong stochastic
  transitivity, the policy's default ``gamma``), reading ``eps_*`` as IF2's ``eps_{1,2}`` above
  (the winner's smallest margin), so that with ``gamma = 1`` the number equals ``if2_hardness``:
  the two papers state the same order.

All five are hardnesses in the sense of :mod:`boundcalc.bounds.savage`: numbers inside an ``O(.)``
with no published constant, so no unit and no conversion to 000's.  The other baselines' papers
state no regret bound for the policy as run here (RCS, Self-Sparring's dueling case, Sparring
with UCB1), were not found (Doubler's, Ailon, Karnin & Joachims ICML 2014, and MergeDTS's, Li et
al. TOIS 2020: the ``search`` tool returns their abstracts and pages' openings, which state no
order, and no implementation read states one either -- so there is no row rather than a guessed
order), or their constant is already a row (RMED2FH's is the Condorcet lower bound, ``rmed_lb``):
they have no row.

>>> r = if2_hardness([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
>>> round(r.value, 6), r.unit                # K / eps_12 = 3 / 0.1
(30.0, 'hardness (no unit)')
>>> ws_s_hardness([[0.5, 0.6], [0.4, 0.5]]).value
2.0
>>> round(versatile_db_hardness([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]).value, 6)   # 1/.1 + 1/.2
15.0
>>> round(btm_order([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]], gamma=0.8).value, 6)   # .8^7 3 / .1
6.291456
"""

from __future__ import annotations

import numpy as np

from ..matrix import MatrixLike, as_preference_matrix
from ..registry import Context, register_constant
from ..result import Result
from ..units import UNIT_HARDNESS

__all__ = ["if2_hardness", "ws_s_hardness", "versatile_db_hardness", "merge_rucb_order", "btm_order"]

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
        "Yue & Joachims 2011 (ICML), Beat-the-Mean's online regret O(gamma^7 K / eps_* log T) as duelpy"
        " states it, gamma = 1 (order only)"
    ),
    order=210,
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


def btm_order(matrix: MatrixLike, gamma: float = 1.0) -> Result:
    """``gamma^7 K / eps_*``, ``eps_* = min_{j != w} (mu_wj - 1/2)`` for the Condorcet winner ``w``:
    Beat-the-Mean's online regret ``O((gamma^7 K / eps_*) log T)`` as ``bengsV/duelpy`` states it
    (module text), a hardness with no constant; ``gamma`` in ``(0, 1]`` is the relaxed stochastic
    transitivity the bound assumes (``compare``'s row: ``gamma = 1``).

    >>> btm_order([[0.5, 0.6], [0.4, 0.5]], gamma=1.5)
    Traceback (most recent call last):
    ...
    ValueError: btm_order: gamma must be in (0, 1] (the relaxed stochastic transitivity of Yue & Joachims 2011); got 1.5
    """
    g = float(gamma)
    if not 0.0 < g <= 1.0:  # also refuses NaN
        raise ValueError(
            "btm_order: gamma must be in (0, 1] (the relaxed stochastic transitivity of Yue & Joachims 2011);"
            f" got {gamma}"
        )
    pm = as_preference_matrix(matrix)
    w = pm.condorcet_winner
    if w is None:
        return BTM.not_applicable(_NO_CW)
    eps = float(np.delete(pm.mu[w] - 0.5, w).min())
    return BTM.result(
        g**7 * pm.K / eps,
        extra={
            "label": "gamma^7 K / eps_*",
            "winner": int(w),
            "eps_star": eps,
            "gamma": g,
            "note": "O(.) only: the paper's theorem was not read; duelpy's docstring states the order",
        },
    )


@BTM
def _btm_row(ctx: Context) -> Result:
    return btm_order(ctx.pm)
