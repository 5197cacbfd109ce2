"""SCB's hardness (Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015 = paper 002, Theorem 5).

002 Definition 4 (with the approximation parameter epsilon = 0, the regret setting):

* ``cpld(a_i) = (K - 1 - L_i) / (K - 1)`` (normalised Copeland score), ``a_1`` a Copeland winner;
* ``Delta_i = max(cpld(a_1) - cpld(a_i), 1/(K - 1))``;
* ``H_i = sum_{j != i} 1 / Delta_ij^2`` with ``Delta_ij = |p_ij - 1/2|``, ``H_1 = max_i H_i``.

Theorem 5: the expected regret of SCB is
``O( (1/K) sum_i H_i (1 - cpld(a_i)) / Delta_i^2 * log T )`` (from Lemma 6 by the squaring
trick), which in turn is ``O(K (L_C + log K) / Delta_min^2 * log T)``.  The constant hidden in
the O(.) is not published, so this is a *hardness*: a number that orders matrices, not a
regret constant, and it has no conversion to 000's unit (002 Theorem 5 gives only the O(.) form).

>>> r = scb_hardness([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
>>> round(r.value, 4), r.unit, r.value_in_000_unit    # 775/9
(86.1111, 'hardness (no unit)', None)
"""

from __future__ import annotations

import math

import numpy as np

from ..matrix import MatrixLike, as_preference_matrix
from ..registry import Context, register_constant
from ..result import Result
from ..units import UNIT_HARDNESS

__all__ = ["scb_hardness"]

SCB = register_constant(
    "scb_hardness",
    unit=UNIT_HARDNESS,
    source="Zoghi et al. 2015 (002), Theorem 5 (Lemma 6, Definition 4, epsilon = 0)",
    order=50,
)


def scb_hardness(matrix: MatrixLike) -> Result:
    """SCB's hardness ``(1/K) sum_i H_i (1 - cpld_i) / Delta_i^2`` (002, Theorem 5, Definition 4).

    Paper 002, Theorem 5 (and Lemma 6 with epsilon = 0).  The value multiplies ``log T``
    inside an ``O(.)``: it is reported as a hardness with no unit and
    ``value_in_000_unit = None``.  ``extra`` holds the per-arm ``H_i``, ``Delta_i``,
    ``cpld_i``, ``H_1 = max_i H_i`` and Theorem 5's coarser form
    ``K (L_C + ln K) / Delta_min^2`` (also only up to a constant factor).

    A Condorcet winner contributes 0 (``1 - cpld = 0``); every other arm's ``Delta_i`` is at
    least ``1/(K - 1)``.

    >>> r = scb_hardness([[0.5, 0.6, 0.3], [0.4, 0.5, 0.8], [0.7, 0.2, 0.5]])  # 3-cycle
    >>> round(r.value, 4)                                                     # 4900/27
    181.4815
    """
    pm = as_preference_matrix(matrix)
    K = pm.K
    cpld = np.asarray(pm.copeland_scores, dtype=float)
    delta_i = np.maximum(cpld.max() - cpld, 1.0 / (K - 1))
    g2 = pm.gap**2
    with np.errstate(divide="ignore"):
        inv = np.where(np.eye(K, dtype=bool), 0.0, 1.0 / np.where(g2 > 0, g2, 1.0))
    H = inv.sum(axis=1)
    value = float(np.sum(H * (1.0 - cpld) / delta_i**2) / K)
    L_C = int(pm.L_sorted[0])
    return SCB.result(
        value,
        extra={
            "H": H.tolist(),
            "H_1": float(H.max()),
            "Delta_i": delta_i.tolist(),
            "cpld": cpld.tolist(),
            "L_C": L_C,
            "coarse_form": K * (L_C + math.log(K)) / pm.min_gap**2,
            "note": "O(.) only: the constant factor of Theorem 5 is not published",
        },
    )


@SCB
def _scb_row(ctx: Context) -> Result:
    return scb_hardness(ctx.pm)
