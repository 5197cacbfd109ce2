"""A computable hardness for SAVAGE (Urvoy, Clerot, Feraud & Naamane, ICML 2013 = paper 003).

003 analyses SAVAGE ("Sensitivity Analysis of VAriables for Generic Exploration") as a
generic explorer of ``N = K(K - 1)/2`` parameters (the preferences ``p_ij``, ``i < j``); its
Copeland sample complexity is a sum over the parameters of ``O(ln(N T/delta) / Delta_i^2)``,
i.e. ``O(K^2 log T)``.  The paper's own constants and per-parameter gaps could not be read
from the available copy (only its structure is), so boundcalc reports
the defensible computable hardness ``sum_{i<j} 1/Delta_ij^2`` with ``Delta_ij = |p_ij - 1/2|``:
the sample-complexity structure with every parameter charged its own gap to 1/2.  It is a
hardness, not a regret constant, and has no unit.

>>> r = savage_hardness([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
>>> round(r.value, 4), r.unit                  # 1/0.1**2 + 1/0.2**2 + 1/0.3**2 = 1225/9
(136.1111, 'hardness (no unit)')
"""

from __future__ import annotations

import numpy as np

from ..matrix import MatrixLike, as_preference_matrix
from ..registry import Context, register_constant
from ..result import Result
from ..units import UNIT_HARDNESS

__all__ = ["savage_hardness"]

SAVAGE = register_constant(
    "savage_hardness",
    unit=UNIT_HARDNESS,
    source="Urvoy et al. 2013 (003), Copeland SAVAGE sample complexity (structure only)",
    order=130,
)


def savage_hardness(matrix: MatrixLike) -> Result:
    """``sum_{i<j} 1/Delta_ij^2`` -- SAVAGE's (003) sample-complexity structure as a hardness.

    Paper 003 (Urvoy et al. 2013), the Copeland sample-complexity bound
    ``sum over the K(K-1)/2 parameters of O(ln(N T/delta)/Delta^2)``; labelled
    ``"sum_{i<j} 1/Delta_ij^2"`` in ``extra["label"]``.  No regret unit, no conversion to
    000's unit.

    >>> savage_hardness([[0.5, 0.75], [0.25, 0.5]]).value     # 1/0.25**2
    16.0
    """
    pm = as_preference_matrix(matrix)
    iu = np.triu_indices(pm.K, 1)
    value = float(np.sum(1.0 / pm.gap[iu] ** 2))
    return SAVAGE.result(
        value,
        extra={
            "label": "sum_{i<j} 1/Delta_ij^2",
            "n_parameters": int(iu[0].size),
            "note": "boundcalc's computable reading of an O(.) bound; not a regret constant",
        },
    )


@SAVAGE
def _savage_row(ctx: Context) -> Result:
    return savage_hardness(ctx.pm)
