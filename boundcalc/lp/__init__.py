"""The optimisation core shared by offline bounds and online policies (paper 000, Sec. 3-4)."""

from .constraints import CopelandFamily, ECWFamily, TooLargeError
from .cutting import CopelandLPSolver
from .ecw import ecw_bound
from .full import ecw_enumerate, lower_bound_enumerate
from .highs import CoveringLP, SolverError

__all__ = ["CopelandFamily", "ECWFamily", "TooLargeError", "CopelandLPSolver", "ecw_bound",
           "ecw_enumerate", "lower_bound_enumerate", "CoveringLP", "SolverError"]
