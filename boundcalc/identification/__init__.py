"""Fixed-confidence identification of the Copeland or Condorcet winner.

* :mod:`~boundcalc.identification.bound` -- the exact constant ``T*(mu)`` (duels per
  ``ln(1/delta)``) and its optimal allocation ``w*``, from the LP core;
"""

from .bound import MODELS, check_delta, duels_to_identify, identification_bound, kl_confidence

__all__ = ["identification_bound", "MODELS", "kl_confidence", "duels_to_identify", "check_delta"]
