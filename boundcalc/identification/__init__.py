"""Fixed-confidence identification of the Copeland or Condorcet winner.

* :mod:`~boundcalc.identification.bound` -- the exact constant ``T*(mu)`` (duels per
  ``ln(1/delta)``) and its optimal allocation ``w*``, from the LP core;
* :mod:`~boundcalc.identification.tracking` -- Track-and-Stop with a delta-correct
  stopping rule computed by the LP core's sorting oracle;
* :mod:`~boundcalc.identification.algorithms` -- the registry of identification algorithms
  (Track-and-Stop, Knockout, DKWT, 004's CAR-Cond);
* :mod:`~boundcalc.identification.runs` -- :func:`identify`, many runs through the runner.
"""

from .algorithms import ALGORITHMS
from .bound import MODELS, check_delta, duels_to_identify, identification_bound, kl_confidence
from .runs import IdentificationRuns, identify
from .tracking import track_and_stop

__all__ = [
    "identification_bound",
    "MODELS",
    "kl_confidence",
    "duels_to_identify",
    "check_delta",
    "track_and_stop",
    "ALGORITHMS",
    "identify",
    "IdentificationRuns",
]
