"""Every published constant, one module each (cited by paper, theorem and equation); each module
registers its constants.

=================  ==========================================================================
module             constants (registered keys of :mod:`boundcalc.registry`)
=================  ==========================================================================
``exact``          000 Theorem 2 :func:`lower_bound` (LP), Theorem 5 :func:`ecw_bound`
``ccb_bound``      002 Theorem 3: :func:`ccb`, :func:`ccb_delta_z`
``scb``            002 Theorem 5: :func:`scb_hardness`
``dts``            001: :func:`dts_prop1`, :func:`dts_thm1`, :func:`dts_thm1_loglog`
``rmed``           RMED (COLT 2015): :func:`rmed_lb`, :func:`rmed1`
``closed_forms``   000 Sec. 4.4: :func:`ecw_eq11`, :func:`ecw_eq12`
``savage``         003: :func:`savage_hardness`
``baselines``      IF2 (Yue et al. 2012), WS-S (Chen & Frazier 2017), Versatile-DB (Saha & Gaillard
                   2022), MergeRUCB (Zoghi et al. 2015), Beat-the-Mean (Yue & Joachims 2011),
                   Doubler (Ailon et al. 2014), order only: :func:`if2_hardness`,
                   :func:`ws_s_hardness`, :func:`versatile_db_hardness`, :func:`merge_rucb_order`,
                   :func:`btm_order`, :func:`doubler_order`
=================  ==========================================================================

No module shares its name with a function, so ``boundcalc.bounds.<module>`` is always the
module.  :func:`boundcalc.compare` (in :mod:`boundcalc.comparison`, above this package and
:mod:`boundcalc.cpe`) assembles the registered constants into one table.
"""

from .baselines import btm_order, doubler_order, if2_hardness, merge_rucb_order, versatile_db_hardness, ws_s_hardness
from .ccb_bound import ccb, ccb_delta_z, delta_z
from .closed_forms import ecw_eq11, ecw_eq12
from .dts import dts_assumption2, dts_prop1, dts_thm1, dts_thm1_loglog, dts_thm1_rows
from .exact import ecw_bound, lower_bound
from .rmed import rmed1, rmed_lb, rmed_regret_matrix
from .savage import savage_hardness
from .scb import scb_hardness

__all__ = [
    "lower_bound",
    "ecw_bound",
    "ccb",
    "ccb_delta_z",
    "delta_z",
    "scb_hardness",
    "dts_prop1",
    "dts_thm1",
    "dts_thm1_loglog",
    "dts_thm1_rows",
    "dts_assumption2",
    "rmed_lb",
    "rmed1",
    "rmed_regret_matrix",
    "ecw_eq11",
    "ecw_eq12",
    "savage_hardness",
    "if2_hardness",
    "ws_s_hardness",
    "versatile_db_hardness",
    "merge_rucb_order",
    "btm_order",
    "doubler_order",
]
