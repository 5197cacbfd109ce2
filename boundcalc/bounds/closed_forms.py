"""Closed-form upper bounds on the ECW-RMED constant (Komiyama, Honda & Nakagawa, ICML 2016 = 000, Sec. 4.4).

000 Sec. 4.4 compares ECW-RMED with CCB.  With ``Delta = min_{i != j} |mu_ij - 1/2|`` and
``L_1`` the number of losses of a Copeland winner, the feasible point of ``R^E*_{i1}``

    ``q_ij d(mu_ij) = 1`` for ``i = i1, j in I_{i1}``;
    ``= 1/(L_{i2} - L_1 + 1)`` for ``i = i2, j in S_{i2} minus {i1}``; 0 otherwise,

costs at most (every ``r_ij <= 1`` in 000's unit and every ``d(mu_ij) >= d(1/2 + Delta)``)

    (11)  ``min_{i1} C^E*_{i1} <= 1/d(1/2 + Delta, 1/2) * sum_{i2 != i1} (1 + L_{i2} / (L_{i2} - L_1 + 1))``,

and maximising (11) over the ``L_{i2}`` with ``L_1 <= L_{i2} <= K``, ``sum L_{i2} <= K^2/2``, 000 states

    (12)  ``min_{i1} C^E*_{i1} <= K/d(1/2 + Delta, 1/2) * ((L_1 + 3)/2 + L_1^2/K)``.

Both are in 000's regret unit.  (11) has the same value for every Copeland winner ``i1``
(the winners share ``L_1``), so no choice is involved.

Caveat: the step from (11) to (12) fails when ``L_1 = 0``.  The term ``L/(L - L_1 + 1)``
increases in ``L`` when ``L_1 = 0`` (it is ``1 - 1/(L + 1)``), so for Condorcet matrices (11)
approaches ``2(K - 1)/d`` while (12) is ``1.5 K/d``: every tournament with ``K <= 6`` satisfies
(11) <= (12), and counterexamples with ``L_1 = 0`` start at ``K = 7`` (the transitive 8-arm
tournament: 12.28/d against 12/d).  For ``L_1 >= 1`` the ordering holds: with the exact total
``sum_{i2 != i1} L_{i2} = K(K - 1)/2 - L_1`` (000's ``<= K^2/2`` is too weak for it), the
term is constant (``L_1 = 1``) or convex (``L_1 >= 2``) in ``L``, so (11) is largest at a
vertex of ``{L_1 <= L_{i2} <= K - 1}`` with that sum, and enumerating the vertices gives
(11) <= (12) for every ``L_1 >= 1`` and ``K <= 400``.  (12) still bounds ``min C^E*`` when
``L_1 = 0``: with a Condorcet winner ``R^E`` has no ``i2`` rows (the pool
``S_{i2} minus {i1}`` has ``L_{i2} - 1 < L_{i2} + 1`` arms), so
``C^E* = sum_j r_{1j}/d(mu_1j) <= sum_j L_j / (2 (K - 1) d) = K/(4 d) < 1.5 K/d``.
``ecw_eq12(...).extra["above_eq11"]`` records whether the ordering holds.

>>> m = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]
>>> round(ecw_eq11(m).value, 2), round(ecw_eq12(m).value, 2)   # (19/6)/d(0.6), 4.5/d(0.6)
(157.27, 223.49)
"""

from __future__ import annotations

import numpy as np

from ..matrix import MatrixLike, PreferenceMatrix, as_preference_matrix, kl_half
from ..registry import Context, register_constant
from ..result import Result
from ..units import UNIT_000

__all__ = ["ecw_eq11", "ecw_eq12"]

SOURCE = "Komiyama, Honda & Nakagawa 2016 (000), Sec. 4.4"

EQ11 = register_constant("ecw_eq11", unit=UNIT_000, source=SOURCE + ", eq. (11) (upper bound on min C^E*)", order=110)
EQ12 = register_constant("ecw_eq12", unit=UNIT_000, source=SOURCE + ", eq. (12) (upper bound on min C^E*)", order=120)


def _common(pm: PreferenceMatrix) -> tuple[float, float, int]:
    delta = pm.min_gap
    d = float(kl_half(0.5 + delta))
    return delta, d, int(pm.L_sorted[0])


def _eq11_sum(pm: PreferenceMatrix, L_1: int) -> float:
    i1 = int(pm.copeland_winners[0])
    L = np.delete(pm.L.astype(float), i1)
    return float(np.sum(1.0 + L / (L - L_1 + 1.0)))


def ecw_eq11(matrix: MatrixLike) -> Result:
    """000 eq. (11): ``1/d(1/2+Delta, 1/2) * sum_{i2 != i1} (1 + L_{i2}/(L_{i2} - L_1 + 1))``.

    Paper 000, Sec. 4.4, eq. (11): an upper bound on ``min_{i1} C^E*_{i1}`` (ECW-RMED's
    ``ln T`` coefficient, Theorem 5) from one explicit feasible point of ``R^E*_{i1}``.
    ``Delta = Delta_min`` (000's own definition in Sec. 4.4), ``L_1 = L(1)``, ``i1`` any
    Copeland winner (all give the same sum).  Unit: 000's regret per ln T.

    >>> r = ecw_eq11([[0.5, 0.6, 0.3], [0.4, 0.5, 0.8], [0.7, 0.2, 0.5]])  # 3-cycle, L_1 = 1
    >>> round(r.value, 2), r.value == r.value_in_000_unit                    # (2 + 2)/d(0.6)
    (198.65, True)
    """
    pm = as_preference_matrix(matrix)
    delta, d, L_1 = _common(pm)
    s = _eq11_sum(pm, L_1)
    value = s / d
    return EQ11.result(value, extra={"delta": delta, "d_half_plus_delta": d, "L_1": L_1, "sum_term": s})


def ecw_eq12(matrix: MatrixLike) -> Result:
    """000 eq. (12): ``K/d(1/2+Delta, 1/2) * ((L_1 + 3)/2 + L_1^2/K)``.

    Paper 000, Sec. 4.4, eq. (12): 000's L-free relaxation of (11), an upper bound on
    ``min_{i1} C^E*_{i1}`` in 000's regret unit, ``Delta = Delta_min``, ``L_1 = L(1)``.
    See the module note: (12) >= (11) fails for some Condorcet matrices with ``K >= 7``;
    ``extra["above_eq11"]`` says whether it holds for this matrix.

    >>> r = ecw_eq12([[0.5, 0.6, 0.3], [0.4, 0.5, 0.8], [0.7, 0.2, 0.5]])  # 3/d * (2 + 1/3)
    >>> round(r.value, 2), r.extra["above_eq11"]
    (347.64, True)
    """
    pm = as_preference_matrix(matrix)
    delta, d, L_1 = _common(pm)
    K = pm.K
    value = K / d * ((L_1 + 3) / 2.0 + L_1**2 / K)
    eq11 = _eq11_sum(pm, L_1) / d
    return EQ12.result(
        value, extra={"delta": delta, "d_half_plus_delta": d, "L_1": L_1, "above_eq11": bool(value >= eq11)}
    )


@EQ11
def _eq11_row(ctx: Context) -> Result:
    return ecw_eq11(ctx.pm)


@EQ12
def _eq12_row(ctx: Context) -> Result:
    return ecw_eq12(ctx.pm)
