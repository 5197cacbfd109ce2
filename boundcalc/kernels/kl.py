"""The one compiled ``KL(p, 1/2)``, read by the LP core's empirical structure
(:func:`boundcalc.kernels.lp.kl_structure`) and by every policy that weighs a count by its
divergence (RMED1/2, D-TS, the Copeland RMED family).

>>> round(kl_half(0.9), 6), kl_half(1.0) == kl_half(0.0)
(0.368064, True)
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["kl_half"]


@njit(cache=True, nogil=True)
def kl_half(p):
    """``d(p) = KL(p, 1/2) = p log(2p) + (1 - p) log(2(1 - p))`` (paper 000 Sec. 2), evaluated as
    ``x atanh(x) + log1p(-x^2) / 2`` with ``x = 2p - 1`` (full relative accuracy near a tie), ``log 2``
    at ``p`` in {0, 1}: what :func:`boundcalc.matrix.kl_half` computes in numpy, bit for bit."""
    x = 2.0 * p - 1.0
    if abs(x) >= 1.0:
        return math.log(2.0)
    return x * math.atanh(x) + 0.5 * math.log1p(-x * x)
