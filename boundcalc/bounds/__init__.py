"""Every published constant of the comparison, one module each (FORMULAS.md)."""

from .ccb import ccb, ccb_delta_z
from .closed_forms import ecw_eq11, ecw_eq12
from .compare import COMPARE_KEYS, Comparison, compare
from .dts import dts_prop1, dts_thm1, dts_thm1_loglog
from .lower_bound import ecw_bound, lower_bound
from .rmed import rmed1, rmed_lb, rmed_regret_matrix
from .savage import savage_hardness
from .scb import scb_hardness
from .units import Constant

__all__ = [
    "lower_bound", "ecw_bound", "ccb", "ccb_delta_z", "scb_hardness", "dts_prop1", "dts_thm1",
    "dts_thm1_loglog", "rmed_lb", "rmed1", "rmed_regret_matrix", "ecw_eq11", "ecw_eq12",
    "savage_hardness", "Constant", "compare", "Comparison", "COMPARE_KEYS",
]
