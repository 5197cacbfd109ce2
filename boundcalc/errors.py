"""The error every reader and validator of a preference matrix raises (the lowest layer: it
imports nothing, so the bounded reader :mod:`boundcalc.io` and :mod:`boundcalc.matrix` share it).

>>> import boundcalc as bc
>>> try:
...     bc.PreferenceMatrix([[0.5, 0.7], [0.7, 0.5]])
... except ValueError as exc:
...     print(type(exc).__name__, str(exc).split(":")[0])
PreferenceMatrixError mu[0,1] + mu[1,0] = 0.7 + 0.7 = 1.4, not 1 (tolerance atol=1e-08)
"""

from __future__ import annotations

__all__ = ["PreferenceMatrixError"]


class PreferenceMatrixError(ValueError):
    """A preference matrix failed validation; the message names the problem and entry."""
