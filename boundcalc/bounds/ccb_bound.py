"""CCB's regret constant (Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015 = paper 002, Theorem 3).

Theorem 3 of 002: for any delta > 0 and alpha > 0.5, with probability 1 - delta the regret of
CCB is at most ``A(1) + A(2) sqrt(ln T) + 2 K (C + L_C + 1) / Delta^2 * ln T``, where ``C`` is
the number of Copeland winners and ``L_C`` the number of arms that beat a Copeland winner.
The coefficient of ``ln T`` is reported here, in 002's regret unit
(``2 cpld(a_1) - cpld(a_i) - cpld(a_j)``, twice 000's), so in 000's unit it is
``K (C + L_C + 1) / Delta^2``.

``Delta`` is "a notion of gap defined in Appendix E, which is an improvement upon the smallest
gap between any pair of arms" (002 Sec. 5.1); the appendix is not in the available copy
(so the gap is a reading, not a transcription).  Two readings are offered:

* :func:`ccb` -- ``Delta_min = min_{i != j} |p_ij - 1/2|``.  This is the ``Delta`` of 000
  Sec. 4.4 eq. (10) (000's footnote: "a little bit looser than the one in the original
  bound"), so the value is an upper bound on CCB's constant under any reading of Appendix E.
  Default.  With 002's constant halved to 000's unit it comes within 4 % of 000 Table 1's CCB
  column on the MSLR submatrices -- consistent with, not a confirmation of, this reading:
  000's footnote says Table 1 used "the original regret bound", and 000 does not say whether
  it converted the unit.
* :func:`ccb_delta_z` -- ``Delta_Z`` (:func:`delta_z`), a reading of the Appendix E gap from 002's
  description of it (Sec. 5.1: "an improvement upon the smallest gap between any pair of
  arms"): the smallest gap a Copeland winner has, and, for every
  non-winner, the ``(L_C + 1)``-th smallest gap to the arms that beat it.  ``Delta_Z >=
  Delta_min`` always, with equality on Condorcet matrices.  It is one reading, unverified:
  Appendix E is not in the available copy, and a plausible alternative takes the
  ``(L_C + 1)``-th *largest* gap (a non-winner is shown to have ``L_C + 1`` losses most
  cheaply through its easiest superiors; 002 Sec. 4.1's "strong opponents" ``B_i^t``), which
  is much larger on the MSLR submatrices (mean CCB about 2.6 times smaller).  Treat the row
  as a sensitivity check, not as 002's constant.

>>> m = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]
>>> r = ccb(m)
>>> round(r.value), round(r.value_in_000_unit)   # 2*3*(1+0+1)/0.1**2, 3*(1+0+1)/0.1**2
(1200, 600)
"""

from __future__ import annotations

import numpy as np

from ..matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from ..registry import ConstantSpec, Context, register_constant
from ..result import Result
from ..units import UNIT_002

__all__ = ["ccb", "ccb_delta_z", "delta_z"]

SOURCE = "Zoghi et al. 2015 (002), Theorem 3"
_FORMULA = " (ln T coefficient 2K(C+L_C+1)/Delta^2; Delta = {})"

CCB = register_constant("ccb", unit=UNIT_002, source=SOURCE + _FORMULA.format("Delta_min"), order=30)
CCB_DELTA_Z = register_constant("ccb_delta_z", unit=UNIT_002, source=SOURCE + _FORMULA.format("Delta_Z"), order=40)


def delta_z(matrix: MatrixLike) -> float:
    """The ``Delta_Z`` reading of 002's Appendix E gap (a reading: that appendix is not in our copy).

    ``Delta_Z = min( min_{c in C*, j != c} Delta_cj,
    min_{i not in C*} (L_C + 1)-th smallest of {Delta_ij : j beats i} )``
    with ``Delta_ij = |p_ij - 1/2|``.  A non-winner ``i`` loses to ``L_i >= L_C + 1`` arms, so
    the order statistic exists.  On a Condorcet matrix (``L_C = 0``) every pair either involves
    the winner or is the loser's own smallest-gap candidate, hence ``Delta_Z = Delta_min``.

    >>> m = [[.5, .6, .3, .7], [.4, .5, .8, .9], [.7, .2, .5, .45], [.3, .1, .55, .5]]
    >>> round(delta_z(m), 12), round(PreferenceMatrix(m).min_gap, 12)  # 0.05 is arm 2's 1st superior gap
    (0.1, 0.05)
    """
    pm = as_preference_matrix(matrix)
    gap = pm.gap
    K = pm.K
    winners = pm.copeland_winners
    L_C = int(pm.L_sorted[0])
    off = ~np.eye(K, dtype=bool)
    cands = [float(gap[c][off[c]].min()) for c in winners]
    is_winner = np.zeros(K, dtype=bool)
    is_winner[winners] = True
    for i in np.flatnonzero(~is_winner):
        sup_gaps = np.sort(gap[pm.superiors(int(i)), i])
        cands.append(float(sup_gaps[L_C]))
    return float(min(cands))


def _ccb(pm: PreferenceMatrix, spec: ConstantSpec, delta: float, reading: str) -> Result:
    K, C, L_C = pm.K, pm.n_winners, int(pm.L_sorted[0])
    value = 2.0 * K * (C + L_C + 1) / delta**2
    return spec.result(value, extra={"delta": float(delta), "delta_reading": reading, "K": K, "C": C, "L_C": L_C})


def ccb(matrix: MatrixLike) -> Result:
    """CCB's ``ln T`` coefficient ``2 K (C + L_C + 1) / Delta_min^2`` (002, Theorem 3).

    Paper 002 (Zoghi et al., NIPS 2015), Theorem 3, the high-probability bound
    ``A(1) + A(2) sqrt(ln T) + 2K(C + L_C + 1)/Delta^2 ln T``; the additive constants are not
    published in closed form and are not reported.  Reading: ``Delta = Delta_min =
    min_{i != j} |p_ij - 1/2|`` (000 Sec. 4.4 eq. (10); within 4 % of 000 Table 1's CCB column
    in 000's unit, consistent with this reading but not a confirmation of it: see the module text).

    Unit: 002's regret (twice 000's); ``value_in_000_unit = K (C + L_C + 1) / Delta_min^2``.

    >>> r = ccb([[0.5, 0.6, 0.3], [0.4, 0.5, 0.8], [0.7, 0.2, 0.5]])  # 3-cycle: C = 3, L_C = 1
    >>> round(r.value), r.unit                                        # 2*3*(3+1+1)/0.1**2
    (3000, "002 regret (2x 000's) per ln T")
    """
    pm = as_preference_matrix(matrix)
    return _ccb(pm, CCB, pm.min_gap, "Delta_min")


def ccb_delta_z(matrix: MatrixLike) -> Result:
    """CCB's ``ln T`` coefficient ``2 K (C + L_C + 1) / Delta_Z^2`` (002, Theorem 3, Appendix E gap).

    Same bound as :func:`ccb` with the ``Delta_Z`` reading of 002's Appendix E gap
    (:func:`delta_z`); never larger than :func:`ccb`, equal to it on Condorcet matrices.

    Unit: 002's regret (twice 000's); ``value_in_000_unit = K (C + L_C + 1) / Delta_Z^2``.

    >>> m = [[.5, .6, .3, .7], [.4, .5, .8, .9], [.7, .2, .5, .45], [.3, .1, .55, .5]]
    >>> round(ccb_delta_z(m).value), round(ccb(m).value)   # 32/0.1**2 against 32/0.05**2
    (3200, 12800)
    """
    pm = as_preference_matrix(matrix)
    return _ccb(pm, CCB_DELTA_Z, delta_z(pm), "Delta_Z")


@CCB
def _ccb_row(ctx: Context) -> Result:
    return ccb(ctx.pm)


@CCB_DELTA_Z
def _ccb_delta_z_row(ctx: Context) -> Result:
    return ccb_delta_z(ctx.pm)
