"""``KL(p, 1/2)`` under the name the LP core imports (:func:`boundcalc.kernels.lp.kl_structure`):
the one compiled :func:`boundcalc.kernels.stats.kl_half`.

>>> from boundcalc.kernels import stats
>>> kl_half is stats.kl_half
True
"""

from __future__ import annotations

from .stats import kl_half

__all__ = ["kl_half"]
