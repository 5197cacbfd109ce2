"""boundcalc: exact regret constants of dueling bandits.

The exact Copeland regret lower bound of Komiyama, Honda & Nakagawa (ICML 2016, Theorem 2)
by a cutting-plane loop over HiGHS, the ECW-RMED constant (Theorem 5), and the published
hardness constants of the field for comparison.

Every constant is a :class:`Result` (an LP bound a :class:`BoundResult`); each bound module
registers its constant (:mod:`boundcalc.registry`) and :func:`compare` (in
:mod:`boundcalc.comparison`) reads the registry.
"""

from .bounds.exact import ecw_bound, lower_bound
from .comparison import COMPARE_KEYS, Comparison, compare
from .datasets import load_example
from .identification import identification_bound
from .lp.highs import SolverError
from .lp.online import CopelandLPSolver
from .matrix import PreferenceMatrix, PreferenceMatrixError, as_preference_matrix, kl_bernoulli, kl_half
from .result import BoundResult, Certificate, Result
from .uncertainty import bootstrap

try:  # one version source: pyproject.toml, read back from the installed distribution
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    __version__ = _version("boundcalc")
except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path, never installed
    __version__ = "0+unknown"

__all__ = [
    "PreferenceMatrix",
    "PreferenceMatrixError",
    "as_preference_matrix",
    "kl_half",
    "kl_bernoulli",
    "Result",
    "BoundResult",
    "Certificate",
    "lower_bound",
    "ecw_bound",
    "compare",
    "Comparison",
    "COMPARE_KEYS",
    "CopelandLPSolver",
    "SolverError",
    "load_example",
    "bootstrap",
    "identification_bound",
]
