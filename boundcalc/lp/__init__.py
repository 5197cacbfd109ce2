"""The optimisation core shared by offline bounds and online policies (paper 000, Sec. 3-4).

* :mod:`~boundcalc.lp.structure` -- the Copeland structure (who beats whom), empirical ties;
* :mod:`~boundcalc.lp.constraints` -- the families ``R_{i1}`` and ``R^E_{i1}``: enumeration, the vectorised
  separation oracle (compiled twins of the hot spots: :mod:`boundcalc.kernels.lp`), check (3);
* :mod:`~boundcalc.lp.highs` -- the incremental LP on HiGHS (fallbacks, Lagrangian bound);
* :mod:`~boundcalc.lp.lifted` -- one winner's model: plain 0/1 rows, or sorted pools;
* :mod:`~boundcalc.lp.cutting` -- the cutting plane's pieces: costs, the certificate, check (3)'s answer, and
  :func:`check_conditioning` (near ties: :data:`MIN_SOLVABLE_GAP`);
* :mod:`~boundcalc.lp.rule` -- which model and backend solve the LP, by use and K (one table);
* :mod:`~boundcalc.lp.online` -- :class:`CopelandLPSolver`, kept warm between solves (``lower_bound``, the
  bootstrap, CW-RMED's line 11), and the one description of the LP it solves, which model runs when, and why;
* :mod:`~boundcalc.lp.full` -- the whole LP through cvxpy (reference, small K);
* :mod:`~boundcalc.lp.ecw` -- Theorem 5's closed form.
"""

from .constraints import CopelandFamily, ECWFamily, RowBlock, TooLargeError
from .cutting import MIN_SOLVABLE_GAP, Conditioning, Violation, check_conditioning
from .ecw import ecw_allocation, ecw_bound, ecw_empirical
from .full import ecw_enumerate, lower_bound_enumerate
from .highs import CoveringLP, SolverError
from .lifted import CopelandModel
from .online import CopelandLPSolver
from .structure import Structure, check_regret, empirical_mu, empirical_structure

__all__ = [
    "CopelandFamily",
    "ECWFamily",
    "RowBlock",
    "TooLargeError",
    "CopelandLPSolver",
    "Violation",
    "MIN_SOLVABLE_GAP",
    "Conditioning",
    "check_conditioning",
    "CopelandModel",
    "ecw_bound",
    "ecw_empirical",
    "ecw_allocation",
    "ecw_enumerate",
    "lower_bound_enumerate",
    "CoveringLP",
    "SolverError",
    "Structure",
    "check_regret",
    "empirical_mu",
    "empirical_structure",
]
