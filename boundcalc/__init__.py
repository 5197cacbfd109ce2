"""boundcalc: exact regret constants of dueling bandits.

The exact Copeland regret lower bound of Komiyama, Honda & Nakagawa (ICML 2016, Theorem 2)
by a cutting-plane loop over HiGHS, the ECW-RMED constant (Theorem 5), and the published
hardness constants of the field for comparison.
"""

from .matrix import PreferenceMatrix, PreferenceMatrixError, as_preference_matrix, kl_half, kl_bernoulli
from .result import BoundResult, Certificate
from .bounds.lower_bound import lower_bound, ecw_bound
from .bounds.compare import compare, Comparison
from .lp.cutting import CopelandLPSolver
from .lp.highs import SolverError
from .datasets import load_example

__version__ = "0.1.0"

__all__ = [
    "PreferenceMatrix",
    "PreferenceMatrixError",
    "as_preference_matrix",
    "kl_half",
    "kl_bernoulli",
    "BoundResult",
    "Certificate",
    "lower_bound",
    "ecw_bound",
    "compare",
    "Comparison",
    "CopelandLPSolver",
    "SolverError",
    "load_example",
]
